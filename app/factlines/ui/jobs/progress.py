"""Long work off the UI thread, with progress and Cancel: the window's one way of working there.

Export, import, copying a graph, building indexes, the undo or redo of a big step
(:mod:`factlines.ui.jobs.step_replays`) and every question about the whole graph
(:mod:`factlines.ui.jobs.whole_graph`) run as a :class:`Job`; so does freeing a big answer
replaced (:func:`let_go_elsewhere`).

A :class:`Job` runs ``work(progress)`` on a worker thread while the window goes on answering.
``progress(done, total)`` is the core's convention (``factlines.core.progress``): call
it every batch; it returns ``False`` once Cancel was asked, and the core then raises
``Cancelled`` (work of your own may raise it, or check :attr:`Job.cancel_requested`).
``progress(done, total, what)`` names the step it starts (an index being built). Every
signal reaches the job's own (UI) thread, queued, in this order::

    job = Job(work, parent)
    job.progressed.connect(...)   # (done, total): total 0 while not known yet
    job.named.connect(...)        # (done, total, what): progress that names its step
    job.finished.connect(...)     # (result): work returned it
    job.failed.connect(...)       # (words): Refused or Unavailable, said as ui.errors.in_words
    job.cancelled.connect(...)    # (): work stopped at Cancel (raised Cancelled)
    job.ended.connect(...)        # (): always last, after whichever of the three (or a bug)
    job.start()                   # once; job.cancel() asks it to stop; job.wait() blocks;
                                  # job.stop() does both

Exactly one of ``finished``, ``failed``, ``cancelled`` comes, unless work has a **bug** (any
other exception): then ``ended`` comes and the exception is raised on the UI thread with its
traceback, where the app's error handler (:mod:`factlines.ui.errors`) shows it. A cancel that
comes after the work's last ``progress`` call is too late: the job finishes.

``work`` must not use the window's store while the views read it: open a store of its own
(``open_graph(path, …)``) on the worker thread, as it needs.

:class:`ProgressDialog` shows one job: its words, a bar (busy while the total is unknown), "N
of M rows", and Cancel (or Escape), after which it says "Cancelling…" until the work has
stopped; it closes itself when the job ends. Window-modal, shown once the work lasts a moment.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from factlines.core import memory
from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Cancelled
from factlines.core.turns import let_go
from factlines.ui.look.wording import in_words

Work = Callable[[Callable[[int, int], bool]], object]

# Progress is passed on at most this often (and always at the start and the end): a worker
# that reports every row would otherwise flood the UI thread's queue.
PROGRESS_EVERY_S = 0.03
SHOW_AFTER_MS = 300  # a job quicker than this never flashes a dialog
# Work that lasted this long hands back what it freed (:mod:`factlines.core.memory`): 4-7 ms at
# a million facts, which a quick job (a page of counts, an entity's facts) would wait for.
GIVE_BACK_AFTER_S = 0.2
# Workers running now. A worker has no parent: a window closed while its job runs deletes the
# job, and Qt aborts the process when a thread it deletes is still running.
_RUNNING: set[QThread] = set()


STOP_AT_EXIT_S = 10.0  # how long the app's end waits for the jobs still running


def jobs_running() -> int:
    """How many jobs run now, in every window (a test waits for none)."""
    return len(_RUNNING)


@atexit.register
def _stop_running() -> None:
    """Jobs still running as the app ends are stopped at their next step, and waited for (a
    while): Qt ends the process with an error when a thread it deletes is still running."""
    until = time.monotonic() + STOP_AT_EXIT_S
    for worker in list(_RUNNING):
        worker.stop(max(0.0, until - time.monotonic()))


class _Worker(QThread):
    progressed = Signal(int, int)
    named = Signal(int, int, str)

    def __init__(self, work: Work, cancel: threading.Event):
        super().__init__()
        self._work = work
        self._cancel = cancel
        self._last = 0.0
        self.result: object = None
        self.error: BaseException | None = None

    def run(self) -> None:
        began = time.monotonic()
        try:
            self.result = self._work(self._progress)
        except BaseException as exc:  # handed to the UI thread, which sorts it
            self.error = exc
        if time.monotonic() - began >= GIVE_BACK_AFTER_S:
            memory.give_back()  # what the work freed: most of what it read, at a million facts

    def stop(self, timeout_s: float) -> None:
        self._cancel.set()
        self.wait(round(timeout_s * 1000))

    def _progress(self, done: int, total: int, what: str | None = None) -> bool:
        if what is not None:  # a step of its own (an index): few, each passed on
            self.named.emit(int(done), int(total), what)
        now = time.monotonic()
        if now - self._last >= PROGRESS_EVERY_S or done == total:
            self._last = now
            self.progressed.emit(int(done), int(total))
        return not self._cancel.is_set()


class Job(QObject):
    """``work(progress)`` on a worker thread, with progress and cancel (see the module)."""

    progressed = Signal(int, int)
    named = Signal(int, int, str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    ended = Signal()

    def __init__(self, work: Work, parent: QObject | None = None):
        super().__init__(parent)
        self._cancel = threading.Event()
        self._worker = _Worker(work, self._cancel)
        self._worker.progressed.connect(self.progressed)
        self._worker.named.connect(self.named)
        self._worker.finished.connect(self._worker_ended)
        self.running = False
        # What became of it, once ended: the result, or the exception work raised.
        self.result: object = None
        self.error: BaseException | None = None

    def start(self) -> None:
        self.running = True
        _RUNNING.add(self._worker)
        self._worker.start()

    def cancel(self) -> None:
        """Ask the work to stop at its next ``progress`` call (it says so with ``cancelled``)."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def stop(self) -> None:
        """Ask the work to stop and block until it has returned (the window closing)."""
        self.cancel()
        self.wait()

    def wait(self, timeout_ms: int = -1) -> bool:
        """Block until the work has returned (closing, tests); its signals come afterwards,
        from the event loop. True when it has."""
        return self._worker.wait() if timeout_ms < 0 else self._worker.wait(timeout_ms)

    def _worker_ended(self) -> None:
        if not self.running:
            return
        self.running = False
        self._worker.wait()
        _RUNNING.discard(self._worker)
        self.result, self.error = self._worker.result, self._worker.error
        error = self.error
        if error is None:
            self.finished.emit(self.result)
        elif isinstance(error, Cancelled):
            self.cancelled.emit()
        elif isinstance(error, (Refused, Unavailable)):
            self.failed.emit(in_words(error))
        self.ended.emit()
        if error is not None and not isinstance(error, (Cancelled, Refused, Unavailable)):
            raise error  # a bug: the app's error handler shows it with its traceback


class ProgressDialog(QDialog):
    """One job's progress, with Cancel (see the module). ``label`` says what is being done
    ("Copying kg.sqlite3 to team.sqlite3…"); ``unit`` what is counted."""

    def __init__(self, job: Job, title: str, label: str, parent: QWidget, unit: str = "rows"):
        super().__init__(parent)
        self.setObjectName("progressDialog")
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(420)
        self.job = job
        self._unit = unit
        self.label = QLabel(label, self)
        self.label.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 0)  # busy until a total is known
        self.count = QLabel("", self)
        self.count.setObjectName("progressCount")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.label, self.bar, self.count, self.buttons):
            layout.addWidget(widget)
        job.progressed.connect(self._progressed)
        job.ended.connect(self._ended)
        self._show_timer = QTimer(self)
        self._show_timer.setSingleShot(True)
        self._show_timer.timeout.connect(self.show)
        self._show_timer.start(SHOW_AFTER_MS)

    def reject(self) -> None:
        """Cancel (or Escape): ask the job to stop; the dialog closes when it has."""
        if not self.job.running:
            super().reject()
            return
        self.job.cancel()
        self.label.setText("Cancelling… (nothing is kept of what was done)")
        self.buttons.setEnabled(False)

    def _progressed(self, done: int, total: int) -> None:
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            self.count.setText(f"{done:,} of {total:,} {self._unit}")
        else:
            self.count.setText(f"{done:,} {self._unit}" if done else "")

    def _ended(self) -> None:
        self._show_timer.stop()
        self.done(QDialog.DialogCode.Accepted)


# A worker freeing what the window let go of sleeps this long after each slice. Qt's event
# loop takes the interpreter's lock again for each call into Python (a paint is hundreds),
# and each time it waited for the worker's turn to end (:data:`~factlines.ui.app.UI_TURN_S`):
# the Changes panel's tree at a million facts, freed without a pause while the next one was
# shown, stopped the window 220-330 ms.
LET_GO_PAUSE_S = 0.001


def let_go_elsewhere(lists: list[list | np.ndarray], parent: QObject) -> None:
    """Free each of ``lists`` on a worker, a slice at a time
    (:func:`~factlines.core.turns.let_go`) with a pause after each: nothing else may hold
    them, and nobody waits for them. Hundreds of thousands of rows freed on the UI thread
    take it for a few hundred milliseconds."""

    def work(progress) -> None:
        for done, rows in enumerate(lists):

            def pause(done: int = done) -> bool:
                time.sleep(LET_GO_PAUSE_S)
                return progress(done, len(lists))  # False once cancelled (the app quitting)

            if not let_go(rows, pause):
                return

    job = Job(work, parent)
    job.ended.connect(job.deleteLater)
    job.start()
