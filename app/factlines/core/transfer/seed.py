"""Importing MemPalace's ``entity_facts`` seed: each entry checked by the rules
``seed_from_entity_facts`` writes it by, then written by that very method (contract §4.12)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id, predicate_id
from factlines.core.transfer.plan import PLAN_BATCH, ImportReport, Steps
from factlines.core.transfer.readers import ImportFile, Problem

if TYPE_CHECKING:
    from factlines.core.store.facade import KnowledgeGraph

_Triple = tuple[str, str, str]


def _text_field(facts: dict[str, Any], name: str) -> str | None:
    value = facts.get(name)
    if value is not None and not isinstance(value, str):
        raise Refused(f"{name} must be text, not {type(value).__name__}")
    return value


def _seed_triples(key: str, facts: object) -> list[tuple[str, str, str]]:
    """The (subject, predicate, object) names ``seed_from_entity_facts`` writes for one entry,
    once the entry is checked against the rules it will be written by (contract §4.12)."""
    if not isinstance(facts, dict):
        raise Refused(f"the facts of {key!r} must be a JSON object")
    facts = cast("dict[str, Any]", facts)  # JSON's: keyed by text
    for name in ("full_name", "type", "gender", "birthday", "relationship"):
        _text_field(facts, name)
    for name in ("parent", "partner", "sibling", "owner"):
        _text_field(facts, name)
    name = check_name(facts.get("full_name", key.capitalize()), "full_name")
    temporal.parse(facts.get("birthday"), "birthday")
    interests = facts.get("interests", [])
    if not isinstance(interests, list) or not all(
        isinstance(i, str) for i in cast("list[object]", interests)
    ):
        raise Refused("interests must be a list of names")
    interests = cast("list[str]", interests)  # as checked
    triples: list[tuple[str, str]] = []
    if facts.get("parent"):
        triples.append(("child_of", facts["parent"].capitalize()))
    if facts.get("partner"):
        triples.append(("married_to", facts["partner"].capitalize()))
    relationship = facts.get("relationship", "")
    if relationship == "daughter":
        triples.append(("is_child_of", facts.get("parent", "").capitalize() or name))
    elif relationship == "husband":
        triples.append(("is_partner_of", facts.get("partner", name).capitalize()))
    elif relationship == "brother":
        triples.append(("is_sibling_of", facts.get("sibling", name).capitalize()))
    elif relationship == "dog":
        triples.append(("is_pet_of", facts.get("owner", name).capitalize()))
    triples += [("loves", interest.capitalize()) for interest in interests]
    for predicate, other in triples:
        check_name(other, predicate)
    return [(name, predicate, other) for predicate, other in triples]


def plan_seed(
    kg: KnowledgeGraph, data: ImportFile, rep: ImportReport, steps: Steps
) -> Callable[[], None]:
    """Two passes over the seed's entries, a batch at a time (like a CSV's rows): which facts
    it may give twice (:mod:`.repeats`), then each entry checked, its facts against the
    earlier entries and the graph; ``write`` writes each good entry, reading the file again."""
    repeats = data.repeats
    for batch in data.batches("seed", PLAN_BATCH):
        for _, triples in _checked(batch):
            for key, _ in triples:
                repeats.add("open", "\x1f".join(key))
    seen: dict[_Triple, tuple[int, int]] = {}  # (place, line) of each fact that may repeat, first
    place = 0
    for batch in data.batches("seed", PLAN_BATCH):
        planned = [(line, *triple) for line, triples in _checked(batch, rep) for triple in triples]
        open_there = kg.open_fact_ids(list({key for _, key, _ in planned})) if planned else {}
        for line, key, (s, p, o) in planned:
            place += 1
            if key in open_there:
                rep.skipped.append(
                    Problem(
                        line,
                        f"{s} {p} {o} is already an open fact ({open_there[key]}); not added again",
                    )
                )
            elif repeats.may_repeat("open", "\x1f".join(key)):
                first = seen.setdefault(key, (place, line))
                if first[0] != place:
                    rep.skipped.append(
                        Problem(line, f"{s} {p} {o} repeats line {first[1]}; not added again")
                    )
        steps.add(len(batch))

    def write() -> None:
        before = kg.stats()
        for batch in data.batches("seed", PLAN_BATCH):
            for _, (key, facts) in batch:
                if _seed_or_none(key, facts) is not None:
                    kg.seed_from_entity_facts({key: facts})
                steps.add(1)
        after = kg.stats()
        rep.entities_added = after["entities"] - before["entities"]
        rep.facts_added = after["triples"] - before["triples"]

    return write


def _seed_or_none(key: str, facts: object) -> list[_Triple] | None:
    try:
        return _seed_triples(key, facts)
    except Refused:
        return None


def _checked(
    batch: list[tuple[int, Any]], rep: ImportReport | None = None
) -> Iterator[tuple[int, list[tuple[_Triple, _Triple]]]]:
    """(line, [((subject id, predicate, object id), (subject, predicate, object)), …]) of each
    entry of ``batch`` that can be written; the others are rejected (in ``rep``, if given)."""
    for line, (key, facts) in batch:
        try:
            triples = _seed_triples(key, facts)
        except Refused as exc:
            if rep is not None:
                rep.rejected.append(Problem(line, f"{key!r}: {exc}"))
            continue
        yield (
            line,
            [((entity_id(s), predicate_id(p), entity_id(o)), (s, p, o)) for s, p, o in triples],
        )
