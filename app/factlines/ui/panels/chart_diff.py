"""The chart shows a diff: the span (A, B] shaded, a mark where each fact that started in it
starts (▶, green) and where each that ended in it ends (◀, red); the other bars as they are.
``changed`` tells the others that show the same diff (the neighbourhood graph).

Items of its own in the chart's view (view coordinates: POSIX seconds across, rows down),
placed from the chart's layout each time the chart lays its bars out again.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, Signal

from factlines.ui.chart import GanttChart
from factlines.ui.models.changes import ENDED_COLOR, STARTED_COLOR
from factlines.ui.session.state import AppState

MARK_PX = 11
_LOOKS = {"started": ("t2", STARTED_COLOR), "ended": ("t3", ENDED_COLOR)}  # symbol, colour


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
        # A scatter per change, each with one symbol, pen and brush: pyqtgraph renders a
        # symbol per pen and brush object a mark is given (1,400 marks: 260 ms, its atlas
        # growing each time), and styles marks one by one when each has its own (5,600 marks
        # of the whole graph's changes over the hub at a million facts: 28 ms; 5 ms so).
        pen = pg.mkPen("w", width=1)
        self.marks = {
            change: pg.ScatterPlotItem(
                pxMode=True, size=MARK_PX, symbol=symbol, pen=pen, brush=pg.mkBrush(color)
            )
            for change, (symbol, color) in _LOOKS.items()
        }
        for item in self.marks.values():
            item.setZValue(6)
        for item in (self.band, *self.marks.values()):
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
        return [
            {"id": tid, "change": change, "x": float(x), "row": float(row)}
            for change, item in self.marks.items()
            for x, row, tid in zip(*item.getData(), item.data["data"])
        ]

    def _placed(self, change: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Where the marks of one change go: x, row and id of each of its facts on the
        chart (at its bar's start, or its end)."""
        layout = self._chart.bars.layout
        ids = self.started if change == "started" else self.ended
        # The fewer looked up in the more: the bars shown, or the ids of the span.
        if len(ids) > layout.n:
            bars = [i for i, tid in enumerate(layout.ids) if tid in ids]
        else:
            bars = sorted(i for i in map(layout.index_of, ids) if i >= 0)
        at = np.asarray(bars, dtype=np.intp)
        x = (layout.end if change == "ended" else layout.start)[at]
        drawn = np.isfinite(x)
        at = at[drawn]
        return x[drawn], layout.row[at].astype(np.float64), [layout.ids[i] for i in at]

    def redraw(self) -> None:
        if not shiboken6.isValid(self.band):  # the window is closing: the chart is gone
            return
        for item in (self.band, *self.marks.values()):
            item.setVisible(self.on)
        if not self.on:
            for item in self.marks.values():
                item.clear()  # nor kept: a wide span's ids
            return
        self.band.setRegion(self.span)
        for change, item in self.marks.items():
            x, row, ids = self._placed(change)
            item.setData(x=x, y=row, data=ids)
