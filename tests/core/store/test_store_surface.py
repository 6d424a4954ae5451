"""Contract sections 3 and 4: names, ids and the MemPalace-compatible methods."""

from __future__ import annotations

import re
from datetime import date

import pytest

from store_helpers import canonical, dump, raw_sql

TRIPLE_ID = "t_{s}_{p}_{o}_[0-9a-f]{{12}}"
ENTITY_KEYS = [
    "direction",
    "subject",
    "predicate",
    "object",
    "valid_from",
    "valid_to",
    "confidence",
    "source_closet",
    "current",
    "id",
]
RELATIONSHIP_KEYS = ["subject", "predicate", "object", "valid_from", "valid_to", "current", "id"]


# ── Section 3: names ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("name", "eid"),
    [
        ("Dr. Chen", "dr._chen"),
        ("Alice O'Brien", "alice_obrien"),
        ("MAX", "max"),
        ("New  York", "new__york"),
        ("Jean-Luc", "jean-luc"),
        ("Zoë Ångström", "zoë_ångström"),
        ("tab\there", "tab\there"),
    ],
)
def test_entity_ids(kg, name, eid):
    assert kg.add_entity(name) == eid
    tid = kg.add_triple(name, "knows", "bob")
    assert re.fullmatch(TRIPLE_ID.format(s=re.escape(eid), p="knows", o="bob"), tid)
    assert kg.get_entity(name)["name"] == name


@pytest.mark.parametrize(
    ("predicate", "pid"),
    [("Works On", "works_on"), ("LIVES  IN", "lives__in"), ("child_of", "child_of")],
)
def test_predicate_ids(kg, predicate, pid):
    tid = kg.add_triple("Ann", predicate, "Bob")
    assert kg.query_entity("ann")[0]["predicate"] == pid
    assert re.fullmatch(TRIPLE_ID.format(s="ann", p=re.escape(pid), o="bob"), tid)


def test_first_display_name_kept_by_add_triple(kg):
    kg.add_triple("Dr. Chen", "knows", "Bob")
    kg.add_triple("DR. CHEN", "likes", "BOB")
    assert kg.get_entity("dr._chen")["name"] == "Dr. Chen"
    assert kg.get_entity("bob")["name"] == "Bob"
    assert sorted(r["object"] for r in kg.query_entity("dr. chen")) == ["Bob", "Bob"]


def test_triple_ids_unique_per_row(kg):
    ids = set()
    for day in range(1, 29):
        ids.add(kg.add_triple("a", "p", "b", valid_from=f"2026-02-{day:02d}"))
        kg.invalidate("a", "p", "b", ended=f"2026-02-{day:02d}")
    assert len(ids) == 28


# ── add_entity / add_triple ───────────────────────────────────────────────


def test_add_entity_replaces_the_row(kg):
    kg.add_entity("Ann", "person", {"age": 3})
    kg.add_entity("ANN", "robot")
    entity = kg.get_entity("ann")
    assert (entity["name"], entity["type"], entity["properties"]) == ("ANN", "robot", {})


def test_add_triple_creates_missing_entities_only(kg):
    kg.add_entity("Ann", "person", {"age": 3})
    kg.add_triple("ann", "knows", "Bob")
    assert kg.get_entity("Ann") == {**kg.get_entity("Ann"), "type": "person", "name": "Ann"}
    assert kg.get_entity("Ann")["properties"] == {"age": 3}
    assert kg.get_entity("bob")["type"] == "unknown"


def test_identical_open_fact_is_not_doubled(kg, kg_path):
    first = kg.add_triple("Ann", "Knows", "Bob", valid_from="2026-01-01", confidence=0.5)
    before = dump(kg_path)
    again = kg.add_triple("ann", "knows", "BOB", valid_from="2027-01-01", source_closet="c")
    assert again == first
    assert dump(kg_path) == before


def test_an_open_fact_absorbs_a_closed_identical_one(kg, kg_path):
    # MemPalace's rule: the open (s, p, o) is returned whatever dates the new call carries.
    first = kg.add_triple("a", "p", "b", valid_from="2026-01-01")
    before = dump(kg_path)
    assert kg.add_triple("a", "p", "b", valid_from="2020-01-01", valid_to="2020-02-01") == first
    assert dump(kg_path) == before


@pytest.mark.parametrize(
    "close",
    [
        lambda kg: kg.add_triple("a", "p", "b", valid_from="2026-01-01", valid_to="2026-02-01"),
        lambda kg: (kg.add_triple("a", "p", "b"), kg.invalidate("a", "p", "b", "2026-02-01")),
    ],
    ids=["written closed", "invalidated"],
)
def test_closed_identical_fact_does_not_block(kg, close):
    close(kg)
    tid = kg.add_triple("a", "p", "b", valid_from="2026-03-01")
    rows = kg.query_entity("a")
    assert len(rows) == 2
    assert [r["current"] for r in rows if r["id"] == tid] == [True]


def test_provenance_is_stored(kg):
    tid = kg.add_triple(
        "a",
        "p",
        "b",
        confidence=0.25,
        source_closet="closet",
        source_file="f.md",
        source_drawer_id="d1",
        adapter_name="ad",
    )
    fact = kg.get_fact(tid)
    assert (fact["confidence"], fact["source_closet"], fact["source_file"]) == (
        0.25,
        "closet",
        "f.md",
    )
    assert (fact["source_drawer_id"], fact["adapter_name"]) == ("d1", "ad")


# ── invalidate / supersede ────────────────────────────────────────────────


def test_invalidate_closes_only_open_rows(kg, kg_path):
    closed = kg.add_triple("a", "p", "b", valid_from="2020-01-01", valid_to="2021-01-01")
    opened = kg.add_triple("a", "p", "b", valid_from="2022-01-01")
    other = kg.add_triple("a", "p", "c", valid_from="2022-01-01")
    kg.invalidate("A", "P", "B", ended="2023-05-06")
    assert kg.get_fact(closed)["valid_to"] == "2021-01-01"
    assert kg.get_fact(opened)["valid_to"] == "2023-05-06"
    assert kg.get_fact(other)["valid_to"] is None
    assert len(dump(kg_path)["triples"]) == 3


def test_invalidate_defaults_to_today(kg):
    tid = kg.add_triple("a", "p", "b")
    kg.invalidate("a", "p", "b")
    assert kg.get_fact(tid)["valid_to"] == date.today().isoformat()


def test_invalidate_without_open_fact_writes_nothing(kg, kg_path):
    kg.add_triple("a", "p", "b", valid_to="2020-01-01")
    before = dump(kg_path)
    kg.invalidate("a", "p", "b", ended="2021-01-01")
    kg.invalidate("nobody", "p", "b")
    assert dump(kg_path) == before


def test_supersede_closes_and_opens_at_one_instant(kg):
    old = kg.add_triple("ann", "lives_in", "Paris", valid_from="2020-01-01")
    new = kg.supersede(
        "ann",
        "lives_in",
        "paris",
        "Rome",
        at="2026-05-06T12:00:00+00:00",
        confidence=0.7,
        source_closet="c",
    )
    assert kg.get_fact(old)["valid_to"] == "2026-05-06T12:00:00Z"
    fact = kg.get_fact(new)
    assert (fact["valid_from"], fact["valid_to"], fact["object_name"]) == (
        "2026-05-06T12:00:00Z",
        None,
        "Rome",
    )
    assert (fact["confidence"], fact["source_closet"]) == (0.7, "c")
    assert [r["object"] for r in kg.query_entity("ann", as_of="2026-05-06T12:00:00Z")] == ["Rome"]
    assert [r["object"] for r in kg.query_entity("ann", as_of="2026-05-06T11:59:59Z")] == ["Paris"]


def test_supersede_default_is_now(kg):
    kg.add_triple("ann", "lives_in", "Paris")
    new = kg.supersede("ann", "lives_in", "Paris", "Rome")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", kg.get_fact(new)["valid_from"])


def test_supersede_without_old_fact_is_an_add(kg):
    new = kg.supersede("ann", "lives_in", "Paris", "Rome", at="2026-01-01")
    assert [r["id"] for r in kg.query_entity("ann")] == [new]
    assert kg.get_entity("Paris") is None  # the old object is not invented


def test_supersede_to_an_already_open_fact_returns_it(kg):
    kg.add_triple("ann", "likes", "tea")
    coffee = kg.add_triple("ann", "likes", "coffee")
    assert kg.supersede("ann", "likes", "tea", "coffee", at="2026-01-01") == coffee
    assert kg.query_entity("ann", as_of="2026-01-02")[0]["object"] == "coffee"


def test_supersede_is_one_transaction(kg, kg_path):
    kg.add_triple("ann", "lives_in", "Paris", valid_from="2026-06-01")
    before = dump(kg_path)
    with pytest.raises(ValueError, match="before valid_from"):
        kg.supersede("ann", "lives_in", "Paris", "Brand New Place", at="2026-05-06")
    assert dump(kg_path) == before  # not even the new entity


# ── query_entity / query_relationship ─────────────────────────────────────


@pytest.fixture
def family(kg):
    kg.add_triple("Max", "child_of", "Alice", valid_from="2015-04-01", source_closet="c1")
    kg.add_triple("Max", "loves", "Chess", valid_from="2025-10-01", valid_to="2026-01-31")
    kg.add_triple("Alice", "married_to", "Bob", confidence=0.9)
    kg.add_triple("Max", "knows", "Max")  # a self-loop
    return kg


def test_query_entity_keys_and_values(family):
    rows = family.query_entity("max", direction="both")
    assert all(list(row) == ENTITY_KEYS for row in rows)
    by_pred = {(r["direction"], r["predicate"]): r for r in rows}
    assert set(by_pred) == {
        ("outgoing", "child_of"),
        ("outgoing", "loves"),
        ("outgoing", "knows"),
        ("incoming", "knows"),
    }
    child = by_pred[("outgoing", "child_of")]
    assert {k: child[k] for k in ENTITY_KEYS if k != "id"} == {
        "direction": "outgoing",
        "subject": "max",  # the name as asked, as MemPalace does
        "predicate": "child_of",
        "object": "Alice",
        "valid_from": "2015-04-01",
        "valid_to": None,
        "confidence": 1.0,
        "source_closet": "c1",
        "current": True,
    }
    assert by_pred[("outgoing", "loves")]["current"] is False


def test_query_entity_incoming(family):
    rows = family.query_entity("Alice", direction="incoming")
    assert [(r["subject"], r["object"], r["direction"]) for r in rows] == [
        ("Max", "Alice", "incoming")
    ]


def test_query_entity_directions_partition_both(family):
    both = family.query_entity("Max", direction="both")
    parts = family.query_entity("Max") + family.query_entity("Max", direction="incoming")
    assert canonical(both) == canonical(parts)


@pytest.mark.parametrize("direction", ["sideways", "", "OUTGOING", None])
def test_unknown_direction_is_an_error(family, direction):
    with pytest.raises(ValueError, match="direction"):
        family.query_entity("Max", direction=direction)


def test_query_entity_current_means_open_not_valid_today(kg):
    kg.add_triple("a", "plans", "b", valid_from="2999-01-01")
    (row,) = kg.query_entity("a")
    assert row["current"] is True
    assert kg.query_entity("a", as_of=date.today().isoformat()) == []


def test_query_entity_falls_back_to_one_candidate(kg):
    kg.add_triple("Dr Chen", "works_on", "Factlines")
    rows = kg.query_entity("Chen")
    assert [(r["subject"], r["object"]) for r in rows] == [("Dr Chen", "Factlines")]
    kg.add_entity("Chen Li")
    assert kg.query_entity("Chen") == []  # two candidates: no guess


def test_query_relationship(family):
    rows = family.query_relationship("Married To")
    assert [list(r) for r in rows] == [RELATIONSHIP_KEYS]
    assert {k: rows[0][k] for k in RELATIONSHIP_KEYS[:-1]} == {
        "subject": "Alice",
        "predicate": "married_to",
        "object": "Bob",
        "valid_from": None,
        "valid_to": None,
        "current": True,
    }
    assert family.query_relationship("loves", as_of="2026-02-01") == []
    assert len(family.query_relationship("loves", as_of="2026-01-31")) == 1


# ── timeline ──────────────────────────────────────────────────────────────

TIMELINE_VALUES = [
    "2026-03-01",
    "2026-03-01T00:00:00Z",
    "2025-12-31T23:59:59Z",
    None,
    "2026-03-01",
    None,
    "2024-01-01",
    None,
]


@pytest.fixture
def dated(kg):
    for i, valid_from in enumerate(TIMELINE_VALUES):
        kg.add_triple(f"e{i % 3}", f"p{i}", f"o{i}", valid_from=valid_from)
    return kg


def _expected_order(kg, entity=None):
    ids = [r["id"] for r in kg.query_entity(entity, direction="both")] if entity else None
    rows = raw_sql(kg.db_path, "SELECT id, valid_from FROM triples")
    rows = [r for r in rows if ids is None or r[0] in ids]
    return [tid for tid, vf in sorted(rows, key=lambda r: (r[1] is None, r[1] or "", r[0]))]


@pytest.mark.parametrize("entity", [None, "e0", "e1"])
def test_timeline_order(dated, entity):
    assert [r["id"] for r in dated.timeline(entity)] == _expected_order(dated, entity)


@pytest.mark.parametrize("entity", [None, "e0"])
@pytest.mark.parametrize("limit", [1, 2, 3, 5])
def test_timeline_paging_crosses_the_undated_boundary(dated, limit, entity):
    expected = _expected_order(dated, entity)
    pages = [
        [r["id"] for r in dated.timeline(entity, limit=limit, offset=offset)]
        for offset in range(0, len(expected) + limit, limit)
    ]
    assert all(len(page) <= limit for page in pages)
    assert [tid for page in pages for tid in page] == expected


def test_timeline_keys(dated):
    assert all(list(r) == RELATIONSHIP_KEYS for r in dated.timeline())


def test_timeline_skips_facts_of_missing_entities_without_shifting_pages(dated):
    # MemPalace joins the entities, so a fact whose entity row is gone is not listed; paging
    # must not count it either (a file written by other tools may hold such rows).
    raw_sql(
        dated.db_path,
        "INSERT INTO triples (id, subject, predicate, object, valid_from) "
        "VALUES ('t_orphan', 'ghost', 'p', 'e0', '2000-01-01')",
    )
    for entity in (None, "e0"):
        expected = [tid for tid in _expected_order(dated, entity) if tid != "t_orphan"]
        pages = [
            r["id"] for off in range(0, 10, 2) for r in dated.timeline(entity, limit=2, offset=off)
        ]
        assert pages == expected
    assert dated.timeline("ghost") == []


def test_timeline_total(dated):
    assert dated.timeline_total() == len(TIMELINE_VALUES)
    assert dated.timeline_total("e0") == len(_expected_order(dated, "e0"))


# ── stats / seed ──────────────────────────────────────────────────────────


def test_stats(family):
    family.add_entity("Lonely")
    assert family.stats() == {
        "entities": 5,
        "triples": 4,
        "current_facts": 3,
        "expired_facts": 1,
        "relationship_types": ["child_of", "knows", "loves", "married_to"],
    }


def test_stats_of_an_empty_graph(kg):
    assert kg.stats() == {
        "entities": 0,
        "triples": 0,
        "current_facts": 0,
        "expired_facts": 0,
        "relationship_types": [],
    }


SEED = {
    "riley": {
        "full_name": "Riley",
        "type": "person",
        "gender": "female",
        "birthday": "2015-04-01",
        "parent": "jordan",
        "relationship": "daughter",
        "interests": ["swimming", "chess"],
    },
    "jordan": {"full_name": "Jordan", "partner": "sam", "relationship": "husband"},
    "kai": {"relationship": "brother", "sibling": "riley"},
    "rex": {"full_name": "Rex", "relationship": "dog", "owner": "jordan"},
}


def test_seed_from_entity_facts(kg):
    kg.seed_from_entity_facts(SEED)
    facts = {(r["subject"], r["predicate"], r["object"], r["valid_from"]) for r in kg.timeline()}
    assert facts == {
        ("Riley", "child_of", "Jordan", "2015-04-01"),
        ("Riley", "is_child_of", "Jordan", "2015-04-01"),
        ("Riley", "loves", "Swimming", "2025-01-01"),
        ("Riley", "loves", "Chess", "2025-01-01"),
        ("Jordan", "married_to", "Sam", None),
        ("Jordan", "is_partner_of", "Sam", None),
        ("Kai", "is_sibling_of", "Riley", None),
        ("Rex", "is_pet_of", "Jordan", None),
    }
    riley = kg.get_entity("riley")
    assert (riley["type"], riley["properties"]) == (
        "person",
        {"gender": "female", "birthday": "2015-04-01"},
    )
    assert kg.get_entity("rex")["type"] == "animal"
    assert kg.get_entity("kai")["type"] == "person"


def test_timeline_of_a_hub_pages_in_order(kg):
    # Enough facts that the page is chosen from the indexes first (the path for hubs).
    values = [None, "2026-03-01", "2026-03-01T00:00:00Z", "2025-01-01T10:00:00Z", "2024-12-31"]
    for i in range(40):
        if i % 2:
            kg.add_triple("hub", f"p{i % 3}", f"x{i}", valid_from=values[i % 5])
        else:
            kg.add_triple(f"x{i}", f"p{i % 3}", "hub", valid_from=values[i % 5])
    kg.add_triple("hub", "loops", "hub", valid_from="2026-01-01")
    raw_sql(
        kg.db_path,
        "INSERT INTO triples (id, subject, predicate, object, valid_from) "
        "VALUES ('t_orphan', 'ghost', 'p', 'hub', '2000-01-01')",
    )
    expected = [tid for tid in _expected_order(kg, "hub") if tid != "t_orphan"]
    assert len(expected) == 41
    for limit in (1, 3, 7):
        pages = [r["id"] for off in range(0, 45, limit) for r in kg.timeline("hub", limit, off)]
        assert pages == expected
