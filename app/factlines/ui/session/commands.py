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

The undo or redo of a big step (more than :data:`OFF_THE_UI_THREAD` rows: an import, a big
merge or rename) takes seconds, so it is handed to the window (``state.long_replay``), which
runs it on a worker thread with progress and Cancel. QUndoStack moves its index as soon as
``undo()`` returns, so the step shows as undone while that runs; when it then fails or is
cancelled, :meth:`StoreCommand.failed` puts it back where it was (or drops it), as above.
While a long write of the window runs (``state.long_write``), every other undo, redo and
edit is refused in words.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from factlines.core.errors import ConflictError, Refused, Unavailable, WrittenSince
from factlines.core.progress import Cancelled
from factlines.core.store import Change, KnowledgeGraph
from factlines.ui.session.state import AppState

# From this many rows a step is undone in parts (``core.store.replay.ONE_WRITE``) and the
# undo takes over ~40 ms on the UI thread (2,200 rows: 165 ms, 11,000: 1.1 s): it runs on a
# worker. A smaller one is replayed here, at once.
OFF_THE_UI_THREAD = 500


class StoreCommand(QUndoCommand):
    def __init__(self, state: AppState, stack: QUndoStack, text: str, change: Change):
        super().__init__(text)
        self._state = state
        self._stack = stack
        self._change = change
        # The next redo() or undo() only moves the stack's index: true at first, as the edit
        # already ran when it was recorded; and when a failed step is put back in its place.
        self._index_only = True

    @property
    def change(self) -> Change:
        return self._change

    def log_words(self, verb: str) -> str:
        """The edit log's words for undoing (``verb`` "undo") or redoing this step."""
        return f"{verb.capitalize()} {self.text()}"

    def redo(self) -> None:
        if self._index_only:
            self._index_only = False
            return
        self._start("redo")

    def undo(self) -> None:
        if self._index_only:
            self._index_only = False
            return
        self._start("undo")

    def _start(self, verb: str, force: bool = False, later: bool = False) -> None:
        """Undo or redo the step (``later``: the stack's index has moved already)."""
        busy = self._state.long_write
        if busy is not None:
            self._stay(verb, later)
            self._state.message.emit(
                f"Cannot {verb} “{self.text()}” during {busy}: wait for it, or cancel it"
            )
            return
        try:
            if self._state.long_replay is not None and self._change.row_count > OFF_THE_UI_THREAD:
                self._state.long_replay(self, verb, force)
                return
            kg = self._state.kg
            apply = kg.revert if verb == "undo" else kg.reapply
            apply(self._change, force=force, log=self.log_words(verb))
        except (WrittenSince, ConflictError, Unavailable) as exc:
            self.failed(verb, exc, later)

    def failed(self, verb: str, exc: BaseException, later: bool = True) -> None:
        """The undo or redo did not happen (``later``: it ran on a worker, and the stack's
        index moved when it began): put the step back, drop it, or ask and do it anyway."""
        text = self.text()
        if isinstance(exc, WrittenSince):
            question = (
                f"{exc}.\n\n{verb.capitalize()} “{text}” anyway? Only if you know "
                "nobody relies on those facts: the other program would lose them."
            )
            if self._state.ask(f"{verb.capitalize()} anyway?", question):
                self._start(verb, force=True, later=later)
                return
            self._stay(verb, later)
            self._state.message.emit(f"Did not {verb} “{text}”: {exc}; the step is kept")
        elif isinstance(exc, ConflictError):
            self.setObsolete(True)  # the stack drops it as its index passes it
            self._state.message.emit(f"Cannot {verb} “{text}”: {exc}")
            self._state.reload_soon()  # someone else wrote those rows: show them as they are
            if later:
                self._move_back(verb)
        elif isinstance(exc, Cancelled):
            self._stay(verb, later)
            self._state.message.emit(
                f"{verb.capitalize()} “{text}” cancelled: nothing was changed and the step is kept"
            )
        elif isinstance(exc, (Refused, Unavailable)):
            self._stay(verb, later)
            self._state.message.emit(
                f"Cannot {verb} “{text}” now ({exc}); nothing was written and the step "
                "is kept: try again"
            )
        else:  # a bug, shown with its traceback by the app's error handler; what was written
            self._stay(verb, later)  # was put back

    def _stay(self, verb: str, later: bool = False) -> None:
        """Keep this step where it was. The stack moves its index once ``undo()`` or
        ``redo()`` returns, so (unless ``later``: moved already) move it back as soon as it
        has (redo after a failed undo, undo after a failed redo, neither of which writes)."""
        if later:
            self._move_back(verb)
            return
        stack = self._stack

        def move_back(_index: int) -> None:
            stack.indexChanged.disconnect(move_back)
            self._move_back(verb)

        stack.indexChanged.connect(move_back)

    def _move_back(self, verb: str) -> None:
        self._index_only = True
        if verb == "undo":
            self._stack.redo()
        else:
            self._stack.undo()


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
    if state.long_write is not None:
        raise Refused(f"{state.long_write} is under way: wait for it, or cancel it")
    if before is not None:
        before(kg)
    with kg.recording() as change, kg.logged(text, reason):
        result = edit(kg)
    if change:
        stack.push(StoreCommand(state, stack, text, change))
    return result
