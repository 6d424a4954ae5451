"""Indexes off the UI thread: after a writable graph opens, the default indexes it
lacks are built on a worker thread, with progress in the status bar, while the window is
already usable; the watch for other programs' writes does not take that build for one.
Speed indexes are built on request, their cost in MB said first, and removed again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from factlines import KnowledgeGraph
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, messages_of

ANOTHER_PROGRAM = "changed by another program"


def _mempalace_file(path: Path) -> Path:
    """A graph MemPalace wrote, opened once by Factlines' store (which sets up its own tables
    but builds no index on an existing file): no index of ours yet."""
    mp = mempalace_class()(str(path))
    mp.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
    mp.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
    mp.add_triple("Ann", "knows", "Kai")
    mp.close()
    KnowledgeGraph(path).close()
    return path


def _indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        return {name for (name,) in rows if name.startswith("fl_")}
    finally:
        conn.close()


@pytest.fixture
def held():
    """``held(path)``: another program's write lock on ``path`` until ``held.release()``."""

    class Held:
        conn: sqlite3.Connection | None = None

        def __call__(self, path):
            self.conn = sqlite3.connect(path, timeout=0, check_same_thread=False)
            self.conn.execute("BEGIN IMMEDIATE")

        def release(self):
            if self.conn is not None and self.conn.in_transaction:
                self.conn.rollback()

    lock = Held()
    yield lock
    lock.release()
    if lock.conn is not None:
        lock.conn.close()


def test_default_indexes_are_built_off_the_ui_thread_with_progress(window, tmp_path, qtbot, held):
    path = _mempalace_file(tmp_path / "knowledge_graph.sqlite3")
    assert _indexes(path) == set()
    shown: list[str] = []
    window.indexing.progressShown.connect(shown.append)
    said = messages_of(window)
    # MemPalace is writing: the build waits for the lock on its own thread, and the window
    # goes on answering meanwhile (a build on the UI thread would freeze it here).
    held(path)
    assert window.open_path(path)  # while MemPalace still holds the lock
    assert window.indexing.busy
    qtbot.waitUntil(lambda: "Indexing entity names… 1/2" in shown, timeout=5000)
    label = window.findChild(type(window.indexing.label), "indexProgress")
    assert label.isVisible() and label.text() == "Indexing entity names… 1/2"
    assert window.select_entity("Kai")
    window.set_as_of("2025-03-01")
    assert len(window.kg.intervals("Kai")) == 3
    assert window.indexing.busy and _indexes(path) == set()
    for _ in range(3):
        window.check_external_changes()
        qtbot.wait(20)
    held.release()
    qtbot.waitUntil(lambda: not window.indexing.busy, timeout=20000)
    assert _indexes(path) == {"fl_entities_name_cover", "fl_triples_to"}
    assert window.kg.missing_indexes() == []
    assert not label.isVisible() and shown[-1] == ""
    assert "Indexed entity names, facts by end" in said
    # The build's own writes are never said to be another program's, then or later.
    for _ in range(3):
        window.check_external_changes()
    assert not any(ANOTHER_PROGRAM in s for s in said)


def test_nothing_is_built_for_a_read_only_graph_or_one_that_has_its_indexes(window, tmp_path):
    path = _mempalace_file(tmp_path / "knowledge_graph.sqlite3")
    assert window.open_path(path, read_only=True)
    assert not window.indexing.busy and _indexes(path) == set()
    for action in (window.action_speed_indexes, window.action_remove_speed_indexes):
        assert not action.isEnabled() and "read-only" in action.toolTip()
    assert window.open_demo()
    assert not window.indexing.busy


def test_speed_indexes_say_their_cost_first_then_build_and_remove(window, demo, qtbot, monkeypatch):
    questions: list[str] = []
    answer = [False]
    monkeypatch.setattr(window.indexing, "_ask", lambda _t, q: questions.append(q) or answer[0])
    shown: list[str] = []
    window.indexing.progressShown.connect(shown.append)
    said = messages_of(window)
    rows = dump(demo.db_path)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert window.action_speed_indexes in menu.actions()
    assert window.action_speed_indexes.text() == "Speed indexes for huge graphs…"
    assert window.action_speed_indexes.isEnabled()
    assert not window.action_remove_speed_indexes.isEnabled()
    assert "no speed indexes" in window.action_remove_speed_indexes.toolTip()

    window.action_speed_indexes.trigger()  # No: nothing built
    assert len(questions) == 1 and " MB to " in questions[0] and "MemPalace waits" in questions[0]
    assert not window.indexing.busy and demo.speed_indexes() == []

    answer[0] = True
    window.action_speed_indexes.trigger()
    assert window.indexing.busy and not window.action_speed_indexes.isEnabled()
    qtbot.waitUntil(lambda: not window.indexing.busy, timeout=20000)
    built = demo.speed_indexes()
    assert len(built) == 6
    assert any(s.startswith("Building speed index: facts by subject… 1/") for s in shown)
    assert said[-1].startswith("Speed indexes built (")
    assert window.action_remove_speed_indexes.isEnabled()

    window.action_remove_speed_indexes.trigger()
    qtbot.waitUntil(lambda: not window.indexing.busy, timeout=20000)
    assert demo.speed_indexes() == []
    assert said[-1].startswith("Speed indexes removed (")
    assert dump(demo.db_path) == rows  # indexes only: not a row changed
    window.check_external_changes()
    assert not any(ANOTHER_PROGRAM in s for s in said)


def test_closing_the_window_waits_for_a_build_under_way(window, tmp_path, qtbot, held):
    path = _mempalace_file(tmp_path / "knowledge_graph.sqlite3")
    held(path)
    assert window.open_path(path)
    assert window.indexing.busy
    qtbot.wait(100)
    held.release()
    window.close()  # waits: no thread left running, the index whole
    assert not window.indexing.busy
    assert _indexes(path) == {"fl_entities_name_cover", "fl_triples_to"}
