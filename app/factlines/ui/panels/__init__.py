"""The whole history at once, in the window: every conflict, what changed between two
instants, the story in order, where the history is dense, finding facts, and who edited what
(the edit history of Factlines and MemPalace) and the predicates.

:class:`Panels` makes the docks (tabbed with the Facts dock, so the chart keeps its
room), the histogram under the as_of slider, the conflict count in the status bar and the
fact search's hint under the entity search; the window only asks it to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMenu, QToolBar

from factlines.ui.actions import make_action
from factlines.ui.panels.as_recorded import AsRecordedPanel, RecordedAsOfField
from factlines.ui.panels.changes import ChangesPanel
from factlines.ui.panels.chart_diff import ChartDiff
from factlines.ui.panels.conflicts import ConflictsPanel
from factlines.ui.panels.edit_history import EditHistoryPanel
from factlines.ui.panels.find_facts import FindFactsPanel, SearchHint
from factlines.ui.panels.histogram import TimeHistogram
from factlines.ui.panels.predicates import PredicatesPanel
from factlines.ui.panels.review import ReviewPanel
from factlines.ui.panels.story import StoryPanel
from factlines.ui.session import settings as app_settings

if TYPE_CHECKING:
    from factlines.ui.window.main_window import MainWindow

__all__ = ["Panels"]


class Panels(QObject):
    """The docks tabbed with Facts (Conflicts, Changes, Story, Find facts, Edit history,
    Predicates, Review, As recorded), the histogram's bar and the status bar's counts, built
    over the main window."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self._window = window
        state, actions = window.state, window.fact_actions
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea

        self.conflicts = ConflictsPanel(state, actions, window)
        self.chart_diff = ChartDiff(state, window.gantt, self)
        self.changes = ChangesPanel(state, self.chart_diff, window)
        diff = self.chart_diff
        diff.changed.connect(lambda: window.graph_view.show_diff(diff.started, diff.ended, diff.on))
        self.narrative = StoryPanel(state, window)
        self.find_facts = FindFactsPanel(state, window)
        self.edit_history = EditHistoryPanel(state, window)
        self.predicates = PredicatesPanel(
            state, actions, lambda p: self.open_fact_search(p, True), window
        )
        self.conflicts_dock = window.add_dock("conflictsDock", "Conflicts", self.conflicts, bottom)
        self.changes_dock = window.add_dock("changesDock", "Changes", self.changes, bottom)
        self.narrative_dock = window.add_dock("narrativeDock", "Story", self.narrative, bottom)
        self.narrative_dock.visibilityChanged.connect(self.narrative.in_sight)
        self.find_dock = window.add_dock("findFactsDock", "Find facts", self.find_facts, bottom)
        self.edit_history_dock = window.add_dock(
            "editHistoryDock", "Edit history", self.edit_history, bottom
        )
        self.predicates_dock = window.add_dock(
            "predicatesDock", "Predicates", self.predicates, bottom
        )
        self.review = ReviewPanel(state, actions, window)
        self.review_dock = window.add_dock("reviewDock", "Review", self.review, bottom)
        self.review_dock.visibilityChanged.connect(self.review.in_sight)
        self.recorded_field = RecordedAsOfField(state, window)  # beside as_of, in the time bar
        window.time_bar.addWidget(self.recorded_field)
        self.as_recorded = AsRecordedPanel(state, self.recorded_field, window)
        self.as_recorded_dock = window.add_dock(
            "asRecordedDock", "As recorded", self.as_recorded, bottom
        )
        self.as_recorded.wanted.connect(lambda: self.show_dock(self.as_recorded_dock))
        for dock in self.docks:
            window.tabifyDockWidget(window.facts_dock, dock)
        window.facts_dock.raise_()
        self.changes_dock.visibilityChanged.connect(self.changes.set_visible_in_window)
        self.changes.set_visible_in_window(False)
        self.edit_history_dock.visibilityChanged.connect(self.edit_history.set_visible_in_window)

        self.histogram = TimeHistogram(state, window.time_control.slider, window)
        self.histogram_bar = QToolBar("History density", window)
        self.histogram_bar.setObjectName("historyToolBar")
        self.histogram_bar.setMovable(False)
        self.histogram_bar.setContentsMargins(0, 0, 0, 0)
        self.histogram_bar.setStyleSheet("QToolBar { padding: 0px; spacing: 0px; border: 0px; }")
        self.histogram_bar.addWidget(self.histogram)
        window.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.histogram_bar)

        self.count_label = self.conflicts.count_label
        window.statusBar().addPermanentWidget(self.count_label)
        self.count_label.clicked.connect(lambda: self.show_dock(self.conflicts_dock))
        window.statusBar().addPermanentWidget(self.review.count_label)
        self.review.count_label.clicked.connect(lambda: self.show_dock(self.review_dock))

        self.hint = SearchHint(state, window.browser, self.open_fact_search, window.browser)
        window.browser.layout().insertWidget(1, self.hint)
        self.action_find_facts = make_action(
            window,
            "actionFindFacts",
            "Find &facts…",
            lambda: self.open_fact_search("", False),
            "Ctrl+Shift+F",
            "Find facts by predicate, entity, source file, closet or drawer",
        )

    @property
    def docks(self):
        return (
            self.conflicts_dock,
            self.changes_dock,
            self.narrative_dock,
            self.find_dock,
            self.edit_history_dock,
            self.predicates_dock,
            self.review_dock,
            self.as_recorded_dock,
        )

    @property
    def busy(self) -> bool:
        """A question about the whole graph is being answered off the UI thread, or waits
        for writes to stop."""
        questions = (self.conflicts.finder, self.predicates.query, self.histogram)
        others = (self.changes, self.as_recorded, self.review)
        return any(question.busy for question in (*questions, *others))

    def settle_layout(self, saved) -> None:
        """After the window restored its kept layout (``saved``, None when none was kept):
        the docks that layout does not know (kept before they existed) go in Facts' tabs."""
        known = bytes(saved) if saved is not None else b""
        window = self._window
        if saved is not None and self.histogram_bar.objectName().encode("utf-16-be") not in known:
            window.removeToolBar(self.histogram_bar)  # on a row of its own, under the time bar
            window.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
            window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.histogram_bar)
            self.histogram_bar.show()
        if saved is not None and all(
            dock.objectName().encode("utf-16-be") in known for dock in self.docks
        ):
            return
        for dock in self.docks:
            if dock.objectName().encode("utf-16-be") not in known:
                window.removeDockWidget(dock)
                window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
                window.tabifyDockWidget(window.facts_dock, dock)
                dock.show()
        window.facts_dock.raise_()
        if saved is not None:
            # Restoring laid the unknown docks side by side and widened the window for them:
            # back to the size it was left at, now that they are tabs.
            window.layout().activate()
            geometry = app_settings.WINDOW_GEOMETRY.get(window.settings)
            if geometry is not None:
                window.restoreGeometry(geometry)

    def show_dock(self, dock) -> None:
        dock.show()
        dock.raise_()

    def open_fact_search(self, text: str, predicate: bool) -> None:
        """Show the fact search with ``text`` typed (an exact predicate when ``predicate``)."""
        self.show_dock(self.find_dock)
        if text:
            self.find_facts.find(text, predicate)
        self.find_facts.field.setFocus()

    def fill_view_menu(self, menu: QMenu) -> None:
        for dock in self.docks:
            menu.addAction(dock.toggleViewAction())
        menu.addAction(self.histogram_bar.toggleViewAction())

    def shutdown(self) -> None:
        """Before the store closes: the reads on connections of their own stop, and none
        starts afterwards."""
        self.conflicts.finder.stop()
        self.changes.stop()
        self.predicates.query.stop()
        self.histogram.query.stop()
        self.review.stop()
        self.as_recorded.stop()
