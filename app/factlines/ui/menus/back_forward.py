"""Back and Forward through the entities selected, as a web browser goes through pages.

Every selection (the list, a link in the facts table, a node of the graph, a script) is
remembered; Back and Forward select the previous and next one again without adding to the
history. Another graph starts a new history. The actions (``actionBack``, ``actionForward``:
Ctrl+[ and Ctrl+], and the mouse's back and forward buttons) live on the window.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from factlines.ui.actions import make_action
from factlines.ui.session.state import AppState

MAX_ENTRIES = 200


class SelectionHistory(QObject):
    """The entities selected, oldest first, and where Back and Forward stand in them."""

    def __init__(self, state: AppState, window: QWidget):
        super().__init__(window)
        self._state = state
        self._window = window
        self._back: list[str] = []
        self._forward: list[str] = []
        self._current: str | None = state.entity
        self._moving = False
        self.action_back = make_action(
            window, "actionBack", "&Back", self.back, "Ctrl+[", "Back to the entity selected before"
        )
        self.action_forward = make_action(
            window,
            "actionForward",
            "&Forward",
            self.forward,
            "Ctrl+]",
            "Forward to the entity selected after",
        )
        state.entityChanged.connect(self._entity_changed)
        state.graphChanged.connect(self.clear)
        # The mouse's buttons are watched on the window's own surfaces (its native window, a
        # floating dock's), not on the application: a Python filter there is called for
        # every event of every widget (2,500 in the second after start-up, each waiting for
        # the interpreter's lock while a worker reads the graph).
        window.installEventFilter(self)  # its native window exists once shown
        self._update_actions()

    def fill(self, menu: QMenu) -> None:
        menu.addAction(self.action_back)
        menu.addAction(self.action_forward)

    # The history
    @property
    def back_entries(self) -> list[str]:
        return list(self._back)

    @property
    def forward_entries(self) -> list[str]:
        return list(self._forward)

    def clear(self) -> None:
        self._back.clear()
        self._forward.clear()
        self._current = self._state.entity
        self._update_actions()

    def _entity_changed(self, entity_id: str | None) -> None:
        if self._moving or entity_id is None or entity_id == self._current:
            if entity_id is not None:
                self._current = entity_id
            return
        if self._current is not None:
            self._back.append(self._current)
            del self._back[:-MAX_ENTRIES]
        self._forward.clear()
        self._current = entity_id
        self._update_actions()

    def back(self) -> bool:
        """Select the entity selected before this one; False when there is none."""
        return self._move(self._back, self._forward)

    def forward(self) -> bool:
        """Select the entity Back left; False when there is none."""
        return self._move(self._forward, self._back)

    def _move(self, source: list[str], target: list[str]) -> bool:
        kg = self._state.kg
        while source:
            entity_id = source.pop()
            if kg is not None and not kg.closed and kg.get_entity(entity_id) is None:
                continue  # deleted since: skipped
            if self._current is not None:
                target.append(self._current)
            self._current = entity_id
            self._moving = True
            try:
                self._state.select_entity(entity_id)
            finally:
                self._moving = False
            self._update_actions()
            return True
        self._update_actions()
        return False

    def _update_actions(self) -> None:
        self.action_back.setEnabled(bool(self._back))
        self.action_forward.setEnabled(bool(self._forward))

    # The mouse's back and forward buttons, anywhere in the window
    def _watch_surfaces(self) -> None:
        """Watch the window's native window, and each dock's once it floats in one of its own."""
        self._window.removeEventFilter(self)
        self._window.windowHandle().installEventFilter(self)
        for dock in self._window.findChildren(QDockWidget):
            dock.topLevelChanged.connect(lambda floating, dock=dock: self._dock_floats(dock))

    def _dock_floats(self, dock: QDockWidget) -> None:
        # Its native window is made when it is shown floating, after this signal.
        QTimer.singleShot(0, self, lambda: self._watch_dock(dock))

    def _watch_dock(self, dock: QDockWidget) -> None:
        if dock.isFloating() and dock.windowHandle() is not None:
            dock.windowHandle().installEventFilter(self)  # twice is once

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self._window:
            if kind == QEvent.Type.Show and self._window.windowHandle() is not None:
                self._watch_surfaces()
            return False
        if kind != QEvent.Type.MouseButtonPress:
            return False
        button = event.button()
        if button not in (Qt.MouseButton.BackButton, Qt.MouseButton.ForwardButton):
            return False
        if button == Qt.MouseButton.BackButton:
            self.back()
        else:
            self.forward()
        return True
