"""Contract section 1, the file: schema, the older-file upgrade, WAL, one transaction per write."""

from __future__ import annotations

import math
import sqlite3

import pytest

from factlines import KnowledgeGraph, KnowledgeGraphError, open_graph
from factlines.core import temporal
from factlines.core.errors import EmptyFile
from factlines.core.store.sqlite.schema import NEWER_TRIPLE_COLUMNS
from store_helpers import dump, make_old_mempalace_file

ENTITY_COLUMNS = ["id", "name", "type", "properties", "created_at"]
TRIPLE_COLUMNS = [
    "id",
    "subject",
    "predicate",
    "object",
    "valid_from",
    "valid_to",
    "confidence",
    "source_closet",
    "source_file",
    "source_drawer_id",
    "adapter_name",
    "extracted_at",
]
MEMPALACE_INDEXES = {
    "idx_triples_subject": ["subject"],
    "idx_triples_object": ["object"],
    "idx_triples_predicate": ["predicate"],
    "idx_triples_valid": ["valid_from", "valid_to"],
}


def _columns(path, table):
    with sqlite3.connect(str(path)) as conn:
        return [(c[1], c[2], c[3], c[4], c[5]) for c in conn.execute(f"PRAGMA table_info({table})")]


def _objects(path):
    with sqlite3.connect(str(path)) as conn:
        return {
            name: (kind, sql)
            for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
        }


def test_new_file_has_the_contract_schema(kg_path):
    KnowledgeGraph(kg_path).close()
    assert [c[0] for c in _columns(kg_path, "entities")] == ENTITY_COLUMNS
    assert [c[0] for c in _columns(kg_path, "triples")] == TRIPLE_COLUMNS
    entities = {c[0]: c for c in _columns(kg_path, "entities")}
    assert entities["name"][2] == 1  # NOT NULL
    assert entities["type"][3] == "'unknown'"
    assert entities["properties"][3] == "'{}'"
    assert entities["id"][4] == 1  # primary key
    triples = {c[0]: c for c in _columns(kg_path, "triples")}
    assert triples["confidence"][1:4] == ("REAL", 0, "1.0")
    assert all(triples[c][2] == 1 for c in ("subject", "predicate", "object"))
    with sqlite3.connect(str(kg_path)) as conn:
        for index, cols in MEMPALACE_INDEXES.items():
            assert [r[2] for r in conn.execute(f"PRAGMA index_info({index})")] == cols
        foreign = {(r[3], r[2], r[4]) for r in conn.execute("PRAGMA foreign_key_list(triples)")}
    assert foreign == {("subject", "entities", "id"), ("object", "entities", "id")}


def test_everything_we_add_is_prefixed(kg_path):
    KnowledgeGraph(kg_path).close()
    ours = set(_objects(kg_path)) - set(MEMPALACE_INDEXES) - {"entities", "triples"}
    assert ours, "the store adds its own indexes"
    assert all(name.startswith(("fl_", "sqlite_autoindex_")) for name in ours), ours


def test_wal_and_busy_timeout(kg, kg_path):
    with sqlite3.connect(str(kg_path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert kg._conn().execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_old_file_gains_the_newer_columns_and_nothing_else_changes(tmp_path):
    path = tmp_path / "old.sqlite3"
    make_old_mempalace_file(path)
    before = dump(path)
    old_entities_sql = _objects(path)["entities"][1]
    with KnowledgeGraph(path) as kg:
        assert len(kg.query_entity("P0")) == 1
    after = dump(path)
    names = [c[0] for c in _columns(path, "triples")]
    assert names[-2:] == list(NEWER_TRIPLE_COLUMNS)
    assert set(names) == set(TRIPLE_COLUMNS)
    assert after["entities"] == before["entities"]
    assert [
        {k: v for k, v in row.items() if k not in NEWER_TRIPLE_COLUMNS} for row in after["triples"]
    ] == before["triples"]
    assert all(row[col] is None for row in after["triples"] for col in NEWER_TRIPLE_COLUMNS)
    assert _objects(path)["entities"][1] == old_entities_sql


def test_reopening_rewrites_nothing(kg_path):
    with KnowledgeGraph(kg_path) as kg:
        kg.add_triple("a", "p", "b", valid_from="2026-01-01")
    before, schema = dump(kg_path), _objects(kg_path)
    with sqlite3.connect(str(kg_path)) as conn:
        changes_before = conn.execute("PRAGMA user_version").fetchone()
    with KnowledgeGraph(kg_path):
        pass
    assert dump(kg_path) == before
    assert _objects(kg_path) == schema
    with sqlite3.connect(str(kg_path)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == changes_before


def _make_empty(path, content):
    if content == "empty database":
        sqlite3.connect(str(path)).close()
        path.touch()
    else:
        path.write_bytes(content)


@pytest.mark.parametrize(
    "name, content",
    [
        ("knowledge_graph.sqlite3", b""),
        ("knowledge_graph.sqlite3", "empty database"),
        ("notes.txt", b""),
    ],
    ids=["zero bytes", "empty sqlite", "empty notes.txt"],
)
def test_an_empty_file_is_left_alone_unless_asked(tmp_path, name, content):
    """An existing empty file may be anything a person picked by mistake: it becomes a graph
    only when asked (the app asks the person first)."""
    path = tmp_path / name
    _make_empty(path, content)
    for opening in (
        lambda: KnowledgeGraph(path),
        lambda: open_graph(path),
        lambda: open_graph(path, create=True),
        lambda: KnowledgeGraph(path, read_only=True, initialize_empty=True),
    ):
        # Its own kind of refusal, so the app can ask the person instead of saying no.
        with pytest.raises(EmptyFile, match=r"empty file.*left untouched"):
            opening()
        assert path.read_bytes() == b""
        assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    with open_graph(path, initialize_empty=True) as kg:
        kg.add_triple("a", "p", "b")
    assert len(dump(path)["triples"]) == 1


def test_a_missing_file_is_created_unless_refused(tmp_path):
    with open_graph(tmp_path / "new.sqlite3") as kg:
        assert kg.stats()["triples"] == 0
    for opening in (
        lambda: open_graph(tmp_path / "absent.sqlite3", create=False),
        lambda: open_graph(tmp_path / "absent.sqlite3", read_only=True),
        lambda: KnowledgeGraph(tmp_path / "absent.sqlite3", read_only=True),
    ):
        with pytest.raises(KnowledgeGraphError, match="does not exist"):
            opening()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.sqlite3"]


def test_a_failing_write_leaves_nothing(kg, kg_path):
    kg.add_triple("a", "p", "b")
    before = dump(kg_path)
    with pytest.raises(RuntimeError), kg.transaction():
        kg.add_triple("c", "p", "d")
        kg.add_entity("e", "person")
        raise RuntimeError("boom")
    assert dump(kg_path) == before
    kg.add_triple("x", "p", "y")  # the connection is usable afterwards
    assert len(dump(kg_path)["triples"]) == 2


def test_seeding_is_one_transaction(kg, kg_path):
    facts = {
        "max": {"full_name": "Max", "parent": "alice", "birthday": "2015-04-01"},
        "bad": {"full_name": "Bad", "parent": "alice", "birthday": "2015-02-30"},
    }
    with pytest.raises(ValueError, match="valid_from"):
        kg.seed_from_entity_facts(facts)
    assert dump(kg_path) == {"entities": [], "triples": []}


def test_closed_store_refuses_use(kg_path):
    with KnowledgeGraph(kg_path) as kg:
        pass
    assert kg.closed
    with pytest.raises(KnowledgeGraphError, match="closed"):
        kg.stats()
    kg.close()  # closing twice is harmless


def test_values_mempalace_passes_through_do_not_break_reads(kg, kg_path):
    # MemPalace stores "" as given, and older files may hold partial dates; reading them
    # must not fail, and the time span ignores them.
    kg.add_triple("a", "p", "b", valid_from="2026-01-01", valid_to="2026-02-01")
    with sqlite3.connect(str(kg_path)) as conn:
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES (?, 'a', 'q', 'b', ?, ?)",
            [("t_empty", "", ""), ("t_partial", "2026", None), ("t_words", "1999-ish", None)],
        )
    facts = {fact["id"]: fact for fact in kg.intervals("a")}
    # An empty end is not "still open": MemPalace counts the fact as ended and no as_of query
    # returns it, so it ended at an unknown time and is valid nowhere.
    # As a start, "" sorts before every instant: unknown.
    assert (facts["t_empty"]["start"], facts["t_empty"]["end"]) == (-math.inf, -math.inf)
    assert facts["t_empty"]["current"] is False
    assert all(f["id"] != "t_empty" for f in kg.query_entity("a", as_of="2026-01-15"))
    # A partial date compares as text, as MemPalace compares it: "2026" sorts before every
    # instant of 2026 and after every earlier one, so the fact counts from 2026-01-01.
    assert facts["t_partial"]["start"] == temporal.to_posix("2026-01-01")
    assert all(f["id"] != "t_partial" for f in kg.query_entity("a", as_of="2025-12-31"))
    assert any(f["id"] == "t_partial" for f in kg.query_entity("a", as_of="2026-01-01"))
    assert kg.get_fact("t_words")["valid_from"] == "1999-ish"
    assert kg.time_span() == ("2026-01-01T00:00:00Z", "2026-02-01T23:59:59Z")
