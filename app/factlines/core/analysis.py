"""Analysis over facts: overlaps of facts that cannot both hold.

A predicate the user marks single-valued (``lives_in``, ``married_to``, a person's one current
project ...) allows one object per subject at any instant. Two such facts of one subject with
different objects whose windows overlap are a conflict, over the overlapping span.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from factlines.core import temporal


def overlap(a: dict, b: dict) -> tuple[str | None, str | None] | None:
    """The shared span ``[start_key, end_key)`` of two facts (None = unbounded), or None."""
    starts = [temporal.start_key(f["valid_from"]) for f in (a, b) if f["valid_from"] is not None]
    ends = [temporal.end_key(f["valid_to"]) for f in (a, b) if f["valid_to"] is not None]
    start = max(starts) if starts else None
    end = min(ends) if ends else None
    if start is not None and end is not None and not start < end:
        return None
    return start, end


def find_conflicts(facts: Iterable[dict], single_valued: Iterable[str]) -> list[dict]:
    """Pairs of overlapping facts of a single-valued predicate, same subject, other objects.

    Each fact needs ``id``, ``subject``, ``predicate``, ``object``, ``valid_from``,
    ``valid_to``. Returns dicts ``{predicate, subject, a, b, start, end}`` (ids of the two facts,
    the overlap's keys), ordered by subject, predicate and start.
    """
    marked = set(single_valued)
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for fact in facts:
        if fact["predicate"] in marked:
            groups[(fact["subject"], fact["predicate"])].append(fact)
    conflicts = []
    for (subject, predicate), group in groups.items():
        group.sort(key=lambda f: (temporal.start_key(f["valid_from"]) or "", f["id"]))
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if a["object"] == b["object"]:
                    continue
                span = overlap(a, b)
                if span is not None:
                    conflicts.append(
                        {
                            "predicate": predicate,
                            "subject": subject,
                            "a": a["id"],
                            "b": b["id"],
                            "start": span[0],
                            "end": span[1],
                        }
                    )
    conflicts.sort(key=lambda c: (c["subject"], c["predicate"], c["start"] or "", c["a"]))
    return conflicts
