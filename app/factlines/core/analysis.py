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

from collections import defaultdict
from collections.abc import Iterable

from factlines.core.temporal import DAY_END_SUFFIX, DAY_START_SUFFIX

KINDS = ("overlap", "handover", "duplicate_open", "inverted", "future_end")
_OVERLAP, _HANDOVER, _DUPLICATE = 0, 1, 2
_OPEN = "~"  # sorts after every key: an open end


def overlapping_pairs(rows: Iterable[tuple]) -> list[tuple]:
    """Conflicts among facts of single-valued predicates: ``overlap`` and ``handover``,
    and ``duplicate_open`` pairs of the same object.

    ``rows`` are ``(subject, predicate, object, id, valid_from, valid_to)``. Returns conflict
    tuples (see :func:`as_rows`), in order: ``a`` is the fact that starts
    first (on a tie, the smaller id), ``b`` the other; ``start`` and ``end`` are the
    overlap's keys. Facts valid nowhere are left out.

    A pair is a ``handover`` when it overlaps only because a day-only end covers its whole
    day: ``a`` ended by date on day D having started before it, ``b`` starts at D's first
    second and lasts at least as long (MemPalace's ``invalidate(ended=D)`` then
    ``add_triple(valid_from=D)``).
    """
    # One pass builds the keys and groups by subject: sorting each small group costs far
    # less than sorting every fact. A fact is (predicate, start, id, end, object, handover),
    # "" for an unknown start, "~" for an open end, and for a day-only end D the start key a
    # successor taking over on D has (else None).
    groups: defaultdict[str, list[tuple]] = defaultdict(list)
    for subject, predicate, obj, tid, valid_from, valid_to in rows:
        if not valid_from:
            start = ""
        elif len(valid_from) == 10 and valid_from[4] == "-" and valid_from[7] == "-":
            start = valid_from + DAY_START_SUFFIX
        else:
            start = valid_from
        handover = None
        if valid_to is None:
            end = _OPEN
        elif len(valid_to) == 10 and valid_to[4] == "-" and valid_to[7] == "-":
            end = valid_to + DAY_END_SUFFIX
            handover = valid_to + DAY_START_SUFFIX
        else:
            end = valid_to
        if start < end:
            groups[subject].append((predicate, start, tid, end, obj, handover))
    found: list[tuple] = []
    for subject in sorted([subject for subject, group in groups.items() if len(group) > 1]):
        group = groups[subject]
        # By predicate, then start: a fact overlaps the later facts of its predicate that
        # start before it ends, and no fact after the first that does not, so the work is
        # the size of the answer.
        group.sort()
        pairs: list[tuple] = []
        add = pairs.append
        last = len(group)
        for i in range(last - 1):
            predicate, a_start, a_id, a_end, a_obj, a_handover = group[i]
            for j in range(i + 1, last):
                b = group[j]
                start = b[1]
                if start >= a_end or b[0] != predicate:
                    break
                end = b[3]
                if b[4] == a_obj:
                    if end != _OPEN or a_end != _OPEN:
                        continue
                    kind = _DUPLICATE
                elif a_handover == start and a_start < start and end >= a_end:
                    kind = _HANDOVER
                else:
                    kind = _OVERLAP
                add((subject, predicate, start, kind, a_id, b[2], a_end if a_end < end else end))
        # Each subject's few pairs put in order here leave the whole list in order, so
        # sorting it with other conflicts is a merge.
        if len(pairs) > 1:
            pairs.sort()
        found += pairs
    return found


def single_fact_rows(rows: Iterable[tuple]) -> list[tuple]:
    """``inverted`` and ``future_end`` conflicts, and ``duplicate_open`` pairs, from the
    engine's irregular facts: ``(kind, id, subject, predicate, object, start_key, end_key)``.

    An inverted fact's ``start``/``end`` are its own keys (the end before the start); a future
    end's are the fact's own keys too (``start`` None when unknown). Duplicates come in pairs
    like overlaps: ``a``/``b`` by start then id, over the span both are open. In order, like
    :func:`overlapping_pairs`'s.
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
    found.sort()
    return found


def as_rows(found: list[tuple], more: list[tuple] = ()) -> list[dict]:
    """Conflict tuples ``(subject, predicate, start, kind, a, b, end)`` (``""`` for an unknown
    start and no ``b``, ``"~"`` for an open end) as rows ``{kind, subject, predicate, a, b,
    start, end}``, ordered by subject, predicate, start (unknown first), kind, then ids.

    ``found`` and ``more`` are each in that order already (as :func:`overlapping_pairs` and
    :func:`single_fact_rows` give theirs): they are merged, at half the cost of a sort."""
    if more:
        merged: list[tuple] = []
        add = merged.append
        at, last = 0, len(more)
        for item in found:
            while at < last and more[at] < item:
                add(more[at])
                at += 1
            add(item)
        found = merged + more[at:]
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
    "overlapping_pairs",
    "single_fact_rows",
    "suggest_single_valued",
]
