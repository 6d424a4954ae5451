"""Every edit is a QUndoCommand that only calls the store.

An edit runs once, recorded, before it is pushed: a refused edit (a ``Refused`` naming what was
wrong) or an unavailable store (``Unavailable``) writes nothing and pushes nothing. Undo puts
back the recorded rows; redo writes them again. Each of them, the edit, its undo and its redo,
is an entry of Factlines' edit log (``kg.logged``: what, when, the person's reason if any, the
rows), written in the same transaction as the rows.

When undo or redo cannot be done:

- the rows changed since (``ConflictError``): the step is dropped, it can never be replayed;
- it would delete or end facts another writer may rely on (``WrittenSince``): the person is
  asked, in words, whether to do it anyway; if not, the step stays where it was;
- the store is unavailable (locked, disk full, gone): nothing was written and the step stays
  where it was, so the same undo or redo can be tried again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from factlines.core.errors import ConflictError, Refused, Unavailable, WrittenSince
from factlines.core.store import Change, KnowledgeGraph
from factlines.ui.session.state import AppState


class StoreCommand(QUndoCommand):
    def __init__(self, state: AppState, stack: QUndoStack, text: str, change: Change):
        super().__init__(text)
        self._state = state
        self._stack = stack
        self._change = change
        # The next redo() or undo() only moves the stack's index: true at first, as the edit
        # already ran when it was recorded; and when a failed step is put back in its place.
        self._index_only = True

    def redo(self) -> None:
        if self._index_only:
            self._index_only = False
            return
        self._replay(self._state.kg.reapply, "redo")

    def undo(self) -> None:
        if self._index_only:
            self._index_only = False
            return
        self._replay(self._state.kg.revert, "undo")

    def _replay(self, apply: Callable[..., None], verb: str, force: bool = False) -> None:
        try:
            apply(self._change, force=force, log=f"{verb.capitalize()} {self.text()}")
        except WrittenSince as exc:
            question = (
                f"{exc}.\n\n{verb.capitalize()} “{self.text()}” anyway? Only if you know "
                "nobody relies on those facts: the other program would lose them."
            )
            if self._state.ask(f"{verb.capitalize()} anyway?", question):
                self._replay(apply, verb, force=True)
                return
            self._stay(verb)
            self._state.message.emit(f"Did not {verb} “{self.text()}”: {exc}; the step is kept")
        except ConflictError as exc:
            self.setObsolete(True)
            self._state.message.emit(f"Cannot {verb} “{self.text()}”: {exc}")
            self._state.reload_soon()  # someone else wrote those rows: show them as they are
        except Unavailable as exc:
            self._stay(verb)
            self._state.message.emit(
                f"Cannot {verb} “{self.text()}” now ({exc}); nothing was written and the step "
                "is kept: try again"
            )

    def _stay(self, verb: str) -> None:
        """Keep this step where it was: the stack moves its index once this method returns,
        so move it back as soon as it has (redo after a failed undo, undo after a failed redo,
        neither of which writes)."""
        stack = self._stack

        def move_back(_index: int) -> None:
            stack.indexChanged.disconnect(move_back)
            self._index_only = True
            if verb == "undo":
                stack.redo()
            else:
                stack.undo()

        stack.indexChanged.connect(move_back)


def run_edit(
    state: AppState,
    stack: QUndoStack,
    text: str,
    edit: Callable[[KnowledgeGraph], object],
    before: Callable[[KnowledgeGraph], None] | None = None,
    reason: str | None = None,
):
    """Run ``edit(kg)`` as one undoable step, after ``before(kg)`` (the backup before a first
    edit), logged under ``text`` with the person's ``reason`` (optional). Returns its result;
    a ``Refused`` or an ``Unavailable`` (from either) propagates with nothing written and
    nothing pushed. The views hear of the write from the store itself (AppState listens),
    with the ids it touched."""
    kg = state.kg
    if kg is None:
        raise Refused("no knowledge graph is open")
    if before is not None:
        before(kg)
    with kg.recording() as change, kg.logged(text, reason):
        result = edit(kg)
    if change:
        stack.push(StoreCommand(state, stack, text, change))
    return result
