"""The store's bulk operations (export and import): a selection read in one snapshot, rows
and open facts found by the hundred or in one pass (the same answers either way), rows
inserted as given and seen by recordings and listeners."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import Refused


@pytest.fixture
def many(kg, kg_path):
    """2,500 facts: 500 subjects with five facts each, some ended, one open fact twice."""
    rows = []
    for i in range(2500):
        s, o = f"s{i // 5}", f"o{i % 7}"
        rows.append((f"t{i:05d}", s, f"p{i % 3}", o, "2025-01-01", None if i % 4 else "2025-06-30"))
    rows.append(("t_twin", "s0", "p1", "o1", "2025-02-01", None))  # t00001's open twin
    with sqlite3.connect(str(kg_path)) as conn:
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany(
            "INSERT INTO entities (id, name) VALUES (?, ?)",
            [(f"s{i}", f"S{i}") for i in range(500)] + [(f"o{i}", f"O{i}") for i in range(7)],
        )
    return rows


def test_open_facts_are_found_the_same_by_index_or_by_one_pass(kg, many):
    keys = [(s, p, o) for _, s, p, o, _, _ in many]
    everything = kg.open_fact_ids(keys)  # thousands of keys: one pass over the table
    assert len(everything) == len({k for k, row in zip(keys, many) if row[5] is None})
    for start in range(0, len(keys), 500):  # a few hundred at a time: by the index
        part = kg.open_fact_ids(keys[start : start + 500])
        assert part == {k: v for k, v in everything.items() if k in set(keys[start : start + 500])}
    assert everything[("s0", "p1", "o1")] == "t00001"  # the first of two open copies
    assert kg.open_fact_ids([("nobody", "p0", "o0")]) == {}


def test_rows_by_id_are_the_same_by_index_or_by_one_pass(kg, many):
    ids = [row[0] for row in many]
    everything = kg.rows_with_ids("triples", ids)
    assert set(everything) == set(ids)
    assert kg.rows_with_ids("triples", ids[:10]) == {i: everything[i] for i in ids[:10]}
    assert everything["t00000"]["valid_to"] == "2025-06-30"
    assert kg.rows_with_ids("entities", ["s1", "zz"]) == {
        "s1": {
            "id": "s1",
            "name": "S1",
            "type": "unknown",
            "properties": "{}",
            "created_at": kg.rows_with_ids("entities", ["s1"])["s1"]["created_at"],
        }
    }
    with pytest.raises(Refused):
        kg.rows_with_ids("fl_meta", ["x"])


def test_a_selection_counts_and_streams_what_it_keeps(kg, many):
    with kg.selection(as_of="2025-08-01", entity="s1") as selection:
        facts = [row for batch in selection.fact_rows(2) for row in batch]
        entities = [row for batch in selection.entity_rows(2) for row in batch]
        assert selection.fact_count == len(facts) == 4
        assert selection.entity_count == len(entities)
    assert [row[0] for row in facts] == ["t00005", "t00006", "t00007", "t00009"]  # t00008 ended
    assert {row[0] for row in entities} == {"s1"} | {row[3] for row in facts}


def test_inserted_rows_are_recorded_and_heard(kg):
    heard = []
    kg.add_listener(heard.append)
    with kg.recording() as change:
        kg.insert_rows("entities", [{"id": "a", "name": "A"}, {"name": "B", "id": "b"}])
        kg.insert_rows(
            "triples", [("t1", "a", "knows", "b")], columns=("id", "subject", "predicate", "object")
        )
    assert heard[-1].facts == {"t1"} and heard[0].entities == {"a", "b"}
    assert kg.get_fact("t1")["confidence"] == 1.0  # a column left out takes its default
    kg.revert(change)
    assert not kg.has_fact("t1") and kg.get_entity("a") is None
    with pytest.raises(Refused, match="no column"):
        kg.insert_rows("entities", [{"id": "c", "colour": "red"}])
    with pytest.raises(Refused, match="without an id"):
        kg.insert_rows("entities", [{"name": "C"}])
