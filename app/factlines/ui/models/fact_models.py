"""Qt models adapting the store: one entity's facts (the entity listing is in
:mod:`factlines.ui.models.entity_listing`, imported here too).

Neither keeps state of its own beyond what it shows: the selection and ``as_of`` live in
:class:`~factlines.ui.session.state.AppState`. The fact model holds the selected entity's
facts and only restyles them when ``as_of`` moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont

from factlines.core.columns import BY_NAME, COLUMNS
from factlines.core.errors import Refused, Unavailable
from factlines.core.store import describe
from factlines.core.store.intervals import InOrder, column_reader
from factlines.ui.look import style
from factlines.ui.look.fact_memory import memory_lines
from factlines.ui.look.fact_story import fact_story, story_lines
from factlines.ui.models import cell_edits
from factlines.ui.models.entity_listing import EntityModel
from factlines.ui.models.roles import (
    ALIGNMENT,
    BACKGROUND,
    DISPLAY,
    EDIT,
    ENTITY_ID_ROLE,
    FACT_ID_ROLE,
    FONT,
    FOREGROUND,
    OTHER_ID_ROLE,
    RIGHT,
    ROOT,
    TOOLTIP,
    VALID_ROLE,
    Index,
    clear_span,
    fill_span,
)
from factlines.ui.session.entity_facts import FactsPatch
from factlines.ui.session.state import AppState

__all__ = [
    "COLUMN",
    "ENTITY_ID_ROLE",
    "FACT_COLUMNS",
    "FACT_ID_ROLE",
    "OTHER_ID_ROLE",
    "VALID_ROLE",
    "EntityModel",
    "FactFilterProxy",
    "FactModel",
]


# The facts table's columns: (key, header, editable); after whom the fact links, the fact's
# columns as the registry shows them.
FACT_COLUMNS = (
    ("direction", "", False),
    ("predicate", BY_NAME["predicate"].header, True),
    ("other_name", "Other entity", False),
    *((c.name, c.header, c.editable) for c in COLUMNS if c.header and c.name != "predicate"),
)
COLUMN = {key: number for number, (key, _, _) in enumerate(FACT_COLUMNS)}
# The cells whose stored value is shown marked (in italics) when the rules do not accept it.
_ODD = {
    "valid_from": style.is_odd_time,
    "valid_to": style.is_odd_time,
    "confidence": lambda value: value is not None and not style.is_number(value),
}
_FACT_COUNT = len(FACT_COLUMNS)
# What a restyle changes: the look of a row, and whether it is valid (the hide filter's role).
_RESTYLED = [Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole, VALID_ROLE]


class _Ordered(NamedTuple):
    """The rows in a sort order: the order (``sort``), each row's position in the state's
    facts (``source``), the rows' fact ids, and each fact's row by id."""

    sort: tuple
    source: np.ndarray
    ids: list[str]
    row_of: dict[str, int]


class FactModel(QAbstractTableModel):
    """The selected entity's facts in both directions; edits go through ``edit`` (undoable).

    ``edit(triple_id, **{field: value}) -> bool`` applies one validated change as an undoable
    edit (``FactActions.update_fact``); ``refused`` carries the reason a typed value was not
    accepted (nothing is written then).
    """

    refused = Signal(str)

    def __init__(self, state: AppState, edit=None, parent=None):
        super().__init__(parent)
        self._state = state
        # A hub's rows are put in order where its facts are read, off the UI thread.
        state.prepare_with(self, lambda _kg, facts: self._ordered(facts.facts))
        self._edit = edit
        # The rows: the state's facts (``_table``) in this model's order, by their ids.
        self._table: Sequence[dict] = []
        self._ids: list[str] = []
        self._facts: Sequence[dict] = []
        self._valid = np.zeros(0, dtype=bool)  # by row, read from the state's mask
        self._source = np.zeros(0, dtype=np.int64)  # row -> position in the state's facts
        self._row_of_source = np.zeros(0, dtype=np.int64)  # and back
        self._conflicts: dict[str, list[dict]] = {}
        self._row_of: dict[str, int] = {}
        self._sort = (COLUMN["predicate"], Qt.SortOrder.AscendingOrder)
        self._bold = QFont()
        self._bold.setBold(True)
        self._italic = QFont()
        self._italic.setItalic(True)
        self._link_font = QFont(self._bold)
        self._link_font.setUnderline(True)
        selectable = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        self._flags = tuple(
            selectable | Qt.ItemFlag.ItemIsEditable if editable and edit is not None else selectable
            for _key, _header, editable in FACT_COLUMNS
        )

    # Loading, patching and restyling
    def reload(self) -> None:
        """Show the selected entity's facts afresh (a reset: a new entity, or a full reload)."""
        # Read before the reset begins: a read that fails leaves the model as it was.
        facts = self._state.entity_facts()
        conflicts = self._state.conflicts_by_fact()
        ordered = self._state.prepared(self)
        if ordered is None or ordered.sort != self._sort:  # not made where they were read
            ordered = self._ordered(facts)
        self.beginResetModel()
        self._ids, self._conflicts = ordered.ids, conflicts
        self._map_to_state(ordered.source, ordered.row_of)
        self.endResetModel()

    def _ordered(self, facts: Sequence[dict]) -> _Ordered:
        order = self._sorted_positions(facts)
        ids = column_reader(facts)("id")
        ids = [ids[i] for i in order.tolist()]
        return _Ordered(self._sort, order, ids, {tid: row for row, tid in enumerate(ids)})

    def apply_patch(self, patch: FactsPatch) -> None:
        """Show a write: only the rows it touched change (inserted, removed, updated); the
        rows are re-sorted, as a layout change, only when their order changed."""
        if patch.reloaded:
            self.reload()
            return
        self._conflicts = self._state.conflicts_by_fact()
        for tid in patch.removed:
            row = self._row_of.pop(tid, None)
            if row is None:
                continue
            self.beginRemoveRows(ROOT, row, row)
            del self._ids[row]
            self._map_to_state()
            self.endRemoveRows()
        if patch.added:
            first = len(self._ids)
            self.beginInsertRows(ROOT, first, first + len(patch.added) - 1)
            self._ids += patch.added
            self._map_to_state()
            self.endInsertRows()
        if patch.added or not self._still_sorted(patch.changed):
            self._reorder(self._sorted_positions(self._table))
        elif patch.removed:
            self._map_to_state()
        else:  # the rows and the state's positions are as they were: only validity to read
            self._valid = self._state.valid_mask()[self._source]
        last = len(FACT_COLUMNS) - 1
        for tid in patch.changed:
            row = self._row_of.get(tid)
            if row is not None:
                self.dataChanged.emit(self.index(row, 0), self.index(row, last))

    def _map_to_state(
        self, source: np.ndarray | None = None, row_of: dict[str, int] | None = None
    ) -> None:
        """Where each row's fact is in the state's facts (``source`` when the caller knows),
        each fact's row (``row_of`` when known), and the rows' validity from the state's mask
        (the rule is evaluated once per as_of step, by the state)."""
        if row_of is None:
            row_of = {tid: row for row, tid in enumerate(self._ids)}
        self._row_of = row_of
        if source is None:
            index = self._state.fact_index
            source = np.fromiter(map(index, self._ids), dtype=np.int64, count=len(self._ids))
        self._table = self._state.entity_facts()
        self._source = source
        self._facts = InOrder(self._table, source)
        self._row_of_source = np.full(len(self._source), -1, dtype=np.int64)
        self._row_of_source[self._source] = np.arange(len(self._source))
        self._valid = self._state.valid_mask()[self._source]

    # Past this many runs of flipped rows, one signal over every row beats one per run.
    MAX_RUNS = 32

    def restyle(self) -> int:
        """``as_of`` moved: read the rows' validity from the state; no store query.

        Only the rows whose validity flipped are announced (most day steps flip none), so
        the view repaints just those cells, and a dynamic filter proxy re-tests just those
        rows. Returns how many rows flipped.
        """
        self._valid = self._state.valid_mask()[self._source]
        flipped = np.sort(self._row_of_source[self._state.flipped])
        if not flipped.size:
            return 0
        last = len(FACT_COLUMNS) - 1
        breaks = np.flatnonzero(np.diff(flipped) != 1)
        if breaks.size >= self.MAX_RUNS:
            runs = [(int(flipped[0]), int(flipped[-1]))]
        else:
            runs = zip(
                [int(flipped[0]), *flipped[breaks + 1].tolist()],
                [*flipped[breaks].tolist(), int(flipped[-1])],
            )
        for first, final in runs:
            self.dataChanged.emit(self.index(first, 0), self.index(final, last), _RESTYLED)
        return int(flipped.size)

    @property
    def valid_count(self) -> int:
        return int(np.count_nonzero(self._valid))

    def fact_at(self, row: int) -> dict | None:
        return self._facts[row] if 0 <= row < len(self._facts) else None

    def row_of(self, triple_id: str | None) -> int:
        return self._row_of.get(triple_id, -1) if triple_id else -1

    @property
    def conflict_count(self) -> int:
        """How many overlapping pairs among the entity's facts."""
        return len({(c["a"], c["b"]) for found in self._conflicts.values() for c in found})

    def conflicts_of(self, triple_id: str) -> list[dict]:
        return self._conflicts.get(triple_id, [])

    @property
    def facts(self) -> Sequence[dict]:
        return self._facts

    # Sorting (the model sorts its own rows: cheaper than a proxy's per-pair comparisons)
    def _sorted_positions(self, facts: Sequence[dict]) -> np.ndarray:
        """The positions of ``facts`` in this model's sort order: the sorted column's value
        (missing last, dates by their keys, text without case), then predicate, start, id;
        column-wise, each text key made once per distinct value, ids only where rows tie."""
        key_name = FACT_COLUMNS[self._sort[0]][0]
        field = {"valid_from": "start", "valid_to": "end"}.get(key_name, key_name)
        n = len(facts)
        column = column_reader(facts)
        values = column(field)
        ranks = style.order_ranks(values)
        keys = [
            np.fromiter((value is None for value in values), dtype=bool, count=n),
            ranks,
            ranks if field == "predicate" else style.order_ranks(column("predicate")),
            np.fromiter((start or 0.0 for start in column("start")), dtype=np.float64, count=n),
        ]
        id_ranks = style.id_ranks
        if self._sort[1] == Qt.SortOrder.DescendingOrder:  # still stable: ties keep their order
            keys = [~keys[0]] + [-key for key in keys[1:]]
            id_ranks = style.descending(style.id_ranks)
        return style.tie_order(keys, (column("id"), id_ranks))

    def _still_sorted(self, changed: list[str]) -> bool:
        """Whether the rows are still in order after ``changed`` rows took new values: each
        of them still sorts between its neighbours."""
        facts = self._facts
        for tid in changed:
            row = self._row_of.get(tid)
            if row is None:
                continue
            rows = [facts[r] for r in (row - 1, row, row + 1) if 0 <= r < len(facts)]
            if self._sorted_positions(rows).tolist() != list(range(len(rows))):
                return False
        return True

    def _reorder(self, source: np.ndarray) -> None:
        """Show the rows in a new order, ``source`` their positions in the state's facts (the
        rows are every one of them), as a layout change that keeps persistent indexes."""
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        ids = [self._ids[p.row()] if p.isValid() else None for p in persistent]
        table_ids = column_reader(self._table)("id")
        self._ids = [table_ids[i] for i in source.tolist()]
        self._map_to_state(source)
        self.changePersistentIndexList(
            persistent,
            [
                self.index(self._row_of[fact_id], p.column()) if fact_id else QModelIndex()
                for p, fact_id in zip(persistent, ids)
            ],
        )
        self.layoutChanged.emit()

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(FACT_COLUMNS):
            return
        self._sort = (column, order)
        self._reorder(self._sorted_positions(self._table))

    # Model
    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        # The base class checks the bounds by calling rowCount and columnCount, two calls into
        # Python for each of the proxy's ~8 source indexes per painted cell: one call instead.
        if parent.isValid() or not (0 <= row < len(self._facts) and 0 <= column < _FACT_COUNT):
            return QModelIndex()
        return self.createIndex(row, column)

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._facts)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(FACT_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(FACT_COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return FACT_COLUMNS[section][1]
        if role == Qt.ItemDataRole.ToolTipRole:
            key = FACT_COLUMNS[section][0]
            if key == "direction":
                return "→ outgoing (this entity is the subject), ← incoming (it is the object)"
            if key == "other_name":
                return "The entity at the other end: click it to select it"
            return BY_NAME[key].tip
        return None

    def flags(self, index: Index):
        # Called per painted cell: the flags are per column, computed once.
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return self._flags[index.column()]

    def data(self, index: Index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._facts):
            return None
        return self._value(index.row(), index.column(), role)

    def multiData(self, index: Index, roles) -> None:
        # One call into Python per painted cell instead of one per role (see EntityModel).
        if not index.isValid() or not 0 <= index.row() < len(self._facts):
            clear_span(roles)
            return
        fill_span(roles, self._value, index.row(), index.column())

    def _value(self, row: int, column: int, role: int):
        if role == VALID_ROLE:  # the hide filter asks every row: no fact's dict made for it
            return bool(self._valid[row])
        fact = self._facts[row]
        key = FACT_COLUMNS[column][0]
        if role == DISPLAY:
            return self._display(fact, key)
        valid = self._valid[row]
        if role == FOREGROUND:
            if key == "direction" and fact["id"] in self._conflicts:
                return style.theme().conflict_brush
            if not valid:
                return style.theme().dim_brush
            if key == "other_name":
                return style.theme().link_brush
            if key == "predicate":
                return style.predicate_brush(fact["predicate"])
            return None
        if role == FONT:
            if not valid or (key in _ODD and _ODD[key](fact[key])):
                return self._italic
            return self._link_font if key == "other_name" else None
        if role == BACKGROUND:
            if key in ("direction", "predicate") and fact["id"] in self._conflicts:
                return style.theme().conflict_background_brush
            return None
        if role == ALIGNMENT:
            return RIGHT if key == "confidence" else None
        if role == EDIT:
            value = fact[key]
            if key == "confidence" and style.is_number(value):
                return f"{value:g}"
            return style.stored_text(value)
        if role == FACT_ID_ROLE:
            return fact["id"]
        if role == OTHER_ID_ROLE:
            return fact["other"]
        if role == TOOLTIP:
            return self._tooltip(fact, key, row)
        return None

    def _display(self, fact: dict, key: str) -> str:
        value = fact[key]
        if key == "direction":
            arrow = "→" if value == "outgoing" else "←"
            return ("⚠ " if fact["id"] in self._conflicts else "") + arrow
        if key == "valid_from":
            return style.show_time(value, "?")
        if key == "valid_to":
            return style.show_time(value, "open")
        if key == "confidence":
            return style.show_confidence(value)
        if key == "extracted_at":
            return style.show_instant(value)
        return style.cell_text(value)

    def _tooltip(self, fact: dict, key: str, row: int) -> str:
        lines = [
            style.tip_text(describe(fact)),
            f"{style.show_time(fact['valid_from'], 'unknown start')} → "
            f"{style.show_time(fact['valid_to'], 'still open')}",
        ]
        notes = (
            style.time_note(fact["valid_from"], as_end=False),
            style.time_note(fact["valid_to"], as_end=True),
            style.confidence_note(fact["confidence"]),
        )
        lines += [f"{style.MARK} {note}" for note in notes if note]
        if len(style.stored_text(fact[key])) > style.CELL_CHARS:
            lines.append(f"{key}: {style.tip_text(fact[key])}")
        if self._state.as_of is not None:
            lines.append(
                ("valid" if self._valid[row] else "not valid") + f" at {self._state.as_of}"
            )
        for conflict in self._conflicts.get(fact["id"], []):
            lines.append(
                f"⚠ Conflict: {conflict['predicate']} is single-valued and this overlaps "
                f"“{self._describe(conflict['other'])}” from "
                f"{style.show_key(conflict['start'], 'the start')} "
                f"to {style.show_key(conflict['end'], 'open', as_end=True)}"
            )
        lines += memory_lines(self._state.kg, fact["id"])
        lines += story_lines(fact_story(self._state.kg, fact["id"])[0])
        if key == "other_name":
            lines.append("Click to select " + style.elide(fact["other_name"]))
        lines.append(f"id: {fact['id']}")
        return "\n".join(lines)

    def _describe(self, triple_id: str) -> str:
        """A fact by its names: from the rows held, else read once (a tooltip, on hover)."""
        row = self._row_of.get(triple_id)
        fact = self._facts[row] if row is not None else None
        if fact is None and self._state.kg is not None:
            try:
                fact = self._state.kg.get_fact(triple_id)
            except (Refused, Unavailable):  # gone since, or unreadable now: the id will do
                return triple_id
        return describe(fact)

    def setData(self, index: Index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or self._edit is None:
            return False
        if not FACT_COLUMNS[index.column()][2]:
            return False
        fact = self._facts[index.row()]
        key = FACT_COLUMNS[index.column()][0]
        text = "" if value is None else str(value).strip()
        reason = cell_edits.why_not(fact, key, text)
        if reason is not None:
            self.refused.emit(reason)
            self._state.message.emit(f"Not written: {reason}")
            return False
        new = cell_edits.value_of(key, text)
        if new == fact[key] or (key == "predicate" and new == fact["predicate"]):
            return False
        # The write reaches the rows through the state's patch (this row's dataChanged), not
        # through a reset from inside setData.
        return bool(self._edit(fact["id"], **{key: new}))


class FactFilterProxy(QSortFilterProxyModel):
    """Hides facts not valid at ``as_of`` when asked; sorting is left to the source model.

    The filter is Qt's own, on ``VALID_ROLE`` (read as "true" or "false"): it asks the source
    model's current flags, never a copy, and while nothing is hidden a reload of 2,000 rows
    makes no call into Python at all.

    The filter is dynamic on ``VALID_ROLE``: when ``as_of`` moves, :meth:`FactModel.restyle`
    announces the rows whose validity flipped, and the proxy re-tests only those, removing or
    inserting them; no full refilter (2,000 calls and a relayout) on every step.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFilterRole(VALID_ROLE)
        self.setDynamicSortFilter(True)

    @property
    def hide_invalid(self) -> bool:
        return bool(self.filterRegularExpression().pattern())

    def set_hide_invalid(self, hide: bool) -> None:
        if hide != self.hide_invalid:
            self.setFilterFixedString("true" if hide else "")

    def multiData(self, index: Index, roles) -> None:
        # QSortFilterProxyModel answers a span role by role through data(): forward it whole.
        self.sourceModel().multiData(self.mapToSource(index), roles)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)
