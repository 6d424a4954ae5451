"""Colours and text forms every view shares: predicate colours, dimming, dates and instants."""

from __future__ import annotations

import zlib
from datetime import datetime, timezone

from PySide6.QtGui import QColor

DIM_TEXT = QColor("#9aa0a6")
CONFLICT = QColor("#c62828")
CONFLICT_BACKGROUND = QColor("#fdecea")
VALID_BACKGROUND = QColor("#eef6ee")
LINK = QColor("#1a5fb4")


def predicate_color(predicate: str) -> QColor:
    """A stable colour per predicate: the chart's own palette, so every view agrees."""
    try:
        from factlines.ui.gantt_layout import predicate_color as chart_color
    except ImportError:  # a chart without that module: still stable, if not the chart's
        return QColor.fromHsv(zlib.crc32(predicate.encode("utf-8")) % 360, 160, 190)
    return QColor(chart_color(predicate))


def show_time(value: str | None, empty: str = "") -> str:
    """A stored time value for display: a day stays that calendar day; an instant in local time
    with the zone named (so nothing is silently shifted)."""
    if value is None:
        return empty
    if len(value) == 10:
        return value
    return show_instant(value)


def show_instant(value: str | None) -> str:
    """An instant (``...Z`` or SQLite's ``YYYY-MM-DD HH:MM:SS`` in UTC) as local time + zone."""
    if not value:
        return ""
    text = value.replace(" ", "T").rstrip("Z")
    try:
        moment = datetime.fromisoformat(text).replace(tzinfo=timezone.utc).astimezone()
    except ValueError:
        return value
    return moment.strftime("%Y-%m-%d %H:%M:%S ") + (moment.tzname() or "")
