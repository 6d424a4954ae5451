"""Contradictions resolved: keep the newer, keep the older, or both were true (split the time),
each one write, checked at every instant that matters against a plain oracle: the fact kept is
as it was, the other's facts are valid exactly where it was valid and the kept one is not (for
a split: where the first-starting one was and the other is not), and undo puts everything back.
Both engines."""

from __future__ import annotations

import random

import pytest

from factlines import Refused
from store_helpers import boundary_instants, dump, oracle_start, oracle_valid, raw_sql

DAYS = ["2024-01-01", "2024-06-01", "2025-01-01", "2025-06-01"]
INSTANTS = ["2024-03-10T12:00:00Z", "2024-09-01T08:30:00Z", "2025-03-01T00:00:00Z"]


def _overlap(a, b) -> bool:
    moments = boundary_instants([a[0], a[1], b[0], b[1], "2023-01-01", "2026-01-01"])
    return any(oracle_valid(*a, t) and oracle_valid(*b, t) for t in moments)


def _pair(rng: random.Random):
    while True:
        a, b = (
            tuple(
                sorted(rng.sample(DAYS + INSTANTS, 2))
                if rng.random() < 0.6
                else [rng.choice([None, *DAYS]), None]
            )
            for _ in range(2)
        )
        if a != b and _overlap(a, b):
            return a, b


def _start(value):
    return oracle_start(value) if value is not None else None


def _valid_of(kg, subject: str, obj: str, moment: str) -> bool:
    facts = [f for f in kg.query_entity(subject) if f["object"] == obj]
    return any(oracle_valid(f["valid_from"], f["valid_to"], moment) for f in facts)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("keep", ["newer", "older", "split"])
def test_a_contradiction_resolved_removes_the_overlap_and_nothing_else(kg, graph_url, seed, keep):
    rng = random.Random(seed)
    (a_from, a_to), (b_from, b_to) = _pair(rng)
    a = kg.add_triple("Kai", "lives_in", "Berlin", valid_from=a_from, valid_to=a_to)
    b = kg.add_triple("Kai", "lives_in", "Lisbon", valid_from=b_from, valid_to=b_to)
    first, second = rng.sample([a, b], 2)  # recorded in this order
    for tid, stamp in ((first, "2026-03-01 10:00:00"), (second, "2026-03-02 10:00:00")):
        raw_sql(graph_url, "UPDATE triples SET extracted_at = ? WHERE id = ?", (stamp, tid))
    facts = {a: ("Berlin", a_from, a_to), b: ("Lisbon", b_from, b_to)}
    if keep == "split":  # the first to start gives way (an unknown start is the first)
        order = sorted(facts, key=lambda t: (facts[t][1] is not None, _start(facts[t][1])))
        loser_id, winner_id = order
    else:
        winner_id = second if keep == "newer" else first
        loser_id = first if winner_id == second else second
    before = dump(graph_url)
    same_start = _start(a_from) == _start(b_from)
    if keep == "split" and same_start:
        with pytest.raises(Refused, match="same time"):
            kg.resolve_conflict(a, b, keep)
        assert dump(graph_url) == before
        return
    with kg.recording() as change:
        words = kg.resolve_conflict(a, b, keep)
    winner, loser = facts[winner_id], facts[loser_id]
    assert words.startswith(f"kept Kai lives_in {winner[0]}")
    assert kg.get_fact(winner_id)["valid_from"] == winner[1]
    assert kg.get_fact(winner_id)["valid_to"] == winner[2]
    moments = boundary_instants([a_from, a_to, b_from, b_to, "2023-01-01", "2026-01-01"])
    for moment in moments:
        was = oracle_valid(loser[1], loser[2], moment)
        kept = oracle_valid(winner[1], winner[2], moment)
        assert _valid_of(kg, "Kai", loser[0], moment) == (was and not kept), moment
        assert _valid_of(kg, "Kai", winner[0], moment) == kept, moment
    kg.revert(change)
    assert dump(graph_url) == before


def test_facts_that_do_not_contradict_are_refused_untouched(kg, graph_url):
    a = kg.add_triple("Kai", "lives_in", "Berlin", valid_from="2020-01-01", valid_to="2021-01-01")
    b = kg.add_triple("Kai", "lives_in", "Lisbon", valid_from="2022-01-01")
    c = kg.add_triple("Rosa", "lives_in", "Lisbon", valid_from="2020-01-01")
    before = dump(graph_url)
    with pytest.raises(Refused, match="do not overlap"):
        kg.resolve_conflict(a, b, "newer")
    with pytest.raises(Refused, match="one subject and predicate"):
        kg.resolve_conflict(b, c, "older")
    with pytest.raises(Refused, match="not one of"):
        kg.resolve_conflict(a, b, "both")
    assert dump(graph_url) == before
