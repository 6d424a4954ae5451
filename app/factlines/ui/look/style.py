"""Colours and text forms every view shares: predicate colours, dimming, dates and instants.

Imports no view: the table, the chart and the graph all take their colours from here.

Colours come in a light and a dark :class:`Theme`, chosen by the application palette's window
colour (a dark window means the dark one). Views read them from :func:`theme` when they paint,
as ``style.theme().conflict``, and again on a palette change (:func:`palette_changed`).
"""

from __future__ import annotations

import math
import re
import sys
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from operator import is_not

import numpy as np
from PySide6.QtCore import QEvent
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette

from factlines.core import temporal

# A fixed palette per variant (no pure red: red is reserved for conflicts and the as_of cursor).
# A predicate's colour is its name's CRC32 modulo the palette, so it is the same for every
# entity and every run; the dark variant is the same hue, lighter, in the same place.
LIGHT_PALETTE = (
    "#4e79a7",  # blue
    "#f28e2b",  # orange
    "#59a14f",  # green
    "#b07aa1",  # purple
    "#3fa7a0",  # teal
    "#c99a06",  # gold
    "#9c755f",  # brown
    "#e377c2",  # pink
    "#6b6ecf",  # indigo
    "#8c8c3c",  # olive
    "#17a2c4",  # cyan
    "#7f7f7f",  # grey
    "#1f3f73",  # navy
    "#ad5a20",  # rust
    "#2e7d32",  # forest
    "#7b3fa0",  # violet
    "#0b7a75",  # dark teal
    "#c2185b",  # crimson
    "#5d4037",  # dark brown
    "#607d8b",  # blue grey
)
DARK_PALETTE = (
    "#6f9bd1",  # blue
    "#f5a04a",  # orange
    "#73c165",  # green
    "#c994ba",  # purple
    "#4fc4bc",  # teal
    "#e0b32a",  # gold
    "#bf977f",  # brown
    "#ec8fd0",  # pink
    "#8c8fe6",  # indigo
    "#b0b052",  # olive
    "#38bfe2",  # cyan
    "#a3a3a3",  # grey
    "#5f83c4",  # navy
    "#d9813f",  # rust
    "#4caf50",  # forest
    "#a872cf",  # violet
    "#26a69a",  # dark teal
    "#ee5a92",  # crimson
    "#a1887f",  # dark brown
    "#90a4ae",  # blue grey
)


@dataclass(frozen=True)
class Theme:
    """Every themed colour, by what it colours; :data:`LIGHT` and :data:`DARK` are the two.
    The chart's keep the types pyqtgraph and QPainter take there: a colour string, a QColor, or
    an RGBA tuple. The brushes the table models hand out for every cell are made once."""

    palette: tuple[str, ...]
    # The tables and the messages beside them
    dim_text: QColor
    conflict: QColor
    conflict_background: QColor
    link: QColor
    subtle_text: QColor  # a secondary word in a heading, e.g. an entity's type
    # A notice across the window (the read-only banner)
    notice_background: QColor
    notice_border: QColor
    notice_text: QColor
    # The chart
    background: str
    text_color: str
    muted_text: str  # incoming lanes, the legend, the today label
    cursor_color: str  # the as_of cursor
    conflict_text: str  # conflicts in the title, legend and tooltips
    conflict_color: QColor  # conflict spans and the lane axis's conflict dots
    row_stripe: QColor  # every other lane
    header_row: QColor  # a predicate group's header row
    group_line: QColor  # the line above a group
    selected_row: QColor
    hover_outline: str
    selected_outline: str  # also the outline of a dragged end's preview
    preview_fill: QColor
    axis_color: str
    today_color: str
    today_label_fill: tuple[int, int, int, int]
    cursor_label_fill: tuple[int, int, int, int]
    # The neighbourhood graph
    graph_background: QColor
    graph_text: QColor
    graph_muted: QColor
    node_fill: QColor
    node_outline: QColor
    center_fill: QColor
    center_outline: QColor
    # Made from the above
    dim_brush: QBrush = field(init=False, compare=False)
    conflict_brush: QBrush = field(init=False, compare=False)
    conflict_background_brush: QBrush = field(init=False, compare=False)
    link_brush: QBrush = field(init=False, compare=False)

    def __post_init__(self) -> None:
        for brush, colour in (
            ("dim_brush", self.dim_text),
            ("conflict_brush", self.conflict),
            ("conflict_background_brush", self.conflict_background),
            ("link_brush", self.link),
        ):
            object.__setattr__(self, brush, QBrush(colour))


LIGHT = Theme(
    palette=LIGHT_PALETTE,
    dim_text=QColor("#9aa0a6"),
    conflict=QColor("#c62828"),
    conflict_background=QColor("#fdecea"),
    link=QColor("#1a5fb4"),
    subtle_text=QColor("#5f6368"),
    notice_background=QColor("#fff4d6"),
    notice_border=QColor("#e8c35a"),
    notice_text=QColor("#4d3b00"),
    background="w",
    text_color="#2b2f36",
    muted_text="#5b6270",
    cursor_color="#d62728",
    conflict_text="#d62728",
    conflict_color=QColor(214, 39, 40),
    row_stripe=QColor("#f3f5f8"),
    header_row=QColor("#e9edf2"),
    group_line=QColor("#d3d9e1"),
    selected_row=QColor("#e3edfb"),
    hover_outline="#3b4250",
    selected_outline="#11151c",
    preview_fill=QColor(17, 21, 28, 40),
    axis_color="#b9c0ca",
    today_color="#7a8290",
    today_label_fill=(255, 255, 255, 200),
    cursor_label_fill=(255, 255, 255, 230),
    graph_background=QColor("#fbfbfc"),
    graph_text=QColor("#202124"),
    graph_muted=QColor("#5f6368"),
    node_fill=QColor("#ffffff"),
    node_outline=QColor("#5f6368"),
    center_fill=QColor("#1a5fb4"),
    center_outline=QColor("#0d3b75"),
)
DARK = Theme(
    palette=DARK_PALETTE,
    dim_text=QColor("#80868f"),
    conflict=QColor("#ff7070"),
    conflict_background=QColor("#4a2326"),
    link=QColor("#8cb8ff"),
    subtle_text=QColor("#a4abb6"),
    notice_background=QColor("#3a321a"),
    notice_border=QColor("#7d6a2c"),
    notice_text=QColor("#f3e3ad"),
    background="#1e1f22",
    text_color="#e3e6eb",
    muted_text="#a4abb6",
    cursor_color="#ff5c5c",
    conflict_text="#ff7070",
    conflict_color=QColor(255, 92, 92),
    row_stripe=QColor("#25272b"),
    header_row=QColor("#2e3137"),
    group_line=QColor("#3d414a"),
    selected_row=QColor("#263d5c"),
    hover_outline="#c8ced8",
    selected_outline="#f4f6fa",
    preview_fill=QColor(244, 246, 250, 40),
    axis_color="#5c626d",
    today_color="#8d95a3",
    today_label_fill=(30, 31, 34, 200),
    cursor_label_fill=(30, 31, 34, 230),
    graph_background=QColor("#1e1f22"),
    graph_text=QColor("#e3e6eb"),
    graph_muted=QColor("#a4abb6"),
    node_fill=QColor("#2e3137"),
    node_outline=QColor("#9aa0a6"),
    center_fill=QColor("#3584e4"),
    center_outline=QColor("#99c1f1"),
)

# The theme in use: light until the application's palette says.
_current = LIGHT
_chosen = False  # chosen from an application's palette yet?
_predicate_brushes: dict[str, QBrush] = {}


def is_dark(palette: QPalette | None = None) -> bool:
    """Does ``palette`` (the application's by default) paint dark windows?"""
    if palette is None:
        if QGuiApplication.instance() is None:
            return False
        palette = QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def refresh() -> bool:
    """Choose the theme for the application palette now; True when it changed."""
    global _current, _chosen
    if QGuiApplication.instance() is None:
        return False
    chosen = DARK if is_dark() else LIGHT
    _chosen = True
    if chosen is _current:
        return False
    _current = chosen
    _predicate_brushes.clear()
    return True


def theme() -> Theme:
    """The theme in use (light or dark, with the application's palette)."""
    if not _chosen:
        refresh()
    return _current


def palette_changed(event: QEvent) -> bool:
    """For a view's ``changeEvent``: is ``event`` a palette change? The colours follow it."""
    if event.type() not in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
        return False
    refresh()
    return True


# The CRC's starting value: chosen once so that the common MemPalace predicates (the demo's
# seventeen among them) get distinct colours. Changing it recolours every chart.
PALETTE_SALT = 101311


# The open graph's predicates that wear another name's colour (``kg.predicate_colours()``: a
# renamed predicate keeps the colour it had), set by the state when the graph or it changes.
_colour_names: dict[str, str] = {}


def set_predicate_colours(names: dict[str, str]) -> bool:
    """Colour each predicate of ``names`` as the name it maps to; True when that changed."""
    if names == _colour_names:
        return False
    _colour_names.clear()
    _colour_names.update(names)
    _predicate_brushes.clear()
    return True


def palette_index(predicate: str) -> int:
    """A predicate's place in the palette (the chart keeps colours as these indices)."""
    text = stored_text(predicate)  # a BLOB (raw SQL) gets a colour too
    text = _colour_names.get(text, text)
    return zlib.crc32(text.encode("utf-8", "surrogatepass"), PALETTE_SALT) % len(LIGHT_PALETTE)


def palette_color(index: int) -> str:
    """The colour at ``index`` of the palette now in use, as ``#rrggbb``."""
    return theme().palette[index]


def predicate_color_name(predicate: str) -> str:
    """A predicate's colour as ``#rrggbb`` (for rich text, and the chart's group headers)."""
    return theme().palette[palette_index(predicate)]


def predicate_color(predicate: str) -> QColor:
    """A stable colour per predicate, the same in every view."""
    return QColor(predicate_color_name(predicate))


def predicate_brush(predicate: str) -> QBrush:
    """A predicate's colour for text on the table's background: darker on a light one."""
    brush = _predicate_brushes.get(predicate)
    if brush is None:
        color = predicate_color(predicate)
        brush = QBrush(color if is_dark_variant() else color.darker(130))
        _predicate_brushes[predicate] = brush
    return brush


def is_dark_variant() -> bool:
    """Are the dark variants in use?"""
    return theme() is DARK


# ── Stored values as shown: as stored, marked when the rules do not accept them ──

MARK = "⚠"  # beside a value shown as stored that the rules do not accept
LABEL_CHARS = 160  # a label or legend entry shows at most this much of a text
# A table cell shows at most this much (Qt elides it to the column's width, but laying out a
# megabyte of text to do so takes seconds, on every paint).
CELL_CHARS = 1_000
TIP_CHARS = 2_000  # a tooltip shows a text whole up to this length
_SQLITE_INSTANT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}")


def stored_text(value: object) -> str:
    """Any stored value as text, unaltered: a BLOB as SQLite writes one (``x'00ff'``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return f"x'{value.hex()}'"
    return str(value)


def elide(value: object, limit: int = LABEL_CHARS) -> str:
    """A text for a label or a legend: whole, or its first ``limit`` characters and "…" (a 1 MB
    predicate costs seconds to lay out; the tooltip shows more, :func:`tip_text`)."""
    text = stored_text(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cell_text(value: object) -> str:
    """A value as a table's cell (or a line of a panel) shows it: its first
    :data:`CELL_CHARS` characters; a megabyte drawn whole costs each paint a fifth of a second."""
    return elide(value, CELL_CHARS)


def tip_text(value: object) -> str:
    """A text for a tooltip: whole, unless it is too long to show at all."""
    text = stored_text(value)
    if len(text) <= TIP_CHARS:
        return text
    return f"{text[:TIP_CHARS]}… ({len(text):,} characters in all)"


_DIGITS = re.compile(r"([0-9]+)")


def order_key(value: object) -> tuple:
    """A sort key for any stored value, in SQLite's order of storage classes: numbers, then
    text (without case, its numbers by value: FastTool 3 before FastTool 29), then BLOBs; so a
    column of mixed types sorts."""
    if is_number(value):
        return (0, value)
    if isinstance(value, str):
        text = value.casefold()
        # Text and digit runs alternate, text first: position by position, like compares like.
        parts = _DIGITS.split(text)
        return (1, tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), text)
    if isinstance(value, bytes):
        return (2, value)
    return (3, stored_text(value))


def order_ranks(values: list) -> np.ndarray:
    """Each value's place in :func:`order_key`'s order, as an int64 array: values with equal
    keys share a rank. The key is made once per distinct value: a column of 20,000 facts
    names a few predicates."""
    distinct_values = list(dict.fromkeys(values))
    text_key = _text_order_keys(distinct_values)
    if text_key is not None:
        rank_of_key = {key: rank for rank, key in enumerate(sorted(set(text_key.values())))}
        rank_of = {value: rank_of_key[key] for value, key in text_key.items()}
        return np.fromiter(map(rank_of.__getitem__, values), dtype=np.int64, count=len(values))
    keyed = sorted((order_key(value), value) for value in distinct_values)
    rank_of, rank, previous = {}, -1, None
    for key, value in keyed:
        if rank < 0 or key != previous:
            rank += 1
        rank_of[value], previous = rank, key
    return np.fromiter(map(rank_of.__getitem__, values), dtype=np.int64, count=len(values))


# A digit run in a text key: a separator below every character of the text, its length (so
# that more digits sort later) and its digits without leading zeros (so 007 equals 7).
_DIGIT_RUN_MARK, _DIGIT_COUNT_BASE = "\x01", 0x100
_LONGEST_RUN = sys.maxunicode - _DIGIT_COUNT_BASE


def _text_order_keys(values: list) -> dict[str, str] | None:
    """For a column of text only, each value's :func:`order_key` as one string that compares
    the same way (a NUL ends its parts, then comes the casefolded text): strings sort in C,
    nested tuples in Python, and the column is split and folded in one piece (a 20,000-fact
    hub's names: 88 → 33 ms). None for any other column."""
    if not all(type(value) is str for value in values):
        return None
    joined = "\x00".join(values)
    if _DIGIT_RUN_MARK in joined or joined.count("\x00") >= len(values):
        return None  # text holding characters the keys use takes the tuple keys
    folded = joined.casefold()
    pieces = _DIGITS.split(folded)  # text, digits, text, …: the values' parts, end to end
    runs = [run.lstrip("0") for run in pieces[1::2]]
    if runs and max(map(len, runs)) > _LONGEST_RUN:
        return None
    pieces[1::2] = [f"{_DIGIT_RUN_MARK}{chr(_DIGIT_COUNT_BASE + len(run))}{run}" for run in runs]
    parts = "".join(pieces).split("\x00")
    return {
        value: f"{part}\x00{text}" for value, part, text in zip(values, parts, folded.split("\x00"))
    }


def id_ranks(ids: list) -> np.ndarray:
    """Each fact's or entity's id's place in code-point order (SQLite's own for text), as an
    int64 array. Ids only break ties nobody reads, so they need no natural order: sorting
    20,000 of them in C takes 2 ms, their :func:`order_key` ranks 55. A column holding other
    than text (a BLOB id from raw SQL) takes :func:`order_ranks`."""
    if not all(type(tid) is str for tid in ids):
        return order_ranks(ids)
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    return ranks


def tie_order(
    keys: list[np.ndarray], *breakers: tuple[list, Callable[[list], np.ndarray]]
) -> np.ndarray:
    """The rows in the order of ``keys`` (arrays, the most significant first), rows tied on
    them by each breaker's ``rank(values)`` (ranks from 0) in turn, then by position: the
    order ``np.lexsort`` gives with each breaker's ranks of the tied rows appended as keys,
    with one sort of the keys (a tie broken is a short stable sort of the run of rows it
    holds). The text keys of 20,000 rows are made only for the few rows that need them."""

    order = np.lexsort(keys[::-1])
    n = len(order)
    if n < 2:
        return order
    same = np.ones(n - 1, dtype=bool)  # each row tied with the next, in ``order``
    for key in keys:
        in_order = key[order]
        same &= in_order[1:] == in_order[:-1]
    for values, rank in breakers:
        tied = np.zeros(n, dtype=bool)
        tied[:-1] |= same
        tied[1:] |= same
        if not tied.any():
            break
        ranks = np.zeros(n, dtype=np.int64)
        ranks[tied] = rank([values[i] for i in order[tied].tolist()])
        # Runs of tied rows stay where they are; inside each, rows go by rank (stably).
        run = np.concatenate(([0], np.cumsum(~same)))
        within = np.argsort(run * (int(ranks.max()) + 1) + ranks, kind="stable")
        order, ranks = order[within], ranks[within]
        same &= ranks[1:] == ranks[:-1]
    return order


def descending(rank: Callable[[list], np.ndarray]) -> Callable[[list], np.ndarray]:
    """``rank`` the other way round (ranks from 0, as :func:`tie_order` takes them)."""

    def reversed_rank(values: list) -> np.ndarray:
        ranks = rank(values)
        return (int(ranks.max()) - ranks) if len(ranks) else ranks

    return reversed_rank


def is_odd_time(value: object) -> bool:
    """A stored time value the rules do not accept (contract §2.8); None is no value."""
    return value is not None and not temporal.is_accepted(value)


def odd_times(values: Collection) -> set:
    """Those of ``values`` (distinct: a column's) that :func:`is_odd_time` holds for; when
    none is, as nearly always, found by one pass in C."""
    if all(map(temporal.is_accepted, filter(partial(is_not, None), values))):
        return set()
    return {value for value in values if is_odd_time(value)}


def show_time(value: object, empty: str = "") -> str:
    """A stored time value for display, as stored: a day, an instant in UTC (``Z``), like the
    as_of field and the chart's axis, so nothing shifts. A value the rules do not accept is
    shown verbatim after a mark (:func:`time_note` says how queries read it)."""
    if value is None:
        return empty
    if is_odd_time(value):
        return f"{MARK} {elide(value) if value != '' else '(empty)'}"
    return value


def time_note(value: object, as_end: bool) -> str | None:
    """How a stored time value the rules do not accept is read, for a tooltip; None for an
    accepted value (or None). Queries compare such a value as text (contract §2.8)."""
    if not is_odd_time(value):
        return None
    shown = "an empty text" if value == "" else f"“{elide(value, 60)}”"
    field = "valid_to" if as_end else "valid_from"
    text = f"{field} {shown} is not a date the time rules accept: "
    if as_end:
        end = temporal.end_posix(value)
        if end == -math.inf:
            return text + "treated as an end nobody knows (the fact is valid at no instant)"
        if end == math.inf:
            return text + (
                "MemPalace compares it as text and returns the fact at every as_of "
                "(it is not current); so does this window"
            )
        return text + (
            "MemPalace compares it as text, so it counts as ending at "
            f"{temporal.from_posix(end)}; so does this window"
        )
    start = temporal.start_posix(value)
    if start == -math.inf:
        return text + "treated as unknown"
    if start == math.inf:
        return text + "MemPalace compares it as text, so the fact is valid at no instant"
    return text + (
        "MemPalace compares it as text, so it counts as starting at "
        f"{temporal.from_posix(start)}; so does this window"
    )


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def show_confidence(value: object) -> str:
    """A stored confidence: a number to two places; anything else as stored, marked."""
    if value is None:
        return ""
    if is_number(value):
        return f"{value:.2f}"
    return f"{MARK} {elide(value, 60)}"


def confidence_note(value: object) -> str | None:
    """Why a stored confidence is shown marked, for a tooltip; None for a number or None."""
    if value is None or is_number(value):
        return None
    return (
        f"confidence “{elide(value, 60)}” is not a number: treated as unknown "
        "(drawn at full opacity)"
    )


def show_instant(value: str | None) -> str:
    """An instant (``...Z``, or SQLite's UTC ``YYYY-MM-DD HH:MM:SS``) in the ``Z`` form;
    anything else as stored."""
    if not value:
        return ""
    if not isinstance(value, str):
        return stored_text(value)
    if _SQLITE_INSTANT.fullmatch(value):
        return value.replace(" ", "T") + "Z"
    return value if temporal.is_accepted(value) else f"{MARK} {elide(value)}"


def show_key(key: str | None, empty: str, as_end: bool = False) -> str:
    """A comparison key in the form a person wrote: a day's first (or, for an end, last)
    second is shown as the day."""
    if key is None:
        return empty
    suffix = temporal.DAY_END_SUFFIX if as_end else temporal.DAY_START_SUFFIX
    if not temporal.is_accepted(key):
        return show_time(key)
    return key[:10] if key.endswith(suffix) else key
