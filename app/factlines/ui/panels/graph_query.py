"""One question asked of the whole graph (every conflict, the predicates' figures), asked again
after writes.

On a small graph the answer takes a few milliseconds and is found where it is asked. On a big
one it is found on a worker thread with a read-only store of its own (``open_graph(path,
read_only=True)``): the window's store is not shared across threads while the views read it.
Writes ask again, once they stop coming for a moment; a run still going when another is asked
finishes, its answer is dropped, and the newest question is run. A paused query (a panel out
of sight) only notes that it must ask again, and does when it is resumed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from factlines import KnowledgeGraph, open_graph
from factlines.core.errors import Refused, Unavailable
from factlines.ui.errors import in_words
from factlines.ui.state import AppState

REFRESH_MS = 300  # writes in a row are looked at once, this long after the last
THREAD_ABOVE = 100_000  # facts: from this many on, the answer is found off the UI thread


class _Relay(QObject):
    """Brings a worker's answer to the UI thread (a queued signal). It has no parent, so the
    worker's reference keeps it alive even when the window is gone first."""

    done = Signal(int, object, object)  # run, answer, exception


class GraphQuery(QObject):
    """Finds ``ask(kg)`` and says so: ``running(words)`` when a run starts off the UI thread,
    ``found(answer)`` with the answer (``empty`` when no graph is open), ``failed(words)`` when
    the store could not be read. ``what`` names the answer in those words (``conflicts``)."""

    running = Signal(str)
    found = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        state: AppState,
        ask: Callable[[KnowledgeGraph], object],
        empty: object,
        what: str,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self._state = state
        self._ask = ask
        self._empty = empty
        self._what = what
        self.thread_above = THREAD_ABOVE
        self._run_id = 0
        self._worker: threading.Thread | None = None
        self._again = False
        self._opened = False
        self._paused = False
        self._stale = False
        self._relay = _Relay()
        self._relay.done.connect(self._finished)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh_now)
        state.graphChanged.connect(self._graph_changed)
        state.dataChanged.connect(self.refresh_soon)

    @property
    def busy(self) -> bool:
        """A run is going on a worker thread, or one is waiting for writes to stop."""
        return self._worker is not None or self._timer.isActive()

    def set_paused(self, paused: bool) -> None:
        """Paused, only note that the graph changed; resumed, ask then if it did."""
        self._paused = paused
        if not paused and self._stale:
            self.refresh_now()

    def _graph_changed(self) -> None:
        self._run_id += 1  # whatever runs now is about the previous graph
        self._again = False
        self.refresh_now()
        self._opened = True  # the "all rows changed" that follows an open is this one

    def refresh_soon(self, *_touched) -> None:
        if self._opened:
            self._opened = False
            return
        self._timer.start()

    def refresh_now(self) -> None:
        self._timer.stop()
        if self._paused:
            self._stale = True
            return
        self._stale = False
        kg = self._state.kg
        if kg is None or kg.closed:
            self.found.emit(self._empty)
            return
        if self._worker is not None:
            self._again = True
            return
        try:
            facts = kg.stats()["triples"]
            if facts >= self.thread_above:
                self._start_worker(str(kg.db_path), facts)
                return
            answer = self._ask(kg)
        except (Refused, Unavailable) as exc:
            self.failed.emit(f"Cannot find {self._what}: {in_words(exc)}")
            return
        self.found.emit(answer)

    def _start_worker(self, path: str, facts: int) -> None:
        self._run_id += 1
        run, relay, ask = self._run_id, self._relay, self._ask

        def work() -> None:
            answer = error = None
            try:
                with open_graph(path, read_only=True) as kg:
                    answer = ask(kg)
            except Exception as exc:  # handed to the UI thread: a bug is raised there
                error = exc
            relay.done.emit(run, answer, error)

        self._worker = threading.Thread(target=work, name=f"factlines-{self._what}", daemon=True)
        self.running.emit(f"Finding {self._what} among {facts:,} facts…")
        self._worker.start()

    def _finished(self, run: int, answer, error) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.join()
        if run != self._run_id:  # another graph was opened meanwhile
            if self._again:
                self._again = False
                self.refresh_now()
            return
        if self._again:  # written meanwhile: this answer is already old
            self._again = False
            self.refresh_now()
            return
        if isinstance(error, (Refused, Unavailable)):
            self.failed.emit(f"Cannot find {self._what}: {in_words(error)}")
            return
        if error is not None:
            raise error
        self.found.emit(answer)

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for closing and for tests)."""
        if self._worker is not None:
            self._worker.join(timeout)
