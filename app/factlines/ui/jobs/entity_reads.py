"""The selected entity's facts, read on a worker when it has many.

:class:`EntityReads` is the window's ``state.read_elsewhere``: a hub's twenty thousand facts
take a few hundred milliseconds to read and lay out at a million facts, time the window spends
answering the person instead. Each read opens a read-only store of its own; only the newest
read asked for matters (the one running when another is asked is left to end, its answer
dropped by the state). A read that is refused or finds the store unavailable is done again
on the UI thread, where the views say so in words, as they always did.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from factlines import KnowledgeGraph, open_graph
from factlines.core.errors import Refused, Unavailable
from factlines.ui.jobs.progress import Job
from factlines.ui.session.document import Document


class EntityReads(QObject):
    def __init__(self, document: Document, parent: QObject | None = None):
        super().__init__(parent)
        self._document = document
        self.jobs: set[Job] = set()  # running: a newer read does not wait for an older one
        document.state.read_elsewhere = self.start

    def start(self, read: Callable[[KnowledgeGraph], object], done: Callable) -> None:
        """``read(kg)`` on a worker, then ``done(answer)`` here; ``done(None)`` when the read
        was refused or the store unavailable. Nothing is read elsewhere from a private copy
        of the file (each read would copy it): ``done(None)`` at once."""
        kg = self._document.kg
        if kg is None or kg.private_copy:
            done(None)
            return
        location = self._document.path

        def work(_progress) -> object:
            with open_graph(location, read_only=True) as own:
                return read(own)

        job = Job(work, self)
        job.finished.connect(done)
        job.failed.connect(lambda _words: done(None))
        job.ended.connect(lambda: self._ended(job, done))
        self.jobs.add(job)
        job.start()

    def _ended(self, job: Job, done: Callable) -> None:
        self.jobs.discard(job)
        job.deleteLater()
        if job.error is not None and not isinstance(job.error, (Refused, Unavailable)):
            done(None)  # a bug, shown by the error handler: the views read here, not wait on

    def wait(self, timeout: float = 30.0) -> None:
        """Block until every read has returned (closing, tests)."""
        for job in list(self.jobs):
            job.wait(round(timeout * 1000))
