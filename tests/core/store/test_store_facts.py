"""Contract section 5, facts: by id (get, correct, end, delete), intervals for the chart, span."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from factlines import KnowledgeGraphError
from factlines.core.errors import DuplicateFact
from factlines.core.store import FactNotFound
from store_helpers import dump, oracle_end, oracle_start, raw_sql

FACT_KEYS = {
    "id",
    "subject",
    "subject_name",
    "predicate",
    "object",
    "object_name",
    "valid_from",
    "valid_to",
    "confidence",
    "source_closet",
    "source_file",
    "source_drawer_id",
    "adapter_name",
    "extracted_at",
    "current",
    "start",
    "end",
}


@pytest.fixture
def fact(kg):
    kg.add_triple("Ann", "lives_in", "Rome", valid_from="2019-01-01", valid_to="2019-12-31")
    return kg.add_triple("Ann", "Lives In", "Paris", valid_from="2020-01-01", source_file="a.md")


def test_get_fact(kg, fact):
    got = kg.get_fact(fact)
    assert set(got) == FACT_KEYS
    assert (got["subject"], got["subject_name"], got["object"], got["object_name"]) == (
        "ann",
        "Ann",
        "paris",
        "Paris",
    )
    assert (got["predicate"], got["valid_from"], got["valid_to"], got["current"]) == (
        "lives_in",
        "2020-01-01",
        None,
        True,
    )
    assert got["start"] == datetime(2020, 1, 1, tzinfo=timezone.utc).timestamp()
    assert got["end"] is None
    assert got["source_file"] == "a.md"
    assert kg.has_fact(fact)


@pytest.mark.parametrize("call", ["get_fact", "delete_fact", "end_fact", "update_fact"])
def test_unknown_id(kg, fact, call):
    before = dump(kg.db_path)
    with pytest.raises(FactNotFound, match="t_nope") as info:
        getattr(kg, call)("t_nope")
    assert isinstance(info.value, KeyError) and isinstance(info.value, KnowledgeGraphError)
    assert dump(kg.db_path) == before
    assert not kg.has_fact("t_nope")


CORRECTIONS = [
    ({"subject": "Carol"}, {"subject": "carol", "subject_name": "Carol"}),
    ({"predicate": "Works At"}, {"predicate": "works_at"}),
    ({"object": "Lyon"}, {"object": "lyon", "object_name": "Lyon"}),
    ({"valid_from": "2020-02-01T08:00:00+00:00"}, {"valid_from": "2020-02-01T08:00:00Z"}),
    ({"valid_from": None}, {"valid_from": None, "start": None}),
    ({"valid_to": "2021-01-01"}, {"valid_to": "2021-01-01", "current": False}),
    ({"confidence": 0.3}, {"confidence": 0.3}),
    ({"confidence": 1}, {"confidence": 1.0}),
    ({"source_closet": "c9", "adapter_name": "ad"}, {"source_closet": "c9", "adapter_name": "ad"}),
    ({"source_file": ""}, {"source_file": None}),
    ({"source_drawer_id": "d"}, {"source_drawer_id": "d"}),
    ({}, {}),
]


@pytest.mark.parametrize(("changes", "expected"), CORRECTIONS)
def test_update_fact_each_field(kg, fact, changes, expected):
    before = kg.get_fact(fact)
    after = kg.update_fact(fact, **changes)
    assert after == kg.get_fact(fact)
    assert {k: after[k] for k in expected} == expected
    untouched = set(FACT_KEYS) - set(expected) - {"start", "end", "current"}
    assert {k: after[k] for k in untouched} == {k: before[k] for k in untouched}


def test_update_fact_creates_a_missing_entity_with_its_display_name(kg, fact):
    kg.update_fact(fact, object="New Place")
    assert kg.get_entity("new_place")["name"] == "New Place"


REFUSALS = [
    ({"valid_from": "2020-13-01"}, "valid_from"),
    ({"valid_to": "2019-12-31"}, "before valid_from"),
    ({"valid_from": "2030-01-01", "valid_to": "2029-01-01"}, "before valid_from"),
    ({"confidence": 2}, "confidence"),
    ({"confidence": "high"}, "confidence"),
    ({"confidence": None}, "confidence"),
    ({"colour": "red"}, "colour"),
    ({"id": "t_other"}, "id"),
    ({"subject": ""}, "subject"),
    ({"predicate": "   "}, "predicate"),
    ({"object": 7}, "object"),
    ({"source_closet": 5}, "source_closet"),
    ({"object": "Rome", "valid_to": None}, None),  # fine: the Rome fact is closed
]


@pytest.mark.parametrize(("changes", "message"), REFUSALS)
def test_update_fact_refusals_write_nothing(kg, fact, changes, message):
    before = dump(kg.db_path)
    if message is None:
        kg.update_fact(fact, **changes)
        assert dump(kg.db_path) != before
        return
    with pytest.raises(ValueError, match=message):
        kg.update_fact(fact, **changes)
    assert dump(kg.db_path) == before


def test_update_fact_refuses_a_second_open_identical_fact(kg, fact):
    kg.end_fact(fact, "2020-06-01")
    kg.add_triple("Ann", "lives_in", "Paris", valid_from="2021-01-01")
    rome = kg.query_entity("Ann", as_of="2019-06-01")[0]["id"]
    before = dump(kg.db_path)
    for triple_id, changes in [
        (fact, {"valid_to": None}),
        (rome, {"object": "paris", "valid_to": None}),
    ]:
        with pytest.raises(KnowledgeGraphError, match="already exists"):
            kg.update_fact(triple_id, **changes)
    assert dump(kg.db_path) == before


def test_a_second_open_fact_is_named_by_its_entities_and_its_id_is_kept(kg, fact):
    kg.end_fact(fact, "2020-06-01")
    paris = kg.add_triple("Ann", "lives_in", "Paris", valid_from="2021-01-01")
    with pytest.raises(DuplicateFact) as caught:
        kg.update_fact(fact, object="Paris", valid_to=None)
    assert "Ann lives_in Paris already exists (since 2021-01-01)" in str(caught.value)
    assert paris not in str(caught.value) and caught.value.fact_id == paris


def test_end_fact(kg, fact):
    ended = kg.end_fact(fact, "2021-01-01T00:00:00+00:00")
    assert (ended["valid_to"], ended["current"]) == ("2021-01-01T00:00:00Z", False)
    before = dump(kg.db_path)
    with pytest.raises(KnowledgeGraphError, match="already ended"):
        kg.end_fact(fact, "2022-01-01")
    assert dump(kg.db_path) == before


def test_delete_fact(kg, fact):
    entities = dump(kg.db_path)["entities"]
    removed = kg.delete_fact(fact)
    assert removed["object_name"] == "Paris"
    assert not kg.has_fact(fact)
    assert dump(kg.db_path)["entities"] == entities  # the entities stay
    assert len(kg.query_entity("Ann")) == 1


def test_find_open_fact(kg, fact):
    assert kg.find_open_fact("ann", "LIVES IN", "paris")["id"] == fact
    assert kg.find_open_fact("ann", "lives_in", "rome") is None
    assert kg.find_open_fact("ann", None, "rome") is None


# ── intervals ─────────────────────────────────────────────────────────────

CHART = [
    ("Ann", "lives_in", "Rome", "2019-01-01", "2019-12-31"),
    ("Ann", "lives_in", "Paris", "2020-01-01", None),
    ("Bob", "knows", "Ann", None, "2018-06-01T12:00:00Z"),
    ("Ann", "knows", "Ann", None, None),
    ("Ann", "likes", "tea", "2021-03-03T03:03:03Z", "2021-03-04T00:00:00Z"),
    ("Bob", "likes", "tea", "2000-01-01", None),
]


@pytest.fixture
def chart(kg):
    for s, p, o, vf, vt in CHART:
        kg.add_triple(s, p, o, valid_from=vf, valid_to=vt)
    return kg


def _posix(moment):
    return None if moment is None else moment.timestamp()


RANGES = [
    (None, None),
    ("2019-06-01", None),
    (None, "2019-01-01"),
    ("2019-12-31", "2020-01-01"),
    ("2018-06-01T12:00:00Z", "2018-06-01T12:00:01Z"),
    ("2018-06-01T11:59:59Z", "2018-06-01T12:00:00Z"),
    ("2021-03-04", "2022-01-01"),
    ("2021-03-03T23:59:59Z", "2021-03-04"),
]


@pytest.mark.parametrize(("start", "end"), RANGES)
def test_intervals_match_an_oracle(chart, start, end):
    lo = None if start is None else oracle_start(start)
    hi = None if end is None else oracle_start(end)
    expected = set()
    for s, p, o, vf, vt in CHART:
        if "Ann" not in (s, o):
            continue
        f_start = None if vf is None else oracle_start(vf)
        f_end = None if vt is None else oracle_end(vt)
        if (hi is None or f_start is None or f_start < hi) and (
            lo is None or f_end is None or f_end > lo
        ):
            direction = "outgoing" if s == "Ann" else "incoming"
            other = o if s == "Ann" else s
            expected.add((direction, p, other, _posix(f_start), _posix(f_end)))
    rows = chart.intervals("Ann", start, end)
    got = {(r["direction"], r["predicate"], r["other_name"], r["start"], r["end"]) for r in rows}
    assert got == expected
    assert len(rows) == len(expected)  # the self-loop once


def test_intervals_by_id_and_refused_range(chart):
    assert len(chart.intervals("ann")) == 5
    with pytest.raises(ValueError, match="start"):
        chart.intervals("Ann", start="2019")


def test_intervals_other_end(chart):
    (row,) = [
        r for r in chart.intervals("Ann") if r["predicate"] == "knows" and r["subject"] == "bob"
    ]
    assert (row["direction"], row["other"], row["other_name"]) == ("incoming", "bob", "Bob")


# ── time span ─────────────────────────────────────────────────────────────


def test_time_span(chart):
    assert chart.time_span() == ("2000-01-01T00:00:00Z", "2021-03-04T00:00:00Z")
    chart.add_triple("Zed", "was", "late", valid_to="2030-05-05")
    assert chart.time_span() == ("2000-01-01T00:00:00Z", "2030-05-05T23:59:59Z")


def test_time_span_of_an_undated_graph(kg):
    assert kg.time_span() is None
    kg.add_triple("a", "p", "b")
    assert kg.time_span() is None
    kg.add_triple("a", "p", "c", valid_to="2020-02-02T02:02:02Z")
    assert kg.time_span() == ("2020-02-02T02:02:02Z", "2020-02-02T02:02:02Z")


def test_a_fact_whose_entity_row_is_gone_is_still_read_by_id(kg):
    fact = kg.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01")
    raw_sql(kg.db_path, "DELETE FROM entities WHERE id = 'paris'")
    read = kg.get_fact(fact)
    assert (read["subject_name"], read["object"], read["object_name"]) == ("Ann", "paris", "paris")
    assert kg.end_fact(fact, "2021-01-01")["valid_to"] == "2021-01-01"


def test_whether_the_graph_holds_any_fact(kg):
    assert not kg.has_facts()
    kg.add_entity("Ann", "person")
    assert not kg.has_facts()  # an entity is no fact
    tid = kg.add_triple("Ann", "knows", "Bob", valid_from="2024-01-01")
    assert kg.has_facts()
    kg.delete_fact(tid)
    assert not kg.has_facts()


def test_the_facts_an_entity_id_has(kg):
    kg.add_triple("Ann", "knows", "Bob", valid_from="2024-01-01")
    kg.add_triple("Bob", "knows", "Cy")
    kg.add_triple("Bob", "knows", "Bob")  # counted once
    assert (kg.fact_count("bob"), kg.fact_count("ann"), kg.fact_count("Ann")) == (3, 1, 0)
