"""The selected entity's facts patched after a write: the rows, their positions and time arrays
as a fresh read gives them, the arrays redone only at the rows the write touched."""

from __future__ import annotations

import numpy as np

from factlines import KnowledgeGraph
from factlines.core.store import Touched
from factlines.ui.session import entity_facts
from factlines.ui.session.entity_facts import EntityFacts


def _as_read_afresh(kg: KnowledgeGraph, patched: EntityFacts) -> None:
    fresh = EntityFacts(kg, "hub", None)
    fresh.read_facts()
    order = [fresh.index_of[f["id"]] for f in patched.facts]
    assert sorted(order) == list(range(len(fresh.facts)))  # the same facts, in some order
    assert [fresh.facts[i] for i in order] == list(patched.facts)
    for name in ("id", "predicate", "valid_to", "direction", "other", "other_name"):
        column = fresh.facts.column(name)  # what the chart and the table sort and lay out by
        assert patched.facts.column(name) == [column[i] for i in order]
    assert patched.index_of == {f["id"]: i for i, f in enumerate(patched.facts)}
    assert np.array_equal(patched.starts, fresh.starts[order])
    assert np.array_equal(patched.ends, fresh.ends[order])
    assert np.array_equal(patched.valid, fresh.valid[order])


def test_a_hubs_rows_patched_are_its_rows_read_afresh_the_arrays_redone_where_touched(
    tmp_path, monkeypatch
):
    # A hub's 20,000 rows, their index and time arrays, all redone after each edit: ~60 ms of
    # the UI thread at a million facts. Only the touched rows are redone now.
    kg = KnowledgeGraph(tmp_path / "hub.sqlite3")
    ids = [
        kg.add_triple("Hub", "uses", f"Tool {n}", valid_from=f"20{10 + n % 10}-01-01")
        for n in range(40)
    ]
    facts = EntityFacts(kg, "hub", None)
    facts.read_facts()
    redone: list[int] = []
    time_bounds = entity_facts.time_bounds
    monkeypatch.setattr(
        entity_facts, "time_bounds", lambda rows: redone.append(len(rows)) or time_bounds(rows)
    )

    kg.end_fact(ids[3], "2030-06-01")
    redone.clear()
    patch = facts.apply(Touched(facts={ids[3]}))
    assert patch.changed == [ids[3]] and redone == [1]
    _as_read_afresh(kg, facts)
    # An edited fact keeps its position: the links the graph would take are still the read's.
    assert facts.facts.links() == kg.interval_table("hub").links()

    added = kg.add_triple("Tool 7", "knows", "Hub", valid_from="2031-01-01")
    redone.clear()
    patch = facts.apply(Touched(facts={added}))
    assert patch.added == [added] and redone == [1]
    assert facts.facts[-1]["id"] == added and len(facts.starts) == 41
    _as_read_afresh(kg, facts)
    assert facts.facts.links() is None  # a new fact's position is not known here

    kg.update_fact(ids[0], subject="Someone else")  # no longer one of the hub's facts
    patch = facts.apply(Touched(facts={ids[0]}))
    assert patch.removed == [ids[0]]
    _as_read_afresh(kg, facts)
    kg.close()
