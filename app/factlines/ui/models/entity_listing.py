"""The entity listing as a Qt model: lazy, paged, sorted and filtered by the store."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QFont

from factlines.core.errors import Unavailable
from factlines.core.store import Touched
from factlines.ui.look import style
from factlines.ui.models.roles import (
    ALIGNMENT,
    DISPLAY,
    ENTITY_ID_ROLE,
    FONT,
    FOREGROUND,
    RIGHT,
    ROOT,
    TOOLTIP,
    Index,
    clear_span,
    fill_span,
)
from factlines.ui.session.state import AppState

NO_ID = (
    "This row of the entities table has no id (a hand edit, or another tool): no fact can "
    "name it and MemPalace cannot look it up. It is listed as stored, and cannot be selected "
    "or edited here."
)


class EntityModel(QAbstractTableModel):
    """Entities with their open and ended fact counts, fetched a page at a time; the counts
    read for the rows shown, a page at a time (a list read far to find one entity costs no
    counts), off the UI thread where the window can: a page's counts walk its entities'
    facts, 20-100 ms at a million facts, and the first page is read while the window is
    first painted. Until they are in, the counts are blank.

    The counts do not follow as_of: "Open" is the facts with no end (valid_to empty), which
    may not have started yet at as_of; "Ended" is the facts with an end."""

    COLUMNS = ("Name", "Type", "Open", "Ended")
    ORDERS = ("name", "type", "current", "ended")
    PAGE = 80

    FEW_FACTS = 200  # a write of more re-reads every row listed (one query, not hundreds)

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self._state = state
        self._rows: list[dict] = []
        self._row_by_id: dict = {}  # each loaded row's number by its entity's id
        self._total = 0
        self._asked: set[int] = set()  # first rows of the pages whose counts are being read
        self._asking: int | None = None  # the page asked for now: answered at once, or later
        self._generation = 0  # one more at every reset or write: older counts are dropped
        self.search = ""
        self.entity_type: str | None = None
        self.valid_at: str | None = None
        self.order = "name"
        self.descending = False
        self._italic = QFont()
        self._italic.setItalic(True)

    # Query
    def _query(self, offset: int, limit: int) -> list[dict]:
        kg = self._state.kg
        if kg is None:
            return []
        return kg.list_entities(
            search=self.search,
            entity_type=self.entity_type,
            valid_at=self.valid_at,
            order=self.order,
            descending=self.descending,
            limit=limit,
            offset=offset,
            counts=False,
        )

    def refresh(self, most: int | None = None) -> None:
        """Re-read the count and the rows loaded (the first page after a filter or sort: they
        were dropped), at most ``most`` of them."""
        kg = self._state.kg
        keep = max(self.PAGE, min(len(self._rows), most if most is not None else len(self._rows)))
        # Read before the reset begins: a read that fails leaves the model as it was.
        rows, total = [], 0
        if kg is not None:
            total = kg.count_entities(self.search, self.entity_type, self.valid_at)
            rows = self._query(0, min(keep, total))
        self._generation += 1
        self.beginResetModel()
        self._rows, self._total, self._row_by_id = rows, total, {}
        self._number_rows(0)
        self.endResetModel()

    def update_rows(self, touched: Touched | None = None) -> None:
        """After a write: read the rows listed again (the counts of those whose counts were
        read); when they are the same entities in the same order, announce just the rows
        whose counts or names changed (no reset). A write of a few facts, listed by name or
        type with every entity shown, can change only the counts of its facts' ends, before
        and after: just those are read again (a hub's list holds thousands of rows), when the
        write says what they were."""
        kg = self._state.kg
        if kg is None or not self._rows:
            self.refresh()
            return
        self._generation += 1
        if self._counts_alone_changed(touched):
            self._update_ends(kg, touched)
            return
        total = kg.count_entities(self.search, self.entity_type, self.valid_at)
        rows = self._query(0, min(len(self._rows), total))
        if total != self._total or [r["id"] for r in rows] != [r["id"] for r in self._rows]:
            self.refresh()
            return
        counted = [r["id"] for r in self._rows if r["current"] is not None and r["id"] is not None]
        listed = {new["id"]: new for new in kg.entity_list_rows(counted)} if counted else {}
        for row, new in enumerate(rows):
            self._replace_row(row, listed.get(new["id"], new))

    def _counts_alone_changed(self, touched: Touched | None) -> bool:
        """Whether ``touched`` can change the listed entities' counts but not which are listed
        or their order (nor the total)."""
        return (
            touched is not None
            and touched.fact_ends is not None
            and not (touched.everything or touched.entities)
            and 0 < len(touched.facts) <= self.FEW_FACTS
            and self.order in ("name", "type")
            and self.valid_at is None
        )

    def _update_ends(self, kg, touched: Touched) -> None:
        """Read again the rows of the entities at either end of the touched facts, before the
        write and after it (those whose counts were read: the others' are read when shown)."""
        ends = set(touched.fact_ends)
        for row in kg.rows_with_ids("triples", list(touched.facts)).values():
            ends.update((row["subject"], row["object"]))
        rows = ((eid, self._row_by_id.get(eid, -1)) for eid in ends)
        at = {eid: row for eid, row in rows if row >= 0 and self._rows[row]["current"] is not None}
        for new in kg.entity_list_rows(list(at)):
            self._replace_row(at[new["id"]], new)

    def _replace_row(self, row: int, new: dict) -> None:
        """Show ``new`` at ``row``, announced only when it differs from the row shown."""
        if self._rows[row] != new:
            self._rows[row] = new
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def set_filter(self, search: str, entity_type: str | None, valid_at: str | None) -> None:
        self.search, self.entity_type, self.valid_at = search, entity_type, valid_at
        self._rows, self._row_by_id = [], {}
        self.refresh()

    @property
    def total(self) -> int:
        return self._total

    def entity_at(self, row: int) -> dict | None:
        return self._counted(row) if 0 <= row < len(self._rows) else None

    def _counted(self, row: int) -> dict:
        """The row, its counts read here first if they were not: with those of the rows of
        its page that lack them, in one query."""
        if self._rows[row]["current"] is None:
            first = row - row % self.PAGE
            kg = self._state.kg
            if kg is not None and not kg.closed:
                self._fill_counts(first, _counts_of(kg, self._uncounted_ids(first)))
        return self._rows[row]

    def _counts_soon(self, row: int) -> dict:
        """The row as it is; when its counts are not read yet, they are asked for (with its
        page's) and announced when in."""
        first = row - row % self.PAGE
        if self._rows[row]["current"] is None and first not in self._asked:
            self._asked.add(first)
            ids, generation = self._uncounted_ids(first), self._generation
            self._asking = first
            try:
                self._state.read_soon(
                    lambda kg: _counts_of(kg, ids),
                    lambda counts: self._counts_read(first, generation, counts),
                )
            finally:
                self._asking = None
        return self._rows[row]

    def _uncounted_ids(self, first: int) -> list:
        last = min(first + self.PAGE, len(self._rows))
        return [r["id"] for r in self._rows[first:last] if r["current"] is None]

    def _counts_read(self, first: int, generation: int, counts: dict | None) -> None:
        self._asked.discard(first)
        if generation == self._generation:
            self._fill_counts(first, counts)
        last = min(first + self.PAGE, len(self._rows)) - 1
        if self._asking != first and last >= first:  # later: filled, or asked again
            self.dataChanged.emit(self.index(first, 2), self.index(last, len(self.COLUMNS) - 1))

    def _fill_counts(self, first: int, counts: dict | None) -> None:
        """The page's rows that lack counts take those in ``counts`` (an entity no longer
        there has none: a write follows); None (unavailable): they stay blank, read again
        when next shown."""
        if counts is None:
            return
        for row in range(first, min(first + self.PAGE, len(self._rows))):
            entity = self._rows[row]
            if entity["current"] is None:
                current, ended = counts.get(entity["id"], (0, 0))
                self._rows[row] = {**entity, "current": current, "ended": ended}

    def row_of(self, entity_id: str | None) -> int:
        return self._row_by_id.get(entity_id, -1)

    def id_at(self, row: int) -> str | None:
        return self._rows[row]["id"] if 0 <= row < len(self._rows) else None

    # Lazy loading
    def canFetchMore(self, parent: Index = ROOT) -> bool:
        return not parent.isValid() and len(self._rows) < self._total

    def fetchMore(self, parent: Index = ROOT) -> None:
        if not parent.isValid():
            self.fetch(self.PAGE)

    def fetch(self, count: int) -> None:
        """Load up to ``count`` more rows at the end of the list."""
        more = self._query(len(self._rows), min(count, self._total - len(self._rows)))
        if not more:
            self._total = len(self._rows)
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(more) - 1)
        self._rows.extend(more)
        self._number_rows(first)
        self.endInsertRows()

    def _number_rows(self, first: int) -> None:
        """Note the rows from ``first`` on by id (an id listed twice: its first row)."""
        for number in range(first, len(self._rows)):
            self._row_by_id.setdefault(self._rows[number]["id"], number)

    # Model
    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return (
                    "Display name (id in the tooltip)",
                    "Entity type",
                    "Open: facts with no end (valid_to empty), both directions;"
                    " not as of as_of (some may start later)",
                    "Ended: facts with an end (valid_to set), both directions; not as of as_of",
                )[section]
        return None

    def data(self, index: Index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        return self._value(self._shown(index), index.column(), role)

    def multiData(self, index: Index, roles) -> None:
        # The view's delegate asks seven roles per painted cell in one call: answering them
        # here is one call into Python per cell instead of seven.
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            clear_span(roles)
            return
        fill_span(roles, self._value, self._shown(index), index.column())

    def _shown(self, index: Index) -> dict:
        return self._counts_soon(index.row()) if index.column() >= 2 else self._rows[index.row()]

    def _value(self, entity: dict, column: int, role: int):
        nameless = entity["id"] is None
        if role == DISPLAY:
            if column == 0:
                name = style.cell_text(entity["name"])
                return f"{style.MARK} {name}" if nameless else name
            if column == 1:
                return style.cell_text(entity["type"])
            return entity[self.ORDERS[column]]
        if role == ENTITY_ID_ROLE:
            return entity["id"]
        if role == FONT:
            return self._italic if nameless else None
        if column >= 2:
            if role == ALIGNMENT:
                return RIGHT
            if role == FOREGROUND and not entity[self.ORDERS[column]]:
                return style.theme().dim_brush
        elif role == FOREGROUND and nameless:
            return style.theme().dim_brush
        elif role == TOOLTIP and column == 0:
            name = style.tip_text(entity["name"])
            kind = f"type: {entity['type']}\n" if entity["type"] else ""
            return (
                f"{name}\n{kind}{style.MARK} {NO_ID}"
                if nameless
                else f"{name}\n{kind}id: {entity['id']}"
            )
        elif role == TOOLTIP and column == 1 and len(style.stored_text(entity["type"])) > 40:
            return style.tip_text(entity["type"])
        return None

    def flags(self, index: Index):
        # A row without an id cannot be selected: nothing could find it again to show or edit.
        flags = super().flags(index)
        row = index.row()
        if index.isValid() and 0 <= row < len(self._rows) and self._rows[row]["id"] is None:
            return flags & ~Qt.ItemFlag.ItemIsSelectable
        return flags

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.ORDERS):
            return
        self.order = self.ORDERS[column]
        self.descending = order == Qt.SortOrder.DescendingOrder
        self._rows, self._row_by_id = [], {}
        self.refresh()


def _counts_of(kg, ids: list) -> dict | None:
    """{id: (open, ended)} of the entities ``ids``; None when the store is unavailable."""
    try:
        return {e["id"]: (e["current"], e["ended"]) for e in kg.entity_list_rows(ids)}
    except Unavailable:
        return None
