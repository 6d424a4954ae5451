"""Colours and text forms every view shares: predicate colours, dimming, dates and instants."""

from __future__ import annotations

from PySide6.QtGui import QColor

from factlines.core import temporal
from factlines.ui.gantt_layout import predicate_color as chart_color

DIM_TEXT = QColor("#9aa0a6")
CONFLICT = QColor("#c62828")
CONFLICT_BACKGROUND = QColor("#fdecea")
LINK = QColor("#1a5fb4")


def predicate_color(predicate: str) -> QColor:
    """A stable colour per predicate: the chart's own palette, so every view agrees."""
    return QColor(chart_color(predicate))


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
