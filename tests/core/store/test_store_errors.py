"""The error contract (docs/store-contract.md, "Errors"): a refusal, an unavailable store and a
bug each end where they should, and the first two write nothing."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import KnowledgeGraph, Refused, Unavailable
from factlines.core.errors import TimeValueError
from store_helpers import dump


def test_refusals_are_value_errors_and_write_nothing(kg):
    kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    before = dump(kg.db_path)
    for attempt in (
        lambda: kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-02-30"),
        lambda: kg.add_triple("Kai", "works_on", "Nova", "2026-01-01", "2025-01-01"),
        lambda: kg.add_fact("Kai", "works_on", "Orion"),
        lambda: kg.rename_entity("Nobody", "Somebody"),
        lambda: kg.add_triple("  ", "works_on", "Nova"),
        lambda: kg.query_entity("Kai", direction="sideways"),
    ):
        with pytest.raises(Refused) as refused:
            attempt()
        assert isinstance(refused.value, ValueError)  # MemPalace-style callers catch this
    assert issubclass(TimeValueError, Refused)
    assert dump(kg.db_path) == before


def test_a_damaged_file_is_unavailable_for_reads_too(tmp_path):
    """Reads follow the same contract as writes: what the disk says is not a bug."""
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        for i in range(300):
            kg.add_triple(f"entity {i}", "knows", f"other {i}", valid_from="2025-01-01")
    with open(path, "r+b") as handle:  # keep page 1 (the schema); scribble over the rest
        handle.seek(4096)
        handle.write(b"\xde\xad" * 40_000)
    kg = KnowledgeGraph(path)
    try:
        with pytest.raises(Unavailable, match="could not be read: the file is damaged") as exc:
            kg.query_entity("entity 7")
        assert not isinstance(exc.value, ValueError)
    finally:
        kg.close()


def test_a_closed_graph_refuses_in_words(tmp_path):
    path = tmp_path / "kg.sqlite3"
    kg = KnowledgeGraph(path)
    kg.add_triple("a", "p", "b")
    kg.close()
    with pytest.raises(Refused, match="closed"):
        kg.stats()


def test_a_bug_in_the_engine_is_not_dressed_up_as_a_refusal(kg, engine, monkeypatch):
    """A wrong column is a bug: it propagates as the engine's own error, never as a refusal."""
    kg.add_triple("a", "p", "b")
    facts = kg._store.facts
    monkeypatch.setattr("factlines.core.store.engine_common._check", lambda values: None)
    if engine == "sqlite":
        bug = sqlite3.OperationalError
    else:
        from psycopg.errors import UndefinedColumn as bug
    with pytest.raises(bug) as exc:
        facts.update(kg.query_entity("a")[0]["id"], {"no_such_column": 1})
    assert not isinstance(exc.value, (Refused, Unavailable))


def test_a_python_error_inside_a_write_rolls_it_back_and_propagates(kg, monkeypatch):
    before = dump(kg.db_path)
    monkeypatch.setattr(kg._store.facts, "exists", lambda tid: (_ for _ in ()).throw(KeyError(tid)))
    with pytest.raises(KeyError):
        kg.add_triple("x", "p", "y")
    assert dump(kg.db_path) == before
