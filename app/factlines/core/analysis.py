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
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from datetime import date
from itertools import pairwise
from operator import itemgetter
from typing import Any

from factlines.core.temporal import DAY_END_SUFFIX, DAY_START_SUFFIX
from factlines.core.turns import let_go_each

KINDS = ("overlap", "handover", "duplicate_open", "inverted", "future_end")
_OVERLAP, _HANDOVER, _DUPLICATE = 0, 1, 2
_OPEN = "~"  # sorts after every key: an open end

# A fact keyed by _by_subject: (predicate, start, id, end, object, handover).
_Keyed = tuple[str, str, Any, str, Any, str | None]


def overlapping_pairs(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
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
    groups = _by_subject(rows)
    found = _ordered_pairs(groups)
    let_go_each(groups)
    return found


def _ordered_pairs(groups: dict[str, list[_Keyed]]) -> list[tuple[Any, ...]]:
    """:func:`overlapping_pairs` of facts already grouped by :func:`_by_subject`."""
    found: list[tuple[Any, ...]] = []
    for subject in sorted([subject for subject, group in groups.items() if len(group) > 1]):
        pairs = list(_subject_pairs(subject, groups[subject]))
        # Each subject's few pairs put in order here leave the whole list in order, so
        # sorting it with other conflicts is a merge.
        if len(pairs) > 1:
            pairs.sort()
        found += pairs
    return found


def _by_subject(rows: Iterable[tuple[Any, ...]]) -> defaultdict[str, list[_Keyed]]:
    """The facts valid somewhere, keyed for :func:`_subject_pairs` and grouped by subject."""
    # One pass builds the keys and groups by subject: sorting each small group costs far
    # less than sorting every fact. A fact is (predicate, start, id, end, object, handover),
    # "" for an unknown start, "~" for an open end, and for a day-only end D the start key a
    # successor taking over on D has (else None).
    groups: defaultdict[str, list[_Keyed]] = defaultdict(list)
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
    return groups


def _subject_pairs(subject: str, group: list[_Keyed]) -> Iterator[tuple[Any, ...]]:
    """One subject's overlaps, handovers and open duplicates as conflict tuples, unordered.

    By predicate, then start: a fact overlaps the later facts of its predicate that start
    before it ends, and no fact after the first that does not, so the work is the size of
    the answer."""
    group.sort()
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
            yield (subject, predicate, start, kind, a_id, b[2], a_end if a_end < end else end)


def single_fact_rows(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``inverted`` and ``future_end`` conflicts, and ``duplicate_open`` pairs, from the
    engine's irregular facts: ``(kind, id, subject, predicate, object, start_key, end_key)``.

    An inverted fact's ``start``/``end`` are its own keys (the end before the start); a future
    end's are the fact's own keys too (``start`` None when unknown). Duplicates come in pairs
    like overlaps: ``a``/``b`` by start then id, over the span both are open. In order, like
    :func:`overlapping_pairs`'s.
    """
    found: list[tuple[Any, ...]] = []
    copies: dict[tuple[str, str, str], list[tuple[Any, ...]]] = {}
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


def as_rows(
    found: list[tuple[Any, ...]], more: Sequence[tuple[Any, ...]] = ()
) -> list[dict[str, Any]]:
    """Conflict tuples ``(subject, predicate, start, kind, a, b, end)`` (``""`` for an unknown
    start and no ``b``, ``"~"`` for an open end) as rows ``{kind, subject, predicate, a, b,
    start, end}``, ordered by subject, predicate, start (unknown first), kind, then ids.

    ``found`` and ``more`` are each in that order already (as :func:`overlapping_pairs` and
    :func:`single_fact_rows` give theirs): they are merged, at half the cost of a sort."""
    if more:
        merged: list[tuple[Any, ...]] = []
        add = merged.append
        at, last = 0, len(more)
        for item in found:
            while at < last and more[at] < item:
                add(more[at])
                at += 1
            add(item)
        merged += more[at:]
        found = merged
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


# A suggestion needs this many subjects that changed object: fewer say nothing either way.
SUGGEST_CHANGING = 3
# Of those, the share that never held two objects at once: enough alone ...
SUGGEST_ONE_AT_A_TIME = 0.8
# ... or, when most changes follow on (the next object from within a month of the last one's
# end, as a move or a new job does), this much: a predicate full of mistakes (two employers
# at once) is the one a person most needs to see.
SUGGEST_FOLLOWING_ON = 0.5
FOLLOW_ON_DAYS = 31
# At most this share of its facts with both dates may last under FOLLOW_ON_DAYS: a meeting, a
# visit. Such events rarely overlap, which says nothing about a state held one at a time.
SUGGEST_BRIEF = 0.5


class _Days(dict[str, int | None]):
    """Day numbers of stored values (a day or an instant: its first ten characters), None for
    anything else; each day parsed once (a graph has few days and many facts)."""

    def __missing__(self, day: str) -> int | None:
        try:
            number = date.fromisoformat(day).toordinal() if len(day) == 10 else None
        except ValueError:
            number = None
        self[day] = number
        return number


def predicate_figures(
    rows: Iterable[tuple[Any, ...]],
    pairs_for: Callable[[dict[str, Any]], bool] = lambda _figure: True,
) -> dict[str, dict[str, Any]]:
    """What each predicate's facts say about holding one object at a time.

    ``rows`` are facts as :func:`overlapping_pairs` takes them. By predicate: ``subjects``
    (distinct subjects), ``changing`` (subjects with two or more objects over time: the
    evidence), ``overlapping`` (subjects that held two objects at once; a date-only handover
    does not count, it is how MemPalace writes a change of object), ``changes`` (a subject's
    fact ended, its next one of another object started that day or later) and ``following``
    (of those, the next started within :data:`FOLLOW_ON_DAYS`), ``closed`` and ``brief``
    (facts with both dates; of those, the ones lasting under :data:`FOLLOW_ON_DAYS`), and,
    where ``pairs_for(figure)`` says so, ``pairs``: the overlaps and handovers, as
    :func:`overlapping_pairs` gives them (else empty).
    """
    days = _Days()
    by_predicate: defaultdict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for row in rows:
        by_predicate[row[1]].append(row)
    figures: dict[str, dict[str, Any]] = {}
    for predicate, facts in by_predicate.items():
        figure, groups = _figures_and_groups(facts, days)
        figures[predicate] = figure
        if pairs_for(figure):
            figure["pairs"] = [pair for pair in _ordered_pairs(groups) if pair[3] != _DUPLICATE]
        let_go_each(groups)
    return figures


def _figures_and_groups(
    facts: list[tuple[Any, ...]], days: _Days
) -> tuple[dict[str, Any], dict[str, list[_Keyed]]]:
    """The figures of facts holding whole subjects, and the facts grouped by subject."""
    # Each predicate's overlaps on their own: smaller groups, sorted faster. Whether a subject
    # overlapped needs only its first overlap: a hub holding thousands of objects at once has
    # millions of pairs, listed only when they would be shown.
    figure = _figures(facts, days)
    groups = _by_subject(facts)
    figure["overlapping"] = sum(
        1
        for subject, group in groups.items()
        if len(group) > 1 and any(pair[3] == _OVERLAP for pair in _subject_pairs(subject, group))
    )
    return figure, groups


def _figure_in_parts(parts: Iterable[list[tuple[Any, ...]]]) -> dict[str, Any] | None:
    """One predicate's figures (:func:`predicate_figures`, without pairs) from its facts in
    parts that each hold whole subjects (every figure is a sum over subjects); None when it
    has none."""
    days, total = _Days(), None
    for facts in parts:
        figure, groups = _figures_and_groups(facts, days)
        let_go_each(groups)
        if total is None:
            total = figure
        else:
            for name in (*_COUNTED, "overlapping"):
                total[name] += figure[name]
    return total


# A predicate's figures counted over its facts (``overlapping`` is counted apart).
_COUNTED = ("subjects", "changing", "changes", "following", "closed", "brief")


def _figures(facts: list[tuple[Any, ...]], days: _Days) -> dict[str, Any]:
    """One predicate's figures but its overlaps (see :func:`predicate_figures`)."""
    figure: dict[str, Any] = dict.fromkeys(_COUNTED, 0)
    figure["pairs"] = []
    held: defaultdict[str, list[tuple[str, str | None, Any]]] = defaultdict(list)
    for subject, _predicate, obj, _tid, valid_from, valid_to in facts:
        held[subject].append((valid_from or "", valid_to, obj))
        if valid_from and valid_to:
            start, end = days[valid_from[:10]], days[valid_to[:10]]
            if start is not None and end is not None:
                figure["closed"] += 1
                figure["brief"] += end - start < FOLLOW_ON_DAYS
    figure["subjects"] = len(held)
    for mine in held.values():
        if len(mine) < 2 or len({fact[2] for fact in mine}) < 2:
            continue
        figure["changing"] += 1
        mine.sort(key=itemgetter(0))
        for (_, valid_to, obj), (valid_from, _, other) in pairwise(mine):
            # A change: the next fact (of another object) starts on or after the end's day.
            if obj == other or not valid_to or valid_from[:10] < valid_to[:10]:
                continue
            end, start = days[valid_to[:10]], days[valid_from[:10]]
            if end is not None and start is not None:
                figure["changes"] += 1
                figure["following"] += start - end <= FOLLOW_ON_DAYS
    let_go_each(held)
    return figure


def _looks_single_valued(figure: dict[str, Any]) -> bool:
    changing = figure["changing"]
    if changing < SUGGEST_CHANGING or figure["brief"] > SUGGEST_BRIEF * figure["closed"]:
        return False
    one_at_a_time = (changing - figure["overlapping"]) / changing
    if one_at_a_time >= SUGGEST_ONE_AT_A_TIME:
        return True
    changes = figure["changes"]
    return (
        one_at_a_time >= SUGGEST_FOLLOWING_ON
        and changes >= SUGGEST_CHANGING
        and figure["following"] >= SUGGEST_FOLLOWING_ON * changes
    )


def suggest_single_valued(
    predicate: str, parts: Callable[[], Generator[list[tuple[Any, ...]], None, None]]
) -> dict[str, Any] | None:
    """The suggestion to mark ``predicate`` single-valued when its subjects hold one object at
    a time, with the figures that say so; else None.

    ``parts()`` gives the predicate's facts (as :func:`overlapping_pairs` takes them) in
    parts that each hold whole subjects, in subject order: a million facts are never held at
    once. The figures come first; only a predicate suggested is read again for its pairs.

    From :func:`predicate_figures`: at least :data:`SUGGEST_CHANGING` subjects changed object
    and at most :data:`SUGGEST_BRIEF` of the facts with both dates are brief; then either at
    least :data:`SUGGEST_ONE_AT_A_TIME` of the subjects that changed never held two at once,
    or at least :data:`SUGGEST_FOLLOWING_ON` of them did not and as much of the changes
    follow on. The suggestion has the figures (``pairs`` as :func:`as_rows` rows, ``overlaps``
    how many of them are overlaps) and ``text`` saying it in words: ``works_at: 92% of 120
    subjects hold one at a time; 41 of 45 changes follow on within a month; 14 overlaps``.
    """
    with closing(parts()) as read:  # the read ends here, even when the figures fail
        figure = _figure_in_parts(read)
    if figure is None or not _looks_single_valued(figure):
        return None
    with closing(parts()) as read:
        # In subject order part after part, each part's pairs in order: the list in order.
        pairs = [
            pair for facts in read for pair in overlapping_pairs(facts) if pair[3] != _DUPLICATE
        ]
    subjects, overlapping = figure["subjects"], figure["overlapping"]
    overlaps = sum(1 for pair in pairs if pair[3] == _OVERLAP)
    following = (
        f"{figure['following']:,} of {plural(figure['changes'], 'change')} follow on "
        "within a month; "
        if figure["changes"]
        else ""
    )
    return {
        "predicate": predicate,
        "subjects": subjects,
        "changing": figure["changing"],
        "overlapping": overlapping,
        "changes": figure["changes"],
        "following": figure["following"],
        "overlaps": overlaps,
        "pairs": as_rows(pairs),
        "text": (
            f"{predicate}: {_percent((subjects - overlapping) / subjects)} of "
            f"{subjects:,} subjects hold one at a time; {following}"
            f"{plural(overlaps, 'overlap')}"
        ),
    }


def by_evidence(suggestion: dict[str, Any]) -> tuple[int, int, str]:
    """The order of :func:`suggest_single_valued`'s suggestions: most evidence first."""
    return (-suggestion["changing"], suggestion["overlapping"], suggestion["predicate"])


def plural(n: int, word: str) -> str:
    """``1 overlap``, ``1,204 overlaps``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _percent(share: float) -> str:
    """A share in whole percent, never rounded up to 100% nor down to 0%."""
    percent = round(share * 100)
    if percent == 100 and share < 1:
        return "99%"
    if percent == 0 and share > 0:
        return "1%"
    return f"{percent}%"


__all__ = [
    "KINDS",
    "as_rows",
    "by_evidence",
    "overlapping_pairs",
    "plural",
    "predicate_figures",
    "single_fact_rows",
    "suggest_single_valued",
]
