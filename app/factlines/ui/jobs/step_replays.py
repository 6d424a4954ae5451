"""Edit → Undo and Redo of a big step, off the UI thread: the undo of an import of 150,000 rows
takes ~40 s, that of a merge of a 20,000-fact hub ~10 s.

:class:`StepReplays` is the window's ``state.long_replay``: a step of more than
:data:`~factlines.ui.session.commands.OFF_THE_UI_THREAD` rows is undone or redone as a
:class:`~factlines.ui.jobs.progress.Job`, through a store of its own on a worker thread
(``kg.revert`` / ``kg.reapply``, in short writes MemPalace's go between), with a progress
dialog and Cancel.

The window's store knows where the graph stood, as to other writers, when the step was
recorded or last replayed: it hands that over to the worker's store, which adopts the step,
and the worker's store hands it back once done (``kg.hand_over``, ``kg.adopt``; store contract
§5.2), so another program's write at any moment still makes the next undo ask first.

Cancel stops it between two of its short writes and puts back what it had written: the graph
is as before, and the step stays where it was on the stack (so it does after a refusal or a
failure; rows changed since drop it, as for any undo). While it runs, ``state.long_write``
says so, and every other undo, redo, edit and import is refused in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from factlines import open_graph
from factlines.core.errors import Unavailable
from factlines.ui.jobs.progress import Job, ProgressDialog
from factlines.ui.session.document import Document

if TYPE_CHECKING:
    from factlines import KnowledgeGraph
    from factlines.ui.session.commands import StoreCommand


class StepReplays(QObject):
    """Runs the undo or redo of a big step on a worker (see the module)."""

    def __init__(self, document: Document, window: QWidget):
        super().__init__(window)
        self._document = document
        self._state = document.state
        self._window = window
        self.job: Job | None = None  # the undo or redo running, if any
        self.progress: ProgressDialog | None = None
        self._state.long_replay = self.start

    def start(self, command: StoreCommand, verb: str, force: bool) -> Job:
        """Undo (``verb`` "undo") or redo ``command``'s step on a worker; once it has ended,
        a failure or a cancel goes to ``command.failed``. Unavailable when the window's store
        cannot say where the graph stands (nothing started)."""
        kg, graph, change = self._document.kg, self._document.path, command.change
        kg.hand_over(change)
        words = command.log_words(verb)
        adopted: list[bool] = []

        def work(progress):
            with open_graph(graph) as own:
                own.adopt(change)
                adopted.append(True)
                try:
                    apply = own.revert if verb == "undo" else own.reapply
                    apply(change, force=force, log=words, progress=progress)
                finally:
                    own.hand_over(change)

        job = Job(work, self)
        doing = "Undoing" if verb == "undo" else "Redoing"
        self._state.long_write = f"the {verb} of “{command.text()}”"
        self._document.own_write_started()
        self.job = job
        self.progress = ProgressDialog(job, words, f"{doing} “{command.text()}”…", self._window)
        # After the dialog's own (connected first): it has closed when a question is asked.
        job.ended.connect(lambda: self._ended(job, command, verb, kg, bool(adopted)))
        job.start()
        return job

    def _ended(
        self, job: Job, command: StoreCommand, verb: str, kg: KnowledgeGraph, adopted: bool
    ) -> None:
        self._state.long_write = None
        if self._document.kg is not kg or kg.closed:  # the step went with its graph
            self._document.own_write_ended()
            return
        change = command.change
        try:
            if not adopted:  # the worker's store never had it: nobody wrote for us meanwhile
                kg.hand_over(change)
            kg.adopt(change)  # the window's store replays it next
        except Unavailable:
            pass  # its mark stays the worker's, which the window's store takes as written since
        if job.error is None:
            self._state.message.emit(f"{command.log_words(verb)}: done")
        else:
            command.failed(verb, job.error)  # may start it again: the person said "anyway"
        # The views reload now, or once that has ended too.
        self._document.own_write_ended()

    def shutdown(self) -> None:
        """Before the window closes: cancel a running undo or redo (what it wrote is put back)
        and wait for it."""
        if self.job is not None and self.job.running:
            self.job.stop()
