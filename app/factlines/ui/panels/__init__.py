"""The whole history at once, in the window: every conflict, what changed between two
instants, the story in order, where the history is dense, and finding facts.

:class:`HistoryPanels` makes the docks (tabbed with the Facts dock, so the chart keeps its
room), the histogram under the as_of slider, the conflict count in the status bar and the
fact search's hint under the entity search; the window only asks it to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMenu

from factlines.ui import settings as app_settings
from factlines.ui.panels.conflicts import ConflictsPanel

if TYPE_CHECKING:
    from factlines.ui.mainwindow import MainWindow

__all__ = ["HistoryPanels"]


class HistoryPanels(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self._window = window
        state, actions = window.state, window.fact_actions
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea

        self.conflicts = ConflictsPanel(state, actions, window)
        self.conflicts_dock = window._dock("conflictsDock", "Conflicts", self.conflicts, bottom)
        for dock in self.docks:
            window.tabifyDockWidget(window.facts_dock, dock)
        window.facts_dock.raise_()
        self.count_label = self.conflicts.count_label
        window.statusBar().addPermanentWidget(self.count_label)
        self.count_label.clicked.connect(lambda: self.show_dock(self.conflicts_dock))

    @property
    def docks(self):
        return (self.conflicts_dock,)

    def settle_layout(self, saved) -> None:
        """After the window restored its kept layout (``saved``, None when none was kept):
        the docks that layout does not know (kept before they existed) go in Facts' tabs."""
        known = bytes(saved) if saved is not None else b""
        window = self._window
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

    def fill_view_menu(self, menu: QMenu) -> None:
        for dock in self.docks:
            menu.addAction(dock.toggleViewAction())

    def shutdown(self) -> None:
        """Before the store closes: let a conflicts run on its own connection finish."""
        self.conflicts.finder.wait()
