"""The dates under the chart: pyqtgraph's date axis in UTC, with the year wherever a zoom would
hide it.

Zoomed in to months, pyqtgraph's axis writes "Mar Apr May" and, to days, "05 06 07": nothing
says which year (or month). Here the coarsest row of ticks that lacks the year writes it on its
first tick and wherever it changes ("Nov 2025 Dec Jan 2026 Feb"; "28 Feb 2025 01 Mar 02 03"),
unless a year tick to the left of it already says it; a plain label that would overlap such a
longer one is left out.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF

from factlines.ui.chart import pg_adapter

GAP_PX = 8  # the least room between two dates on the axis


def _context(tick_format: str) -> str:
    """What to add to a tick of ``tick_format`` so that it says its year (and month, for days,
    and day, for times of day)."""
    if "%b" in tick_format or "%m" in tick_format:
        return " %Y"
    if "%d" in tick_format:
        return " %b %Y"
    return ", %d %b %Y"


def _utc(posix: float) -> datetime:
    return datetime.fromtimestamp(posix, UTC)


class TimeAxis(pg.DateAxisItem):
    """The chart's time axis (UTC) whose ticks always say the year."""

    def __init__(self) -> None:
        super().__init__(orientation="bottom", utcOffset=0)
        self._levels: list[tuple[float, list[float]]] = []  # the ticks of the last layout
        self._start = self._end = 0.0  # the axis's span and scale, as last laid out
        self._seconds_per_px = 1.0

    def tickValues(self, minVal, maxVal, size):
        self._levels = super().tickValues(minVal, maxVal, size)
        self._start, self._end = minVal, maxVal
        self._seconds_per_px = (maxVal - minVal) / size if size > 0 else 1.0
        return self._levels

    def _year_row(self) -> float | None:
        """The spacing of the coarsest row with ticks whose format lacks the year."""
        for spacing, values in self._levels:
            tick_format = pg_adapter.date_tick_format(self, spacing)
            if values and tick_format is not None and "%Y" not in tick_format:
                return spacing
        return None

    def tickStrings(self, values, scale, spacing):
        strings = super().tickStrings(values, scale, spacing)
        tick_format = pg_adapter.date_tick_format(self, spacing)
        if not values or tick_format is None or spacing != self._year_row():
            return strings
        context = _context(tick_format)
        coarser = [row for row in self._levels if row[0] > spacing]
        year_ticks = [
            value
            for row_spacing, row_values in coarser
            if "%Y" in (pg_adapter.date_tick_format(self, row_spacing) or "")
            for value in row_values
        ]
        taken = []  # where the coarser rows' labels are
        for row_spacing, row_values in coarser:
            row_strings = super().tickStrings(row_values, scale, row_spacing)
            taken += [self._span(value, text) for value, text in zip(row_values, row_strings)]
        said, previous = None, -math.inf
        widened = [False] * len(values)
        for k, value in enumerate(values):
            now = _utc(value).strftime(context)
            if any(previous < year <= value for year in year_ticks):
                said = now  # a year tick just left of this one says it
            previous = value
            if now == said or not strings[k]:
                continue
            text = strings[k] + now
            left, right = self._span(value, text)
            # Where the longer label would be cut off or cover a year, the next tick says it.
            if left >= 0 and right <= self._length() and not _overlaps((left, right), taken):
                strings[k], widened[k], said = text, True, now
        return self._without_overlaps(values, strings, widened, taken)

    def _length(self) -> float:
        return (self._end - self._start) / self._seconds_per_px

    def _span(self, value: float, text: str) -> tuple[float, float]:
        """Where ``text`` centred on tick ``value`` lies across the axis, in pixels, with room."""
        centre = (value - self._start) / self._seconds_per_px
        half = QFontMetricsF(self.font()).horizontalAdvance(text) / 2 + GAP_PX / 2
        return centre - half, centre + half

    def _without_overlaps(self, values, strings, widened, taken) -> list[str]:
        """Leave out the plain labels that would overlap a longer one or a coarser row's."""
        kept = list(taken)
        kept += [self._span(v, t) for v, t, wide in zip(values, strings, widened) if wide]
        shown = list(strings)
        for k, value in enumerate(values):
            if widened[k] or not shown[k]:
                continue
            span = self._span(value, shown[k])
            if _overlaps(span, kept):
                shown[k] = ""
            else:
                kept.append(span)
        return shown


def _overlaps(span: tuple[float, float], others: list[tuple[float, float]]) -> bool:
    left, right = span
    return any(left < other_right and other_left < right for other_left, other_right in others)


__all__ = ["TimeAxis"]
