"""What changed between two instants A < B: the facts that started or ended within (A, B],
for the selected entity or the whole graph, grouped by entity and predicate.

By default A is as_of and B is now ("since as_of"); both fields take any as_of value. The
chart can show the diff (:mod:`.chart_diff`). Choosing a fact selects it. The whole graph's
changes are read on a worker thread (:mod:`.background`): the window stays usable while a span
of years is read.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from factlines.core import temporal
from factlines.core.errors import Refused, Unavailable
from factlines.ui.jobs.whole_graph import BackgroundRead
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.models.changes import ChangesModel, Tree, build
from factlines.ui.models.roles import ENTITY_ID_ROLE, FACT_ID_ROLE
from factlines.ui.panels.chart_diff import ChartDiff
from factlines.ui.session.state import AppState

REFRESH_MS = 250
EXPAND_UP_TO = 300  # facts: a longer answer opens at the entities only


class ChangesPanel(QWidget):
    """The fields, the toggles and the tree (the view is ``changesPanel``)."""

    def __init__(self, state: AppState, diff: ChartDiff | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("changesPanelBox")
        self._state = state
        self._diff = diff
        self.model = ChangesModel(self)
        self.from_field = QLineEdit(self)
        self.from_field.setObjectName("changesFrom")
        self.from_field.setToolTip(
            f"A: {temporal.EXPECTED_FORMS}; empty: as_of. Changes after A count."
        )
        self.to_field = QLineEdit(self)
        self.to_field.setObjectName("changesTo")
        self.to_field.setPlaceholderText("now")
        self.to_field.setToolTip(
            f"B: {temporal.EXPECTED_FORMS}; empty: now. Changes up to B count."
        )
        for field in (self.from_field, self.to_field):
            field.setClearButtonEnabled(True)
            field.setMaximumWidth(190)
        self.whole_graph = QCheckBox("Whole graph", self)
        self.whole_graph.setObjectName("changesWholeGraph")
        self.whole_graph.setToolTip("The whole graph's changes, not only the selected entity's")
        self.on_chart = QCheckBox("Show on chart and graph", self)
        self.on_chart.setObjectName("changesOnChart")
        self.on_chart.setChecked(True)
        self.on_chart.setToolTip(
            "Shade (A, B] on the chart, ▶ where a fact started, ◀ where one ended; in the "
            "neighbourhood graph, started edges green, ended ones red and dashed"
        )
        self.summary = QLabel(self)
        self.summary.setObjectName("changesSummary")
        self.summary.setWordWrap(True)

        self.view = QTreeView(self)
        self.view.setObjectName("changesPanel")
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.view.header()
        header.resizeSection(0, 260)
        header.resizeSection(1, 130)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)

        fields = QHBoxLayout()
        fields.addWidget(QLabel("Between", self))
        fields.addWidget(self.from_field)
        fields.addWidget(QLabel("and", self))
        fields.addWidget(self.to_field)
        fields.addWidget(self.whole_graph)
        fields.addWidget(self.on_chart)
        fields.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(fields)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self.view.activated.connect(self.choose)
        for field in (self.from_field, self.to_field):
            field.returnPressed.connect(self.refresh)
            field.editingFinished.connect(self.refresh)
        self.whole_graph.toggled.connect(lambda _on: self.refresh())
        self.on_chart.toggled.connect(lambda _on: self._show_on_chart())
        state.graphChanged.connect(self.refresh)
        state.entityChanged.connect(self._entity_changed)
        state.dataChanged.connect(lambda _touched: self._timer.start())
        state.asOfChanged.connect(self._as_of_changed)
        self._visible = True
        self._span: tuple[float, float] | None = None
        self._asked: tuple[str, str] = ("", "")  # the instants the worker reads
        self._reader = BackgroundRead(self)
        self._reader.answered.connect(
            lambda answer: self._show(answer[0], None, *self._asked, tree=answer[1])
        )
        self._reader.failed.connect(
            lambda words: self._show(None, f"Not shown: {words}", *self._asked)
        )
        self._reader.broke.connect(lambda: self._show(None, "Not shown: a bug", *self._asked))
        self.refresh()

    # ── The two instants ──────────────────────────────────────────────────

    def instants(self) -> tuple[str | None, str]:
        """(A, B) as typed, A defaulting to as_of and B to now."""
        first = self.from_field.text().strip() or self._state.as_of
        last = self.to_field.text().strip() or temporal.now_instant()
        return first, last

    def set_instants(self, first: str | None, last: str | None) -> None:
        """Type A and B (empty or None: as_of and now) and show the changes."""
        self.from_field.setText(first or "")
        self.to_field.setText(last or "")
        self.refresh()

    def _as_of_changed(self, value) -> None:
        self.from_field.setPlaceholderText(f"as_of ({value})" if value else "as_of")
        if not self.from_field.text().strip():
            self._timer.start()

    def _entity_changed(self, _entity) -> None:
        if not self.whole_graph.isChecked():
            self.refresh()
        else:
            self._show_on_chart()

    # ── Reading ───────────────────────────────────────────────────────────

    @property
    def busy(self) -> bool:
        """The whole graph's changes are being read on the worker thread."""
        return self._reader.busy

    def refresh(self) -> None:
        self._timer.stop()
        self._reader.forget()  # a read still running answers an older question
        state, kg = self._state, self._state.kg
        entity = None if self.whole_graph.isChecked() else state.entity
        first, last = self.instants()
        problem = None
        if kg is None or kg.closed:
            problem = "No graph is open"
        elif entity is None and not self.whole_graph.isChecked():
            problem = "Select an entity, or tick Whole graph"
        elif first is None:
            problem = "Set as_of, or type the first instant (A)"
        changes = None
        if problem is None:
            try:
                if entity is None:
                    self._asked = (first, last)
                    self.summary.setText("Reading the whole graph's changes…")
                    self._reader.start(
                        str(kg.db_path), lambda graph, _progress: _read(graph, first, last)
                    )
                    return
                changes = kg.changes_between(first, last, entity)
            except (Refused, Unavailable) as exc:
                problem = f"Not shown: {in_words(exc)}"
        self._show(changes, problem, first, last)

    def stop(self) -> None:
        """Closing: nothing more is asked, and the read running now stops."""
        self._timer.stop()
        self._reader.stop()

    def _show(
        self,
        changes: dict | None,
        problem: str | None,
        first: str,
        last: str,
        tree: Tree | None = None,
    ) -> None:
        entity = None if self.whole_graph.isChecked() else self._state.entity
        self.model.set_changes(changes, tree)
        if problem is not None:
            self.summary.setText(problem)
            self._span = None
        else:
            self._span = (
                temporal.to_posix(temporal.start_key(temporal.parse(first, "A"))),
                temporal.to_posix(temporal.start_key(temporal.parse(last, "B"))),
            )
            whose = "the whole graph" if entity is None else "this entity"
            shown_last = "now" if not self.to_field.text().strip() else style.show_time(last)
            started, ended = len(changes["started"]), len(changes["ended"])
            self.summary.setText(
                f"Between {style.show_time(first)} and {shown_last}, in {whose}: "
                f"{started:,} started, {ended:,} ended"
                + ("" if started or ended else " (nothing changed)")
            )
        if self.model.fact_count <= EXPAND_UP_TO:
            self.view.expandAll()
        self._show_on_chart()

    # ── The chart ─────────────────────────────────────────────────────────

    def set_visible_in_window(self, visible: bool) -> None:
        """The panel is (not) to be seen: the chart shows the diff only while it is."""
        self._visible = visible
        self._show_on_chart()

    def _show_on_chart(self) -> None:
        if self._diff is None:
            return
        self._diff.show_diff(self.model.started, self.model.ended, self._span)
        self._diff.set_shown(self._visible and self.on_chart.isChecked())

    # ── Choosing ──────────────────────────────────────────────────────────

    def choose(self, index: QModelIndex) -> None:
        """A fact row selects its fact (and its subject, unless the fact is the selected
        entity's); an entity row selects the entity."""
        state = self._state
        triple_id = index.data(FACT_ID_ROLE)
        entity = index.data(ENTITY_ID_ROLE)
        if triple_id is None:
            if entity is not None:
                state.select_entity(entity)
            return
        node = self.model.node(index)
        fact = node.fact if node is not None else None
        if fact is not None and state.entity not in (fact["subject"], fact["object"]):
            state.select_entity(fact["subject"])
        state.select_fact(triple_id)


def _read(graph, first: str, last: str) -> tuple[dict, Tree]:
    """On the worker: the whole graph's changes and their tree (over a long span at a million
    facts, hundreds of thousands of rows grouped and sorted)."""
    changes = graph.changes_between(first, last)
    return changes, build(changes)
