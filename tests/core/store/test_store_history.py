"""Contract sections 5 and 6: noticing other writers, undo/redo by row images, conflicts."""

from __future__ import annotations

import pytest

from factlines import KnowledgeGraph
from factlines.core.store import ConflictError
from store_helpers import dump, raw_sql

TABLES = ("entities", "triples", "fl_meta")


# ── changed_externally ────────────────────────────────────────────────────


def test_changed_externally_notices_another_connection_only(kg, kg_path):
    assert kg.changed_externally() is False
    kg.add_triple("a", "p", "b")
    kg.add_entity("c")
    assert kg.changed_externally() is False  # our own commits
    raw_sql(kg_path, "UPDATE entities SET type = 'x' WHERE id = 'a'")
    assert kg.changed_externally() is True
    assert kg.changed_externally() is False  # reported once
    with KnowledgeGraph(kg_path) as second:
        second.add_triple("d", "p", "e")
    assert kg.changed_externally() is True
    kg.add_triple("f", "p", "g")
    assert kg.changed_externally() is False


def test_a_read_by_another_connection_is_no_change(kg, kg_path):
    kg.add_triple("a", "p", "b")
    with KnowledgeGraph(kg_path) as second:
        second.stats()
    assert kg.changed_externally() is False


# ── recording / revert / reapply ──────────────────────────────────────────


@pytest.fixture
def graph(kg):
    kg.add_entity("Ann", "person", {"age": 30})
    kg.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01")
    kg.add_triple("Bob", "knows", "Ann", valid_from="2019-01-01", valid_to="2019-12-31")
    kg.add_triple("Robert", "knows", "Ann", valid_from="2018-01-01")
    kg.add_triple("Ann", "likes", "tea")
    return kg


def _paris(kg):
    return kg.find_open_fact("Ann", "lives_in", "Paris")["id"]


EDITS = {
    "add_triple": lambda kg: kg.add_triple("Cy", "knows", "Ann", valid_from="2026-01-01"),
    "add_entity replace": lambda kg: kg.add_entity("Ann", "robot"),
    "invalidate": lambda kg: kg.invalidate("Ann", "likes", "tea", ended="2026-01-01"),
    "supersede": lambda kg: kg.supersede("Ann", "lives_in", "Paris", "Oslo", at="2026-01-01"),
    "update_fact": lambda kg: kg.update_fact(_paris(kg), object="Lyon", valid_from="2021-01-01"),
    "end_fact": lambda kg: kg.end_fact(_paris(kg), "2025-01-01"),
    "delete_fact": lambda kg: kg.delete_fact(_paris(kg)),
    "rename": lambda kg: kg.rename_entity("Ann", "Anna"),
    "set_type": lambda kg: kg.set_entity_type("Ann", "cat"),
    "set_properties": lambda kg: kg.set_entity_properties("Ann", {"age": 31}),
    "merge": lambda kg: kg.merge_entities("Bob", "Robert"),
    "single_valued": lambda kg: kg.set_single_valued("lives_in"),
    "seed": lambda kg: kg.seed_from_entity_facts({"kai": {"parent": "ann"}}),
    "several": lambda kg: (kg.delete_fact(_paris(kg)), kg.add_triple("Ann", "lives_in", "Paris")),
}


@pytest.mark.parametrize("edit", list(EDITS.values()), ids=list(EDITS))
def test_revert_and_reapply_restore_the_file_exactly(graph, edit):
    before = dump(graph.db_path, TABLES)
    with graph.recording() as change:
        edit(graph)
    after = dump(graph.db_path, TABLES)
    assert after != before
    assert change
    graph.revert(change)
    assert dump(graph.db_path, TABLES) == before
    graph.reapply(change)
    assert dump(graph.db_path, TABLES) == after
    graph.revert(change)
    assert dump(graph.db_path, TABLES) == before


def test_a_write_that_changed_nothing_records_nothing(graph):
    with graph.recording() as change:
        graph.add_triple("Ann", "likes", "tea")  # the open fact exists already
        graph.invalidate("Nobody", "p", "q")
    assert not change


def test_a_refused_write_is_not_recorded(graph):
    before = dump(graph.db_path, TABLES)
    with graph.recording() as change:
        with pytest.raises(ValueError):
            graph.supersede("Ann", "lives_in", "Paris", "Oslo", at="1999-01-01")
        graph.set_entity_type("Ann", "cat")
    graph.revert(change)
    assert dump(graph.db_path, TABLES) == before


CONCURRENT = {
    "another connection": lambda kg: raw_sql(
        kg.db_path, "UPDATE triples SET valid_to = '2030-01-01' WHERE predicate = 'lives_in'"
    ),
    "this store": lambda kg: kg.update_fact(_paris(kg), confidence=0.5),
    "deleted": lambda kg: kg.delete_fact(_paris(kg)),
}


@pytest.mark.parametrize("meddle", list(CONCURRENT.values()), ids=list(CONCURRENT))
def test_revert_refuses_rows_changed_since(graph, meddle):
    with graph.recording() as change:
        graph.update_fact(_paris(graph), valid_from="2020-02-02")
        graph.set_entity_type("Ann", "cat")
    meddle(graph)
    before = dump(graph.db_path, TABLES)
    with pytest.raises(ConflictError, match="changed"):
        graph.revert(change)
    assert dump(graph.db_path, TABLES) == before  # not even the entity part


def test_reapply_refuses_rows_changed_since_the_revert(graph):
    with graph.recording() as change:
        graph.set_entity_type("Ann", "cat")
    graph.revert(change)
    graph.set_entity_type("Ann", "dog")
    with pytest.raises(ConflictError):
        graph.reapply(change)
    assert graph.get_entity("Ann")["type"] == "dog"


# ── single-valued predicates and conflicts (contract section 6) ───────────


def test_single_valued_marks(kg):
    assert kg.single_valued_predicates() == []
    kg.set_single_valued("Lives In")
    kg.set_single_valued("married_to")
    assert kg.single_valued_predicates() == ["lives_in", "married_to"]
    kg.set_single_valued("lives in", False)
    assert kg.single_valued_predicates() == ["married_to"]
    assert dump(kg.db_path)["entities"] == []  # a setting, not a fact


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        # overlapping dated windows: the shared span
        (
            [("Paris", "2020-01-01", "2020-12-31"), ("Rome", "2020-06-01", None)],
            [("2020-06-01T00:00:00Z", "2020-12-31T23:59:59Z")],
        ),
        # invalidate(ended=D) + add(valid_from=D): they share day D
        (
            [("Paris", "2020-01-01", "2020-06-01"), ("Rome", "2020-06-01", None)],
            [("2020-06-01T00:00:00Z", "2020-06-01T23:59:59Z")],
        ),
        # a supersede-style handover at one instant: no overlap
        ([("Paris", "2020-01-01", "2020-06-01T00:00:00Z"), ("Rome", "2020-06-01", None)], []),
        # both open, no dates: they overlap everywhere
        ([("Paris", None, None), ("Rome", None, None)], [(None, None)]),
        # disjoint
        ([("Paris", "2020-01-01", "2020-01-31"), ("Rome", "2020-02-01", "2020-02-02")], []),
        # the same object twice is no contradiction
        ([("Paris", "2020-01-01", "2020-12-31"), ("Paris", "2020-06-01", None)], []),
    ],
)
def test_conflicts(kg, facts, expected):
    kg.set_single_valued("lives_in")
    ids = []
    for obj, valid_from, valid_to in facts:
        ids.append(kg.add_triple("Ann", "lives_in", obj, valid_from=valid_from, valid_to=valid_to))
        kg.add_triple("Bob", "lives_in", obj, valid_from=valid_from)  # another subject
    kg.add_triple("Ann", "likes", "tea")
    kg.add_triple("Ann", "likes", "coffee")  # not single-valued
    found = kg.conflicts("Ann")
    assert [(c["start"], c["end"]) for c in found] == expected
    for c in found:
        assert {c["a"], c["b"]} == set(ids)
        assert (c["subject"], c["predicate"]) == ("ann", "lives_in")
    assert all(c["subject"] in ("ann", "bob") for c in kg.conflicts())


def test_no_conflicts_without_marks(kg):
    kg.add_triple("Ann", "lives_in", "Paris")
    kg.add_triple("Ann", "lives_in", "Rome")
    assert kg.conflicts() == []
    kg.set_single_valued("lives_in")
    assert len(kg.conflicts()) == 1


@pytest.mark.parametrize(
    ("utc_now", "local_day"),
    [("2026-05-10T12:00:00Z", "2026-05-10"), ("2026-05-10T12:00:00Z", "2026-05-11")],
    ids=["same-day", "local-calendar-ahead"],
)
def test_a_day_only_end_is_in_the_future_only_after_today(kg, monkeypatch, utc_now, local_day):
    from factlines.core import temporal

    monkeypatch.setattr(temporal, "now_instant", lambda: utc_now)
    monkeypatch.setattr(temporal, "today", lambda: local_day)
    for day in ("2026-05-09", "2026-05-10", "2026-05-11", "2026-05-12"):
        kg.add_triple("Ann", "likes", f"Tea {day}", valid_from="2020-01-01", valid_to=day)
    kg.add_triple("Ann", "likes", "Jam", valid_to="2026-05-10T12:00:01Z")
    future = sorted(kg.get_fact(c["a"])["valid_to"] for c in kg.conflicts())
    after_today = [d for d in ("2026-05-11", "2026-05-12") if d > local_day]
    assert future == sorted(["2026-05-10T12:00:01Z", *after_today])


def test_an_entity_sees_conflicts_of_facts_pointing_at_it(kg):
    kg.set_single_valued("led_by")
    kai = kg.add_triple("Atlas", "led_by", "Kai", valid_from="2020-01-01", valid_to="2022-04-30")
    rosa = kg.add_triple("Atlas", "led_by", "Rosa", valid_from="2022-03-01")
    kg.add_triple("Orion", "led_by", "Ida", valid_from="2020-01-01")
    kg.add_triple("Orion", "led_by", "Mo", valid_from="2020-01-01")  # Orion's own clash
    for name in ("Kai", "Rosa", "Atlas"):
        (found,) = kg.conflicts_touching(name)
        assert {found["a"], found["b"]} == {kai, rosa}
        assert (found["start"], found["end"]) == ("2022-03-01T00:00:00Z", "2022-04-30T23:59:59Z")
    assert kg.conflicts_touching("Ida") != kg.conflicts_touching("Kai")
    assert kg.conflicts("Kai") == []  # conflicts(entity): the facts it is the subject of
    assert len(kg.conflicts()) == 2


# ── What is kept of the whole graph's history ─────────────────────────────


@pytest.mark.sqlite_only
def test_a_read_between_a_commit_and_its_listeners_sees_the_commit(kg, monkeypatch):
    """The pages of the whole graph's events keep counts per version of the file; a reader
    on another thread may come between a commit of ours and the listeners told of it, and
    must not be answered from the counts of before."""
    from factlines.core.store.sqlite.connection import Connection

    kg.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01")
    assert [e["at"] for e in kg.narrative()] == ["2020-01-01"]  # counted and kept
    seen: list[list[str]] = []
    tell = Connection._tell

    def read_first(self, touched):
        seen.append([e["at"] for e in kg.narrative()])  # the reader that came first
        tell(self, touched)

    monkeypatch.setattr(Connection, "_tell", read_first)
    kg.add_triple("Ann", "lived_in", "Oslo", valid_from="2010-05-01")  # before the page's first day
    assert seen == [["2010-05-01", "2020-01-01"]]


@pytest.mark.sqlite_only
def test_counts_read_in_a_write_mempalace_rolls_back_are_not_kept(kg):
    """MemPalace's code may begin a write on the store's raw connection (``kg._conn()``); the
    whole graph's events read inside it count rows a rollback then takes away."""
    kg.add_triple("Ann", "lives_in", "Paris", valid_from="2020-01-01")
    conn = kg._conn()
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO triples (id, subject, predicate, object, valid_from) "
        "VALUES ('t_raw', 'ann', 'visited', 'paris', '2010-05-01')"
    )
    assert [e["at"] for e in kg.narrative()] == ["2010-05-01", "2020-01-01"]
    conn.execute("ROLLBACK")
    assert [e["at"] for e in kg.narrative()] == ["2020-01-01"]


# ── single-valued suggestions, read in parts ──────────────────────────────


def _employment(kg) -> None:
    """Thirty people changing employer (a few with two at once), and a predicate that is not
    single-valued: enough subjects for parts of a few rows to split between them."""
    for i in range(30):
        person = f"P{i:02}"
        kg.add_triple(person, "works_at", "Acme", valid_from="2020-01-01", valid_to="2021-01-01")
        kg.add_triple(person, "works_at", "Bolt", valid_from="2021-01-01")
        if i % 5 == 0:
            kg.add_triple(person, "works_at", "Side", valid_from="2020-06-01")
        kg.add_triple(person, "knows", f"P{(i + 1) % 30:02}")
        kg.add_triple(person, "knows", f"P{(i + 2) % 30:02}")


def test_a_predicate_s_facts_come_in_parts_of_whole_subjects(kg):
    _employment(kg)
    history = kg._store.history
    parts = list(history.subject_parts("works_at", 4))
    rows = [row for part in parts for row in part]
    assert sorted(rows) == sorted(history.interval_rows(["works_at"], None))
    subjects = [row[0] for row in rows]
    assert subjects == sorted(subjects)  # in subject order
    ends = [part[-1][0] for part in parts]
    starts = [part[0][0] for part in parts[1:]]
    assert all(end != start for end, start in zip(ends, starts))  # no subject split
    assert all(len(part) <= 4 + 2 for part in parts)  # a part: about 4 rows, whole subjects
    assert len(parts) > 5


def test_suggestions_read_in_small_parts_are_those_read_at_once(kg, monkeypatch):
    from factlines.core.store import history

    _employment(kg)
    at_once = kg.single_valued_suggestions()
    monkeypatch.setattr(history, "SUGGESTION_ROWS", 3)
    assert kg.single_valued_suggestions() == at_once
    assert [s["predicate"] for s in at_once] == ["works_at"]
    assert at_once[0]["overlapping"] == 6 and at_once[0]["subjects"] == 30
