"""The Gantt chart's model, as arrays: lanes, bars, validity at ``as_of``, picking and snapping.

Nothing here draws or needs a window (the one Qt import is the shared palette's, in
:mod:`factlines.ui.look.style`), so that lane assignment, picking and the time arithmetic are tested
on arrays alone.
The chart paints from exactly these arrays, and ``drawn_intervals`` reads them back.

Rows run top to bottom: each predicate group has a header row (its label) followed by one row
per relationship (predicate + direction + other entity). Several facts of one relationship share
its row: a fact ended and later re-opened is two bars on one lane.

Time is POSIX seconds (UTC). A bar spans ``[start, end)``: ``start`` is the start key of
``valid_from`` (``-inf`` when unknown), ``end`` the end key of ``valid_to`` (``+inf`` when
open), so a date-only end covers its whole last day, as the store's validity rule says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from factlines.core import temporal
from factlines.core.store.intervals import (
    OUTGOING_FLAGS,
    InOrder,
    IntervalTable,
    MadeWhenAsked,
    column_reader,
)
from factlines.ui.chart.look import LABELS_MEASURED
from factlines.ui.look.style import (
    elide,
    id_ranks,
    is_odd_time,
    odd_times,
    order_ranks,
    palette_index,
    predicate_color_name,
    stored_text,
    tie_order,
)
from factlines.ui.session.entity_facts import time_bounds
from factlines.ui.session.entity_facts import valid_mask as valid_mask_of

DAY = 86400.0
YEAR = 365.2425 * DAY

# The time axis's bounds, and the shortest time range it shows (ten minutes).
X_MIN = temporal.to_posix("1800-01-01")
X_MAX = temporal.to_posix("2200-01-01")
MIN_SPAN = 600.0

CONFIDENCE_LEVELS = 4  # confidence is drawn in 5 opacity steps (0, .25, .5, .75, 1)
ODD_START, ODD_END = 1, 2  # a side whose stored value the time rules do not accept

OUTGOING = "outgoing"
INCOMING = "incoming"


@dataclass(slots=True)  # one per lane: a hub has 20,000
class Lane:
    row: int
    predicate: str
    direction: str
    other: str
    other_name: str

    @property
    def label(self) -> str:
        """The readable label: ``works_on → Orion``, ``mentors ← Mira Chen`` (incoming); a huge
        predicate or name elided (laying out a megabyte of text takes seconds)."""
        return f"{elide(self.predicate)} {self.arrow} {elide(self.other_name)}"

    @property
    def arrow(self) -> str:
        return "→" if self.direction == OUTGOING else "←"

    @property
    def short(self) -> str:
        """What the lane axis shows under its group header."""
        return f"{self.arrow} {elide(self.other_name)}"


class Lanes(MadeWhenAsked[Lane]):
    """The lanes top to bottom, as arrays (a hub has 20,000): a :class:`Lane` made when one is
    asked for (the rows in view, a tooltip). Lane ``k`` from the top is lane ``order[k]`` of
    the lists (nothing is put in order but ``rows``)."""

    def __init__(
        self,
        rows: np.ndarray,
        order: np.ndarray,
        groups: list[str],
        group: np.ndarray,
        incoming: np.ndarray,
        others: list[str],
        names: list[str],
        lengths: np.ndarray,
    ):
        self._rows, self._order, self._groups, self._group = rows, order, groups, group
        self._incoming, self._others, self._names = incoming, others, names
        self._lengths = lengths  # of the names: the longest are picked by them

    def __len__(self) -> int:
        return len(self._others)

    def _item(self, k: int) -> Lane:
        i = int(self._order[k])
        return Lane(
            int(self._rows[k]),
            self._groups[self._group[i]],
            INCOMING if self._incoming[i] else OUTGOING,
            self._others[i],
            self._names[i],
        )

    def longest(self, count: int) -> list[Lane]:
        """The ``count`` lanes with the longest other entity's names (the lane axis measures
        these: a lane's label is its arrow, a space and that name)."""
        widest = np.argsort(-self._lengths[self._order], kind="stable")[:count]
        return [self._item(k) for k in widest.tolist()]


@dataclass
class Header:
    row: int
    predicate: str
    color: str
    lanes: int

    @property
    def label(self) -> str:
        """What the lane axis shows on the group's row: ``works_on  (12)``."""
        return f"{elide(self.predicate)}  ({self.lanes})"


@dataclass
class Layout:
    facts: Sequence[dict]  # in bar order
    ids: list[str]
    source: np.ndarray  # int64: each bar's position in the facts the layout was built from
    start: np.ndarray  # float64, -inf for an unknown start
    end: np.ndarray  # float64, +inf for an open end
    row: np.ndarray  # int32: the bar's row (y)
    lane: np.ndarray  # int32: index into ``lanes``
    color: np.ndarray  # int32: palette index
    conf_level: np.ndarray  # int32: 0..CONFIDENCE_LEVELS
    lanes: Sequence[Lane]
    headers: list[Header]
    n_rows: int
    # Conflicts, one span per lane concerned: row, start, end (±inf when unbounded), pair ids
    conflict_row: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    conflict_start: np.ndarray = field(default_factory=lambda: np.zeros(0))
    conflict_end: np.ndarray = field(default_factory=lambda: np.zeros(0))
    conflicts: list[dict] = field(default_factory=list)
    row_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # 0 header, 1 lane
    row_lane: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # -1 on headers
    # int8 per bar: ODD_START | ODD_END where a side's stored value is not one the rules accept
    odd: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    # The lanes with the longest labels, the widest among them: the lane axis measures these.
    longest: list[Lane] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.ids)

    @cached_property
    def _positions(self) -> dict[str, int]:
        """Each bar's index by fact id: made the first time a bar is looked up by id."""
        return {tid: i for i, tid in enumerate(self.ids)}

    def index_of(self, triple_id: str | None) -> int:
        if triple_id is None:
            return -1
        return self._positions.get(triple_id, -1)

    def in_days(self, i: int, field: str) -> bool:
        """Whether bar ``i``'s ``valid_from`` or ``valid_to`` is a calendar day, not an instant.

        Asked of one bar at a time (a drag, a tooltip): not worth an array built on every
        selection."""
        return temporal.is_date(self.facts[i].get(field))

    def lane_label(self, i: int) -> str:
        return self.lanes[int(self.lane[i])].label

    def row_label(self, row: int) -> str | None:
        if not 0 <= row < self.n_rows:
            return None
        if self.row_kind[row] == 0:
            return elide(next(h.predicate for h in self.headers if h.row == row))
        return self.lanes[int(self.row_lane[row])].label

    def finite_span(self) -> tuple[float, float] | None:
        """The earliest and latest finite instants of any bar, or None when nothing is dated."""
        values = np.concatenate(
            [self.start[np.isfinite(self.start)], self.end[np.isfinite(self.end)]]
        )
        if values.size == 0:
            return None
        return float(values.min()), float(values.max())


def empty_layout() -> Layout:
    return build_layout([])


def build_layout(
    facts: Sequence[dict],
    conflicts: list[dict] | tuple = (),
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> Layout:
    """Assign lanes and rows to ``facts`` (rows of ``KnowledgeGraph.intervals``, or its
    ``IntervalTable``); ``bounds`` are their time arrays when the caller has them (the
    state keeps them per selection).

    Groups are predicates in alphabetical order (stable while scrubbing and between entities);
    inside a group outgoing lanes come before incoming ones, each ordered by its earliest
    start (unknown first), then by the other entity's name. Bars on a lane are ordered by start.
    """
    # Column-wise: each sort key made once per distinct value, the lanes grouped and ordered
    # by numpy (a hub has 20,000 facts: nothing here runs per fact in Python but reading the
    # columns, which a table read for the window has made once for every view).
    column = column_reader(facts)
    start_keys, end_keys = bounds if bounds is not None else time_bounds(facts)
    n = len(facts)
    incoming = _incoming(facts)
    others = column("other")
    predicates = column("predicate")
    # Text in its own order (a BLOB predicate, from raw SQL, after all text).
    groups = sorted(
        dict.fromkeys(predicates), key=lambda p: (not isinstance(p, str), stored_text(p))
    )
    group_of = {predicate: g for g, predicate in enumerate(groups)}
    group = np.fromiter(map(group_of.__getitem__, predicates), dtype=np.int64, count=n)
    # A lane is a relationship: predicate, direction, other entity; the other entity coded by
    # its first row (a dict made in C: from the last row back, the first one written last).
    first_of = dict(zip(reversed(others), range(n - 1, -1, -1)))
    codes = np.fromiter(map(first_of.__getitem__, others), dtype=np.int64, count=n)
    side = group * 2 + incoming  # predicate, then direction: one sort key for both
    lane_key = side * max(n, 1) + codes
    _keys, first_row, bar_lane = np.unique(lane_key, return_index=True, return_inverse=True)
    bar_lane = bar_lane.reshape(-1)
    n_lanes = len(first_row)
    # Bars by lane, then start and end (stable: equal bars keep the rows' order): the bars by
    # start and end sorted once, then by lane (and below, by lane position) keeping that order.
    by_time = np.lexsort((end_keys, start_keys))
    by_lane = by_time[np.argsort(bar_lane[by_time], kind="stable")]
    counts = np.bincount(bar_lane, minlength=n_lanes)
    first_start = start_keys[by_lane[np.cumsum(counts) - counts]] if n else start_keys
    first = first_row.tolist()
    other_names = column("other_name")
    names = [other_names[i] or "?" for i in first]
    # Their lengths read now, while the names are at hand: 20,000 names scattered in memory,
    # read again later, cost ~2 ms more.
    name_lengths = np.fromiter(map(len, names), dtype=np.int64, count=len(names))
    lane_others = [others[i] for i in first]
    # Inside a group outgoing lanes first, each by its earliest start, the other's name, id:
    # names and ids ranked only where the lanes tie before them.
    lane_order = tie_order(
        [side[first_row], first_start], (names, order_ranks), (lane_others, id_ranks)
    )
    lane_group = group[first_row]
    position = np.empty(n_lanes, dtype=np.int64)
    position[lane_order] = np.arange(n_lanes)
    lane_row = np.arange(n_lanes) + lane_group[lane_order] + 1  # a header above each group
    per_group = np.bincount(lane_group, minlength=len(groups))
    header_row = np.cumsum(per_group) - per_group + np.arange(len(groups))
    headers = [
        Header(int(row), predicate, predicate_color_name(predicate), int(lanes))
        for predicate, row, lanes in zip(groups, header_row, per_group)
    ]
    lanes = Lanes(
        lane_row,
        lane_order,
        groups,
        lane_group,
        incoming[first_row],
        lane_others,
        names,
        name_lengths,
    )
    n_rows = n_lanes + len(groups)
    row_kind = np.zeros(n_rows, np.int8)
    row_kind[lane_row] = 1
    row_lane = np.full(n_rows, -1, np.int32)
    row_lane[lane_row] = np.arange(n_lanes)

    # Store the bars in lane order: neighbours in the arrays are neighbours on screen.
    idx = by_time[np.argsort(position[bar_lane[by_time]], kind="stable")]
    order = idx.tolist()
    lane = position[bar_lane[idx]]
    colors = np.asarray([palette_index(predicate) for predicate in groups], dtype=np.int32)
    ids, confidences = column("id"), column("confidence")
    odd = _odd_column(facts, "valid_from", ODD_START) | _odd_column(facts, "valid_to", ODD_END)
    layout = Layout(
        facts=InOrder(facts, idx),
        ids=[ids[i] for i in order],
        source=idx.astype(np.int64),
        start=start_keys[idx],
        end=end_keys[idx],
        row=lane_row[lane].astype(np.int32),
        lane=lane.astype(np.int32),
        color=colors[group[idx]],
        conf_level=_confidence_levels(confidences)[idx],
        lanes=lanes,
        headers=headers,
        n_rows=n_rows,
        row_kind=row_kind,
        row_lane=row_lane,
        odd=odd[idx],
        longest=lanes.longest(LABELS_MEASURED),
    )
    _place_conflicts(layout, conflicts)
    return layout


def _incoming(facts: Sequence[dict]) -> np.ndarray:
    """Whether each fact is incoming (bool): a table's from the flags its direction is made
    of, so that no column of 20,000 direction words is made and compared."""
    if isinstance(facts, IntervalTable):
        return ~np.fromiter(facts.column(OUTGOING_FLAGS), dtype=bool, count=len(facts))
    if not facts:
        return np.zeros(0, bool)
    return np.array([fact["direction"] for fact in facts], dtype=object) != OUTGOING


def _odd_column(facts: Sequence[dict], name: str, side: int) -> np.ndarray:
    """``side`` for each stored time value of field ``name`` the rules do not accept (int8),
    each distinct value tested once (a hub's dates repeat; a table has them from its bounds)."""
    values = column_reader(facts)(name)
    distinct = facts.distinct(name) if isinstance(facts, IntervalTable) else dict.fromkeys(values)
    odd = odd_times(distinct)
    if not odd:  # as nearly always: no pass over the rows
        return np.zeros(len(values), dtype=np.int8)
    return np.fromiter((side if v in odd else 0 for v in values), dtype=np.int8, count=len(values))


_PLAIN_CONFIDENCES = {float, int, type(None)}


def _confidence_levels(values: list) -> np.ndarray:
    """Each confidence as an opacity step; a missing one, or one that is not a number (text,
    which MemPalace stores as given), counts as 1: unknown."""
    if set(map(type, values)) <= _PLAIN_CONFIDENCES:  # the types counted in C
        confidence = np.asarray(values, dtype=np.float64).reshape(-1)  # None reads as NaN
    else:
        confidence = np.asarray([confidence_of(v) for v in values], dtype=np.float64).reshape(-1)
    confidence = np.where(np.isfinite(confidence), np.clip(confidence, 0.0, 1.0), 1.0)
    return np.rint(confidence * CONFIDENCE_LEVELS).astype(np.int32)


def _odd_sides(fact: dict) -> int:
    """Which sides of a fact hold a stored value the time rules do not accept (contract §2.8):
    drawn where the store's queries read them, and marked."""
    return (ODD_START if is_odd_time(fact.get("valid_from")) else 0) | (
        ODD_END if is_odd_time(fact.get("valid_to")) else 0
    )


def confidence_of(value) -> float:
    """A stored confidence as drawn: clamped to [0, 1]; missing, not finite or not a number
    (text such as "high": never parsed, even "0.5") means 1, unknown."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return 1.0
    value = float(value)
    return min(1.0, max(0.0, value)) if math.isfinite(value) else 1.0


def patch_layout(
    layout: Layout, changed: list[str], starts: np.ndarray, ends: np.ndarray, conflicts
) -> bool:
    """Update ``layout`` in place for facts whose rows changed (their dicts are the layout's
    own, already updated); ``starts``/``ends`` are the time arrays of the facts the layout was
    built from. True when done; False when a change moves a bar (another lane, or another
    start, which can reorder a lane): then the layout must be built again."""
    bars = [layout.index_of(tid) for tid in changed]
    for i in bars:
        if i < 0:
            continue
        fact, lane = layout.facts[i], layout.lanes[int(layout.lane[i])]
        source = layout.source[i]
        if (
            (fact["predicate"], fact.get("direction", OUTGOING)) != (lane.predicate, lane.direction)
            or fact.get("other", lane.other) != lane.other
            or starts[source] != layout.start[i]
        ):
            return False
    for i in bars:
        if i >= 0:
            layout.end[i] = ends[layout.source[i]]
            layout.conf_level[i] = _confidence_levels([layout.facts[i].get("confidence")])[0]
            layout.odd[i] = _odd_sides(layout.facts[i])
    _place_conflicts(layout, conflicts)
    return True


def _place_conflicts(layout: Layout, conflicts) -> None:
    rows, starts, ends, kept = [], [], [], []
    for conflict in conflicts:
        # A clash with a fact that is not the entity's own (Atlas led_by Rosa, seen from Kai)
        # is still marked on the lane of the fact that is.
        present = [
            i for i in (layout.index_of(conflict["a"]), layout.index_of(conflict["b"])) if i >= 0
        ]
        if not present:
            continue
        # The overlap's keys, read as the bars' are (a key the rules refuse, as text).
        lo = temporal.start_posix(conflict.get("start"))
        hi = temporal.end_posix(conflict.get("end"))
        lo = -math.inf if lo is None else lo
        hi = math.inf if hi is None else hi
        kept.append(conflict)
        for i in sorted(set(present), key=lambda i: layout.row[i]):
            rows.append(int(layout.row[i]))
            starts.append(lo)
            ends.append(hi)
    layout.conflicts = kept
    layout.conflict_row = np.asarray(rows, np.int32)
    layout.conflict_start = np.asarray(starts, np.float64)
    layout.conflict_end = np.asarray(ends, np.float64)


# ── Time ──────────────────────────────────────────────────────────────────


def valid_mask(layout: Layout, at: float | None) -> np.ndarray:
    """Which bars are valid at POSIX ``at`` (the start key of as_of); all of them when None.

    The contract's rule on the arrays: ``start <= at < end``.
    """
    return valid_mask_of(layout.start, layout.end, at)


def nearest_midnight(seconds: float) -> float:
    return round(seconds / DAY) * DAY


# Steps an instant snaps to, from the finest: the first not finer than a pixel wins.
INSTANT_STEPS = (1.0, 60.0, 300.0, 900.0, 3600.0, DAY)


def snap_instant(seconds: float, seconds_per_px: float = 1.0) -> str:
    """An instant at a resolution the pointer can actually express at this zoom."""
    step = next((s for s in INSTANT_STEPS if s >= seconds_per_px), DAY)
    return temporal.from_posix(round(seconds / step) * step)


def start_value(seconds: float, as_day: bool, seconds_per_px: float = 1.0) -> str:
    """A value for ``valid_from`` (or ``as_of``) placed at ``seconds``: a day starts at its
    midnight, so the nearest midnight's day; otherwise an instant."""
    if as_day:
        return temporal.day_of_posix(nearest_midnight(seconds))
    return snap_instant(seconds, seconds_per_px)


def end_value(seconds: float, as_day: bool, seconds_per_px: float = 1.0) -> str:
    """A value for ``valid_to`` whose bar ends at ``seconds``: a day ends at the next midnight,
    so the day before the nearest midnight; otherwise an instant."""
    if as_day:
        return temporal.day_of_posix(nearest_midnight(seconds) - DAY)
    return snap_instant(seconds, seconds_per_px)


def drag_value(
    layout: Layout, i: int, side: str, x: float, seconds_per_px: float = 1.0
) -> tuple[str, float]:
    """The value that dragging bar ``i``'s ``side`` (``"start"`` or ``"end"``) to ``x`` writes,
    and the POSIX instant where that value puts the side.

    A side kept in days snaps to days, an instant to what a pixel can express; a value that
    would invert the interval is clamped to the other side (the store would refuse it).
    """
    fact = layout.facts[i]
    if side == "end":
        as_day = layout.in_days(i, "valid_to")
        value = end_value(x, as_day, seconds_per_px)
        other, bound = fact.get("valid_from"), float(layout.start[i])
        inverted = other is not None and temporal.end_key(value) < temporal.start_key(other)
        key = temporal.end_key
    else:
        as_day = layout.in_days(i, "valid_from")
        value = start_value(x, as_day, seconds_per_px)
        other, bound = fact.get("valid_to"), float(layout.end[i])
        inverted = other is not None and temporal.end_key(other) < temporal.start_key(value)
        key = temporal.start_key
    if inverted and math.isfinite(bound):
        value = temporal.day_of_posix(bound) if as_day else temporal.from_posix(bound)
    return value, temporal.to_posix(key(value))


def fact_uses_days(fact: dict, default: bool = True) -> bool:
    """Whether a fact's values are days (its dated sides are dates); ``default`` when undated."""
    values = [fact.get("valid_from"), fact.get("valid_to")]
    values = [v for v in values if v]
    if not values:
        return default
    return all(temporal.is_date(v) for v in values)


def describe_duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "open"
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * DAY:
        return f"{seconds / 3600:.1f} h"
    days = seconds / DAY
    if days < 61:
        return f"{days:.0f} days"
    if days < 2 * 365.2425:
        return f"{days / 30.436875:.1f} months"
    return f"{days / 365.2425:.1f} years"


def fit_range(layout: Layout, now: float, as_of: float | None = None) -> tuple[float, float]:
    """An x range showing every dated side, today when some fact is open, and as_of."""
    points = []
    span = layout.finite_span()
    if span is not None:
        points += list(span)
    if layout.n and (np.isinf(layout.end).any() or not points):
        points.append(now)
    if as_of is not None:
        points.append(as_of)
    if not points:
        return now - YEAR, now + YEAR
    lo, hi = min(points), max(points)
    width = max(hi - lo, 30 * DAY)
    pad = width * 0.06
    if np.isinf(layout.start).any():
        lo -= width * 0.06  # room for the fade of unknown starts
    return lo - pad, hi + pad


# ── Picking ───────────────────────────────────────────────────────────────


def bars_in_view(layout: Layout, x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
    """Indices of bars meeting the view rectangle (rows whose centre lies in ``[y0-1, y1+1]``)."""
    return np.flatnonzero(in_view(layout, slice(None), x0, x1, y0, y1))


def in_view(layout: Layout, bars, x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
    """Whether each of ``bars`` (indices, or a slice) meets the view rectangle, as
    :func:`bars_in_view` says."""
    row, start, end = layout.row[bars], layout.start[bars], layout.end[bars]
    return (row >= y0 - 1) & (row <= y1 + 1) & (start <= x1) & (end >= x0)


def pick(layout: Layout, x: float, y: float, tol: float, half_height: float = 0.36) -> int:
    """The bar under view point ``(x, y)``, or -1. ``tol`` widens bars (seconds) so that an
    instant is still hit; a bar containing ``x`` beats one only near it, then the shortest."""
    if layout.n == 0:
        return -1
    row = round(y)
    if abs(y - row) > half_height + 0.08:
        return -1
    hit = np.flatnonzero((layout.row == row) & (layout.start - tol <= x) & (layout.end + tol >= x))
    if hit.size == 0:
        return -1
    if hit.size == 1:
        return int(hit[0])
    inside = (layout.start[hit] <= x) & (layout.end[hit] >= x)
    length = layout.end[hit] - layout.start[hit]
    order = np.lexsort((length, ~inside))
    return int(hit[order[0]])


def pick_handle(
    layout: Layout,
    x: float,
    y: float,
    tol: float,
    half_height: float = 0.36,
    open_end_x: float | None = None,
) -> tuple[int, str] | None:
    """A bar's known end (``"end"``) or start (``"start"``) within ``tol`` of ``(x, y)``; an
    open end is where its arrow is drawn, ``open_end_x`` (None: not a handle)."""
    if layout.n == 0:
        return None
    row = round(y)
    if abs(y - row) > half_height + 0.08:
        return None
    on_row = layout.row == row
    ends = layout.end
    if open_end_x is not None:
        ends = np.where(np.isposinf(ends) & (layout.start < open_end_x), open_end_x, ends)
    best: tuple[float, int, str] | None = None
    for side, values in (("end", ends), ("start", layout.start)):
        near = np.flatnonzero(on_row & np.isfinite(values) & (np.abs(values - x) <= tol))
        for i in near:
            distance = abs(float(values[i]) - x)
            if best is None or distance < best[0]:
                best = (distance, int(i), side)
    return None if best is None else (best[1], best[2])


__all__ = [
    "Header",
    "Lane",
    "Layout",
    "bars_in_view",
    "build_layout",
    "describe_duration",
    "drag_value",
    "end_value",
    "fact_uses_days",
    "fit_range",
    "pick",
    "pick_handle",
    "snap_instant",
    "start_value",
    "valid_mask",
]
