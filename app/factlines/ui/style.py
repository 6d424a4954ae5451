"""Colours and text forms every view shares: predicate colours, dimming, dates and instants.

Imports no view: the table, the chart and the graph all take their colours from here.
"""

from __future__ import annotations

import zlib

from PySide6.QtGui import QColor

from factlines.core import temporal

DIM_TEXT = QColor("#9aa0a6")
CONFLICT = QColor("#c62828")
CONFLICT_BACKGROUND = QColor("#fdecea")
LINK = QColor("#1a5fb4")

# A fixed palette (no pure red: red is reserved for conflicts and the as_of cursor). A
# predicate's colour is its name's CRC32 modulo the palette, so it is the same for every entity
# and every run.
PALETTE = (
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

# The CRC's starting value: chosen once so that the common MemPalace predicates (the demo's
# seventeen among them) get distinct colours. Changing it recolours every chart.
PALETTE_SALT = 101311


def palette_index(predicate: str) -> int:
    """A predicate's place in :data:`PALETTE` (the chart keeps colours as these indices)."""
    return zlib.crc32(predicate.encode("utf-8"), PALETTE_SALT) % len(PALETTE)


def predicate_color_name(predicate: str) -> str:
    """A predicate's colour as ``#rrggbb`` (for rich text, and the chart's group headers)."""
    return PALETTE[palette_index(predicate)]


def predicate_color(predicate: str) -> QColor:
    """A stable colour per predicate, the same in every view."""
    return QColor(predicate_color_name(predicate))


def show_time(value: str | None, empty: str = "") -> str:
    """A stored time value for display, as stored: a day is a calendar day, an instant is UTC
    and says so (``Z``), like the as_of field and the chart's axis, so nothing shifts."""
    if value is None:
        return empty
    if value == "":  # MemPalace's pass-through of an empty value: a bound nobody knows
        return "unknown"
    return value if temporal.is_date(value) else show_instant(value)


def show_instant(value: str | None) -> str:
    """An instant (``...Z``, or SQLite's UTC ``YYYY-MM-DD HH:MM:SS``) in the ``Z`` form."""
    if not value:
        return ""
    text = value.replace(" ", "T")
    return text if text.endswith("Z") else text + "Z"


def show_key(key: str | None, empty: str, as_end: bool = False) -> str:
    """A comparison key in the form a person wrote: a day's first (or, for an end, last)
    second is shown as the day."""
    if key is None:
        return empty
    suffix = temporal.DAY_END_SUFFIX if as_end else temporal.DAY_START_SUFFIX
    return key[:10] if key.endswith(suffix) else key
