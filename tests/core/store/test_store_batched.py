"""A write made of several short transactions (``batched``, what import and copy use so that
MemPalace writes in between): all or nothing, as far as another client's writes allow, on both
engines."""

from __future__ import annotations

import pytest

from factlines import KnowledgeGraph


def _facts(kg) -> set[tuple]:
    return {
        (f["subject"], f["predicate"], f["object"], f["valid_to"])
        for f in (kg.get_fact(row["id"]) for row in kg.dump_rows("triples", limit=100))
    }


def _entities(kg) -> set[str]:
    return {row["id"] for row in kg.dump_rows("entities", limit=100)}


def test_a_failed_batched_write_takes_back_only_what_is_still_as_it_wrote(kg, graph_url):
    other = KnowledgeGraph(graph_url)  # another client, writing between our transactions
    try:
        with pytest.raises(RuntimeError, match="fails late"), kg.batched("Add three facts"):
            with kg.transaction():
                kg.add_triple("Ann", "knows", "Bo")
                kg.add_triple("Eve", "knows", "Fay")
            other.add_triple("Zed", "knows", "Kai")
            other.invalidate("Ann", "knows", "Bo", ended="2025-01-01")
            with kg.transaction():
                kg.add_triple("Cy", "knows", "Di")
            raise RuntimeError("fails late")
    finally:
        other.close()
    assert _facts(kg) == {("zed", "knows", "kai", None), ("ann", "knows", "bo", "2025-01-01")}
    assert _entities(kg) == {"zed", "kai", "ann", "bo"}  # ann and bo: the kept fact's
    assert kg.edit_log() == []


def test_a_batched_write_is_one_undo_step_and_one_logged_edit(kg):
    with kg.recording() as change, kg.batched("Add two facts"):
        with kg.transaction():
            kg.add_triple("Ann", "knows", "Bo")
        with kg.transaction():
            kg.add_triple("Cy", "knows", "Di")
    (entry,) = kg.edit_log()
    assert entry["what"] == "Add two facts" and entry["rows_total"] == 6
    assert {row["row"]["subject"] for row in entry["after"] if row["table"] == "triples"} == {
        "ann",
        "cy",
    }
    kg.revert(change)
    assert _facts(kg) == set() and _entities(kg) == set()


def test_a_batched_write_that_writes_nothing_logs_nothing(kg):
    with kg.batched("Import nothing"):
        pass
    assert kg.edit_log() == []
