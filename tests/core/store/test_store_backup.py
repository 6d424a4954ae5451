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
