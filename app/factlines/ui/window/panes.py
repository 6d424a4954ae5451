"""F6 and Shift+F6: the keyboard's way from pane to pane (the entities, the chart, the tab in
front at the bottom, the neighbourhood), in reading order, as in other desktop apps. Tab and
Shift+Tab leave a table for the next control instead of walking its cells."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QGraphicsView,
    QMainWindow,
    QWidget,
)

from factlines.ui.actions import make_action


class PaneFocus(QObject):
    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self._window = window
        self.action_next_pane = make_action(
            window, "actionNextPane", "Next pane", lambda: self.move(1), "F6"
        )
        self.action_previous_pane = make_action(
            window, "actionPreviousPane", "Previous pane", lambda: self.move(-1), "Shift+F6"
        )
        for view in window.findChildren(QAbstractItemView):
            view.setTabKeyNavigation(False)

    def panes(self) -> list[QWidget]:
        """The panes on screen, in reading order (left to right, then top to bottom): the
        central widget and every dock shown and in front of its tabs."""
        window = self._window
        shown = [window.centralWidget()] + [
            dock.widget()
            for dock in window.findChildren(QDockWidget)
            if dock.isVisible() and not dock.visibleRegion().isEmpty()
        ]
        place = {pane: pane.mapTo(window, pane.rect().topLeft()) for pane in shown}
        return sorted(shown, key=lambda pane: (place[pane].x(), place[pane].y()))

    def move(self, step: int) -> None:
        panes = self.panes()
        if not panes:
            return
        focus = self._window.focusWidget()
        here = next(
            (i for i, pane in enumerate(panes) if focus is not None and pane.isAncestorOf(focus)),
            -1 if step > 0 else 0,
        )
        target = focus_target(panes[(here + step) % len(panes)])
        if target is not None:
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)


def focus_target(pane: QWidget) -> QWidget | None:
    """What takes the focus in a pane: its list, table or drawing, else its first control."""
    children = [
        child
        for child in pane.findChildren(QWidget)
        if child.isVisible() and child.focusPolicy() & Qt.FocusPolicy.TabFocus
    ]
    views = [c for c in children if isinstance(c, (QAbstractItemView, QGraphicsView))]
    return (views or children or [None])[0]
