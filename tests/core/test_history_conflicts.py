"""Every kind of conflict on hand-made cases."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import Refused, Unavailable
from store_helpers import dump


def raw_fact(kg, tid, subject, predicate, obj, valid_from=None, valid_to=None):
    """A row as an old file or MemPalace may hold it, past the store's checks."""
    with kg.transaction():
        conn = kg._conn()
        for eid in (subject, obj):
            conn.execute("INSERT OR IGNORE INTO entities (id, name) VALUES (?, ?)", (eid, eid))
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (tid, subject, predicate, obj, valid_from, valid_to),
        )
    return tid


def kinds(rows):
    return [(c["kind"], c["a"], c["b"], c["start"], c["end"]) for c in rows]


@pytest.fixture
def lives(kg):
    kg.set_single_valued("lives_in")
    return kg


def test_an_overlap_is_listed_once_with_its_span(lives):
    paris = lives.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01")
    rome = lives.add_triple(
        "Ann", "lives_in", "Rome", valid_from="2020-06-01T12:00:00Z", valid_to="2021-01-01"
    )
    assert kinds(lives.conflicts()) == [
        ("overlap", paris, rome, "2020-06-01T12:00:00Z", "2021-01-01T23:59:59Z")
    ]
    assert lives.conflicts("Ann") == lives.conflicts()
    row = lives.conflicts()[0]
    assert (row["subject"], row["predicate"]) == ("ann", "lives_in")


def test_overlaps_need_a_single_valued_predicate_and_other_objects(kg):
    kg.add_triple("Ann", "likes", "Tea")
    kg.add_triple("Ann", "likes", "Coffee")
    kg.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01", valid_to="2020-12-31")
    kg.add_triple("Ann", "lives_in", "Paris", valid_from="2020-06-01")
    assert kg.conflicts() == []
    kg.set_single_valued("likes")
    assert [c["kind"] for c in kg.conflicts()] == ["overlap"]


def test_facts_that_meet_do_not_overlap(lives):
    lives.add_triple("Ann", "lives_in", "Paris", valid_to="2020-06-01T12:00:00Z")
    lives.add_triple("Ann", "lives_in", "Rome", valid_from="2020-06-01T12:00:00Z")
    moment = "2020-06-01T12:00:00Z"  # an instant fact: valid nowhere, overlaps nothing
    lives.add_triple("Ann", "lives_in", "Oslo", valid_from=moment, valid_to=moment)
    assert lives.conflicts() == []


def test_unbounded_windows_give_an_unbounded_span(lives):
    lives.add_triple("Ann", "lives_in", "Paris")
    lives.add_triple("Ann", "lives_in", "Rome")
    ((kind, _, _, start, end),) = kinds(lives.conflicts())
    assert (kind, start, end) == ("overlap", None, None)


def test_a_date_only_handover_is_a_handover(lives):
    paris = lives.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01")
    lives.invalidate("Ann", "lives_in", "Paris", ended="2020-06-01")
    rome = lives.add_triple("Ann", "lives_in", "Rome", valid_from="2020-06-01")
    assert kinds(lives.conflicts()) == [
        ("handover", paris, rome, "2020-06-01T00:00:00Z", "2020-06-01T23:59:59Z")
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # the successor from the day's first second, written as an instant: still a handover
        ((None, "2020-06-01"), ("2020-06-01T00:00:00Z", None), "handover"),
        # from later that day: not valid all day, an overlap
        (("2020-01-01", "2020-06-01"), ("2020-06-01T09:00:00Z", None), "overlap"),
        # the old one ended by an instant: a supersede, no overlap at all
        (("2020-01-01", "2020-06-01T00:00:00Z"), ("2020-06-01", None), None),
        # the old one started that day too: a one-day fact, an overlap
        (("2020-06-01", "2020-06-01"), ("2020-06-01", None), "overlap"),
        # the successor ends first: inside the old one, an overlap
        (("2020-01-01", "2020-06-01"), ("2020-06-01T00:00:00Z", "2020-06-01T12:00:00Z"), "overlap"),
    ],
)
def test_what_counts_as_a_handover(lives, old, new, expected):
    lives.add_triple("Ann", "lives_in", "Paris", valid_from=old[0], valid_to=old[1])
    lives.add_triple("Ann", "lives_in", "Rome", valid_from=new[0], valid_to=new[1])
    assert [c["kind"] for c in lives.conflicts()] == ([expected] if expected else [])


def test_three_overlapping_facts_give_three_pairs(lives):
    ids = [lives.add_triple("Ann", "lives_in", city) for city in ("Paris", "Rome", "Oslo")]
    pairs = {frozenset((c["a"], c["b"])) for c in lives.conflicts()}
    assert len(lives.conflicts()) == 3
    assert pairs == {frozenset(p) for p in ((ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2]))}


def test_open_duplicates_for_any_predicate(kg):
    first = raw_fact(kg, "t1", "ann", "likes", "tea", "2020-01-01")
    second = raw_fact(kg, "t2", "ann", "likes", "tea", "2021-01-01")
    raw_fact(kg, "t3", "ann", "likes", "tea", "2019-01-01", "2019-12-31")  # closed: no copy
    raw_fact(kg, "t4", "bob", "likes", "tea")  # another subject
    assert kinds(kg.conflicts()) == [
        ("duplicate_open", first, second, "2021-01-01T00:00:00Z", None)
    ]
    assert kg.conflicts("Bob") == []


def test_inverted_intervals_for_any_predicate(kg):
    tid = raw_fact(kg, "t_inv", "ann", "likes", "tea", "2020-06-01", "2020-05-31")
    raw_fact(kg, "t_ok", "ann", "likes", "cake", "2020-06-01", "2020-06-01")  # one day: fine
    raw_fact(kg, "t_gone", "ann", "likes", "jam", "2020-06-01", "")  # MemPalace's "": not inverted
    assert kinds(kg.conflicts()) == [
        ("inverted", tid, None, "2020-06-01T00:00:00Z", "2020-05-31T23:59:59Z")
    ]


def test_an_inverted_fact_overlaps_nothing(lives):
    raw_fact(lives, "t_inv", "ann", "lives_in", "rome", "2020-06-01", "2020-01-01")
    lives.add_triple("Ann", "lives_in", "Paris")
    assert [c["kind"] for c in lives.conflicts()] == ["inverted"]


def test_an_end_in_the_future_for_any_predicate(kg, monkeypatch):
    from factlines.core import temporal

    monkeypatch.setattr(temporal, "now_instant", lambda: "2026-05-10T12:00:00Z")
    monkeypatch.setattr(temporal, "today", lambda: "2026-05-10")
    kg.add_triple("Ann", "likes", "Tea", valid_from="2020-01-01", valid_to="2026-05-10")  # today
    tomorrow = kg.add_triple("Ann", "likes", "Pie", valid_from="2020-01-01", valid_to="2026-05-11")
    later = kg.add_triple("Ann", "likes", "Jam", valid_to="2026-05-10T12:00:01Z")
    kg.add_triple("Ann", "likes", "Cake", valid_to="2026-05-10T12:00:00Z")  # ends now: not later
    kg.add_triple("Ann", "likes", "Fig", valid_to="2026-05-09")
    assert sorted(kinds(kg.conflicts())) == sorted(
        [
            ("future_end", tomorrow, None, "2020-01-01T00:00:00Z", "2026-05-11T23:59:59Z"),
            ("future_end", later, None, None, "2026-05-10T12:00:01Z"),
        ]
    )


def test_with_an_entity_the_facts_it_is_the_subject_of(kg):
    kg.set_single_valued("led_by")
    kai = kg.add_triple("Atlas", "led_by", "Kai", valid_from="2020-01-01", valid_to="2022-04-30")
    rosa = kg.add_triple("Atlas", "led_by", "Rosa", valid_from="2022-03-01")
    kg.add_triple("Orion", "led_by", "Ida", valid_from="2020-01-01")
    kg.add_triple("Orion", "led_by", "Mo", valid_from="2020-01-01")
    raw_fact(kg, "t_inv", "kai", "likes", "tea", "2020-06-01", "2020-05-31")
    assert [(c["a"], c["b"]) for c in kg.conflicts("Atlas")] == [(kai, rosa)]
    assert [c["kind"] for c in kg.conflicts("Kai")] == ["inverted"]
    assert kg.conflicts("Rosa") == []
    assert len(kg.conflicts()) == 3


def test_conflicts_touching_are_the_pair_kinds_while_marked(kg):
    kg.set_single_valued("led_by")
    kg.add_triple("Atlas", "led_by", "Kai", valid_from="2020-01-01", valid_to="2022-03-01")
    kg.add_triple("Atlas", "led_by", "Rosa", valid_from="2022-03-01")
    raw_fact(kg, "t_dup1", "atlas", "uses", "kai")
    raw_fact(kg, "t_dup2", "atlas", "uses", "kai")  # a duplicate: in conflicts() only
    assert [c["kind"] for c in kg.conflicts_touching("Kai")] == ["handover"]
    assert [c["kind"] for c in kg.conflicts("Atlas")] == ["handover", "duplicate_open"]
    kg.set_single_valued("led_by", False)
    assert kg.conflicts_touching("Kai") == []


def test_rows_are_ordered(lives):
    lives.add_triple("Bob", "lives_in", "Paris")
    lives.add_triple("Bob", "lives_in", "Rome")
    lives.add_triple("Ann", "lives_in", "Oslo", valid_from="2021-01-01")
    lives.add_triple("Ann", "lives_in", "Lima", valid_from="2020-01-01")
    raw_fact(lives, "t_inv", "ann", "likes", "tea", "2020-06-01", "2020-05-31")
    rows = lives.conflicts()
    assert [(c["subject"], c["predicate"]) for c in rows] == [
        ("ann", "likes"),
        ("ann", "lives_in"),
        ("bob", "lives_in"),
    ]


def test_suggested_single_valued_predicates_with_figures(kg):
    sides = []
    for i in range(60):
        person = f"P{i}"
        kg.add_triple(person, "works_at", "Acme", valid_from="2020-01-01", valid_to="2021-01-01")
        kg.add_triple(person, "works_at", "Bolt", valid_from="2021-01-01")  # a handover
        if i % 4 == 0:  # two employers at once, by mistake: a quarter of those who changed
            sides.append(kg.add_triple(person, "works_at", "Side", valid_from="2020-06-01"))
        kg.add_triple(person, "knows", f"P{(i + 1) % 60}")
        kg.add_triple(person, "knows", f"P{(i + 2) % 60}")
        kg.add_triple(person, "born_in", "Oslo")
        day = f"2020-{i % 12 + 1:02}-01"
        kg.add_triple(person, "met_with", f"P{(i + 1) % 60}", valid_from=day, valid_to=day)
        kg.add_triple(person, "met_with", f"P{(i + 3) % 60}", valid_from="2019-05-05")
        kg.add_triple(person, "met_with", f"P{(i + 3) % 60}", valid_to="2019-05-05")
        # Roles rarely held together, but one does not follow on from the other.
        kg.add_triple(person, "has_role", "mentor", valid_from="2018-01-01", valid_to="2019-01-01")
        kg.add_triple(
            person, "has_role", "lead", valid_from="2020-01-01" if i % 4 else "2018-06-01"
        )
    kg.set_single_valued("born_in")
    found = kg.single_valued_suggestions()
    # knows overlaps; born_in never changes; a meeting of a day says nothing; has_role does
    # not follow on and 25% of its subjects held two at once
    assert [s["predicate"] for s in found] == ["works_at"]
    pairs = found[0].pop("pairs")
    assert found[0] == {
        "predicate": "works_at",
        "subjects": 60,
        "changing": 60,
        "overlapping": 15,
        "changes": 45,  # a change is from an ended fact: not from Side
        "following": 45,
        "overlaps": 30,  # Side with Acme, and with Bolt
        "text": (
            "works_at: 75% of 60 subjects hold one at a time; 45 of 45 changes follow on "
            "within a month; 30 overlaps"
        ),
        "marked": False,
    }
    assert [p["kind"] for p in pairs].count("handover") == 60
    overlaps = [p for p in pairs if p["kind"] == "overlap"]
    assert {p["b"] for p in overlaps} == set(sides) | {p["b"] for p in overlaps if p["a"] in sides}


def test_suggestions_find_the_single_valued_predicates_of_a_mempalace_graph(tmp_path):
    """On a graph MemPalace wrote (people with jobs, homes, managers, marriages and their
    mistakes; knows, visits, meetings, roles, likes, projects, parents), exactly the
    single-valued predicates are suggested, each with its overlaps listed."""
    from factlines import KnowledgeGraph
    from people_graph import SINGLE_VALUED, write_people_graph
    from store_helpers import mempalace_class

    path = tmp_path / "palace" / "knowledge_graph.sqlite3"
    mem = mempalace_class()(str(path))
    written = write_people_graph(mem, people=80, mistakes=0.15, seed=7)
    mem.close()
    with KnowledgeGraph(path) as kg:
        found = {s["predicate"]: s for s in kg.single_valued_suggestions()}
    assert sorted(found) == sorted(SINGLE_VALUED)
    assert found["works_at"]["overlaps"] >= written.mistakes["works_at"]
    assert found["lives_in"]["overlaps"] >= written.mistakes["lives_in"]


def test_reading_conflicts_writes_nothing(lives):
    lives.add_triple("Ann", "lives_in", "Paris")
    lives.add_triple("Ann", "lives_in", "Rome")
    before = dump(lives.db_path, ("entities", "triples", "fl_meta"))
    lives.conflicts()
    lives.conflicts_touching("Ann")
    lives.single_valued_suggestions()
    with pytest.raises(Refused):
        lives.validity_histogram(0)
    assert dump(lives.db_path, ("entities", "triples", "fl_meta")) == before


# ── The whole graph's odd facts ────────────────────────────────────────


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (sqlite3.OperationalError("database is locked"), Unavailable),
        (sqlite3.OperationalError("no such column: valid_too"), sqlite3.OperationalError),
    ],
    ids=["environment", "bug"],
)
def test_what_goes_wrong_in_the_odd_facts_search_reaches_the_caller(kg, monkeypatch, error, raised):
    from factlines.core.store.sqlite import history

    if "locked" in str(error):
        error.sqlite_errorcode = sqlite3.SQLITE_BUSY

    def fails(conn, *args):
        raise error

    raw_fact(kg, "t_a1", "ann", "likes", "tea")
    monkeypatch.setattr(history, "_irregular_rowids", fails)
    with pytest.raises(raised) as caught:
        kg.conflicts()
    assert caught.type is raised


def test_a_closed_graph_refuses_before_searching(kg):
    kg.close()
    with pytest.raises(Refused, match="closed"):
        kg.conflicts()


def test_inside_a_write_the_whole_graph_is_searched_with_its_rows(kg, monkeypatch):
    from factlines.core import temporal

    monkeypatch.setattr(temporal, "now_instant", lambda: "2026-05-10T12:00:00Z")
    raw_fact(kg, "t_a1", "ann", "likes", "tea")
    with kg.transaction():
        later = kg.add_triple("Ann", "likes", "Jam", valid_to="2027-01-01")
        raw_fact(kg, "t_a2", "ann", "likes", "tea")
        assert sorted(kinds(kg.conflicts())) == [
            ("duplicate_open", "t_a1", "t_a2", None, None),
            ("future_end", later, None, None, "2027-01-01T23:59:59Z"),
        ]


# ── A day-only end of today is not in the future ────────────────────────


@pytest.fixture
def zone(monkeypatch):
    """Sets this process's calendar to a zone (the conftest keeps UTC, put back after)."""
    import time

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@pytest.mark.parametrize("where", ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"])
def test_a_fact_ended_today_by_mempalace_or_factlines_never_ends_in_the_future(
    kg_path, zone, where
):
    from datetime import date, datetime, timedelta, timezone

    from factlines import KnowledgeGraph
    from store_helpers import mempalace_class

    zone(where)  # +14 h: the day MemPalace writes is UTC's tomorrow for most of the day
    mem = mempalace_class()(str(kg_path))
    mem.add_triple("Ann", "works_at", "Acme", valid_from="2020-01-01")
    mem.invalidate("Ann", "works_at", "Acme")  # MemPalace's default end: today
    mem.add_triple("Ann", "lives_in", "Rome", valid_from="2020-01-01")
    # The contract's today is the later of the local and UTC calendar days: at -11 h the
    # local tomorrow is UTC's today until 11:00 UTC, not a day in the future.
    today = max(date.today(), datetime.now(timezone.utc).date())
    after_today = (today + timedelta(days=1)).isoformat()
    mem.invalidate("Ann", "lives_in", "Rome", ended=after_today)
    mem.close()
    kg = KnowledgeGraph(kg_path)
    try:
        kg.add_triple("Bob", "likes", "Tea", valid_from="2020-01-01")
        kg.end_fact(kg.query_entity("Bob")[0]["id"])  # "End today"
        rows = kg.conflicts()
    finally:
        kg.close()
    assert [(c["kind"], c["predicate"]) for c in rows] == [("future_end", "lives_in")]


def test_suggestions_list_the_pairs_only_of_what_they_suggest(kg, monkeypatch):
    """A hub holding many objects at once has pairs by the million at scale: the suggestions
    count its subjects' overlaps, but list pairs only of the predicates they suggest."""
    from factlines.core import analysis

    listed = []
    pairs_of = analysis._ordered_pairs
    monkeypatch.setattr(
        analysis,
        "_ordered_pairs",
        lambda groups: (
            listed.append({f[0] for g in groups.values() for f in g}) or pairs_of(groups)
        ),
    )
    for i in range(6):
        kg.add_triple(f"P{i}", "works_at", "Acme", valid_from="2020-01-01", valid_to="2021-01-01")
        kg.add_triple(f"P{i}", "works_at", "Bolt", valid_from="2021-01-01")
    for i in range(40):  # the hub: 40 objects at once, 780 pairs
        kg.add_triple("Hub", "knows", f"P{i}", valid_from=f"2020-01-{i % 28 + 1:02}")
    found = kg.single_valued_suggestions()
    assert [s["predicate"] for s in found] == ["works_at"]
    assert listed == [{"works_at"}]
    # What the early stop counted is what the whole list would say.
    figures = analysis.predicate_figures(
        [(f"S{i % 3}", "p", f"O{i % 5}", f"t{i}", f"2020-0{i % 9 + 1}-01", None) for i in range(30)]
    )
    pairs = figures["p"]["pairs"]
    assert figures["p"]["overlapping"] == len({p[0] for p in pairs if p[3] == 0}) == 3
