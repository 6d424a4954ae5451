"""The labels of the chart's vertical lines (as_of, today): a boxed text beside its line at the
top of the view, on the side with room, always whole inside the view.

pyqtgraph's own line label hangs off its line: near the view's left edge it was cut off, and
while the line was dragged there Qt left pieces of it painted ("ghosts") until the next full
repaint. These labels are children of the view box itself, in its pixels: placed where they fit,
never clipped, and every move tells Qt the old and the new geometry.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsObject

PAD_X = 4.0  # between the text and the box, across
PAD_Y = 1.0  # and down
GAP = 2.0  # between the line and the box
TOP = 2.0  # between the view's top and the box


class LineLabel(QGraphicsObject):
    """The label of ``line`` in ``view``: on its preferred side of the line where it fits whole
    and clear of ``avoid`` (another label), else on the other side, else under ``avoid``."""

    moved = Signal()  # its box changed (a bar's date labels keep clear of it)

    def __init__(
        self,
        view: pg.ViewBox,
        line: pg.InfiniteLine,
        *,
        prefer_left: bool,
        avoid: LineLabel | None = None,
    ):
        super().__init__(view)  # the view box's coordinates are the view's pixels
        self._view = view
        self._line = line
        self._prefer_left = prefer_left
        self._avoid = avoid
        self._text = ""
        self._box = QRectF()
        self._font = QFont()
        self._text_color = QColor()
        self._fill = QColor()
        self._border: QColor | None = None
        self.setZValue(line.zValue() + 100)  # over the bars and the lines, under no menu
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # the line under it stays draggable
        line.sigPositionChanged.connect(self.place)
        view.sigXRangeChanged.connect(self.place)
        view.sigResized.connect(self.place)
        if avoid is not None:
            avoid.moved.connect(self.place)

    def set_colors(self, text, fill, border=None) -> None:
        """Text, fill and (optionally) border colours, as pyqtgraph's ``mkColor`` takes them."""
        self._text_color = pg.mkColor(text)
        self._fill = pg.mkColor(fill)
        self._border = None if border is None else pg.mkColor(border)
        self.update()

    def set_text(self, text: str) -> None:
        """Show ``text`` beside the line ("" hides the label)."""
        if text != self._text:
            self._text = text
            self.place()

    def text(self) -> str:
        return self._text

    def box(self) -> QRectF:
        """Where the label is, in the view box's pixels (empty while hidden)."""
        return QRectF(self._box)

    def place(self, *_args) -> None:
        """Put the label beside the line where it fits whole; hide it when the line is hidden
        or out of view."""
        box = self._fitted_box()
        if box != self._box:
            self.prepareGeometryChange()
            self._box = box
            self.setVisible(not box.isEmpty())
            self.update()
            self.moved.emit()

    def _fitted_box(self) -> QRectF:
        area = self._view.rect()
        if not self._text or not self._line.isVisible() or area.isEmpty():
            return QRectF()
        x = self._view.mapFromView(QPointF(self._line.value(), 0.0)).x()
        if not area.left() <= x <= area.right():
            return QRectF()
        metrics = QFontMetricsF(self._font)
        width = round(metrics.horizontalAdvance(self._text) + 2 * PAD_X)
        height = round(metrics.height() + 2 * PAD_Y)
        top = area.top() + TOP
        left_of = QRectF(round(x - GAP - width), top, width, height)
        right_of = QRectF(round(x + GAP), top, width, height)
        beside = [left_of, right_of] if self._prefer_left else [right_of, left_of]
        fitting = [
            box for box in beside if area.left() <= box.left() and box.right() <= area.right()
        ]
        avoid = self._avoid
        taken = avoid.box() if avoid is not None and avoid.isVisible() else QRectF()
        clear = [box for box in fitting if not box.intersects(taken)]
        if clear:
            return clear[0]
        box = fitting[0] if fitting else beside[0]
        # A view narrower than the label: keep its start in view.
        box.moveLeft(max(area.left(), min(box.left(), area.right() - width)))
        if box.intersects(taken):  # no side is free: under the other label
            box.moveTop(taken.bottom() + TOP)
        return box

    def boundingRect(self) -> QRectF:
        return QRectF(self._box)

    def paint(self, p: QPainter, option=None, widget=None) -> None:
        if self._box.isEmpty():
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if self._border is None:
            p.setPen(Qt.PenStyle.NoPen)
        else:
            pen = QPen(self._border)
            pen.setWidth(0)  # cosmetic, one pixel, drawn inside the box
            p.setPen(pen)
        p.setBrush(self._fill)
        p.drawRect(self._box.adjusted(0, 0, -1, -1))
        p.setFont(self._font)
        p.setPen(self._text_color)
        p.drawText(self._box, Qt.AlignmentFlag.AlignCenter, self._text)


__all__ = ["LineLabel"]
