"""Questions about the whole graph, answered off the UI thread at every size.

Each read runs as a :class:`~factlines.ui.jobs.progress.Job` (the window's one way of working off
the UI thread) that opens a read-only store of its own (``open_graph(path, read_only=True)``):
the window's store is not shared across threads while the views read it. The read is told a
``progress(done, total)`` (:mod:`factlines.core.progress`) that says how far it is and stops
it when cancelled. A read asked for while one runs waits for it to end (its answer is dropped
then: the graph changed meanwhile) and only the newest waits. A bug in the worker is raised on
the UI thread, where it reaches the app's error handler with its traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from factlines import KnowledgeGraph, open_graph
from factlines.core.collector import collector_paused
from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Cancelled, Progress
from factlines.ui.jobs.progress import SHOW_AFTER_MS, Job

Read = Callable[[KnowledgeGraph, Progress], object]
# The questions' reads take turns: run side by side, each would take the interpreter's lock
# from the UI thread as often as the others, and the window would get a smaller share.
_ONE_AT_A_TIME = threading.Lock()
REFRESH_MS = 300  # writes in a row are looked at once, this long after the last


class BackgroundRead(QObject):
    """``answered(answer)`` with the newest read's answer; ``slow()`` once a read has lasted
    :data:`~factlines.ui.jobs.progress.SHOW_AFTER_MS` (time to show progress), ``progressed(done,
    total)`` as it goes; ``failed(words)`` when it was refused or the store unavailable,
    ``cancelled()`` when stopped, ``broke()`` when it had a bug (raised afterwards)."""

    answered = Signal(object)
    slow = Signal()
    progressed = Signal(int, int)
    failed = Signal(str)
    cancelled = Signal()
    broke = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._run_id = 0
        self._job: Job | None = None
        self._waiting: tuple[str, Read] | None = None
        self._slow = QTimer(self)
        self._slow.setSingleShot(True)
        self._slow.setInterval(SHOW_AFTER_MS)
        self._slow.timeout.connect(self.slow)

    @property
    def busy(self) -> bool:
        return self._job is not None

    def start(self, path: str, read: Read) -> None:
        """Run ``read(kg, progress)`` on a worker thread, after the one running (if any)."""
        if self._job is not None:
            self._waiting = (path, read)
            return
        self._run_id += 1
        run = self._run_id

        def work(progress) -> object:
            # The collector waits until the read has built its answer and let go of the rest:
            # the UI thread's collection would walk what it still holds (the review inbox of
            # a graph recorded this week: 1,000,000 items, 150-170 ms at 1M facts).
            with (
                _ONE_AT_A_TIME,
                collector_paused(),
                open_graph(path, read_only=True, scanning=True) as kg,
            ):
                return read(kg, progress)

        self._job = job = Job(work, self)
        job.progressed.connect(lambda done, total: self._progressed(run, done, total))
        job.finished.connect(lambda answer: self._wanted(run) and self.answered.emit(answer))
        job.failed.connect(lambda words: self._wanted(run) and self.failed.emit(words))
        job.cancelled.connect(lambda: self._wanted(run) and self.cancelled.emit())
        job.ended.connect(lambda: self._ended(run, job))
        self._slow.start()
        job.start()

    def cancel(self) -> None:
        """Stop the running read at its next step, and any waiting one."""
        self._waiting = None
        if self._job is not None:
            self._job.cancel()

    def forget(self) -> None:
        """Drop the answer of the read running now (it is about a graph no longer open)."""
        self._run_id += 1

    def _wanted(self, run: int) -> bool:
        """Whether the news of run ``run`` is still wanted: no newer question was asked (the
        graph changed meanwhile, or another graph was opened)."""
        return run == self._run_id and self._waiting is None

    def _progressed(self, run: int, done: int, total: int) -> None:
        if self._wanted(run) and self._job is not None and not self._job.cancel_requested:
            self.progressed.emit(done, total)

    def _ended(self, run: int, job: Job) -> None:
        self._job = None
        self._slow.stop()
        job.deleteLater()
        waiting, self._waiting = self._waiting, None
        if waiting is not None:  # asked again meanwhile: this answer was already old
            self.start(*waiting)
        elif run == self._run_id and job.error is not None and not _told(job.error):
            self.broke.emit()  # the job raises the bug next, to the error handler

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for tests)."""
        if self._job is not None:
            self._job.wait(round(timeout * 1000))

    def stop(self, timeout: float = 30.0) -> None:
        """Closing: stop the running read, drop the waiting one and block until the worker is
        done. A read left waiting would start once the running one ends, after the window
        closed, and hold the reads' turn (:data:`_ONE_AT_A_TIME`) from the next window's."""
        self.forget()
        self.cancel()
        self.wait(timeout)


def _told(error: BaseException) -> bool:
    """Whether the job told of ``error`` (failed or cancelled): not a bug."""
    return isinstance(error, (Refused, Unavailable, Cancelled))


class WholeGraphQuestion(QObject):
    """A question about the whole graph, asked again when it changes: at once on an open (the
    "every row changed" that follows it is that same change), after writes once they stop
    coming for :data:`REFRESH_MS`. Subclasses ask it in :meth:`refresh_now`, through
    :attr:`reader`, off the UI thread.

    Given the ``panel`` that shows the answer, it is asked again after writes only while the
    panel is in sight (:attr:`stale` notes it is owed), and when the panel comes to the front
    (:meth:`in_sight`); with ``asked_at_open`` False, at an open too (the answer shows nowhere
    else). A read of the whole graph holds the worker, and through the interpreter's lock the
    window, for a few hundred ms at 100,000 facts, after every write."""

    def __init__(
        self,
        state,
        parent: QObject | None = None,
        panel: QWidget | None = None,
        asked_at_open: bool = True,
    ):
        super().__init__(parent)
        self._state = state
        self._opened = False
        self._panel = panel
        self._asked_at_open = asked_at_open
        self.stale = False
        self.reader = BackgroundRead(self)
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
        if self._asked_at_open:
            self.refresh_now()
        else:
            self.refresh_in_sight()
        self._opened = True

    def refresh_soon(self, *touched) -> None:
        if self._opened:
            self._opened = False
            return
        if self._out_of_sight():
            self.stale = True
            return
        if touched and not self.busy and self.brought_in(touched[0]):
            return
        self._timer.start()

    def brought_in(self, touched) -> bool:
        """Whether the answer shown now was brought up to date with the write that ``touched``
        rows, without asking again (only when it was the newest answer: no read running or
        waiting). A subclass may; this one does not."""
        return False

    def refresh_in_sight(self) -> None:
        """Ask now if the panel is in sight, else when it comes to the front."""
        if self._out_of_sight():
            self.stale = True
        else:
            self.refresh_now()

    def in_sight(self, shown: bool) -> None:
        """The panel's tab came to the front (``shown``) or went behind another: asked then
        if it is owed."""
        if shown and self.stale:
            self.refresh_now()

    def _out_of_sight(self) -> bool:
        return self._panel is not None and self._panel.visibleRegion().isEmpty()

    def refresh_now(self) -> None:
        """Ask now (subclasses: through :attr:`reader`; :attr:`stale` is cleared here)."""
        raise NotImplementedError

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for tests)."""
        self.reader.wait(timeout)

    def stop(self) -> None:
        """Closing: nothing more is asked, and the read running now stops (see
        :meth:`BackgroundRead.stop`)."""
        self._timer.stop()
        self.reader.stop()
