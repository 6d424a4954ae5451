"""Where the window's docks go: the first-run layout, and the layout, geometry and column widths
left last time (kept in the settings), which give way when they would not fit this screen or
would leave the chart too few lanes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSize, Qt, QTimer
from PySide6.QtWidgets import QTabBar

from factlines.ui.session import settings as app_settings

if TYPE_CHECKING:
    from factlines.ui.window.main_window import MainWindow

LANES_ALWAYS_SHOWN = 6  # a kept layout that leaves the chart fewer gives way
FIRST_RUN_SIZE = QSize(1500, 950)


class WindowLayout:
    """The layout of one main window (a part of it, built once its docks exist)."""

    def __init__(self, window: MainWindow):
        self._window = window
        self._docks_sized = False  # the docks have their sizes (restored, or first-run)

    @staticmethod
    def polished(child) -> None:
        """Docks stacked as tabs show their whole names, with arrows to scroll the tabs that
        do not fit: Qt elides them, and at 1024×700 the bottom row read "F…", "Co…", "Ch…"."""
        if isinstance(child, QTabBar):
            child.setElideMode(Qt.TextElideMode.ElideNone)
            child.setUsesScrollButtons(True)

    def restore(self) -> None:
        """The first-run size on a screen that has room for it; then the layout kept from last
        time, unless it needs more room than this screen has."""
        window = self._window
        window.resize(FIRST_RUN_SIZE.boundedTo(window.screen().availableGeometry().size()))
        first_run, room = window.saveState(), window.minimumSizeHint()
        self._docks_sized = self._restore_kept()
        window.panels.settle_layout(app_settings.WINDOW_STATE.get(window.settings))
        if self._docks_sized:
            self._fit_screen(first_run, room)

    def shown(self) -> None:
        if not self._docks_sized:
            self._docks_sized = True
            self.size_docks()
            QTimer.singleShot(0, self.size_docks)
        else:
            QTimer.singleShot(0, self._give_the_chart_its_lanes)

    def made_smaller(self) -> None:
        if self._docks_sized:
            QTimer.singleShot(0, self._give_the_chart_its_lanes)  # once laid out at the new size

    def _give_the_chart_its_lanes(self) -> None:
        """A layout that leaves the chart too few lanes (kept from a bigger screen, or the
        window made smaller) gives way: the docks take their first-run height."""
        if self._window.gantt.navigator.room_in_rows() < 2 * LANES_ALWAYS_SHOWN:  # with headers
            self.size_docks()

    def size_docks(self) -> None:
        """The first-run layout: room for the lists, most of the height for the chart.

        Dock sizes only take once laid out. The docks below get under a third of the height, so
        that even a 1024×700 window shows half a dozen chart lanes and five facts."""
        window = self._window
        width, height = window.width(), window.height()
        entities = max(300, width * 22 // 100)
        graph = max(340, width * 30 // 100)
        window.resizeDocks([window.entities_dock], [entities], Qt.Orientation.Horizontal)
        window.resizeDocks(
            [window.facts_dock, window.graph_dock],
            [width - entities - graph, graph],
            Qt.Orientation.Horizontal,
        )
        window.resizeDocks(  # no less than the facts table's five rows (its least height)
            [window.facts_dock, window.graph_dock],
            [height * 30 // 100] * 2,
            Qt.Orientation.Vertical,
        )

    def _restore_kept(self) -> bool:
        """Geometry, dock layout and column widths as last left; False when none were kept."""
        window, settings = self._window, self._window.settings
        if (geometry := app_settings.WINDOW_GEOMETRY.get(settings)) is not None:
            window.restoreGeometry(geometry)
        restored = False
        if (layout := app_settings.WINDOW_STATE.get(settings)) is not None:
            restored = window.restoreState(layout)
        if (header := app_settings.TRIPLE_HEADER.get(settings)) is not None:
            window.facts_table.view.horizontalHeader().restoreState(header)
        window.facts_table.hide_invalid.setChecked(app_settings.HIDE_INVALID.get(settings))
        speed = app_settings.PLAY_SPEED.get(settings)
        if speed is not None and 0 <= speed < window.time_control.speed.count():
            window.time_control.speed.setCurrentIndex(speed)
        return restored

    def _fit_screen(self, first_run: QByteArray, room: QSize) -> None:
        """A kept layout that needs more room than this screen has (docks laid side by side
        on a bigger one) gives way to the first-run layout (``first_run``, which needs
        ``room``), and the person is told: a window wider than the screen cannot be used."""
        window = self._window
        need, screen = window.minimumSizeHint(), window.screen().availableGeometry().size()
        if need.width() <= max(screen.width(), room.width()) and need.height() <= max(
            screen.height(), room.height()
        ):
            return
        window.restoreState(first_run)
        window.resize(window.size().boundedTo(screen))
        self._docks_sized = False  # sized for this window when it is shown
        QTimer.singleShot(
            0,
            lambda: window.state.message.emit(
                "The layout kept from last time needs a bigger screen than this one: "
                "the panels are back where they start"
            ),
        )

    def save(self) -> None:
        window, settings = self._window, self._window.settings
        app_settings.WINDOW_GEOMETRY.set(settings, window.saveGeometry())
        app_settings.WINDOW_STATE.set(settings, window.saveState())
        header = window.facts_table.view.horizontalHeader()
        app_settings.TRIPLE_HEADER.set(settings, header.saveState())
        app_settings.HIDE_INVALID.set(settings, window.facts_table.hide_invalid.isChecked())
        app_settings.PLAY_SPEED.set(settings, window.time_control.speed.currentIndex())
        window.document.save_as_of()
        settings.sync()
