"""Where the history is dense: the validity histogram's bins, counted from the store's counts
of keys, or brought up to date with a write's old and new times without reading the graph.

At a million facts the store's counts take 165–350 ms of a worker; a write of a few facts
moves a few counts. :func:`patched` moves them, and says when it cannot do so exactly (a time
the rules do not accept, a key at or past the span's ends, which would move the edges): the
histogram is then counted again.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeAlias, cast

from factlines.core import temporal

# A fact's stored (valid_from, valid_to), or None: no such fact.
Times: TypeAlias = tuple[Any, Any] | None
# The store's counts at sorted keys (``HistoryStore.time_counts``).
Counts: TypeAlias = tuple[list[int], list[int], int, list[tuple[Any, ...]]]
NO_HISTOGRAM: dict[str, list[Any]] = {"edges": [], "valid": [], "starts": [], "ends": []}


@dataclass(frozen=True)
class Bins:
    """``bins`` equal bins over a span of keys: the keys the counts are asked at."""

    first: int  # POSIX seconds of the span's first key
    width: int  # seconds from it to one second past the span's last key
    before: list[str]  # the last key before each edge (bins + 1)
    middles: list[str]  # each bin's middle, as a key

    @classmethod
    @lru_cache(maxsize=8)
    def over(cls, span: tuple[str, str], bins: int) -> Bins:
        """Made once for a span and a number of bins: 2 ms for 500 bins, what a patch of a
        few facts takes else. Kept (8) for the workers' counts and the window's patches."""
        first_posix, last_posix = temporal.to_posix(span[0]), temporal.to_posix(span[1])
        assert first_posix is not None and last_posix is not None  # the span's are real instants
        first = int(first_posix)
        width = int(last_posix) + 1 - first
        # Exact arithmetic: edge i is first + i * width / bins.
        seconds = [first - (-i * width // bins) for i in range(bins + 1)]  # ceil: first key in
        return cls(
            first,
            width,
            [temporal.before_posix(s) for s in seconds],
            [temporal.from_posix(first + (2 * i + 1) * width // (2 * bins)) for i in range(bins)],
        )

    @property
    def count(self) -> int:
        return len(self.middles)

    def edges(self) -> list[float]:
        bins = self.count
        return [self.first + i * self.width / bins for i in range(bins + 1)]


def counted(
    span: tuple[str, str] | None, bins: int, counts_at: Callable[[list[str]], Counts]
) -> dict[str, list[Any]]:
    """``KnowledgeGraph.validity_histogram(bins)`` over ``span`` (``time_span()``), from the
    store's ``counts_at(keys)``."""
    if span is None:
        return {key: list[Any]() for key in NO_HISTOGRAM}
    over = Bins.over(span, bins)
    keys = sorted(set(over.before) | set(over.middles))
    starts, ends, unknown, nowhere = counts_at(keys)
    at = {key: (s, e) for key, s, e in zip(keys, starts, ends)}
    # Facts valid nowhere (end key before start key) count +1 at their start and -1 at
    # their end like any other; between the two that leaves -1, put back here.
    nowhere_starts = sorted(s for s, _ in nowhere)
    nowhere_ends = sorted(e for _, e in nowhere)

    def valid(key: str) -> int:
        s, e = at[key]
        fix = bisect_right(nowhere_ends, key) - bisect_right(nowhere_starts, key)
        return unknown + s - e + fix

    before = over.before
    return {
        "edges": over.edges(),
        "valid": [valid(key) for key in over.middles],
        "starts": [at[before[i + 1]][0] - at[before[i]][0] for i in range(bins)],
        "ends": [at[before[i + 1]][1] - at[before[i]][1] for i in range(bins)],
    }


def patched(
    histogram: dict[str, list[Any]], changes: Iterable[tuple[Times, Times]]
) -> dict[str, list[Any]] | None:
    """``histogram`` (:func:`counted`) after a write that changed facts' times ``(before,
    after)``; None when that cannot be known without counting again: a time the rules
    do not accept or not in the form they store it, a key past the span, or one at its ends
    fewer facts hold now (either would move the edges)."""
    if not histogram["valid"]:
        return None  # no fact was dated: the first one makes the span
    keys: Counter[str] = Counter()
    moves: list[tuple[int, str | None, str | None]] = []
    for before, after in changes:
        for sign, times in ((-1, before), (1, after)):
            if times is None:
                continue
            if not all(t is None or _plain(t) for t in times):
                return None
            valid_from, valid_to = cast(tuple[str | None, str | None], times)
            start, end = temporal.start_key(valid_from), temporal.end_key(valid_to)
            for key in (start, end):
                if key is not None:
                    keys[key] += sign
            moves.append((sign, start, end))
    # The span's keys are whole seconds: its first edge, and a second before its last.
    edges = histogram["edges"]
    span = first, last = temporal.from_posix(edges[0]), temporal.from_posix(edges[-1] - 1)
    for key, net in keys.items():
        if not first <= key <= last or (net < 0 and key in (first, last)):
            return None
    over = Bins.over(span, len(histogram["valid"]))
    found = {name: list(histogram[name]) for name in ("valid", "starts", "ends")}
    for sign, start, end in moves:
        for name, key in (("starts", start), ("ends", end)):
            if key is not None:  # in the bin whose edges' keys are below it, then at or above
                found[name][bisect_left(over.before, key) - 1] += sign
        if start is not None and end is not None and end < start:
            continue  # valid nowhere
        low = 0 if start is None else bisect_left(over.middles, start)
        high = len(over.middles) if end is None else bisect_left(over.middles, end)
        valid = found["valid"]
        for i in range(low, high):
            valid[i] += sign
    return {"edges": list(edges), **found}


def _plain(value: object) -> bool:
    """A day or a UTC instant the rules accept, stored as they write it (``Z``, not
    ``+00:00``): its key compares as the store's queries compare it."""
    return temporal.is_accepted(value) and temporal.parse(value, "time") == value
