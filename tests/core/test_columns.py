"""The column registry is MemPalace's triples table as MemPalace 3.11 makes it, and the
MemPalace-compatible methods keep MemPalace's own signatures around it."""

from __future__ import annotations

import inspect
import sqlite3

from factlines import KnowledgeGraph
from factlines.core.columns import (
    COLUMNS,
    CSV_HEADER,
    PROVENANCE,
    TRIPLE_COLUMNS,
    Provenance,
)
from store_helpers import mempalace_class


def test_the_stored_columns_are_mempalaces_in_its_order_and_types(tmp_path):
    path = tmp_path / "mempalace.sqlite3"
    mempalace_class()(str(path)).close()
    with sqlite3.connect(path) as conn:
        made = [row[1:5] for row in conn.execute("PRAGMA table_info(triples)")]
    ours = tmp_path / "ours.sqlite3"
    KnowledgeGraph(ours).close()
    with sqlite3.connect(ours) as conn:
        assert [row[1:5] for row in conn.execute("PRAGMA table_info(triples)")] == made
    assert [name for name, *_ in made] == list(TRIPLE_COLUMNS)


def test_the_drop_in_methods_keep_mempalaces_provenance_arguments():
    theirs = mempalace_class()
    for method in ("add_triple", "supersede"):
        signature = inspect.signature(getattr(theirs, method))
        assert [p for p in signature.parameters if p in PROVENANCE] == list(PROVENANCE)
        assert list(inspect.signature(getattr(KnowledgeGraph, method)).parameters) == list(
            signature.parameters
        )


def test_a_provenance_is_read_off_a_fact_by_name():
    fact = {column.name: f"<{column.name}>" for column in COLUMNS}
    assert Provenance.of(fact) == tuple(f"<{name}>" for name in PROVENANCE)
    assert Provenance() == (None,) * len(PROVENANCE)


def test_every_fact_column_has_a_csv_header_of_its_own():
    assert len(set(CSV_HEADER)) == len(CSV_HEADER) == len(COLUMNS)
