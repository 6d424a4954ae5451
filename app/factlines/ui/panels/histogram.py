"""Where the history is dense: how many facts hold over time, with their starts and ends,
drawn under the as_of slider on the slider's own scale, so scrubbing shows where things happen.

The counts are ``kg.validity_histogram(bins)``, read on a worker thread
(:class:`.graph_query.GraphQuery`; 165–350 ms at a million facts, a freeze after every edit
on the UI thread) at an open, when the width changes the number of bins, and after writes
of other programs. A write of the window's own that notes its facts' former times (a recorded
one: an edit, an undo) moves the counts it changed instead, here, without reading the graph
(:func:`factlines.core.histogram.patched`), unless it is too big or that cannot be exact.

Three batched draws: the facts valid (pale columns), the starts (green, left half of a bin)
and the ends (red, right half); and as_of, marked as the chart marks it. Clicking or
dragging here moves as_of.
"""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolTip,
    QWidget,
)

from factlines import KnowledgeGraph
from factlines.core import temporal
from factlines.core.histogram import patched
from factlines.core.store import Touched
from factlines.core.store.changes import Outline
from factlines.ui.look import style
from factlines.ui.panels.graph_query import GraphQuery
from factlines.ui.session.state import AppState

REFRESH_MS = 150
HEIGHT = 22
PX_PER_BIN = 3
MARK_PX = 3  # the as_of mark's half width and a pixel of antialiasing, repainted as it moves
MAX_BINS = 600
# A write of more facts than this has its counts read again: each fact moves up to every bin.
BROUGHT_IN_AT_MOST = 200
_EPOCH = date(1970, 1, 1).toordinal()
VALID_LIGHT, VALID_DARK = QColor(78, 121, 167, 70), QColor(111, 155, 209, 90)
STARTS = QColor("#2e7d32")
ENDS = QColor("#c62828")


class TimeHistogram(QWidget):
    """The histogram (object name ``timeHistogram``), aligned with ``slider``."""

    def __init__(self, state: AppState, slider: QSlider, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timeHistogram")
        self.setFixedHeight(HEIGHT)
        self.setMinimumWidth(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setToolTip("Facts valid over time (pale), starts (green) and ends (red)")
        self._state = state
        self._slider = slider
        self.data: dict = _no_counts()
        self.bins = 0
        self._not_counted = ""  # why, in words, when the counts could not be read
        self._mark_x: int | None = None  # where as_of was last marked, None: not marked
        # Asked again on an open and after writes by the query itself; here for a new width.
        self.query = GraphQuery(
            state, self._count, _no_counts(), "the histogram's counts", self, self._bring_in
        )
        self.query.found.connect(self._counted)
        self.query.failed.connect(self._failed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        slider.installEventFilter(self)
        slider.rangeChanged.connect(lambda *_: self.update())
        state.asOfChanged.connect(self._as_of_moved)
        self.refresh()

    def sizeHint(self) -> QSize:
        return QSize(600, HEIGHT)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._slider and event.type() in (QEvent.Type.Resize, QEvent.Type.Move):
            self.update()
        return False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._wanted_bins() != self.bins:
            self._timer.start()

    @property
    def busy(self) -> bool:
        """The counts are being read, or will be once the width has settled."""
        return self.query.busy or self._timer.isActive()

    def _wanted_bins(self) -> int:
        return max(10, min(MAX_BINS, self._slider.width() // PX_PER_BIN))

    def refresh(self) -> None:
        """Read the counts again for the width there is now."""
        self._timer.stop()
        self.bins = self._wanted_bins()
        self.query.refresh_now()

    def _count(self, kg: KnowledgeGraph) -> dict:
        # This runs on the worker thread: it reads nothing of the widget's but
        # the number of bins, which a newer question (a new width) is asked with.
        return kg.validity_histogram(self.bins)

    def _bring_in(self, touched: Touched) -> bool:
        """Move the counts a write of ours changed; False: they must be read again."""
        if touched.everything or self._not_counted:
            return False
        if not touched.facts:
            return True  # entities or settings: no fact's time moved
        outlines = touched.outlines()
        if outlines is None or len(outlines) > BROUGHT_IN_AT_MOST:
            return False
        data = patched(self.data, [(_times(before), _times(after)) for before, after in outlines])
        if data is not None:
            self._counted(data)
        return data is not None

    def _counted(self, data: dict) -> None:
        self.data, self._not_counted = data, ""
        self.update()

    def _failed(self, words: str) -> None:
        self.data, self._not_counted = _no_counts(), words
        self.update()

    # ── The slider's scale ────────────────────────────────────────────────

    def _scale(self) -> tuple[float, float, float, float]:
        """(x of the slider's minimum here, pixels across its range, minimum, maximum)."""
        slider = self._slider
        option = QStyleOptionSlider()
        slider.initStyleOption(option)
        control = QStyle.ComplexControl.CC_Slider
        groove = slider.style().subControlRect(
            control, option, QStyle.SubControl.SC_SliderGroove, slider
        )
        handle = slider.style().subControlRect(
            control, option, QStyle.SubControl.SC_SliderHandle, slider
        )
        window = self.window()
        offset = slider.mapTo(window, QPoint(0, 0)).x() - self.mapTo(window, QPoint(0, 0)).x()
        left = offset + groove.x() + handle.width() / 2
        return left, max(1.0, groove.width() - handle.width()), slider.minimum(), slider.maximum()

    def x_of(self, seconds: float, scale: tuple | None = None) -> float:
        """Where the instant ``seconds`` (POSIX) is, across this widget, on the slider's scale
        (``scale``: :meth:`_scale`'s answer, when many are placed at once)."""
        left, span, low, high = scale or self._scale()
        ordinal = seconds / 86400 + _EPOCH
        return left + (ordinal - low) / max(1, high - low) * span

    def day_at(self, x: float) -> date:
        left, span, low, high = self._scale()
        ordinal = round(low + (x - left) / span * (high - low))
        return date.fromordinal(min(max(ordinal, low), high))

    # ── Painting ──────────────────────────────────────────────────────────

    def _as_of_moved(self, _value=None) -> None:
        """Repaint the strips under the old and the new mark: the counts stay as they are."""
        at = self._state.as_of_posix
        for x in (self._mark_x, None if at is None else round(self.x_of(at))):
            if x is not None:
                self.update(QRect(x - MARK_PX, 0, 2 * MARK_PX, self.height()))

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        height = self.height() - 2
        edges, valid = self.data["edges"], self.data["valid"]
        if edges:
            scale = self._scale()
            xs = [self.x_of(edge, scale) for edge in edges]
            most = max(valid) or 1
            events = max(max(self.data["starts"]), max(self.data["ends"])) or 1
            columns, starts, ends = [], [], []
            shown = event.rect()
            for i, count in enumerate(valid):
                x0, x1 = xs[i], max(xs[i + 1], xs[i] + 1)
                if x1 < shown.left() or x0 > shown.right() + 1:  # not repainted
                    continue
                if count:
                    h = max(1.0, height * count / most)
                    columns.append(QRectF(x0, height + 1 - h, x1 - x0, h))
                half = (x1 - x0) / 2
                if n := self.data["starts"][i]:
                    h = max(2.0, 0.7 * height * n / events)
                    starts.append(QRectF(x0, height + 1 - h, max(1.0, half), h))
                if n := self.data["ends"][i]:
                    h = max(2.0, 0.7 * height * n / events)
                    ends.append(QRectF(x0 + half, height + 1 - h, max(1.0, half), h))
            painter.setPen(Qt.PenStyle.NoPen)
            for rects, color in (
                (columns, VALID_DARK if style.is_dark_variant() else VALID_LIGHT),
                (starts, STARTS),
                (ends, ENDS),
            ):
                painter.setBrush(color)
                painter.drawRects(rects)
        at = self._state.as_of_posix
        if at is not None:
            pen = QPen(QColor(style.theme().cursor_color))
            pen.setWidth(2)
            painter.setPen(pen)
            self._mark_x = round(self.x_of(at))
            painter.drawLine(QPoint(self._mark_x, 0), QPoint(self._mark_x, self.height()))
        else:
            self._mark_x = None
        painter.end()

    # ── Pointing ──────────────────────────────────────────────────────────

    def bin_at(self, x: float) -> int:
        edges, scale = self.data["edges"], self._scale()
        xs = [self.x_of(edge, scale) for edge in edges]
        return next((i for i in range(len(xs) - 1) if xs[i] <= x < xs[i + 1]), -1)

    def words_at(self, x: float) -> str:
        i = self.bin_at(x)
        if i < 0:
            return self._not_counted or "No dated facts here"
        data = self.data
        start = temporal.day_of_posix(data["edges"][i])
        end = temporal.day_of_posix(data["edges"][i + 1])
        return (
            f"{start} – {end}: {data['valid'][i]:,} facts valid, "
            f"{data['starts'][i]:,} started, {data['ends'][i]:,} ended"
        )

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            QToolTip.showText(event.globalPos(), self.words_at(event.pos().x()), self)
            return True
        return super().event(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._scrub(event.position().x())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._scrub(event.position().x())

    def _scrub(self, x: float) -> None:
        self._state.set_as_of(self.day_at(x).isoformat())


def _times(outline: Outline | None) -> tuple | None:
    return None if outline is None else (outline.valid_from, outline.valid_to)


def _no_counts() -> dict:
    """What the histogram holds with no dated facts, no graph, or no counts read."""
    return {"edges": [], "valid": [], "starts": [], "ends": []}
