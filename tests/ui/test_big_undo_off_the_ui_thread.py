"""Edit → Undo and Redo of a big step (an import here) run on a worker thread with a store of
their own, with progress and Cancel, while the window goes on answering: Cancel leaves the
graph exactly as before and the step where it was on the stack; a refusal or a failure is met
as the undo on the UI thread meets it (asked, kept, or dropped); and while one runs, every
other edit, undo and redo is refused in words.

The sizes are made small (a step of more than 2 rows is big, written in parts of 2) so a
handful of facts is a big step. ``gate`` holds the worker once it has written its first part,
until the test opens it: what the window does meanwhile is seen by events, not by the clock.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from factlines.core.store import giving_way, replay
from factlines.ui.jobs import progress as progress_jobs
from factlines.ui.session import commands
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, file_query, find_fact, messages_of

FACTS = [("Kai Moreno", "speaks", "Portuguese"), ("Zoe Quint", "speaks", "Greek")] + [
    (f"Writer {n}", "wrote", f"Note {n}") for n in range(4)
]


@pytest.fixture
def big_steps(monkeypatch):
    monkeypatch.setattr(commands, "OFF_THE_UI_THREAD", 2)
    monkeypatch.setattr(replay, "ONE_WRITE", 2)
    monkeypatch.setattr(replay, "PART", 2)
    monkeypatch.setattr(giving_way, "PAUSE_S", 0)
    monkeypatch.setattr(progress_jobs, "SHOW_AFTER_MS", 0)
    monkeypatch.setattr(progress_jobs, "PROGRESS_EVERY_S", 0)


@pytest.fixture
def gate(monkeypatch):
    """Holds the replay on its worker once a part is written, until ``gate.set()``."""
    opened = threading.Event()
    told = replay.report

    def held(progress, done, total):
        if done > 0 and not opened.is_set():
            progress(done, total)  # the window hears it first
            opened.wait(10)
        told(progress, done, total)

    monkeypatch.setattr(replay, "report", held)
    yield opened
    opened.set()


@pytest.fixture
def imported(window, demo, qtbot, tmp_path, big_steps):
    """The graph before the import, and after it: one big step on the stack."""
    before = dump(demo.db_path)
    source = tmp_path / "facts.csv"
    lines = ["subject,predicate,object"] + [",".join(fact) for fact in FACTS]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _finish(qtbot, window.transfer.import_from(source))
    assert window.undo_stack.undoText() == "Import facts.csv"
    return before, dump(demo.db_path)


def _finish(qtbot, job) -> None:
    assert job is not None
    qtbot.waitUntil(lambda: not job.running, timeout=20_000)
    QApplication.processEvents()


def _undo_held(window, qtbot):
    """Edit → Undo; returns its job once its progress shows a part written (held there)."""
    window.action_undo.trigger()
    job = window.replays.job
    assert job is not None and job.running  # Undo returned while it runs
    qtbot.waitUntil(lambda: window.replays.progress.bar.value() > 0, timeout=10_000)
    return job


def test_a_big_undo_runs_on_a_worker_with_progress_while_the_window_answers(
    window, demo, qtbot, imported, gate
):
    before, _after = imported
    beats: list[bool] = []
    timer = QTimer()
    timer.timeout.connect(lambda: beats.append(window.replays.job.running))
    timer.start(5)

    job = _undo_held(window, qtbot)
    qtbot.waitUntil(lambda: len(beats) >= 3, timeout=5000)  # the UI thread's timer beats

    dialog = window.replays.progress
    assert dialog.isVisible() and dialog.windowTitle() == "Undo Import facts.csv"
    rows = dialog.bar.maximum()
    assert rows > len(FACTS) and dialog.count.text() == f"2 of {rows} rows"
    assert all(beats) and window.undo_stack.index() == 0
    gate.set()
    _finish(qtbot, job)
    timer.stop()
    assert dump(demo.db_path) == before
    assert window.undo_stack.index() == 0 and window.undo_stack.redoText() == "Import facts.csv"
    assert demo.edit_log(1)[0]["what"] == "Undo Import facts.csv"
    assert not dialog.isVisible()


def test_cancel_leaves_the_graph_as_before_the_undo_and_the_step_in_place(
    window, demo, qtbot, imported, gate
):
    before, after = imported
    said = messages_of(window)
    job = _undo_held(window, qtbot)

    window.replays.progress.reject()  # Cancel
    gate.set()
    _finish(qtbot, job)

    assert dump(demo.db_path) == after
    assert demo.edit_log(1)[0]["what"] == "Import facts.csv"  # no undo logged
    assert window.undo_stack.index() == 1 and window.undo_stack.undoText() == "Import facts.csv"
    assert said[-1] == (
        "Undo “Import facts.csv” cancelled: nothing was changed and the step is kept"
    )
    window.action_undo.trigger()  # and it can be undone again
    _finish(qtbot, window.replays.job)
    assert dump(demo.db_path) == before and window.undo_stack.index() == 0


def test_a_big_redo_runs_on_a_worker_and_cancels_too(window, demo, qtbot, imported, gate):
    before, after = imported
    gate.set()
    window.action_undo.trigger()
    _finish(qtbot, window.replays.job)
    gate.clear()

    window.action_redo.trigger()
    job = window.replays.job
    assert job.running
    qtbot.waitUntil(lambda: window.replays.progress.bar.value() > 0, timeout=10_000)
    window.replays.progress.reject()
    gate.set()
    _finish(qtbot, job)
    assert dump(demo.db_path) == before
    assert window.undo_stack.index() == 0 and window.undo_stack.redoText() == "Import facts.csv"

    window.action_redo.trigger()
    _finish(qtbot, window.replays.job)
    assert dump(demo.db_path) == after and window.undo_stack.index() == 1


def test_while_it_runs_edits_undo_redo_and_imports_are_refused_in_words(
    window, demo, qtbot, imported, gate, tmp_path
):
    before, _after = imported
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    job = _undo_held(window, qtbot)
    said = messages_of(window)

    assert not window.fact_actions.end_fact(nova["id"], "2026-06-30")
    assert said[-1] == (
        "End Kai Moreno works_on Nova at 2026-06-30 refused: the undo of “Import facts.csv” "
        "is under way: wait for it, or cancel it"
    )
    window.action_redo.trigger()
    assert said[-1] == (
        "Cannot redo “Import facts.csv” during the undo of “Import facts.csv”: wait for it, "
        "or cancel it"
    )
    assert window.transfer.import_from(tmp_path / "facts.csv") is None
    assert said[-1] == "The undo of “Import facts.csv” is under way: wait for it"
    gate.set()
    _finish(qtbot, job)
    assert dump(demo.db_path) == before and window.undo_stack.index() == 0
    assert file_query(demo.db_path, "SELECT valid_to FROM triples WHERE id = ?", (nova["id"],)) == [
        (None,)
    ]


def _mempalace_asserts(path, fact) -> None:
    mempalace = mempalace_class()(path)
    try:
        mempalace.add_triple(*fact)  # found open: writes nothing
    finally:
        mempalace.close()


@pytest.mark.parametrize("yes", [False, True])
def test_a_big_undo_another_program_may_rely_on_asks_first(
    window, demo, qtbot, imported, monkeypatch, yes
):
    _before, _after = imported
    _mempalace_asserts(demo.db_path, ("Zoe Quint", "knows", "Kai Moreno"))  # it wrote since
    asked: list[str] = []
    monkeypatch.setattr(window, "ask", lambda _title, q: asked.append(q) or yes)
    said = messages_of(window)

    window.action_undo.trigger()
    _finish(qtbot, window.replays.job)
    if yes:  # done again, anyway
        _finish(qtbot, window.replays.job)

    assert len(asked) == 1 and "wrote the graph since this step" in asked[0]
    theirs = file_query(demo.db_path, "SELECT 1 FROM triples WHERE predicate = 'knows'")
    assert len(theirs) == 1
    if yes:
        assert window.undo_stack.index() == 0
        assert file_query(demo.db_path, "SELECT 1 FROM triples WHERE predicate = 'wrote'") == []
    else:
        assert window.undo_stack.index() == 1
        assert said[-1].startswith("Did not undo “Import facts.csv”: another program wrote")
        assert len(file_query(demo.db_path, "SELECT 1 FROM triples WHERE predicate = 'wrote'"))


@pytest.mark.parametrize("mempalace_writes", [False, True])
def test_the_worker_hands_back_where_the_graph_stood(
    window, demo, qtbot, imported, monkeypatch, mempalace_writes
):
    """After a big undo and redo on workers, the next undo asks only when another program
    wrote since: the workers' own writes are not another program's."""
    window.action_undo.trigger()
    _finish(qtbot, window.replays.job)
    window.action_redo.trigger()
    _finish(qtbot, window.replays.job)
    if mempalace_writes:
        _mempalace_asserts(demo.db_path, ("Zoe Quint", "knows", "Kai Moreno"))
    asked: list[str] = []
    monkeypatch.setattr(window, "ask", lambda _title, q: asked.append(q) or False)

    window.action_undo.trigger()
    _finish(qtbot, window.replays.job)

    assert len(asked) == int(mempalace_writes)
    assert window.undo_stack.index() == int(mempalace_writes)


def test_a_big_undo_whose_rows_changed_since_is_dropped(window, demo, qtbot, imported):
    _before, _after = imported
    fact = find_fact(demo, "Writer 3", "wrote", "Note 3")
    conn_sql = "UPDATE triples SET valid_to = '2026-01-01' WHERE id = ?"
    conn = sqlite3.connect(demo.db_path)
    with conn:
        conn.execute(conn_sql, (fact["id"],))
    conn.close()
    changed = dump(demo.db_path)
    said = messages_of(window)

    window.action_undo.trigger()
    _finish(qtbot, window.replays.job)

    assert dump(demo.db_path) == changed
    assert window.undo_stack.count() == 0  # dropped: it can never be undone
    assert said[-1].startswith("Cannot undo “Import facts.csv”: the fact “Writer 3 wrote Note 3”")


def test_a_big_undo_while_the_file_is_locked_is_kept_to_try_again(window, demo, qtbot, imported):
    before, after = imported
    other = sqlite3.connect(demo.db_path, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # another program's write, held
    said = messages_of(window)
    try:
        window.action_undo.trigger()
        _finish(qtbot, window.replays.job)
    finally:
        other.rollback()
        other.close()

    assert dump(demo.db_path) == after
    assert window.undo_stack.index() == 1 and window.undo_stack.undoText() == "Import facts.csv"
    assert "locked by another program" in said[-1] and said[-1].endswith("try again")
    window.action_undo.trigger()
    _finish(qtbot, window.replays.job)
    assert dump(demo.db_path) == before


def test_closing_the_window_during_a_big_undo_cancels_it(
    window, demo, qtbot, imported, gate, monkeypatch
):
    _before, after = imported
    job = _undo_held(window, qtbot)
    asked_to_stop = job.cancel

    def cancel() -> None:  # the worker goes on only once asked to stop, or it may finish first
        asked_to_stop()
        gate.set()

    monkeypatch.setattr(job, "cancel", cancel)
    window.close()  # cancels and waits for the worker: what it wrote is put back
    QApplication.processEvents()

    assert not job.running and dump(demo.db_path) == after


def test_the_views_reload_once_the_big_undo_has_ended(
    window, demo, qtbot, imported, gate, monkeypatch
):
    """Not while it runs: they would show it half done, and slow it and the window."""
    _before, _after = imported
    reloads: list[bool] = []
    monkeypatch.setattr(window.state, "reload_soon", lambda: reloads.append(True))
    monkeypatch.setattr(window, "ask", lambda _title, _q: True)  # "Undo anyway?"
    job = _undo_held(window, qtbot)
    _mempalace_asserts(demo.db_path, ("Zoe Quint", "knows", "Kai Moreno"))

    assert not window.document.check_external_changes() and reloads == []
    gate.set()
    _finish(qtbot, job)
    _finish(qtbot, window.replays.job)  # undone anyway, once asked

    assert reloads and file_query(demo.db_path, "SELECT 1 FROM triples WHERE predicate = 'knows'")
    assert window.undo_stack.index() == 0


def test_a_step_whose_record_went_to_its_file_is_big_too(
    window, demo, qtbot, tmp_path, big_steps, monkeypatch
):
    """A long write's record leaves memory for a file of its own as it commits: its size is
    still the whole step's, so its undo runs on the worker."""
    from factlines.core.store import changes

    monkeypatch.setattr(changes, "SPILL_ROWS", 3)
    before = dump(demo.db_path)
    source = tmp_path / "facts.csv"
    lines = ["subject,predicate,object"] + [",".join(fact) for fact in FACTS]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _finish(qtbot, window.transfer.import_from(source))
    window.action_undo.trigger()
    job = window.replays.job
    assert job is not None  # not undone on the UI thread
    _finish(qtbot, job)
    assert dump(demo.db_path) == before
