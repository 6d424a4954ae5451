"""The story in order: an entity's history, or the whole graph's, as events.

"2025-06-01 Kai Moreno started works_on Orion", "2026-03-01 Kai Moreno ended works_on Orion":
every start and every end, read a page at a time from ``kg.narrative`` as the list scrolls
(``canFetchMore``/``fetchMore``), never capped; the events with no date come last, marked
apart. The event at or before as_of is marked; choosing an event sets as_of to it and selects
its fact.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QTimer,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from factlines.core import temporal
from factlines.core.errors import Refused, Unavailable
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.models.roles import (
    BACKGROUND,
    DISPLAY,
    ENTITY_ID_ROLE,
    FACT_ID_ROLE,
    FONT,
    FOREGROUND,
    ROOT,
    TOOLTIP,
    Index,
)
from factlines.ui.models.rows import RowsModel, rows_view
from factlines.ui.painting import lay_out_now
from factlines.ui.session.state import AppState

FOLLOW_PAGES = 20  # as_of past the loaded events: read on to it when this many pages are left
RELOAD_MS = 200


def event_key(event: dict) -> str | None:
    """The event's comparison key; None for an undated one (listed after every dated one)."""
    at = event["at"]
    if not temporal.is_dated(at):  # the store's rule: it lists the events in this order
        return None
    return temporal.start_key(at) if event["kind"] == "start" else temporal.end_key(at)


def event_words(event: dict) -> str:
    """The event in words: "Kai Moreno works on Orion", "Kai Moreno no longer works on
    Orion" (the predicate's underscores read as spaces)."""
    fact = event["fact"]
    relation = style.cell_text(fact["predicate"]).replace("_", " ")
    no_longer = "" if event["kind"] == "start" else "no longer "
    subject, thing = style.cell_text(fact["subject_name"]), style.cell_text(fact["object_name"])
    said = f"{subject} {no_longer}{relation} {thing}"
    if event_key(event) is None:
        said += " (start unknown)" if event["kind"] == "start" else " (when unknown)"
    return said


def when_words(event: dict) -> str:
    if event_key(event) is None:
        return "unknown" if not event["at"] else f"“{event['at']}”"
    return style.show_time(event["at"])


class StoryModel(RowsModel):
    """Events from ``base`` on, a page at a time; ``marked`` is the row at or before as_of."""

    COLUMNS = ("When", "Event")
    PAGE = 100

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self._state = state
        self.entity: str | None = None  # None: the whole graph
        self.predicate: str | None = None  # an entity's story: only this predicate's events
        self._only: list[dict] | None = None  # ... all of them, read at once
        self.base = 0  # the first event shown
        self._rows: list[dict] = []
        self._keys: list[str] = []  # the dated rows' keys, in order (a prefix of the rows)
        self._total = 0
        self.marked = -1
        self._bold = QFont()
        self._bold.setBold(True)
        self._italic = QFont()
        self._italic.setItalic(True)

    # Reading
    def _page(self, offset: int, limit: int, entity: str | None = ...) -> list[dict]:
        kg = self._state.kg
        if kg is None or kg.closed:
            return []
        if self._only is not None:
            return self._only[offset : offset + limit]
        entity = self.entity if entity is ... else entity
        return kg.narrative(entity, limit=limit, offset=offset)

    def _filtered(self, kg, entity: str | None) -> list[dict] | None:
        """An entity's events of :attr:`predicate` (None: no filter): one entity's story is
        read whole (hundreds of events), then paged from memory."""
        if self.predicate is None or entity is None:
            return None
        events = kg.narrative(entity, limit=kg.narrative_total(entity))
        return [e for e in events if e["fact"]["predicate"] == self.predicate]

    def reload(self, entity: str | None, base: int = 0, keep: int = 0) -> None:
        """Read the count and the first pages from event ``base`` (at least ``keep`` rows)."""
        kg = self._state.kg
        rows, total = [], 0
        self._only = None
        if kg is not None and not kg.closed:
            self._only = self._filtered(kg, entity)
            total = kg.narrative_total(entity) if self._only is None else len(self._only)
            base = max(0, min(base, total - 1)) if total else 0
            rows = self._page(base, max(self.PAGE, keep), entity) if total else []
        self.beginResetModel()
        self.entity, self.base, self._total = entity, base, total
        self._rows = rows
        self._keys = []
        self._index_keys(0)
        self.marked = -1
        self.endResetModel()

    def clear(self) -> None:
        """No story: no entity selected (and not the whole graph's)."""
        self.beginResetModel()
        self.entity, self.base, self._total, self._only = None, 0, 0, None
        self._rows, self._keys, self.marked = [], [], -1
        self.endResetModel()

    def _index_keys(self, first: int) -> None:
        if len(self._keys) < first:
            return  # an undated row was reached: every later one is undated too
        for event in self._rows[first:]:
            key = event_key(event)
            if key is None:
                break
            self._keys.append(key)

    @property
    def total(self) -> int:
        return self._total

    @property
    def loaded(self) -> int:
        return len(self._rows)

    def event_at(self, row: int) -> dict | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    # Lazy loading
    def canFetchMore(self, parent: Index = ROOT) -> bool:
        return not parent.isValid() and self.base + len(self._rows) < self._total

    def fetchMore(self, parent: Index = ROOT) -> None:
        if parent.isValid() or not self.canFetchMore():
            return
        offset = self.base + len(self._rows)
        more = self._page(offset, min(self.PAGE, self._total - offset))
        if not more:
            self._total = offset
            return
        first = len(self._rows)
        self.beginInsertRows(ROOT, first, first + len(more) - 1)
        self._rows.extend(more)
        self._index_keys(first)
        self.endInsertRows()

    # as_of
    def row_at_or_before(self, key: str | None) -> tuple[int, bool]:
        """(the loaded row of the last dated event at or before ``key``, -1 when none is
        loaded; whether it may be a later, not yet loaded one)."""
        if key is None:
            return -1, False
        row = bisect_right(self._keys, key) - 1
        beyond = row == len(self._keys) - 1 and len(self._keys) == len(self._rows)
        return row, beyond and self.canFetchMore()

    def position_of(self, key: str) -> int:
        """How many events (from the first, not from ``base``) are dated at or before
        ``key``: found by halving over single-event pages (each found on the indexes)."""
        lo, hi = 0, self._total  # the answer is in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            page = self._page(mid, 1)
            found = event_key(page[0]) if page else None
            if found is not None and found <= key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def set_marked(self, row: int) -> None:
        if row == self.marked:
            return
        old, self.marked = self.marked, row
        for changed in (old, row):
            if 0 <= changed < len(self._rows):
                self.dataChanged.emit(self.index(changed, 0), self.index(changed, 1))

    # Model
    def _item(self, row: int) -> tuple[int, dict]:
        return row, self._rows[row]

    def _value(self, item: tuple[int, dict], column: int, role: int):
        row, event = item
        if role == DISPLAY:
            if column == 0:
                return ("▸ " if row == self.marked else "") + when_words(event)
            return event_words(event)
        if role == FACT_ID_ROLE:
            return event["fact"]["id"]
        if role == ENTITY_ID_ROLE:
            return event["fact"]["subject"]
        if role == FONT:
            if row == self.marked:
                return self._bold
            return self._italic if event_key(event) is None else None
        if role == BACKGROUND and row == self.marked:
            return style.theme().selected_row
        if role == FOREGROUND and event_key(event) is None:
            return style.theme().dim_text
        if role == TOOLTIP:
            number = self.base + row + 1
            fact = event["fact"]
            return (
                f"Event {number:,} of {self._total:,}\n"
                f"{fact['subject_name']} {fact['predicate']} {fact['object_name']}: "
                f"{style.show_time(fact['valid_from'], 'unknown')} – "
                f"{style.show_time(fact['valid_to'], 'open')}"
            )
        return None


class StoryPanel(QWidget):
    """The events list (``narrativeView``), a toggle for the whole graph, and where as_of is."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("narrativePanel")
        self._state = state
        self.model = StoryModel(state, self)
        self.whole_graph = QCheckBox("Whole graph", self)
        self.whole_graph.setObjectName("narrativeWholeGraph")
        self.whole_graph.setToolTip("Tell the whole graph's story, not only the selected entity's")
        self.label = QLabel(self)
        self.label.setObjectName("narrativeLabel")
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setMinimumWidth(60)  # a long count gives way; the docks stay narrow
        self.go_button = QPushButton("Go to as_of", self)
        self.go_button.setObjectName("narrativeGoToAsOf")
        self.go_button.setToolTip("Show the events from as_of on")
        self.start_button = QPushButton("From the start", self)
        self.start_button.setObjectName("narrativeFromStart")
        self.predicate = QComboBox(self)
        self.predicate.setObjectName("narrativePredicate")
        self.predicate.setToolTip("Only the events of one predicate (an entity's story)")
        # As wide as a short predicate: a long one must not widen the docks beside the chart.
        self.predicate.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.predicate.setMinimumContentsLength(12)
        self.view = rows_view(self, "narrativeView", self.model, (150,), alternating=False)

        top = QHBoxLayout()
        top.addWidget(self.whole_graph)
        top.addWidget(self.predicate)
        top.addWidget(self.label, 1)
        top.addWidget(self.go_button)
        top.addWidget(self.start_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RELOAD_MS)
        self._timer.timeout.connect(lambda: self.reload(keep=True))
        self.view.activated.connect(self.choose)
        self.whole_graph.toggled.connect(lambda _on: self.reload())
        self.predicate.activated.connect(lambda _row: self._choose_predicate())
        self.predicate.currentIndexChanged.connect(lambda _row: self._choose_predicate())
        self.go_button.clicked.connect(self.go_to_as_of)
        self.start_button.clicked.connect(lambda: self.reload())
        self.model.modelReset.connect(lambda: lay_out_now(self.view))
        self.model.rowsInserted.connect(lambda *_: self._say())
        state.graphChanged.connect(self.reload)
        state.entityChanged.connect(lambda _e: state.reload_view(self, self._entity_changed))
        state.dataChanged.connect(lambda _touched: self._timer.start())
        state.asOfChanged.connect(lambda _value: self.follow_as_of())
        # Read only in sight: a hub's story orders all its events (0.3-0.45 s for a 20,000-fact
        # hub), which every selection and write paid behind another tab. Out of sight, what
        # to read when it comes to the front: (keep, base) as reload takes them.
        self._waiting: tuple[bool, int] | None = None
        self.reload()

    def _entity(self) -> str | None:
        return None if self.whole_graph.isChecked() else self._state.entity

    def _entity_changed(self) -> None:
        if not self.whole_graph.isChecked():
            self.reload()

    def _fill_predicates(self, entity: str | None) -> None:
        """The entity's predicates to filter by (kept chosen while the entity has it)."""
        chosen = self.model.predicate
        predicates = sorted(
            {f["predicate"] for f in self._state.entity_facts()} if entity else set(),
            key=style.order_key,
        )
        self.predicate.blockSignals(True)
        self.predicate.clear()
        self.predicate.addItem("All predicates", None)
        for predicate in predicates:
            self.predicate.addItem(style.elide(predicate), predicate)
        found = self.predicate.findData(chosen) if chosen in predicates else 0
        self.predicate.setCurrentIndex(max(0, found))
        self.predicate.setEnabled(entity is not None)
        self.predicate.blockSignals(False)
        self.model.predicate = self.predicate.currentData()

    def _choose_predicate(self) -> None:
        if self.predicate.currentData() != self.model.predicate:
            self.model.predicate = self.predicate.currentData()
            self.reload()

    def in_sight(self, shown: bool) -> None:
        """The panel's tab came to the front (``shown``) or went behind another."""
        if shown and self._waiting is not None:
            self._read(*self._waiting)

    def reload(self, keep: bool = False, base: int = 0) -> None:
        """Read the story again from event ``base`` (``keep``: as many rows as are shown);
        out of sight, once it comes in sight."""
        self._timer.stop()
        if self.visibleRegion().isEmpty():
            waiting = self._waiting
            self._waiting = (keep and (waiting is None or waiting[0]), base)
            return
        self._read(keep, base)

    def _read(self, keep: bool, base: int) -> None:
        self._waiting = None
        model = self.model
        if keep:
            base = model.base
        entity = self._entity()
        if entity != self.model.entity or not keep:
            self._fill_predicates(entity)
        if entity is None and not self.whole_graph.isChecked():
            model.clear()
            self.label.setText("Select an entity, or tick Whole graph")
            self.go_button.setEnabled(False)
            self.start_button.hide()
            return
        try:
            model.reload(entity, base, model.loaded if keep else 0)
        except (Refused, Unavailable) as exc:
            self.label.setText(f"Not read: {in_words(exc)}")
            return
        self.follow_as_of()

    def follow_as_of(self) -> None:
        """Mark the event at or before as_of, loading up to a few pages to reach it."""
        if self.visibleRegion().isEmpty():
            self.reload(keep=True)  # (noted: in sight, the story follows as_of again)
            return
        model = self.model
        key = self._state.as_of_key
        row, beyond = model.row_at_or_before(key)
        # Read on to as_of only when what is left is a few pages (an entity's story): in the
        # whole graph's, every step of a scrub would read more; Go to as_of jumps there.
        near = model.total - model.base - model.loaded <= FOLLOW_PAGES * model.PAGE
        while beyond and near:
            model.fetchMore()
            row, beyond = model.row_at_or_before(key)
        model.set_marked(row)
        if row >= 0 and not beyond:
            self.view.scrollTo(model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter)
        self._say(beyond)

    def go_to_as_of(self) -> None:
        """Show the events from a little before as_of on (however far that is)."""
        key = self._state.as_of_key
        if key is None or self.model.total == 0:
            return
        position = self.model.position_of(key)
        self.reload(base=max(0, position - 10))

    def _say(self, beyond: bool = False) -> None:
        model = self.model
        whose = "the whole graph" if model.entity is None else "this entity"
        shown = model.base + model.loaded
        text = f"{model.total:,} events of {whose}"
        if model.predicate is not None and model.entity is not None:
            text += f" ({style.elide(model.predicate)} only)"
        if model.base:
            text += f", from event {model.base + 1:,}"
        if shown < model.total:
            text += f" ({shown - model.base:,} read; scroll for more)"
        if beyond:
            text += " · as_of is further on"
        self.label.setText(text)
        self.go_button.setEnabled(self._state.as_of is not None and model.total > 0)
        self.start_button.setVisible(model.base > 0)

    def choose(self, index: QModelIndex) -> None:
        """Set as_of to the event (when it has a date) and select its fact."""
        event = self.model.event_at(index.row())
        if event is None:
            return
        state, fact = self._state, event["fact"]
        if self.whole_graph.isChecked() or state.entity not in (fact["subject"], fact["object"]):
            state.select_entity(fact["subject"])
        if event_key(event) is not None and temporal.is_accepted(event["at"]):
            state.set_as_of(event["at"])
        state.select_fact(fact["id"])
        self.view.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
