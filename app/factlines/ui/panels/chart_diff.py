"""The chart shows a diff: the span (A, B] shaded, a mark where each fact that started in it
starts (▶, green) and where each that ended in it ends (◀, red); the other bars as they are.
``changed`` tells the others that show the same diff (the neighbourhood graph).

Items of its own in the chart's view (view coordinates: POSIX seconds across, rows down),
placed from the chart's layout each time the chart lays its bars out again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, Signal

from factlines.ui.chart import GanttChart
from factlines.ui.models.changes import ENDED_COLOR, STARTED_COLOR
from factlines.ui.session.state import AppState

MARK_PX = 11
_SYMBOLS = {"started": "t2", "ended": "t3"}


class ChartDiff(QObject):
    changed = Signal()  # what is shown, or whether it is, changed

    def __init__(self, state: AppState, chart: GanttChart, parent: QObject | None = None):
        super().__init__(parent)
        self._chart = chart
        # Looked up by id (a wide span of the whole graph: hundreds of thousands of ids).
        self.started: frozenset[str] = frozenset()
        self.ended: frozenset[str] = frozenset()
        self.span: tuple[float, float] | None = None
        self.shown = False
        self.band = pg.LinearRegionItem(
            values=(0, 1), movable=False, brush=pg.mkBrush(46, 125, 50, 28), pen=pg.mkPen(None)
        )
        self.band.setZValue(4)
        self.marks = pg.ScatterPlotItem(pxMode=True, size=MARK_PX)
        # One pen and a brush per change, made once: pyqtgraph renders a symbol for each pen
        # and brush object it is given (1,400 marks: 260 ms, and its atlas grew each time).
        self._pen = pg.mkPen("w", width=1)
        self._brushes = {"started": pg.mkBrush(STARTED_COLOR), "ended": pg.mkBrush(ENDED_COLOR)}
        self.marks.setZValue(6)
        for item in (self.band, self.marks):
            item.setVisible(False)
            chart.view.addItem(item, ignoreBounds=True)
        # After the chart's own slots (connected first): its layout is the new one by then.
        state.entityChanged.connect(lambda _entity: self.redraw())
        state.factsChanged.connect(lambda _patch: self.redraw())
        state.graphChanged.connect(self.redraw)

    def show_diff(self, started: Iterable[str], ended: Iterable[str], span) -> None:
        """Mark these facts over ``span`` (POSIX A, B), or nothing when ``span`` is None.
        Sets given are kept as they are (``frozenset`` of one is that one)."""
        self.started, self.ended, self.span = frozenset(started), frozenset(ended), span
        self.redraw()
        self.changed.emit()

    def set_shown(self, shown: bool) -> None:
        if shown == self.shown:
            return
        self.shown = shown
        self.redraw()
        self.changed.emit()

    @property
    def on(self) -> bool:
        """Is a diff shown?"""
        return self.shown and self.span is not None

    def spots(self) -> list[dict]:
        """The marks as drawn: ``{id, change, x, row}`` for the facts on the chart now."""
        layout = self._chart.bars.layout
        found = []
        for change, ids, ends in (
            ("started", self.started, False),
            ("ended", self.ended, True),
        ):
            # The fewer looked up in the more: the bars shown, or the ids of the span.
            if len(ids) > layout.n:
                bars = [(i, tid) for i, tid in enumerate(layout.ids) if tid in ids]
            else:
                bars = [(layout.index_of(tid), tid) for tid in ids]
            for i, tid in bars:
                if i < 0:
                    continue
                x = float(layout.end[i] if ends else layout.start[i])
                if math.isfinite(x):
                    found.append({"id": tid, "change": change, "x": x, "row": float(layout.row[i])})
        return found

    def redraw(self) -> None:
        if not shiboken6.isValid(self.band):  # the window is closing: the chart is gone
            return
        self.band.setVisible(self.on)
        self.marks.setVisible(self.on)
        if not self.on:
            return
        self.band.setRegion(self.span)
        spots = self.spots()
        # Columns, not a dict per mark (5,000 marks: 61-67 ms as dicts, 36 ms so).
        self.marks.setData(
            x=[spot["x"] for spot in spots],
            y=[spot["row"] for spot in spots],
            symbol=[_SYMBOLS[spot["change"]] for spot in spots],
            brush=[self._brushes[spot["change"]] for spot in spots],
            pen=self._pen,
            data=[spot["id"] for spot in spots],
        )
