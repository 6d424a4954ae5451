"""What the file holds, read through the façade: Factlines' own objects, MemPalace's columns."""

from __future__ import annotations

import sqlite3

from factlines import KnowledgeGraph
from factlines.core.store import MEMPALACE_COLUMNS, engine_version


def test_factlines_objects_are_its_fl_tables_then_indexes(kg, kg_path):
    objects = kg.factlines_objects()
    with sqlite3.connect(str(kg_path)) as conn:
        expected = {
            (kind, name)
            for kind, name in conn.execute("SELECT type, name FROM sqlite_master")
            if name.startswith("fl_")
        }
    assert set(objects) == expected
    assert ("table", "fl_meta") in objects
    kinds = [kind for kind, _name in objects]
    assert kinds == sorted(kinds, key=lambda kind: kind != "table")  # tables first
    assert all(name.startswith("fl_") for _kind, name in objects)


def test_an_object_named_like_ours_in_capitals_is_not_ours(kg, kg_path):
    with sqlite3.connect(str(kg_path)) as conn:
        conn.execute("CREATE TABLE FL_other (x)")
    assert ("table", "FL_other") not in kg.factlines_objects()


def test_a_file_with_mempalaces_schema_misses_no_column(kg):
    assert kg.missing_mempalace_columns() == {}
    assert set(MEMPALACE_COLUMNS) == {"entities", "triples"}


def test_a_missing_column_is_named(kg_path):
    with KnowledgeGraph(kg_path) as kg:
        with sqlite3.connect(str(kg_path)) as conn:
            conn.execute("ALTER TABLE triples DROP COLUMN adapter_name")
        assert kg.missing_mempalace_columns() == {"triples": ["adapter_name"]}


def test_reading_what_the_file_holds_writes_nothing(kg, kg_path):
    before = kg_path.read_bytes()
    kg.factlines_objects()
    kg.missing_mempalace_columns()
    assert kg_path.read_bytes() == before


def test_engine_version_names_sqlite():
    assert engine_version() == f"SQLite {sqlite3.sqlite_version}"
