"""Analysis over facts: what cannot all hold, and which predicates look single-valued.

A predicate the user marks single-valued (``lives_in``, ``married_to``, a person's one current
project ...) allows one object per subject at any instant. Two such facts of one subject with
different objects whose windows overlap are a conflict, over the overlapping span. Windows are
compared as half-open intervals of comparison keys (:mod:`factlines.core.temporal`): an
unknown start is before every key, an open end after every key, and an interval that is empty
(an instant fact ``T..T``), inverted, or ended at an unknown time (MemPalace's ``""``) is valid
nowhere, so it overlaps nothing.

Conflict rows are ``{kind, subject, predicate, a, b, start, end}`` (see :data:`KINDS`).
"""

from __future__ import annotations

from collections.abc import Iterable

from factlines.core.temporal import DAY_END_SUFFIX, DAY_START_SUFFIX, is_date

KINDS = ("overlap", "handover", "duplicate_open", "inverted", "future_end")
_OVERLAP, _HANDOVER, _DUPLICATE = 0, 1, 2
_OPEN = "~"  # sorts after every key: an open end


def is_handover(first: tuple, second: tuple) -> bool:
    """``first`` ended by date on day D and ``second`` starts at D's first second, ``first``
    having started before D and ``second`` lasting at least as long: both hold all of day D
    only because a day-only end covers its whole day (MemPalace's ``invalidate(ended=D)``
    then ``add_triple(valid_from=D)``). Rows as :func:`overlapping_pairs` takes them."""
    ended = first[4]
    return (
        is_date(ended)
        and second[0] == ended + DAY_START_SUFFIX
        and first[0] < second[0]
        and second[2] >= first[2]
    )


def overlapping_pairs(rows: Iterable[tuple]) -> list[tuple]:
    """Conflicts among facts of single-valued predicates: ``overlap`` and ``handover``,
    and ``duplicate_open`` pairs of the same object.

    ``rows`` are ``(subject, predicate, object, id, valid_from, valid_to)``. Returns conflict
    tuples (see :func:`as_rows`, which puts them in order): ``a`` is the fact that starts
    first (on a tie, the smaller id), ``b`` the other; ``start`` and ``end`` are the
    overlap's keys. Facts valid nowhere are left out.
    """
    # One pass builds the keys and groups by (subject, predicate): sorting each small group
    # costs far less than sorting every fact by its group. A fact is (start, id, end,
    # object, valid_to), "" for an unknown start and "~" for an open end.
    groups: dict[tuple[str, str], list[tuple]] = {}
    for subject, predicate, obj, tid, valid_from, valid_to in rows:
        if not valid_from:
            start = ""
        elif len(valid_from) == 10 and valid_from[4] == "-" and valid_from[7] == "-":
            start = valid_from + DAY_START_SUFFIX
        else:
            start = valid_from
        if valid_to is None:
            end = _OPEN
        elif len(valid_to) == 10 and valid_to[4] == "-" and valid_to[7] == "-":
            end = valid_to + DAY_END_SUFFIX
        else:
            end = valid_to
        if start < end:
            key = (subject, predicate)
            group = groups.get(key)
            if group is None:
                groups[key] = [(start, tid, end, obj, valid_to)]
            else:
                group.append((start, tid, end, obj, valid_to))
    found: list[tuple] = []
    add = found.append
    # In order of (subject, predicate): the pairs come out nearly sorted, which makes
    # :func:`as_rows`'s sort of them cheap.
    for subject, predicate in sorted(groups):
        group = groups[subject, predicate]
        if len(group) < 2:
            continue
        # Sorted by start, each fact meets the facts still running at its start: those are
        # exactly the ones it overlaps, so the work is the size of the answer.
        group.sort()
        running = [group[0]]
        for fact in group[1:]:
            start, tid, end, obj = fact[0], fact[1], fact[2], fact[3]
            running = [r for r in running if r[2] > start]
            for other in running:
                if other[3] == obj:
                    if end != _OPEN or other[2] != _OPEN:
                        continue
                    kind = _DUPLICATE
                elif other[4] is not None and len(other[4]) == 10 and is_handover(other, fact):
                    kind = _HANDOVER
                else:
                    kind = _OVERLAP
                last = other[2] if other[2] < end else end
                add((subject, predicate, start, kind, other[1], tid, last))
            running.append(fact)
    return found


def single_fact_rows(rows: Iterable[tuple]) -> list[tuple]:
    """``inverted`` and ``future_end`` conflicts, and ``duplicate_open`` pairs, from the
    engine's irregular facts: ``(kind, id, subject, predicate, object, start_key, end_key)``.

    An inverted fact's ``start``/``end`` are its own keys (the end before the start); a future
    end's are the fact's own keys too (``start`` None when unknown). Duplicates come in pairs
    like overlaps: ``a``/``b`` by start then id, over the span both are open.
    """
    found: list[tuple] = []
    copies: dict[tuple[str, str, str], list[tuple]] = {}
    for kind, tid, subject, predicate, obj, start, end in rows:
        if kind == "duplicate_open":
            copies.setdefault((subject, predicate, obj), []).append((start or "", tid))
        else:
            found.append((subject, predicate, start or "", KINDS.index(kind), tid, "", end))
    for (subject, predicate, _obj), group in copies.items():
        group.sort()
        for i, (_, first) in enumerate(group):
            for start, second in group[i + 1 :]:
                found.append((subject, predicate, start, _DUPLICATE, first, second, _OPEN))
    return found


def as_rows(found: list[tuple]) -> list[dict]:
    """Conflict tuples ``(subject, predicate, start, kind, a, b, end)`` (``""`` for an unknown
    start and no ``b``, ``"~"`` for an open end) as rows ``{kind, subject, predicate, a, b,
    start, end}``, ordered by subject, predicate, start (unknown first), kind, then ids."""
    found.sort()
    return [
        {
            "kind": KINDS[kind],
            "subject": subject,
            "predicate": predicate,
            "a": a,
            "b": b or None,
            "start": start or None,
            "end": None if end == _OPEN else end,
        }
        for subject, predicate, start, kind, a, b, end in found
    ]


# ── Which predicates look single-valued ───────────────────────────────────


def suggest_single_valued(rows: Iterable[tuple], tolerance: float = 0.02) -> list[dict]:
    """Predicates whose subjects almost never hold two objects at once, with the figures.

    ``rows`` are facts as :func:`overlapping_pairs` takes them. For each predicate: ``subjects``
    (distinct subjects), ``changing`` (subjects that had two or more objects over time: the
    evidence), ``overlapping`` (subjects that held two objects at once; a date-only handover
    does not count, it is how MemPalace writes a change of object). A predicate is suggested
    when at most ``tolerance`` of its subjects overlap and at least one subject changed object
    (a predicate whose subjects each have one fact says nothing). Ordered by evidence, most
    first; ``text`` says it in words: ``works_at: 1,204 subjects, 3 overlap``.
    """
    by_predicate: dict[str, list[tuple]] = {}
    for row in rows:
        by_predicate.setdefault(row[1], []).append(row)
    suggestions = []
    for predicate, facts in by_predicate.items():
        objects: dict[str, set[str]] = {}
        for row in facts:
            objects.setdefault(row[0], set()).add(row[2])
        changing = sum(1 for held in objects.values() if len(held) > 1)
        overlapping = {c[0] for c in overlapping_pairs(facts) if c[3] == _OVERLAP}
        subjects = len(objects)
        if changing == 0 or len(overlapping) > tolerance * subjects:
            continue
        suggestions.append(
            {
                "predicate": predicate,
                "subjects": subjects,
                "changing": changing,
                "overlapping": len(overlapping),
                "text": f"{predicate}: {subjects:,} subjects, {len(overlapping):,} overlap",
            }
        )
    suggestions.sort(key=lambda s: (-s["changing"], s["overlapping"], s["predicate"]))
    return suggestions


__all__ = [
    "KINDS",
    "as_rows",
    "is_handover",
    "overlapping_pairs",
    "single_fact_rows",
    "suggest_single_valued",
]
