"""The job runner (ui/jobs/progress.py): work on a worker thread with progress and Cancel, the
window answering meanwhile; refusals and unavailability said in words, a bug shown by the app's
handler with its traceback; the progress dialog and its Cancel."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import report
from factlines.core.turns import LET_GO_AT_ONCE
from factlines.ui.jobs import progress
from factlines.ui.jobs.progress import Job, ProgressDialog
from ui_fixtures import *  # noqa: F403


class Seen:
    """Every signal of one job, in order."""

    def __init__(self, job: Job):
        self.events: list[tuple] = []
        job.progressed.connect(lambda done, total: self.events.append(("progress", done, total)))
        job.finished.connect(lambda result: self.events.append(("finished", result)))
        job.failed.connect(lambda words: self.events.append(("failed", words)))
        job.cancelled.connect(lambda: self.events.append(("cancelled",)))
        job.ended.connect(lambda: self.events.append(("ended",)))

    def kinds(self) -> list[str]:
        return [event[0] for event in self.events if event[0] != "progress"]

    @property
    def ended(self) -> bool:
        return ("ended",) in self.events


def test_work_runs_off_the_ui_thread_and_its_result_arrives(qtbot):
    ui_thread = threading.get_ident()
    ran_on: list[int] = []

    def work(progress):
        ran_on.append(threading.get_ident())
        for done in range(0, 5001, 1000):
            report(progress, done, 5000)
        return {"rows": 5000}

    job = Job(work)
    seen = Seen(job)
    job.start()
    qtbot.waitUntil(lambda: seen.ended, timeout=5000)
    assert ran_on and ran_on[0] != ui_thread
    assert seen.kinds() == ["finished", "ended"]
    assert seen.events[-2] == ("finished", {"rows": 5000})
    progress = [event[1:] for event in seen.events if event[0] == "progress"]
    assert progress[0] == (0, 5000) and progress[-1] == (5000, 5000)
    assert job.result == {"rows": 5000} and job.error is None and not job.running


def test_the_window_answers_while_the_work_runs(qtbot):
    """The work waits for something only the UI thread's event loop can do: were it run on
    the UI thread, it would never end."""
    released = threading.Event()

    def work(progress):
        assert released.wait(5), "the UI thread's timer never fired while the job ran"
        return "done"

    job = Job(work)
    seen = Seen(job)
    job.start()
    QTimer.singleShot(50, released.set)
    qtbot.waitUntil(lambda: seen.ended, timeout=6000)
    assert seen.kinds() == ["finished", "ended"]


def test_cancel_stops_the_work_at_its_next_progress_call(qtbot):
    started = threading.Event()
    batches: list[int] = []

    def work(progress):
        for done in range(10_000):
            report(progress, done, 10_000)  # raises Cancelled once progress says False
            batches.append(done)
            started.set()
            threading.Event().wait(0.002)
        return "not cancelled"

    job = Job(work)
    seen = Seen(job)
    job.start()
    assert started.wait(5)
    job.cancel()
    assert job.cancel_requested
    qtbot.waitUntil(lambda: seen.ended, timeout=5000)
    assert seen.kinds() == ["cancelled", "ended"]
    assert len(batches) < 10_000 and job.result is None


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (Refused("the target already holds a graph with 3 facts"), "already holds a graph"),
        (Unavailable("team.sqlite3 is locked by another program"), "try again"),
    ],
)
def test_refused_and_unavailable_are_said_in_words(qtbot, error, words):
    def work(progress):
        raise error

    job = Job(work)
    seen = Seen(job)
    job.start()
    qtbot.waitUntil(lambda: seen.ended, timeout=5000)
    assert seen.kinds() == ["failed", "ended"]
    said = seen.events[0][1]
    assert words in said and str(error) in said
    assert job.error is error


def test_a_bug_reaches_the_error_handler_with_its_traceback(qtbot, app_errors):
    def broken_work(progress):
        return {}["no such key"]

    job = Job(broken_work)
    seen = Seen(job)
    job.start()
    qtbot.waitUntil(lambda: seen.ended and bool(app_errors.reports), timeout=5000)
    assert seen.kinds() == ["ended"]  # neither finished nor said as a refusal
    [bug] = app_errors.reports
    assert isinstance(bug.exception, KeyError)
    assert "broken_work" in bug.traceback  # the worker's frames are kept


def _waiting_job(parent) -> tuple[Job, threading.Event]:
    """A job whose work reports progress until ``stop`` is set or it is cancelled."""
    stop = threading.Event()

    def work(progress):
        done = 0
        while not stop.is_set():
            report(progress, done, 200)
            done = min(done + 1, 200)
            stop.wait(0.005)
        return done

    return Job(work, parent), stop


def test_the_dialog_shows_progress_and_cancel_stops_the_job(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    job, stop = _waiting_job(parent)
    seen = Seen(job)
    dialog = ProgressDialog(job, "Copy", "Copying a.sqlite3 to b.sqlite3…", parent, unit="rows")
    job.start()
    qtbot.waitUntil(dialog.isVisible, timeout=3000)  # shown once the work lasts a moment
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    qtbot.waitUntil(lambda: "of 200 rows" in dialog.count.text(), timeout=3000)
    assert dialog.bar.maximum() == 200
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # Escape is Cancel
    assert job.cancel_requested
    assert "Cancelling" in dialog.label.text()
    qtbot.waitUntil(lambda: seen.ended, timeout=5000)
    assert seen.kinds() == ["cancelled", "ended"]
    assert not dialog.isVisible()
    stop.set()


def test_the_dialog_never_shows_for_a_quick_job_and_closes_when_it_ends(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    job = Job(lambda progress: 7, parent)
    seen = Seen(job)
    dialog = ProgressDialog(job, "Copy", "Copying…", parent)
    job.start()
    qtbot.waitUntil(lambda: seen.ended, timeout=5000)
    qtbot.wait(400)
    assert not dialog.isVisible()
    assert seen.events[-2] == ("finished", 7)


def test_cancel_button_cancels(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    job, stop = _waiting_job(parent)
    seen = Seen(job)
    dialog = ProgressDialog(job, "Export", "Exporting…", parent)
    job.start()
    qtbot.waitUntil(dialog.isVisible, timeout=3000)
    button = dialog.buttons.button(dialog.buttons.StandardButton.Cancel)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: seen.ended, timeout=5000)
    assert seen.kinds() == ["cancelled", "ended"]
    stop.set()


def test_what_the_window_let_go_is_freed_with_pauses_and_stops_when_the_app_ends(
    qtbot, monkeypatch
):
    """Freed without a pause, a big tree let go held the interpreter's lock from each of the
    UI thread's calls into Python (a paint is hundreds). A job still running as the app ends
    is stopped and waited for: Qt ends the process when a thread it deletes still runs."""
    monkeypatch.setattr(progress, "LET_GO_PAUSE_S", 0.05)
    rows = list(range(LET_GO_AT_ONCE * 100))
    more = list(range(LET_GO_AT_ONCE * 10))
    parent = QWidget()
    running = set(progress._RUNNING)
    progress.let_go_elsewhere([rows, more], parent)
    (worker,) = progress._RUNNING - running
    qtbot.wait(200)
    # Paused after each slice: a few slices gone, not the hundred a free without pauses takes
    # in a few milliseconds.
    assert LET_GO_AT_ONCE * 90 < len(rows) < LET_GO_AT_ONCE * 100
    started = time.monotonic()
    progress._stop_running()
    assert time.monotonic() - started < 1.0  # not the 5 s the pauses would take
    assert worker.isFinished()
    assert 0 < len(rows) < LET_GO_AT_ONCE * 100 and len(more) == LET_GO_AT_ONCE * 10
    qtbot.waitUntil(lambda: worker not in progress._RUNNING, timeout=5000)


def test_a_long_job_hands_back_what_its_work_freed(qtbot, monkeypatch):
    """At a million facts the window kept ~590 MB resident after its reads, Python using ~110
    of it: glibc keeps what a worker freed. A job that worked a while hands it back as its
    work ends; a quick one (a page of counts) does not wait for that."""
    handed_back = []
    monkeypatch.setattr(
        progress.memory, "give_back", lambda: handed_back.append(threading.get_ident())
    )
    monkeypatch.setattr(progress, "GIVE_BACK_AFTER_S", 0.05)
    ran_on = []
    for work_s in (0.0, 0.1):
        job = Job(lambda _progress, s=work_s: ran_on.append(threading.get_ident()) or time.sleep(s))
        with qtbot.waitSignal(job.ended, timeout=5000):
            job.start()
    assert handed_back == ran_on[1:] and ran_on[1] != threading.get_ident()
