"""Every edit is a QUndoCommand that only calls the store.

An edit runs once, recorded, before it is pushed: a refused edit (a ValueError naming what was
wrong) writes nothing and pushes nothing. Undo puts back the recorded rows; redo writes them again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from factlines.core.store import Change, KnowledgeGraph
from factlines.ui.state import AppState


class StoreCommand(QUndoCommand):
    def __init__(self, state: AppState, text: str, change: Change):
        super().__init__(text)
        self._state = state
        self._change = change
        self._done = True  # the edit already ran when it was recorded

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self._replay(self._state.kg.reapply, "redo")

    def undo(self) -> None:
        self._replay(self._state.kg.revert, "undo")

    def _replay(self, apply: Callable[[Change], None], verb: str) -> None:
        try:
            apply(self._change)
        except ValueError as exc:
            self.setObsolete(True)
            self._state.message.emit(f"Cannot {verb} “{self.text()}”: {exc}")
        self._state.notify_data_changed()


def run_edit(
    state: AppState, stack: QUndoStack, text: str, edit: Callable[[KnowledgeGraph], object]
):
    """Run ``edit(kg)`` as one undoable step. Returns its result, or raises its ValueError."""
    kg = state.kg
    if kg is None:
        raise ValueError("no knowledge graph is open")
    with kg.recording() as change:
        result = edit(kg)
    if change:
        stack.push(StoreCommand(state, text, change))
        state.notify_data_changed()
    return result
