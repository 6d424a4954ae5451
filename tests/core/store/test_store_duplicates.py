"""Likely duplicate entities: ``duplicate_entities`` against a brute-force oracle over every
group and pair of random graphs (both engines); "not the same" remembered; a merge that keeps
the merged names as aliases, one undo step."""

from __future__ import annotations

import random
import unicodedata
from collections import defaultdict
from itertools import combinations

import pytest

from factlines import Refused
from factlines.core.progress import Cancelled

FIRST = ["Kai", "Kái", "KAI", "Ada", "Rosa", "Rósa", "Mira", "Li"]
LAST = ["Moreno", "moreno", "Park", "Chen", "", "Park-Chen"]
JOIN = [" ", "  ", "-", ". ", ""]
TYPES = ["person", "project", "unknown"]
HUB = 25


def _key(name: str) -> str:
    text = "".join(
        c for c in unicodedata.normalize("NFD", name.casefold()) if unicodedata.category(c) != "Mn"
    )
    return "".join(c for c in text if c.isalnum() or c == "_")


def _words(name: str) -> list[str]:
    text = "".join(
        c for c in unicodedata.normalize("NFD", name.casefold()) if unicodedata.category(c) != "Mn"
    )
    kept = "".join(c if c.isalnum() or c.isspace() or c == "_" else "" for c in text)
    return kept.split()


def _may_be_one(one, other) -> bool:
    return one == other or "unknown" in (one, other) or not one or not other


def oracle(entities: dict, links: list[tuple], not_same: set, limit: int) -> list[tuple]:
    """Every group of equal names, every first-words pair, every pair sharing most
    neighbours, by brute force over all pairs."""
    found = []
    groups = defaultdict(list)
    for eid, (name, _kind) in entities.items():
        groups[_key(name)].append(eid)
    reported = []
    for key, ids in groups.items():
        if key and len(ids) > 1:
            ids = sorted(ids, key=lambda eid: (entities[eid][0], eid))
            found.append((1.0, ids, "same name"))
            reported.append(frozenset(ids))
    alone = [eid for eid, (name, _k) in entities.items() if len(groups[_key(name)]) == 1]
    for a in alone:
        name, kind = entities[a]
        if len(" ".join(_words(name))) < 3:
            continue
        begun = [
            b
            for b in alone
            if b != a
            and len(_words(entities[b][0])) > len(_words(name))
            and _words(entities[b][0])[: len(_words(name))] == _words(name)
        ]
        longer = [b for b in begun if _may_be_one(kind, entities[b][1])]
        if len(longer) == 1 and len(begun) <= 50:
            found.append((0.6, [a, longer[0]], "first words"))
            reported.append(frozenset((a, longer[0])))
    around = defaultdict(set)
    for s, o in links:
        if s != o:
            around[s].add(o)
            around[o].add(s)
    for a, b in combinations(sorted(entities), 2):
        if not _may_be_one(entities[a][1], entities[b][1]) or frozenset((a, b)) in reported:
            continue
        shared = [n for n in around[a] & around[b] if len(around[n]) <= HUB]
        if len(shared) < 3 or 2 * len(shared) <= max(len(around[a]), len(around[b])):
            continue
        score = 0.3 + 0.3 * len(shared) / len(around[a] | around[b])
        found.append((score, [a, b], "neighbours"))
    found = [f for f in found if frozenset(f[1]) not in not_same]
    found.sort(key=lambda f: (-f[0], entities[f[1][0]][0].casefold(), str(f[1])))
    return [(round(score, 9), ids, rule) for score, ids, rule in found[:limit]]


def _random_graph(kg, rng: random.Random) -> None:
    for _ in range(rng.randrange(10, 45)):
        name = rng.choice(FIRST) + rng.choice(JOIN) + rng.choice(LAST)
        kg.add_entity(name.strip() or "Nobody", rng.choice(TYPES))


def _entities(kg) -> dict:
    return {eid: (name, kind) for eid, name, kind in kg._store.entities.every()}


@pytest.mark.parametrize("seed", range(6))
def test_duplicates_are_what_brute_force_finds(kg, seed):
    rng = random.Random(seed)
    _random_graph(kg, rng)
    entities = _entities(kg)
    ids = sorted(entities)
    hub = ids[0]
    for _ in range(rng.randrange(20, 120)):
        a = rng.choice(ids)
        b = hub if rng.random() < 0.1 else rng.choice([*ids, "nobody_here"])
        kg.add_triple(entities[a][0], rng.choice(["knows", "works_on"]), entities.get(b, (b,))[0])
    entities = _entities(kg)
    links = [(s, o) for s, o in kg._store.facts.ends()]
    not_same = set()
    got = kg.duplicate_entities(limit=1000)
    assert [(round(d["score"], 9), d["ids"], d["rule"]) for d in got] == oracle(
        entities, links, not_same, 1000
    )
    if got:
        marked = rng.choice(got)["ids"]
        kg.mark_not_duplicates(marked)
        not_same = {frozenset(marked)}
    got = kg.duplicate_entities(limit=5)
    assert [(round(d["score"], 9), d["ids"], d["rule"]) for d in got] == oracle(
        entities, links, not_same, 5
    )


def test_the_reason_says_what_differs_in_words(kg):
    for name in ("Kai Moreno", "Kái-Moreno", "kai  moreno", "Ada", "Ada Park", "Ada Park Jr"):
        kg.add_entity(name, "person")
    kg.add_entity("Rosa", "person")
    kg.add_entity("Rosa Díaz", "person")
    kg.add_entity("Rosa Díaz", "project")  # same id: replaces the person
    reasons = [d["reason"] for d in kg.duplicate_entities()]
    assert reasons == [
        "“Kai Moreno”, “Kái-Moreno” and “kai  moreno”: the same name but for case, accents, "
        "punctuation and spacing",
        "“Ada Park” is the start of “Ada Park Jr”, and of no other name (both person)",
    ]


def test_finding_duplicates_tells_its_steps_and_can_be_cancelled(kg):
    kg.add_entity("Kai Moreno")
    kg.add_entity("Kai-Moreno")
    steps = []
    kg.duplicate_entities(progress=lambda done, total: steps.append((done, total)))
    assert steps == [(n, 4) for n in range(5)]
    with pytest.raises(Cancelled):
        kg.duplicate_entities(progress=lambda done, total: done < 3)


def test_a_merge_keeps_the_names_as_aliases_and_is_one_undo_step(kg):
    kg.add_entity("Kai Moreno", "person", {"role": "engineer"})
    kg.add_entity("Kái-Moreno", "person", {"aliases": ["KM"]})
    kg.add_entity("kai  moreno", "person")
    kg.add_triple("Kái-Moreno", "works_on", "Orion")
    kg.add_triple("kai  moreno", "lives_in", "Lisbon")
    [group] = [d for d in kg.duplicate_entities() if d["rule"] == "same name"]
    into, *others = group["ids"]
    with kg.recording() as change:
        kg.merge_duplicates(into, others)
    merged = kg.get_entity(into)
    assert merged["properties"] == {
        "role": "engineer",
        "aliases": ["KM", "Kái-Moreno", "kai  moreno"],
    }
    assert sorted(f["predicate"] for f in kg.query_entity("Kai Moreno")) == ["lives_in", "works_on"]
    assert all(kg.get_entity(other) is None for other in others)
    kg.revert(change)
    assert kg.get_entity(into)["properties"] == {"role": "engineer"}
    assert sorted(e["name"] for e in map(kg.get_entity, others)) == ["Kái-Moreno", "kai  moreno"]
    with pytest.raises(Refused, match="two entities"):
        kg.mark_not_duplicates([into])
