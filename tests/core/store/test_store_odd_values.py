"""What a MemPalace file can hold that the rules refuse: the store reads it without failing and
its figures leave it out."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import KnowledgeGraph


def _set(path, column: str, value) -> None:
    with sqlite3.connect(str(path)) as conn:
        conn.execute(f"UPDATE triples SET {column} = ? WHERE id = 't_odd'", (value,))


@pytest.fixture
def odd(kg_path):
    """Kai with one fact of sound dates and one, ``t_odd``, to fill with an odd value."""
    with KnowledgeGraph(kg_path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2024-01-01", valid_to="2024-12-31")
    with sqlite3.connect(str(kg_path)) as conn:
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object) "
            "VALUES ('t_odd', 'kai', 'knows', 'orion')"
        )
    return kg_path


@pytest.mark.parametrize(
    "value",
    ["2025-02-30", "2025-13-45", "0000-00-00", "2025-06-31", "2025-06-01T24:00:00Z", "9999-99-99"],
)
@pytest.mark.parametrize("column", ["valid_from", "valid_to"])
def test_the_time_span_leaves_out_days_that_do_not_exist(odd, column, value):
    _set(odd, column, value)
    with KnowledgeGraph(odd) as kg:
        assert kg.time_span() == ("2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z")


@pytest.mark.parametrize("column", ["valid_from", "valid_to"])
def test_the_time_span_leaves_them_out_with_the_speed_indexes_too(odd, column):
    with KnowledgeGraph(odd) as kg:
        kg.add_speed_indexes()
    _set(odd, column, "2099-02-30")
    with KnowledgeGraph(odd) as kg:
        assert kg.time_span() == ("2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z")


@pytest.mark.parametrize("confidence", ["high", b"\x01", 1e308 * 10, -3])
def test_a_confidence_that_is_not_a_probability_is_read_as_stored(odd, confidence):
    _set(odd, "confidence", confidence)
    with KnowledgeGraph(odd) as kg:
        assert kg.get_fact("t_odd")["confidence"] == confidence


@pytest.mark.parametrize("order", ["name", "type", "current", "ended"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("search", ["", "gho"])
def test_an_entity_row_with_a_null_id_is_listed_with_no_facts(odd, order, descending, search):
    with sqlite3.connect(str(odd)) as conn:
        conn.execute("INSERT INTO entities (id, name, type) VALUES (NULL, 'Ghost', 'spirit')")
    with KnowledgeGraph(odd) as kg:
        kg.prepare_search()
        rows = kg.list_entities(search=search, order=order, descending=descending)
        assert {"id": None, "name": "Ghost", "type": "spirit", "current": 0, "ended": 0} in rows
        assert kg.count_entities(search, None, None) == len(rows)


def _mempalace_tables_without(path, table: str, column: str) -> None:
    """MemPalace's two tables as it creates them, less one column, with a row in each."""
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2024-01-01")
    with sqlite3.connect(str(path)) as conn:
        conn.execute("DROP INDEX IF EXISTS fl_entities_name_cover")
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def _six_columns(path) -> None:
    with sqlite3.connect(str(path)) as conn:
        conn.execute("CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE triples (id TEXT PRIMARY KEY, subject TEXT, predicate TEXT, "
            "object TEXT, valid_from TEXT, valid_to TEXT)"
        )
        conn.execute("INSERT INTO entities VALUES ('kai', 'Kai')")
        conn.execute("INSERT INTO triples VALUES ('t1', 'kai', 'knows', 'kai', NULL, NULL)")


@pytest.mark.parametrize(
    ("make", "missing"),
    [
        (_six_columns, "confidence"),
        (lambda p: _mempalace_tables_without(p, "triples", "confidence"), "confidence"),
        (lambda p: _mempalace_tables_without(p, "triples", "extracted_at"), "extracted_at"),
        (lambda p: _mempalace_tables_without(p, "entities", "type"), "type"),
        (lambda p: _mempalace_tables_without(p, "entities", "properties"), "properties"),
    ],
    ids=["six columns", "no confidence", "no extracted_at", "no type", "no properties"],
)
@pytest.mark.parametrize("read_only", [False, True])
def test_a_schema_the_app_cannot_read_is_refused_untouched(tmp_path, make, missing, read_only):
    from factlines import NotAKnowledgeGraph

    path = tmp_path / "kg.sqlite3"
    make(path)
    before = path.read_bytes()
    beside = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(NotAKnowledgeGraph, match=missing) as refused:
        KnowledgeGraph(path, read_only=read_only)
    assert "left untouched" in str(refused.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == beside
