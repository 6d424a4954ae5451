"""Which part of the chart is in view: the time range (zoom, pan, fit) and the rows (scroll).

The time axis zooms and pans freely between :data:`layout.X_MIN` and :data:`layout.X_MAX`; rows
are sized between ``LANE_PX_MIN`` and ``LANE_PX_MAX`` pixels, and beyond that the lanes scroll
(the scroll bar, shift+wheel, keys) instead of shrinking. Points are view coordinates: POSIX
seconds across, rows down.
"""

from __future__ import annotations

import math
import time

import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QScrollBar

from factlines.ui.chart import layout as gl
from factlines.ui.chart import look
from factlines.ui.chart.painting import BarsItem
from factlines.ui.session.state import AppState


class Navigator:
    """Moves the chart's view and finds what is under a point of it."""

    def __init__(
        self,
        view: pg.ViewBox,
        scrollbar: QScrollBar,
        bars: BarsItem,
        state: AppState,
        today_line: pg.InfiniteLine,
    ):
        self.view = view
        self._scrollbar = scrollbar
        self._bars = bars
        self._state = state
        self._today_line = today_line
        self._top = 0.0  # the first row shown

    # ── Rows ─────────────────────────────────────────────────────────────
    def rows_shown(self) -> float:
        height = max(1.0, self.view.height())
        n = self._bars.layout.n_rows
        return max(height / look.LANE_PX_MAX, min(float(max(n, 1)), height / look.LANE_PX_MIN))

    def room_in_rows(self) -> float:
        """How many rows the chart's height holds at their least height."""
        return self.view.height() / look.LANE_PX_MIN

    def lanes_fully_in_view(self) -> list[int]:
        """The lane rows (not the predicate headers) shown whole, top to bottom."""
        layout = self._bars.layout
        last = self._top + self.rows_shown() - 1
        return [
            row
            for row in range(math.ceil(self._top), layout.n_rows)
            if row <= last + 1e-9 and layout.row_kind[row] == 1
        ]

    def apply_rows(self, *_args) -> None:
        n = self._bars.layout.n_rows
        shown = self.rows_shown()
        max_top = max(0.0, n - shown)
        self._top = min(max(0.0, self._top), max_top)
        self.view.setYRange(self._top - 0.5, self._top - 0.5 + shown, padding=0)
        self._scrollbar.blockSignals(True)
        self._scrollbar.setRange(0, math.ceil(max_top))
        self._scrollbar.setPageStep(max(1, int(shown)))
        self._scrollbar.setValue(round(self._top))
        self._scrollbar.blockSignals(False)
        self._scrollbar.setVisible(max_top > 0)

    def top_anchor(self) -> tuple[tuple, float] | None:
        """The row at the top of the view, by what it shows (a predicate's header, a lane),
        and how far into it the view starts: rows come and go above it as facts are written."""
        layout = self._bars.layout
        row = math.floor(self._top)
        if not 0 <= row < layout.n_rows or self._top <= 0:
            return None
        return _row_key(layout, row), self._top - row

    def keep_anchor(self, anchor: tuple[tuple, float] | None) -> None:
        """Start the view at the row ``anchor`` names again, wherever the new layout put it."""
        if anchor is None:
            return
        key, offset = anchor
        layout = self._bars.layout
        for row in range(layout.n_rows):
            if _row_key(layout, row) == key:
                self._top = row + offset
                return

    def scrolled(self, value: int) -> None:
        self._top = float(value)
        self.apply_rows()

    def scroll_rows(self, rows: float) -> None:
        self._top += rows
        self.apply_rows()

    def ensure_row_visible(self, row: int) -> None:
        shown = self.rows_shown()
        if row < self._top:
            self._top = float(row) - 1
        elif row > self._top + shown - 1:
            self._top = row - shown + 2
        else:
            return
        self.apply_rows()

    # ── Time ─────────────────────────────────────────────────────────────
    def show_view_rect(self, *_args) -> None:
        """Have the bars cover the view's new range."""
        self._bars.set_view_rect(self.view.viewRect())

    def seconds_per_px(self) -> float:
        width = self.view.width()
        (x0, x1) = self.view.viewRange()[0]
        return (x1 - x0) / width if width > 0 else 1.0

    def x_range(self) -> tuple[float, float]:
        (x0, x1) = self.view.viewRange()[0]
        return float(x0), float(x1)

    def set_x_range(self, start: float, end: float) -> None:
        self.view.setXRange(start, end, padding=0)

    def refit(self) -> None:
        """Back to the first row, and every fact in view (a new entity or graph)."""
        self._top = 0.0
        self.fit()

    def fit(self) -> None:
        self._today_line.setValue(time.time())
        lo, hi = gl.fit_range(self._bars.layout, time.time(), self._state.as_of_posix)
        self.set_x_range(lo, hi)

    def zoom_as_of_year(self) -> None:
        at = self._state.as_of_posix
        center = time.time() if at is None else at
        self.set_x_range(center - gl.YEAR, center + gl.YEAR)

    def zoom(self, factor: float) -> None:
        """Scale the time range by ``factor`` around as_of when it is in view, else the centre."""
        x0, x1 = self.x_range()
        at = self._state.as_of_posix
        center = at if at is not None and x0 <= at <= x1 else (x0 + x1) / 2
        lo = center - (center - x0) * factor
        hi = center + (x1 - center) * factor
        if hi - lo < gl.MIN_SPAN:
            return
        self.set_x_range(max(gl.X_MIN, lo), min(gl.X_MAX, hi))

    def pan(self, fraction: float) -> None:
        x0, x1 = self.x_range()
        shift = (x1 - x0) * fraction
        self.set_x_range(x0 + shift, x1 + shift)

    def zoom_to_fact(self, triple_id: str) -> None:
        i = self._bars.layout.index_of(triple_id)
        if i >= 0:
            self.zoom_to_bar(i)

    def zoom_to_bar(self, i: int) -> None:
        layout = self._bars.layout
        x0, _x1 = self.x_range()
        start, end = float(layout.start[i]), float(layout.end[i])
        start = start if math.isfinite(start) else min(x0, end if math.isfinite(end) else x0)
        end = end if math.isfinite(end) else max(time.time() if end > 0 else start, start + gl.DAY)
        width = max(end - start, gl.DAY)
        self.set_x_range(start - width * 0.15, end + width * 0.15)
        self.ensure_row_visible(int(layout.row[i]))

    # ── Picking: array searches, with a tolerance in pixels ─────────────
    def tolerance(self, px: float) -> float:
        return px * self.seconds_per_px()

    def bar_at(self, x: float, y: float) -> int:
        """The bar under view point ``(x, y)`` (view coordinates), or -1."""
        return gl.pick(self._bars.layout, x, y, self.tolerance(look.PICK_PX), look.BAR_FRACTION / 2)

    def handle_at(self, x: float, y: float) -> tuple[int, str] | None:
        """The bar end under ``(x, y)``: a date, or an open end's arrowhead (at the right)."""
        arrow = self.x_range()[1] - self.tolerance(look.ARROW_PX / 2)
        return gl.pick_handle(
            self._bars.layout,
            x,
            y,
            self.tolerance(look.HANDLE_PX),
            look.BAR_FRACTION / 2,
            open_end_x=arrow,
        )

    def view_point(self, triple_id: str, where: str = "middle") -> QPointF:
        """The view coordinates of a fact's bar: its ``start``, ``end`` or ``middle``."""
        layout = self._bars.layout
        i = layout.index_of(triple_id)
        if i < 0:
            raise KeyError(triple_id)
        x0, x1 = self.x_range()
        start = max(float(layout.start[i]), x0)
        end = min(float(layout.end[i]), x1)
        x = {"start": start, "end": end, "middle": (start + end) / 2}[where]
        return QPointF(x, float(layout.row[i]))


def _row_key(layout: gl.Layout, row: int) -> tuple:
    lane = int(layout.row_lane[row])
    if lane < 0:
        return ("header", next(h.predicate for h in layout.headers if h.row == row))
    found = layout.lanes[lane]
    return ("lane", found.predicate, found.direction, found.other)
