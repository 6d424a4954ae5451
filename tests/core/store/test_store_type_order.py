"""The entity list in type order sliced from the in-memory index (SQLite), against SQLite's own
ORDER BY over the same rows: types NOCASE folds together or not (ASCII only), NULL types, ties
broken by name and id, and the hand edits' numbers and BLOBs, which SQLite orders."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factlines import KnowledgeGraph

TYPES = [None, "person", "Person", "PERSON", "émile", "Émile", "", "b", "B ", "zeta"]
ODD_TYPES = [7, b"\x00blob"]
NAMES = ["ann", "Ann", "ANN", "bob", "Émile", "émile", "z", "10", "9"]
entities = st.lists(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(TYPES)), min_size=1, max_size=30
)


def listings(rows, odd: bool):
    """Every page of the type order both ways, without the index (SQLite sorts) and with it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kg.sqlite3"
        KnowledgeGraph(path).close()
        with sqlite3.connect(str(path)) as conn:
            conn.executemany(
                "INSERT INTO entities (id, name, type) VALUES (?, ?, ?)",
                [(f"e{i:02d}", name, kind) for i, (name, kind) in enumerate(rows)],
            )
            if odd:
                conn.execute("UPDATE entities SET type = ? WHERE id = 'e00'", (ODD_TYPES[0],))
                conn.execute("UPDATE entities SET type = ? WHERE id = 'e01'", (ODD_TYPES[1],))
        found = []
        for prepared in (False, True):
            with KnowledgeGraph(path) as kg:
                if prepared:
                    kg.prepare_search()
                found.append(
                    [
                        [
                            (e["id"], e["type"], e["current"])
                            for offset in range(0, len(rows), 4)
                            for e in kg.list_entities(
                                order="type", descending=descending, limit=4, offset=offset
                            )
                        ]
                        for descending in (False, True)
                    ]
                )
        return found


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=entities, odd=st.booleans())
def test_the_type_order_from_the_index_is_sqlites(rows, odd):
    by_sqlite, by_index = listings(rows, odd)
    assert by_index == by_sqlite
    assert len(by_index[0]) == len(rows)


def test_the_index_answers_a_deep_page_without_sorting(monkeypatch):
    rows = [(f"n{i:03d}", TYPES[i % len(TYPES)]) for i in range(200)]
    by_sqlite, by_index = listings(rows, odd=False)
    assert by_index == by_sqlite
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kg.sqlite3"
        with KnowledgeGraph(path) as kg:
            for name, kind in rows[:50]:
                kg.add_entity(name, kind or "unknown")
            kg.prepare_search()
            statements = []
            kg._conn().set_trace_callback(statements.append)
            page = kg.list_entities(order="type", limit=5, offset=40)
        assert len(page) == 5
        assert not any("ORDER BY" in sql for sql in statements)
