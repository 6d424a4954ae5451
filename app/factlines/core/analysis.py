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

from factlines.core.temporal import DAY_START_SUFFIX, is_date

KINDS = ("overlap", "handover", "duplicate_open", "inverted", "future_end")
PAIR_KINDS = ("overlap", "handover")
_OPEN = "~"  # sorts after every key: an open end


def _sweep(group: list[tuple], emit) -> None:
    """Overlapping pairs of one subject's facts of one predicate, other objects.

    ``group`` rows are ``(start, id, end, object, valid_to)`` with ``""`` for an unknown start
    and ``"~"`` for an open end, already without empty intervals. Sorted by start, each fact
    meets the facts still running at its start: those are exactly the ones it overlaps, so the
    work is the size of the answer.
    """
    group.sort()
    running: list[tuple] = []
    for fact in group:
        start = fact[0]
        if running:
            running = [r for r in running if r[2] > start]
            for other in running:
                if other[3] != fact[3]:
                    emit(other, fact)
        running.append(fact)


def is_handover(first: tuple, second: tuple) -> bool:
    """``first`` ended by date on day D and ``second`` starts at D's first second, ``first``
    having started before D and ``second`` lasting at least as long: both hold all of day D
    only because a day-only end covers its whole day (MemPalace's ``invalidate(ended=D)``
    then ``add_triple(valid_from=D)``). Rows as in :func:`_sweep`."""
    ended = first[4]
    return (
        is_date(ended)
        and second[0] == ended + DAY_START_SUFFIX
        and first[0] < second[0]
        and second[2] >= first[2]
    )


def overlapping_pairs(rows: Iterable[tuple]) -> list[dict]:
    """Conflicts among facts of single-valued predicates: ``overlap`` and ``handover`` rows.

    ``rows`` are ``(subject, predicate, start_key, end_key, id, object, valid_to)`` with None
    for an unknown start or an open end. ``a`` is the fact that starts first (on a tie, the
    smaller id), ``b`` the other; ``start``/``end`` are the overlap's keys (None: unbounded).
    """
    groups: dict[tuple[str, str], list[tuple]] = {}
    for subject, predicate, start, end, tid, obj, valid_to in rows:
        start = start or ""
        end = _OPEN if end is None else end
        if start < end:
            key = (subject, predicate)
            group = groups.get(key)
            if group is None:
                groups[key] = [(start, tid, end, obj, valid_to)]
            else:
                group.append((start, tid, end, obj, valid_to))
    found: list[dict] = []
    for (subject, predicate), group in groups.items():
        if len(group) < 2:
            continue

        def emit(first, second, subject=subject, predicate=predicate):
            end = min(first[2], second[2])
            found.append(
                {
                    "kind": "handover" if is_handover(first, second) else "overlap",
                    "subject": subject,
                    "predicate": predicate,
                    "a": first[1],
                    "b": second[1],
                    "start": second[0] or None,
                    "end": None if end == _OPEN else end,
                }
            )

        _sweep(group, emit)
    return found


def single_fact_rows(rows: Iterable[tuple], now_key: str) -> list[dict]:
    """``inverted`` and ``future_end`` rows, and ``duplicate_open`` pairs, from the engine's
    irregular facts: ``(kind, id, subject, predicate, object, start_key, end_key)``.

    An inverted fact's ``start``/``end`` are its own keys (the end before the start); a future
    end's are the fact's own keys too (``start`` None when unknown). Duplicates come in pairs
    like overlaps: ``a``/``b`` by start then id, over the span both are open.
    """
    found: list[dict] = []
    copies: dict[tuple[str, str, str], list[tuple]] = {}
    for kind, tid, subject, predicate, obj, start, end in rows:
        if kind == "duplicate_open":
            copies.setdefault((subject, predicate, obj), []).append((start or "", tid))
        elif kind == "inverted" or (kind == "future_end" and end is not None and end > now_key):
            found.append(
                {
                    "kind": kind,
                    "subject": subject,
                    "predicate": predicate,
                    "a": tid,
                    "b": None,
                    "start": start,
                    "end": end,
                }
            )
    for (subject, predicate, _obj), group in copies.items():
        group.sort()
        for i, (_, first) in enumerate(group):
            for start, second in group[i + 1 :]:
                found.append(
                    {
                        "kind": "duplicate_open",
                        "subject": subject,
                        "predicate": predicate,
                        "a": first,
                        "b": second,
                        "start": start or None,
                        "end": None,
                    }
                )
    return found


def conflict_order(row: dict) -> tuple:
    """Rows by subject, predicate, the span's start (unknown first), kind, then ids."""
    return (
        row["subject"],
        row["predicate"],
        row["start"] or "",
        KINDS.index(row["kind"]),
        row["a"],
        row["b"] or "",
    )


# ── Which predicates look single-valued ───────────────────────────────────


def suggest_single_valued(rows: Iterable[tuple], tolerance: float = 0.02) -> list[dict]:
    """Predicates whose subjects almost never hold two objects at once, with the figures.

    ``rows`` are every fact as in :func:`overlapping_pairs`. For each predicate: ``subjects``
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
        for subject, _p, _s, _e, _id, obj, _vt in facts:
            objects.setdefault(subject, set()).add(obj)
        changing = sum(1 for held in objects.values() if len(held) > 1)
        overlapping = {c["subject"] for c in overlapping_pairs(facts) if c["kind"] == "overlap"}
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
    "PAIR_KINDS",
    "conflict_order",
    "is_handover",
    "overlapping_pairs",
    "single_fact_rows",
    "suggest_single_valued",
]
