"""The predicates panel: the graph's vocabulary with its figures and MemPalace's audit signals,
and the edits that tidy it (rename, merge into another, mark single-valued), each one undo step.

Choosing a row (its view's ``activated``) lists the predicate's facts in the fact search. The
table follows every write, read again while it is in sight (off the UI thread).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from factlines.ui.menus.edits import FactActions
from factlines.ui.models.predicates import PREDICATE_ROLE, SORT_ROLE, PredicatesModel
from factlines.ui.models.rows import rows_view
from factlines.ui.painting import lay_out_now
from factlines.ui.panels.graph_query import GraphQuery
from factlines.ui.session.state import AppState


def summary_words(rows: list[dict]) -> str:
    """``37 predicates: 3 one-off, 4 near-duplicates`` (or ``No predicates yet``)."""
    if not rows:
        return "No predicates yet"
    one_off = sum("one-off" in row["signals"] for row in rows)
    alike = sum(bool(row["near_duplicates"]) for row in rows)
    parts = [f"{one_off:,} one-off"] if one_off else []
    if alike:
        parts.append(f"{alike:,} near-duplicate{'' if alike == 1 else 's'}")
    total = f"{len(rows):,} predicate{'' if len(rows) == 1 else 's'}"
    return total + (": " + ", ".join(parts) if parts else "")


class PredicatesPanel(QWidget):
    """The table (its view is ``predicatesPanel``), a filter, and the edits on its current
    row. ``show_facts(predicate)`` lists a predicate's facts."""

    def __init__(
        self,
        state: AppState,
        actions: FactActions,
        show_facts: Callable[[str], None],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setObjectName("predicatesPanelBox")
        self._state = state
        self._actions = actions
        self._show_facts = show_facts
        self._wanted: str | None = None  # the row to make current when the rows come
        # Read again after writes, while in sight; off the UI thread.
        self.query = GraphQuery(state, lambda kg: kg.predicate_stats(), [], "predicates", self)
        self.query.set_paused(True)
        self.query.refresh_now()  # noted, and asked once the panel is shown
        self.model = PredicatesModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

        self.summary = QLabel(self)
        self.summary.setObjectName("predicatesSummary")
        self.filter = QLineEdit(self)
        self.filter.setObjectName("predicatesFilter")
        self.filter.setPlaceholderText("Filter predicates")
        self.filter.setClearButtonEnabled(True)
        self.filter.setMaximumWidth(220)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.view = rows_view(self, "predicatesPanel", self.proxy, (140, 70, 56, 66, 60))
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

        self.buttons = {
            "rename": QPushButton("Rename…", self),
            "merge": QPushButton("Merge into…", self),
            "single": QPushButton("Mark single-valued", self),
            "facts": QPushButton("Show facts", self),
        }
        edits = QHBoxLayout()
        for name, button in self.buttons.items():
            button.setObjectName(f"predicate_{name}")
            button.clicked.connect(lambda _checked=False, n=name: self.run(n))
            edits.addWidget(button)
        edits.addStretch(1)

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.filter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addLayout(edits)

        self.view.activated.connect(lambda index: self.run("facts", index))
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._update_buttons())
        self.model.modelReset.connect(lambda: lay_out_now(self.view))
        self.query.running.connect(self.summary.setText)
        self.query.found.connect(self._found)
        self.query.failed.connect(self.summary.setText)
        state.graphChanged.connect(self._update_buttons)
        self._update_buttons()

    # ── Reading ───────────────────────────────────────────────────────────

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.query.set_paused(False)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.query.set_paused(True)
        self.query.refresh_now()  # noted, and asked once the panel is shown

    def _found(self, rows: list[dict]) -> None:
        current, self._wanted = self._wanted or self.predicate(), None
        self.model.set_rows(rows)
        self.summary.setText(summary_words(rows))
        if current is not None:
            self.select(current)
        self._update_buttons()

    # ── The current row ───────────────────────────────────────────────────

    def predicate(self, index: QModelIndex | None = None) -> str | None:
        """The predicate of ``index`` (default: the current row), None when none."""
        index = self.view.currentIndex() if index is None else index
        return index.data(PREDICATE_ROLE) if index.isValid() else None

    def row(self, predicate: str) -> dict | None:
        return next((row for row in self.model.rows if row["predicate"] == predicate), None)

    def select(self, predicate: str) -> bool:
        """Make ``predicate``'s row current (it must pass the filter); False when not shown."""
        for number in range(self.proxy.rowCount()):
            index = self.proxy.index(number, 0)
            if index.data(PREDICATE_ROLE) == predicate:
                self.view.selectionModel().setCurrentIndex(
                    index,
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
                self.view.scrollTo(index)
                return True
        return False

    def _update_buttons(self) -> None:
        predicate = self.predicate()
        row = self.row(predicate) if predicate is not None else None
        blocked = self._actions.commands.blocked()
        single = self.buttons["single"]
        single.setText(
            "Unmark single-valued" if row and row["single_valued"] else "Mark single-valued"
        )
        for name, button in self.buttons.items():
            why = "choose a predicate first" if row is None else None
            if why is None and name != "facts":
                why = blocked
            if why is None and name == "merge" and len(self.model.rows) < 2:
                why = "there is no other predicate to merge into"
            button.setEnabled(why is None)
            tip = self._tips(row)[name] if why is None else f"Cannot: {why}"
            button.setToolTip(tip)
            button.setStatusTip(tip)

    @staticmethod
    def _tips(row: dict | None) -> dict[str, str]:
        name = row["predicate"] if row else ""
        alike = row["near_duplicates"][0] if row and row["near_duplicates"] else None
        return {
            "rename": f"Give {name} a new name, keeping its history or rewriting it in place",
            "merge": f"Move the facts of {name} to another predicate"
            + (f" (it looks like {alike})" if alike else ""),
            "single": "A subject may hold one object of it at a time: overlaps are conflicts"
            if not (row and row["single_valued"])
            else f"Allow overlapping facts of {name} again",
            "facts": f"List the facts of {name}",
        }

    # ── The edits ─────────────────────────────────────────────────────────

    def run(self, name: str, index: QModelIndex | None = None) -> bool:
        """Do ``name`` (rename, merge, single, facts) for a row (default: the current one)."""
        predicate = self.predicate(index)
        row = self.row(predicate) if predicate is not None else None
        if row is None:
            self._state.message.emit("Choose a predicate first")
            return False
        if name == "facts":
            if not isinstance(predicate, str):  # a BLOB: no text to search for
                self._state.message.emit(
                    "This predicate is stored as binary data: its facts cannot be searched for"
                )
                return False
            self._show_facts(predicate)
            return True
        if name == "single":
            return self._actions.mark_single_valued(predicate, not row["single_valued"])
        alike = row["near_duplicates"][0] if row["near_duplicates"] else None
        report = self._actions.rename_predicate_dialog(predicate, name == "merge", alike)
        if report is not None:
            self._wanted = report["new"]  # current once the rows are read again
        return report is not None

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        self.view.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        menu = QMenu(self)
        for name, button in self.buttons.items():
            action = menu.addAction(button.text(), lambda n=name: self.run(n, index))
            action.setEnabled(button.isEnabled())
            action.setToolTip(button.toolTip())
        menu.setToolTipsVisible(True)
        menu.exec(self.view.viewport().mapToGlobal(pos))
