"""The entity search index, built off the UI thread before the person types.

Building it reads every entity and folds its name and id: ~0.2 s at 10,000 entities, 1-2 s
at 100,000, a stall the UI thread would feel at every open. A :class:`SearchIndexBuilder`
builds it on a worker thread, on a read-only store of its own, and hands it to the window's
store (``kg.adopt_search_index``), which keeps it only if the graph did not change meanwhile
(a search then builds it where it is asked, as before).
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from factlines import KnowledgeGraph, open_graph
from factlines.ui.jobs.progress import Job


class SearchIndexBuilder(QObject):
    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._job: Job | None = None
        self._next: KnowledgeGraph | None = None  # asked while one was being built

    @property
    def busy(self) -> bool:
        return self._job is not None

    def build(self, kg: KnowledgeGraph | None) -> None:
        """Build ``kg``'s search index on a worker thread, unless it is up to date; asked
        while one is being built, once that one ended (another graph may have been opened)."""
        if self._job is not None:
            self._next = kg
            return
        if kg is None or kg.closed:
            return
        stamp = kg.search_index_stamp()
        if stamp is None:
            return
        path = str(kg.db_path)

        def read(_progress):
            with open_graph(path, read_only=True) as own:
                return own.read_search_index()

        def adopt(index) -> None:
            if not kg.closed:
                kg.adopt_search_index(index, stamp)

        self._job = job = Job(read, self)
        job.finished.connect(adopt)
        job.ended.connect(self._ended)
        job.start()  # refused or unavailable: the first search builds it, and says why

    def _ended(self) -> None:
        job, self._job = self._job, None
        if job is not None:
            job.deleteLater()
        kg, self._next = self._next, None
        if kg is not None:
            self.build(kg)

    def stop(self, timeout: float = 30.0) -> None:
        """Closing: block until the worker (if any) is done; nothing is built afterwards."""
        self._next = None
        if self._job is not None:
            self._job.wait(round(timeout * 1000))
