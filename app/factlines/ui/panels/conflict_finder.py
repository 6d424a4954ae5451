"""Finding every conflict in the graph, and the predicates that look single-valued.

On a small graph this is a few milliseconds and runs where it is asked. On a big one it runs
on a worker thread with a read-only store of its own (``open_graph(path, read_only=True)``):
the window's store is not shared across threads while the views read it. It says how far it
is (``progressed``) and can be cancelled (the store stops at its next step). Writes ask again,
once they stop coming for a moment; a run still going when another is asked finishes, its
answer is dropped, and the newest question is run. A bug in the worker is raised on the UI
thread, where it reaches the app's error handler with its traceback.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QTimer, Signal

from factlines import open_graph
from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Cancelled, report
from factlines.ui.errors import in_words
from factlines.ui.state import AppState

REFRESH_MS = 300  # writes in a row are looked at once, this long after the last
THREAD_ABOVE = 100_000  # facts: from this many on, the conflicts are found off the UI thread


class _Relay(QObject):
    """Brings a worker's answer to the UI thread (a queued signal). It has no parent, so the
    worker's reference keeps it alive even when the window is gone first."""

    done = Signal(int, object, object, object)  # run, conflicts, suggestions, exception
    step = Signal(int, int, int)  # run, steps done, steps in all


class ConflictFinder(QObject):
    """Finds ``kg.conflicts()`` and ``kg.single_valued_suggestions()`` and says so:
    ``running(words)`` when a run starts off the UI thread, ``progressed(done, total)`` as it
    goes, ``found(conflicts, suggestions)`` with the answer, ``failed(words)`` when the store
    could not be read or the run was cancelled."""

    running = Signal(str)
    progressed = Signal(int, int)
    found = Signal(list, list)
    failed = Signal(str)

    def __init__(self, state: AppState, parent: QObject | None = None):
        super().__init__(parent)
        self._state = state
        self.thread_above = THREAD_ABOVE
        self._run_id = 0
        self._worker: threading.Thread | None = None
        self._cancel = threading.Event()
        self._again = False
        self._opened = False
        self._relay = _Relay()
        self._relay.done.connect(self._finished)
        self._relay.step.connect(self._stepped)
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
        kg = self._state.kg
        if kg is None or kg.closed:
            self.found.emit([], [])
            return
        if self._worker is not None:
            self._again = True
            return
        try:
            facts = kg.stats()["triples"]
            if facts < self.thread_above:
                conflicts, suggestions = kg.conflicts(), kg.single_valued_suggestions()
            else:
                self._start_worker(str(kg.db_path), facts)
                return
        except (Refused, Unavailable) as exc:
            self.failed.emit(f"Conflicts not found: {in_words(exc)}")
            return
        self.found.emit(conflicts, suggestions)

    def _start_worker(self, path: str, facts: int) -> None:
        self._run_id += 1
        run, relay = self._run_id, self._relay
        self._cancel = cancel = threading.Event()

        def work() -> None:
            conflicts = suggestions = error = None
            steps = 1

            def tell(done: int, total: int) -> bool:
                nonlocal steps
                steps = total + 1  # and the suggestions, last
                relay.step.emit(run, done, steps)
                return not cancel.is_set()

            try:
                with open_graph(path, read_only=True) as kg:
                    conflicts = kg.conflicts(progress=tell)
                    report(tell, steps - 1, steps - 1)
                    suggestions = kg.single_valued_suggestions()
            except Exception as exc:  # handed to the UI thread: a bug is raised there
                error = exc
            relay.done.emit(run, conflicts, suggestions, error)

        self._worker = threading.Thread(target=work, name="factlines-conflicts", daemon=True)
        self.running.emit(f"Finding conflicts among {facts:,} facts…")
        self._worker.start()

    def cancel(self) -> None:
        """Stop the run going on the worker thread (at the store's next step) and drop it."""
        self._again = False
        self._timer.stop()
        self._cancel.set()

    def _stepped(self, run: int, done: int, total: int) -> None:
        if run == self._run_id and not self._cancel.is_set():
            self.progressed.emit(done, total)

    def _finished(self, run: int, conflicts, suggestions, error) -> None:
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
        if isinstance(error, Cancelled):
            self.failed.emit("Conflicts not counted: cancelled")
            return
        if isinstance(error, (Refused, Unavailable)):
            self.failed.emit(f"Conflicts not found: {in_words(error)}")
            return
        if error is not None:
            self.failed.emit("Conflicts not counted: the search failed")
            raise error
        self.found.emit(conflicts, suggestions)

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for closing and for tests)."""
        if self._worker is not None:
            self._worker.join(timeout)
