"""``kg.backup_to(path)``: a consistent copy of the graph in a new file, through SQLite's
online backup, taken while MemPalace may go on writing (the app keeps one before its first
edit of a file it did not create)."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import KnowledgeGraph, Refused, Unavailable
from store_helpers import dump, mempalace_class


def _graph(path):
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
    return path


def test_the_copy_holds_every_row_and_is_a_graph(tmp_path):
    path = _graph(tmp_path / "kg.sqlite3")
    target = tmp_path / "copy.sqlite3"
    with KnowledgeGraph(path) as kg:
        assert kg.backup_to(target) == target
    # No half-written copy and no side file of the copy left behind.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == [
        "copy.sqlite3"
    ]
    assert dump(target) == dump(path)
    with KnowledgeGraph(target, read_only=True) as copy:
        assert sorted(f["object"] for f in copy.query_entity("Kai")) == ["Nova", "Orion"]


def test_facts_still_in_another_program_s_wal_are_copied(tmp_path):
    """MemPalace keeps the file open with a fact only in its -wal (no checkpoint yet)."""
    path = _graph(tmp_path / "kg.sqlite3")
    mp = mempalace_class()(str(path))
    try:
        mp._conn().execute("PRAGMA wal_autocheckpoint = 0")
        mp.add_triple("Zoe", "mentors", "Kai", valid_from="2025-08-01")
        assert (tmp_path / "kg.sqlite3-wal").stat().st_size > 0
        with KnowledgeGraph(path) as kg:
            kg.backup_to(tmp_path / "copy.sqlite3")
        assert len(dump(tmp_path / "copy.sqlite3")["triples"]) == 3
    finally:
        mp.close()


def test_an_existing_file_is_never_overwritten(tmp_path):
    path = _graph(tmp_path / "kg.sqlite3")
    target = tmp_path / "kept.sqlite3"
    target.write_bytes(b"someone's file")
    with KnowledgeGraph(path) as kg, pytest.raises(Refused, match="already exists"):
        kg.backup_to(target)
    assert target.read_bytes() == b"someone's file"


def test_a_copy_that_cannot_be_written_is_unavailable_and_leaves_nothing(tmp_path):
    path = _graph(tmp_path / "kg.sqlite3")
    before = sorted(p.name for p in tmp_path.iterdir())
    with KnowledgeGraph(path) as kg:
        with pytest.raises(Unavailable, match="could not be copied"):
            kg.backup_to(tmp_path / "no such folder" / "copy.sqlite3")
        (tmp_path / "a file").write_text("not a folder")
        with pytest.raises(Unavailable, match="could not be copied"):
            kg.backup_to(tmp_path / "a file" / "copy.sqlite3")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "a file"])


def test_a_read_only_graph_can_be_copied_and_is_not_written(tmp_path):
    path = _graph(tmp_path / "kg.sqlite3")
    (tmp_path / "copies").mkdir()
    content = dump(path)
    schema = _schema(path)
    with KnowledgeGraph(path, read_only=True) as kg:
        kg.backup_to(tmp_path / "copies" / "copy.sqlite3")
    assert dump(tmp_path / "copies" / "copy.sqlite3") == content
    assert dump(path) == content and _schema(path) == schema


def _schema(path) -> list:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        conn.close()


def _bigger_graph(path, facts: int = 400):
    with KnowledgeGraph(path) as kg, kg.transaction():
        for i in range(facts):
            kg.add_triple(f"Person {i}", "works_on", f"Project {i % 37}", valid_from="2025-01-01")
    return path


def test_progress_hears_the_megabytes_and_a_cancel_leaves_nothing(tmp_path, monkeypatch):
    from factlines.core.progress import Cancelled
    from factlines.core.store import sqlite as engine

    monkeypatch.setattr(engine, "BACKUP_STEP_BYTES", 100_000)
    path = _bigger_graph(tmp_path / "kg.sqlite3", facts=10_000)
    megabytes = path.stat().st_size // 1_000_000
    assert megabytes >= 2
    heard = []
    with KnowledgeGraph(path) as kg:
        kg.backup_to(tmp_path / "copy.sqlite3", lambda done, total: heard.append((done, total)))
        assert heard == sorted(heard) and len(heard) > 10
        assert {total for _, total in heard} == {megabytes}
        assert heard[0][0] < megabytes and heard[-1] == (megabytes, megabytes)
        with pytest.raises(Cancelled):
            kg.backup_to(tmp_path / "cancelled.sqlite3", lambda done, total: False)
    assert not any(p.name.startswith("cancelled") for p in tmp_path.iterdir())


def test_a_write_between_steps_neither_restarts_nor_enters_the_copy(tmp_path, monkeypatch):
    """Every step copies the state committed when the copy began: MemPalace's write between
    two steps is not in it (SQLite would otherwise start the copy over after each)."""
    from factlines.core.store import sqlite as engine

    monkeypatch.setattr(engine, "BACKUP_STEP_BYTES", 1)
    path = _bigger_graph(tmp_path / "kg.sqlite3")
    before = dump(path)
    mp = mempalace_class()(str(path))
    steps = []

    def progress(done, total):
        if not steps:
            mp.add_triple("Zoe", "knows", "Kai")
        steps.append(done)

    try:
        with KnowledgeGraph(path) as kg:
            kg.backup_to(tmp_path / "copy.sqlite3", progress)
    finally:
        mp.close()
    assert dump(tmp_path / "copy.sqlite3") == before
    assert steps == sorted(steps)  # never started over


def test_the_copy_reads_through_its_own_connection_while_the_graph_is_used(tmp_path):
    """A backup on another thread goes on while this graph's connection is busy (here in a
    write, not yet committed: not in the copy)."""
    import threading

    path = _graph(tmp_path / "kg.sqlite3")
    before = dump(path)
    done = threading.Event()
    with KnowledgeGraph(path) as kg:
        with kg.transaction():
            kg.add_triple("Zoe", "knows", "Kai")
            worker = threading.Thread(
                target=lambda: (kg.backup_to(tmp_path / "copy.sqlite3"), done.set())
            )
            worker.start()
            worker.join(timeout=60)  # with the graph's own connection it would wait for ever
            copied_meanwhile = done.is_set()
        worker.join()
    assert copied_meanwhile
    assert dump(tmp_path / "copy.sqlite3") == before
