"""One read of a big graph on a worker thread, for a panel that must not freeze the window.

The worker opens a read-only store of its own (``open_graph(path, read_only=True)``): the
window's store is not shared across threads while the views read it. The read is told a
``progress(done, total)`` (:mod:`factlines.core.progress`) that says how far it is and stops it
when cancelled. A read asked for while one runs waits for it to end (its answer is dropped
then) and only the newest waits. A bug in the worker is raised on the UI thread, where it
reaches the app's error handler with its traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from factlines import KnowledgeGraph, open_graph
from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Cancelled, Progress

Read = Callable[[KnowledgeGraph, Progress], object]
# Facts: from this many on, a read of the whole graph runs off the UI thread (at 100k the
# conflicts take a few hundred milliseconds, at 1M seconds).
THREAD_ABOVE = 100_000
REFRESH_MS = 300  # writes in a row are looked at once, this long after the last


class _Relay(QObject):
    """Brings the worker's news to the UI thread (queued signals). It has no parent, so the
    worker's reference keeps it alive even when the window is gone first."""

    done = Signal(int, object, object)  # run, answer, exception
    step = Signal(int, int, int)  # run, steps done, steps in all


class BackgroundRead(QObject):
    """``answered(answer)`` with the newest read's answer, ``progressed(done, total)`` as it
    goes, ``failed(exception)`` when it was refused, unavailable, cancelled, or a bug (which
    is raised afterwards)."""

    answered = Signal(object)
    progressed = Signal(int, int)
    failed = Signal(object)

    def __init__(self, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self._name = name
        self._run_id = 0
        self._worker: threading.Thread | None = None
        self._cancel = threading.Event()
        self._waiting: tuple[str, Read] | None = None
        self._relay = _Relay()
        self._relay.done.connect(self._finished)
        self._relay.step.connect(self._stepped)

    @property
    def busy(self) -> bool:
        return self._worker is not None

    def start(self, path: str, read: Read) -> None:
        """Run ``read(kg, progress)`` on a worker thread, after the one running (if any)."""
        if self._worker is not None:
            self._waiting = (path, read)
            return
        self._run_id += 1
        run, relay = self._run_id, self._relay
        self._cancel = cancel = threading.Event()

        def tell(done: int, total: int) -> bool:
            relay.step.emit(run, done, total)
            return not cancel.is_set()

        def work() -> None:
            answer = error = None
            try:
                with open_graph(path, read_only=True) as kg:
                    answer = read(kg, tell)
            except Exception as exc:  # handed to the UI thread: a bug is raised there
                error = exc
            relay.done.emit(run, answer, error)

        self._worker = threading.Thread(target=work, name=self._name, daemon=True)
        self._worker.start()

    def cancel(self) -> None:
        """Stop the running read at its next step, and any waiting one."""
        self._waiting = None
        self._cancel.set()

    def forget(self) -> None:
        """Drop the answer of the read running now (it is about a graph no longer open)."""
        self._run_id += 1

    def _stepped(self, run: int, done: int, total: int) -> None:
        if run == self._run_id and not self._cancel.is_set():
            self.progressed.emit(done, total)

    def _finished(self, run: int, answer, error) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.join()
        waiting, self._waiting = self._waiting, None
        expected = error is None or isinstance(error, (Refused, Unavailable, Cancelled))
        if waiting is not None:  # asked again meanwhile: this answer is already old
            self.start(*waiting)
        elif run == self._run_id:
            if error is None:
                self.answered.emit(answer)
            else:
                self.failed.emit(error)
        if not expected:  # a bug, even in an answer no one waits for any more
            raise error

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for closing and for tests)."""
        if self._worker is not None:
            self._worker.join(timeout)


class WholeGraphQuestion(QObject):
    """A question about the whole graph, asked again when it changes: at once on an open (the
    "every row changed" that follows it is that same change), after writes once they stop
    coming for :data:`REFRESH_MS`. Subclasses answer in :meth:`refresh_now`, on the UI thread
    or, from :attr:`thread_above` facts on, through :attr:`reader`."""

    def __init__(self, state, thread_name: str, parent: QObject | None = None):
        super().__init__(parent)
        self._state = state
        self.thread_above = THREAD_ABOVE
        self._opened = False
        self.reader = BackgroundRead(thread_name, self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh_now)
        state.graphChanged.connect(self._graph_changed)
        state.dataChanged.connect(self.refresh_soon)

    @property
    def busy(self) -> bool:
        """A run is going on a worker thread, or one is waiting for writes to stop."""
        return self.reader.busy or self._timer.isActive()

    def _graph_changed(self) -> None:
        self.reader.forget()  # whatever runs now is about the previous graph
        self.refresh_now()
        self._opened = True

    def refresh_soon(self, *_touched) -> None:
        if self._opened:
            self._opened = False
            return
        self._timer.start()

    def refresh_now(self) -> None:
        raise NotImplementedError

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for closing and for tests)."""
        self.reader.wait(timeout)
