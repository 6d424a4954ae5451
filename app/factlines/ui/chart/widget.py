"""The Gantt chart: the selected entity's relationship intervals on a UTC time axis.

One lane per relationship (predicate + direction + other entity), grouped by predicate; bars from
``valid_from`` to ``valid_to`` with the store's meaning (a date-only end covers its whole last
day); the ``as_of`` cursor bound both ways to :class:`AppState`; the chart is an editor (drag an
end, context menu, double-click).

Drawing is batched: every bar is painted by one :class:`BarsItem` from the numpy arrays of
:mod:`factlines.ui.chart.layout`, one ``drawRects`` per style group (colour x valid at as_of x
confidence step), in device pixels so that an instant stays visible and the open-end arrows and
unknown-start fades keep their size at every zoom. An ``as_of`` change recomputes one boolean
array and repaints; it never rebuilds anything. Picking is an array search, not Qt hit-testing.
"""

from __future__ import annotations

import heapq
import html
import math
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from pyqtgraph import exporters
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
    QPicture,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QMenu,
    QScrollBar,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from factlines.core import temporal
from factlines.core.store import describe
from factlines.ui import style
from factlines.ui.actions import FactActions
from factlines.ui.chart import layout as gl
from factlines.ui.chart import look, pg_adapter
from factlines.ui.painting import paint_with_the_window
from factlines.ui.state import AppState
from factlines.ui.style import PALETTE

X_MIN = temporal.to_posix("1800-01-01")
X_MAX = temporal.to_posix("2200-01-01")


def _mix(color: QColor, alpha: float) -> QColor:
    c = QColor(color)
    c.setAlphaF(max(0.0, min(1.0, alpha)))
    return c


def close_path_data(d: str) -> str:
    """SVG path data with each ``Z`` (close) written as a line back to the subpath's start.

    Qt 6's SVG generator closes subpaths with ``Z``; pyqtgraph 0.14's SVG exporter reads path
    data as ``x,y`` tokens only and fails on it (any plot's export does). Same drawing.
    """
    out: list[str] = []
    start: str | None = None
    for token in d.split():
        while token[:1] in ("Z", "z"):
            if start is not None:
                out.append("L" + start)
            token = token[1:]
        if not token:
            continue
        if token[0] in "Mm":
            start = token[1:]
        out.append(token)
    return " ".join(out)


class BarsItem(pg.GraphicsObject):
    """Every bar, lane stripe, conflict span and the selection, painted from arrays."""

    def __init__(self, chart: GanttChart):
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self._chart = chart
        self._rect = QRectF()
        self.layout = gl.empty_layout()
        self.valid = np.ones(0, dtype=bool)
        self.selected = -1
        self.hovered = -1
        self.preview: tuple[int, str, float, str] | None = None  # bar, side, posix, value
        self._drag: tuple[int, str] | None = None
        self._rects = pg_adapter.RectArray()
        self._styles: dict[int, tuple[QBrush, QPen, QColor]] = {}
        self.paint_count = 0

    # Geometry: the item covers the view; it paints only what is visible.
    def set_view_rect(self, rect: QRectF) -> None:
        self.prepareGeometryChange()
        self._rect = QRectF(rect)
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def _style(self, key: int, outline: bool = True) -> tuple[QBrush, QPen, QColor]:
        """Brush, pen and fill of a style group. Without outlines (a crowded view, where they
        would only blur together and cost time) pale bars get a little more fill instead."""
        style = self._styles.get((key, outline))
        if style is None:
            conf = (key % (gl.CONFIDENCE_LEVELS + 1)) / gl.CONFIDENCE_LEVELS
            valid = (key // (gl.CONFIDENCE_LEVELS + 1)) % 2 == 1
            color = QColor(PALETTE[key // (2 * (gl.CONFIDENCE_LEVELS + 1))])
            if valid:
                fill = _mix(color, 0.30 + 0.70 * conf)
                pen = QPen(color.darker(135))
            else:  # pale: not valid at as_of
                fill = _mix(color, (0.10 if outline else 0.18) + 0.16 * conf)
                pen = QPen(_mix(color, 0.45 + 0.35 * conf))
            pen.setWidthF(1.0)
            pen.setCosmetic(True)
            if not outline:
                pen = QPen(Qt.PenStyle.NoPen)
            style = (QBrush(fill), pen, fill)
            self._styles[(key, outline)] = style
        return style

    def set_valid(self, valid: np.ndarray) -> None:
        """Restyle for a new as_of: repaint only the bars whose validity flipped."""
        old, self.valid = self.valid, valid
        if old.shape != valid.shape:
            self.update()
            return
        flipped = np.flatnonzero(old != valid)
        if flipped.size > 64:
            self.update()
            return
        for i in flipped.tolist():
            self.update_bar(i)

    def update_bar(self, i: int, above: float = 0.0) -> None:
        """Schedule a repaint of bar ``i``'s row span (and ``above`` rows over it, for labels)."""
        layout = self.layout
        if not 0 <= i < layout.n or self._rect.isEmpty():
            return
        view = self._rect
        x0 = max(float(layout.start[i]), view.left())
        x1 = min(float(layout.end[i]), view.right())
        pad = (view.width()) * 0.01
        row = float(layout.row[i])
        if x1 < x0:
            return
        self.update(QRectF(x0 - pad, row - 0.5 - above, x1 - x0 + 2 * pad, 1.0 + above))

    def paint(self, p: QPainter, option=None, widget=None) -> None:
        self.paint_count += 1
        layout = self.layout
        rect = self._rect
        if rect.isEmpty() or layout.n_rows == 0:
            return
        t = p.transform()
        sx, dx, sy, dy = t.m11(), t.dx(), t.m22(), t.dy()
        x0, x1 = rect.left(), rect.right()
        y0, y1 = rect.top(), rect.bottom()
        exposed = getattr(option, "exposedRect", None) if widget is not None else None
        if exposed is not None and not exposed.isEmpty():
            # Only what Qt will show is painted: a restyle repaints a few bars, not all.
            part = exposed.intersected(rect)
            x0, x1, y0, y1 = part.left(), part.right(), part.top(), part.bottom()
        left_px, right_px = sx * rect.left() + dx, sx * rect.right() + dx
        if left_px > right_px:
            left_px, right_px = right_px, left_px
        row_px = abs(sy)
        p.save()
        p.resetTransform()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self._paint_rows(p, layout, sy, dy, y0, y1, left_px, right_px)
        idx = gl.bars_in_view(layout, x0, x1, y0, y1)
        geometry = None
        if idx.size:
            geometry = self._geometry(layout, idx, sx, dx, sy, dy, left_px, right_px)
            self._paint_bars(p, layout, idx, geometry, left_px, right_px, row_px)
        self._paint_conflicts(p, layout, sx, dx, sy, dy, x0, x1, y0, y1, left_px, right_px)
        self._paint_marks(p, layout, sx, dx, sy, dy, left_px, right_px)
        p.restore()

    def _paint_rows(self, p, layout, sy, dy, y0, y1, left_px, right_px) -> None:
        lo, hi = min(y0, y1), max(y0, y1)
        r0 = max(0, math.floor(lo))
        r1 = min(layout.n_rows - 1, math.ceil(hi))
        stripe = look.ROW_STRIPE
        header = look.HEADER_ROW
        line = QPen(look.GROUP_LINE)
        line.setCosmetic(True)
        selected_row = int(layout.row[self.selected]) if 0 <= self.selected < layout.n else -1
        p.setPen(Qt.PenStyle.NoPen)
        for r in range(r0, r1 + 1):
            top = sy * (r - 0.5) + dy
            height = sy
            band = QRectF(left_px, top, right_px - left_px, height).normalized()
            if r == selected_row:
                p.fillRect(band, look.SELECTED_ROW)
            elif layout.row_kind[r] == 0:
                p.fillRect(band, header)
            elif layout.row_lane[r] % 2 == 1:
                p.fillRect(band, stripe)
            if layout.row_kind[r] == 0 and r > 0:
                p.setPen(line)
                p.drawLine(QPointF(left_px, band.top()), QPointF(right_px, band.top()))
                p.setPen(Qt.PenStyle.NoPen)

    def _geometry(self, layout, idx, sx, dx, sy, dy, left_px, right_px) -> dict:
        start = layout.start[idx]
        end = layout.end[idx]
        unknown = ~np.isfinite(start)
        open_ = ~np.isfinite(end)
        with np.errstate(invalid="ignore"):
            s = np.where(unknown, left_px, np.maximum(start * sx + dx, left_px - 4))
            e = np.where(open_, right_px, np.minimum(end * sx + dx, right_px + 4))
        e = np.maximum(e, s + look.MIN_BAR_PX)
        yc = layout.row[idx] * sy + dy
        h = look.BAR_FRACTION * abs(sy)
        top = yc - h / 2
        main_s = np.where(unknown, np.minimum(s + look.FADE_PX, e), s)
        arrow_s = np.where(open_, np.maximum(main_s, right_px - look.ARROW_PX), e)
        main_e = np.where(open_, arrow_s, e)
        return {
            "s": s,
            "e": e,
            "top": top,
            "h": h,
            "yc": yc,
            "main_s": main_s,
            "main_e": main_e,
            "arrow_s": arrow_s,
            "unknown": unknown,
            "open": open_,
        }

    def _draw_rects(self, p, xs, ys, ws, hs) -> None:
        rects = np.empty((len(xs), 4))
        rects[:, 0] = xs
        rects[:, 1] = ys
        rects[:, 2] = ws
        rects[:, 3] = hs
        self._rects.draw(p, rects)

    def _paint_bars(self, p, layout, idx, g, left_px, right_px, row_px) -> None:
        """One drawRects per style group: every visible bar's rectangle is written once, in
        group order, and each group draws its slice; fades and arrows follow per group."""
        levels = gl.CONFIDENCE_LEVELS + 1
        key = (layout.color[idx] * 2 + self.valid[idx]) * levels + layout.conf_level[idx]
        order = np.argsort(key, kind="stable")
        sorted_keys = key[order]
        bounds = np.flatnonzero(np.diff(sorted_keys)) + 1
        starts = np.concatenate(([0], bounds))
        ends = np.concatenate((bounds, [order.size]))
        h = g["h"]
        outline = order.size <= look.OUTLINE_LIMIT
        ms, me, top = g["main_s"][order], g["main_e"][order], g["top"][order]
        rects = np.empty((order.size, 4))
        rects[:, 0] = ms
        rects[:, 1] = top
        rects[:, 2] = np.maximum(me - ms, 0.0)
        rects[:, 3] = h
        unknown, open_ = g["unknown"][order], g["open"][order]
        fades_in = np.add.reduceat(unknown, starts).tolist()
        arrows_in = np.add.reduceat(open_, starts).tolist()
        for a, b, n_fades, n_arrows in zip(starts.tolist(), ends.tolist(), fades_in, arrows_in):
            brush, pen, fill = self._style(int(sorted_keys[a]), outline)
            p.setBrush(brush)
            p.setPen(pen)
            self._rects.draw_rows(p, rects, a, b)
            if n_fades:
                fades = order[a:b][unknown[a:b]]
                gradient = QLinearGradient(left_px, 0, left_px + look.FADE_PX, 0)
                gradient.setColorAt(0.0, _mix(fill, 0.0))
                gradient.setColorAt(1.0, fill)
                p.setBrush(QBrush(gradient))
                p.setPen(Qt.PenStyle.NoPen)
                width = g["main_s"][fades] - g["s"][fades]
                self._draw_rects(p, g["s"][fades], g["top"][fades], width, h)
            if n_arrows:
                path = QPainterPath()
                tip = right_px - 1
                for i in order[a:b][open_[a:b]].tolist():
                    x, t = float(g["arrow_s"][i]), float(g["top"][i])
                    path.addPolygon(
                        QPolygonF(
                            [
                                QPointF(x, t - 2),
                                QPointF(max(x + 3, tip), t + h / 2),
                                QPointF(x, t + h + 2),
                            ]
                        )
                    )
                    path.closeSubpath()
                p.setBrush(brush)
                p.setPen(pen)
                p.drawPath(path)

    def _paint_conflicts(self, p, layout, sx, dx, sy, dy, x0, x1, y0, y1, left_px, right_px):
        if layout.conflict_row.size == 0:
            return
        lo, hi = min(y0, y1), max(y0, y1)
        show = np.flatnonzero(
            (layout.conflict_row >= lo - 1)
            & (layout.conflict_row <= hi + 1)
            & (layout.conflict_start <= x1)
            & (layout.conflict_end >= x0)
        )
        if show.size == 0:
            return
        with np.errstate(invalid="ignore"):
            s = np.maximum(
                np.nan_to_num(layout.conflict_start[show] * sx + dx, neginf=left_px), left_px
            )
            e = np.minimum(
                np.nan_to_num(layout.conflict_end[show] * sx + dx, posinf=right_px), right_px
            )
        e = np.maximum(e, s + look.MIN_BAR_PX)
        h = look.CONFLICT_FRACTION * abs(sy)
        top = layout.conflict_row[show] * sy + dy - h / 2
        p.setBrush(QBrush(_mix(look.CONFLICT_COLOR, 0.85), Qt.BrushStyle.BDiagPattern))
        pen = QPen(_mix(look.CONFLICT_COLOR, 0.9))
        pen.setCosmetic(True)
        p.setPen(pen)
        self._draw_rects(p, s, top, e - s, h)

    def _paint_marks(self, p, layout, sx, dx, sy, dy, left_px, right_px) -> None:
        """The hovered and selected bars' outlines, the selection's dates, a drag's preview."""
        font = QFont(p.font())
        font.setPointSizeF(look.MARK_POINT_SIZE)
        p.setFont(font)
        for i, color, width in (
            (self.hovered, look.HOVER_OUTLINE, 1.0),
            (self.selected, look.SELECTED_OUTLINE, 2.0),
        ):
            if not 0 <= i < layout.n:
                continue
            box = self._bar_box(layout, i, sx, dx, sy, dy, left_px, right_px)
            pen = QPen(QColor(color))
            pen.setWidthF(width)
            pen.setCosmetic(True)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(box.adjusted(-1.5, -1.5, 1.5, 1.5))
        if 0 <= self.selected < layout.n and self.preview is None:
            box = self._bar_box(layout, self.selected, sx, dx, sy, dy, left_px, right_px)
            fact = layout.facts[self.selected]
            self._label_ends(p, box, fact["valid_from"], fact["valid_to"], left_px, right_px)
        if self.preview is not None:
            i, side, posix, value = self.preview
            box = self._bar_box(layout, i, sx, dx, sy, dy, left_px, right_px)
            x = posix * sx + dx
            if side == "end":
                box.setRight(max(x, box.left() + look.MIN_BAR_PX))
            else:
                box.setLeft(min(x, box.right() - look.MIN_BAR_PX))
            pen = QPen(QColor(look.SELECTED_OUTLINE))
            pen.setStyle(Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            p.setPen(pen)
            p.setBrush(QBrush(look.PREVIEW_FILL))
            p.drawRect(box)
            fact = layout.facts[i]
            start = value if side == "start" else fact["valid_from"]
            end = value if side == "end" else fact["valid_to"]
            self._label_ends(p, box, start, end, left_px, right_px)

    def _label_ends(self, p, box: QRectF, start, end, left_px, right_px) -> None:
        metrics = QFontMetrics(p.font())
        p.setPen(QColor(look.TEXT_COLOR))
        y = box.center().y() - box.height() / 2 - 3
        if box.right() < left_px or box.left() > right_px:
            return
        if start is not None and box.left() > left_px:
            text = start
            w = metrics.horizontalAdvance(text)
            p.drawText(QPointF(max(left_px + 2, box.left() - w / 2), y), text)
        if end is not None and left_px < box.right() < right_px:
            text = end
            w = metrics.horizontalAdvance(text)
            p.drawText(QPointF(min(right_px - w - 2, box.right() - w / 2), y), text)

    def cancel_drag(self) -> None:
        self._drag = None
        self.preview = None

    def _bar_box(self, layout, i, sx, dx, sy, dy, left_px, right_px) -> QRectF:
        start, end = layout.start[i], layout.end[i]
        s = left_px if not np.isfinite(start) else max(start * sx + dx, left_px - 4)
        e = right_px if end == np.inf else min(end * sx + dx, right_px + 4)
        e = max(e, s + look.MIN_BAR_PX)
        h = look.BAR_FRACTION * abs(sy)
        yc = layout.row[i] * sy + dy
        return QRectF(s, yc - h / 2, e - s, h)

    # ── Events: picking by array search ──────────────────────────────────
    def hoverEvent(self, ev) -> None:
        chart = self._chart
        if ev.isExit():
            self._set_hover(-1)
            self.unsetCursor()
            return
        pos = ev.pos()
        handle = chart.handle_at(pos.x(), pos.y())
        i = chart.bar_at(pos.x(), pos.y())
        if handle is not None:
            ev.acceptDrags(Qt.MouseButton.LeftButton)
            self.setCursor(Qt.CursorShape.SizeHorCursor)
        elif i >= 0:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self.unsetCursor()
        if i >= 0:
            ev.acceptClicks(Qt.MouseButton.LeftButton)
            ev.acceptClicks(Qt.MouseButton.RightButton)
        self._set_hover(i)
        self.setToolTip(chart.tooltip(i, pos.x()) if i >= 0 else "")

    def _set_hover(self, i: int) -> None:
        if i != self.hovered:
            self.update_bar(self.hovered, 0.5)
            self.hovered = i
            self.update_bar(i, 0.5)

    def mouseClickEvent(self, ev) -> None:
        chart = self._chart
        pos = ev.pos()
        i = chart.bar_at(pos.x(), pos.y())
        if i < 0:
            ev.ignore()
            return
        ev.accept()
        if ev.button() == Qt.MouseButton.LeftButton:
            chart.select_bar(i)
            if ev.double():
                chart.edit_bar(i)
        elif ev.button() == Qt.MouseButton.RightButton:
            chart.select_bar(i)
            menu = chart.bar_menu(i, pos.x())
            menu.popup(ev.screenPos().toPoint())

    def mouseDragEvent(self, ev) -> None:
        chart = self._chart
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            down = ev.buttonDownPos()
            handle = chart.handle_at(down.x(), down.y())
            if handle is None:
                ev.ignore()
                return
            self._drag = handle
            chart.select_bar(handle[0])
        if self._drag is None:
            ev.ignore()
            return
        ev.accept()
        i, side = self._drag
        value, posix = chart.drag_value(i, side, ev.pos().x())
        self.preview = (i, side, posix, value)
        self.update()
        if ev.isFinish():
            self._drag = None
            self.preview = None
            self.update()
            chart.commit_drag(i, side, value)


class LaneAxis(pg.AxisItem):
    """The left axis: group headers (predicate, colour swatch) and lane labels, elided."""

    def __init__(self, chart: GanttChart):
        super().__init__("left")
        self._chart = chart
        self.setWidth(look.LANE_AXIS_WIDTH)
        self.setStyle(showValues=False)
        self._cache: QPicture | None = None
        self._cache_key: tuple | None = None

    def tickValues(self, minVal, maxVal, size):
        return []

    def paint(self, p: QPainter, *args) -> None:
        """Replay the labels from a picture; redraw it only when lanes, scroll, size or the
        selected row changed (an as_of step changes none of them)."""
        chart = self._chart
        layout = chart.bars.layout
        vb = self.linkedView()
        if vb is None or layout.n_rows == 0:
            return
        selected = chart.bars.selected
        bounds = self.boundingRect()
        origin = self.mapFromScene(vb.mapViewToScene(QPointF(0, 0)))
        key = (
            chart.build_count,  # not id(layout): ids of freed layouts are reused
            tuple(vb.viewRange()[1]),
            int(layout.row[selected]) if 0 <= selected < layout.n else -1,
            bounds.width(),
            bounds.height(),
            origin.y(),
        )
        if key != self._cache_key or self._cache is None:
            picture = QPicture()
            painter = QPainter(picture)
            try:
                self._draw_labels(painter, layout, vb)
            finally:
                painter.end()
            self._cache, self._cache_key = picture, key
        self._cache.play(p)

    def _draw_labels(self, p: QPainter, layout: gl.Layout, vb) -> None:
        chart = self._chart
        (y0, y1) = vb.viewRange()[1]
        lo, hi = min(y0, y1), max(y0, y1)
        r0 = max(0, math.floor(lo))
        r1 = min(layout.n_rows - 1, math.ceil(hi))
        bounds = self.boundingRect()
        width = bounds.width()

        def row_y(r: float) -> float:
            return self.mapFromScene(vb.mapViewToScene(QPointF(0, r))).y()

        top_y = row_y(lo)
        bottom_y = row_y(hi)
        p.save()
        p.setClipRect(QRectF(0, min(top_y, bottom_y), width, abs(bottom_y - top_y)))
        base = QFont(p.font())
        base.setPointSizeF(look.LABEL_POINT_SIZE)
        bold = QFont(base)
        bold.setBold(True)
        plain_metrics, bold_metrics = QFontMetrics(base), QFontMetrics(bold)
        selected_row = (
            int(layout.row[chart.bars.selected]) if 0 <= chart.bars.selected < layout.n else -1
        )
        conflict_rows = set(layout.conflict_row.tolist())
        for r in range(r0, r1 + 1):
            y_top, y_bottom = row_y(r - 0.5), row_y(r + 0.5)
            band = QRectF(0, min(y_top, y_bottom), width, abs(y_bottom - y_top))
            if r == selected_row:
                p.fillRect(band, look.SELECTED_ROW)
            if layout.row_kind[r] == 0:
                header = next(h for h in layout.headers if h.row == r)
                p.fillRect(band, look.HEADER_ROW)
                p.fillRect(QRectF(6, band.center().y() - 5, 10, 10), QColor(header.color))
                p.setFont(bold)
                p.setPen(QColor(look.TEXT_COLOR))
                text = bold_metrics.elidedText(
                    header.label,
                    Qt.TextElideMode.ElideRight,
                    int(width - 28),
                )
                p.drawText(
                    QRectF(22, band.top(), width - 26, band.height()),
                    Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                    text,
                )
            else:
                lane = layout.lanes[int(layout.row_lane[r])]
                p.setFont(base)
                p.setPen(
                    QColor(look.TEXT_COLOR if lane.direction == gl.OUTGOING else look.MUTED_TEXT)
                )
                marker = 10 if r in conflict_rows else 0
                text = plain_metrics.elidedText(
                    lane.short, Qt.TextElideMode.ElideRight, int(width - 30 - marker)
                )
                p.drawText(
                    QRectF(22, band.top(), width - 26 - marker, band.height()),
                    Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                    text,
                )
                if marker:
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(look.CONFLICT_COLOR)
                    p.drawEllipse(QPointF(width - 10, band.center().y()), 3.5, 3.5)
        p.restore()
        pen = QPen(QColor(look.AXIS_COLOR))
        pen.setCosmetic(True)
        p.setPen(pen)
        p.drawLine(QPointF(width - 0.5, bounds.top()), QPointF(width - 0.5, bounds.bottom()))

    def wheelEvent(self, ev) -> None:
        self._chart.scroll_rows(-ev.delta() / 40.0)
        ev.accept()

    def mouseDragEvent(self, ev) -> None:
        ev.ignore()

    def mouseClickEvent(self, ev) -> None:
        ev.ignore()


class GanttViewBox(pg.ViewBox):
    """Zoom and pan on the time axis only; lanes scroll (shift+wheel, the scroll bar, keys)."""

    def __init__(self, chart: GanttChart):
        super().__init__(enableMenu=False, invertY=True)
        self._chart = chart
        self.setMouseEnabled(x=True, y=False)

    def wheelEvent(self, ev, axis=None) -> None:
        if ev.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier):
            self._chart.scroll_rows(-ev.delta() / 40.0)
            ev.accept()
            return
        pg_adapter.wheel_zooms_x(self, ev)

    def mouseClickEvent(self, ev) -> None:
        x = self.mapSceneToView(ev.scenePos()).x()
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            self._chart.background_menu(x).popup(ev.screenPos().toPoint())
        elif ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self._chart.setFocus()
        else:
            super().mouseClickEvent(ev)


class GanttChart(QWidget):
    """The chart widget (object name ``ganttPlot``)."""

    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ganttPlot")
        self._state = state
        self._actions = actions
        self._top = 0.0  # the first row shown
        self._entity_name: str | None = None
        self.build_count = 0  # how many times the bars were rebuilt (tests check restyles)

        self._glw = pg.GraphicsLayoutWidget()
        paint_with_the_window(self._glw.scene())
        self._glw.setBackground(look.BACKGROUND)
        self._glw.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._glw.installEventFilter(self)
        pg_adapter.central_layout(self._glw).setContentsMargins(*look.MARGINS)
        pg_adapter.central_layout(self._glw).setSpacing(look.SPACING)
        self._title = pg.LabelItem("", justify="left", color=look.TEXT_COLOR, size=look.TITLE_SIZE)
        self._glw.addItem(self._title, row=0, col=0)
        self.view = GanttViewBox(self)
        self.lane_axis = LaneAxis(self)
        self.time_axis = pg.DateAxisItem(orientation="bottom", utcOffset=0)
        self.plot = pg.PlotItem(
            viewBox=self.view, axisItems={"left": self.lane_axis, "bottom": self.time_axis}
        )
        self._glw.addItem(self.plot, row=1, col=0)
        self._legend = pg_adapter.WrapLabel(
            "", justify="left", color=look.MUTED_TEXT, size=look.LEGEND_SIZE
        )
        self._glw.addItem(self._legend, row=2, col=0)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        for axis in (self.lane_axis, self.time_axis):
            axis.setPen(pg.mkPen(look.AXIS_COLOR))
            axis.setTextPen(pg.mkPen(look.TEXT_COLOR))
        self.time_axis.setGrid(look.TIME_GRID_ALPHA)
        # Axes and labels change with the view or the entity, never with as_of: Qt keeps them
        # as device pixmaps and blits them while the bars repaint.
        for item in (self.lane_axis, self.time_axis, self._title, self._legend):
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.view.setLimits(xMin=X_MIN, xMax=X_MAX, minXRange=600.0, maxXRange=X_MAX - X_MIN)

        self.bars = BarsItem(self)
        self.view.addItem(self.bars, ignoreBounds=True)
        self.today_line = pg.InfiniteLine(
            pos=time.time(),
            angle=90,
            movable=False,
            pen=pg.mkPen(look.TODAY_COLOR, width=1, style=Qt.PenStyle.DashLine),
            label="today",
            labelOpts={
                "position": look.LINE_LABEL_POSITION,
                "color": look.MUTED_TEXT,
                "fill": look.TODAY_LABEL_FILL,
                "anchors": [(0, 0), (0, 0)],
            },
        )
        self.today_line.setZValue(5)
        self.view.addItem(self.today_line, ignoreBounds=True)
        self.cursor = pg.InfiniteLine(
            angle=90,
            movable=True,
            pen=pg.mkPen(look.CURSOR_COLOR, width=2),
            hoverPen=pg.mkPen(look.CURSOR_COLOR, width=4),
            label="as_of",
            labelOpts={
                "position": look.LINE_LABEL_POSITION,
                "anchors": [(1, 0), (1, 0)],
                "color": look.CURSOR_COLOR,
                "fill": look.CURSOR_LABEL_FILL,
                "border": pg.mkPen(look.CURSOR_COLOR),
            },
        )
        self.cursor.setZValue(10)
        self.cursor.setBounds((X_MIN, X_MAX))
        self.view.addItem(self.cursor, ignoreBounds=True)
        self.cursor.sigDragged.connect(self._cursor_dragged)

        self._scrollbar = QScrollBar(Qt.Orientation.Vertical)
        self._scrollbar.valueChanged.connect(self._scrolled)
        self._empty = QLabel()
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setObjectName("ganttEmpty")
        self._empty.setStyleSheet(
            f"color: {look.MUTED_TEXT}; font-size: {look.EMPTY_TEXT_SIZE}; padding: 24px;"
        )
        page = QWidget()
        row = QHBoxLayout(page)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self._glw, 1)
        row.addWidget(self._scrollbar)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._empty)
        self._stack.addWidget(page)

        self.toolbar = QToolBar("Chart")
        self.toolbar.setObjectName("ganttToolbar")
        self._make_actions()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.toolbar)
        box.addWidget(self._stack, 1)

        self.view.sigRangeChanged.connect(self._range_changed)
        self.view.sigResized.connect(self._apply_rows)
        state.entityChanged.connect(lambda _=None: self.reload(refit=True))
        state.graphChanged.connect(lambda: self.reload(refit=True))
        state.dataChanged.connect(lambda: self.reload(refit=False))
        state.asOfChanged.connect(self._as_of_changed)
        state.factChanged.connect(self._fact_changed)
        self.reload(refit=True)

    @property
    def canvas(self) -> pg.GraphicsLayoutWidget:
        """The graphics view the chart draws in (its viewport receives the mouse)."""
        return self._glw

    def viewport_point(self, x: float, y: float) -> QPoint:
        """Where view point ``(x, y)`` (POSIX seconds, row) is on the canvas's viewport."""
        return self._glw.mapFromScene(self.view.mapViewToScene(QPointF(x, y)))

    # ── Toolbar and keys ─────────────────────────────────────────────────
    def _make_actions(self) -> None:
        def add(name, text, tip, slot, shortcut=None):
            action = QAction(text, self)
            action.setObjectName(name)
            action.setToolTip(tip)
            action.triggered.connect(slot)
            if shortcut:
                action.setToolTip(f"{tip} ({shortcut})")
            self.toolbar.addAction(action)
            return action

        self.action_fit = add("ganttFit", "Fit", "Show every fact", self.fit, "F")
        self.action_year = add(
            "ganttAsOfYear",
            "as_of ± 1 year",
            "Zoom to a year either side of as_of (or today)",
            self.zoom_as_of_year,
            "Y",
        )
        self.action_zoom_in = add(
            "ganttZoomIn", "Zoom in", "Zoom in on time", lambda: self.zoom(0.5), "+"
        )
        self.action_zoom_out = add(
            "ganttZoomOut", "Zoom out", "Zoom out on time", lambda: self.zoom(2.0), "-"
        )
        self.toolbar.addSeparator()
        self.action_export = add(
            "ganttExport", "Export…", "Save the chart as PNG or SVG", self.export_dialog
        )

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self._glw and event.type() == QEvent.Type.KeyPress:
            return self.handle_key(event.key(), event.modifiers())
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event) -> None:
        if not self.handle_key(event.key(), event.modifiers()):
            super().keyPressEvent(event)

    def handle_key(self, key: int, modifiers=Qt.KeyboardModifier.NoModifier) -> bool:
        """The chart's keys: +/- zoom, arrows pan and scroll, F fit, Y as_of ± a year,
        Enter edits the selected fact, Delete deletes it (confirmed), Escape deselects."""
        K = Qt.Key
        if key in (K.Key_Plus, K.Key_Equal):
            self.zoom(0.5)
        elif key in (K.Key_Minus, K.Key_Underscore):
            self.zoom(2.0)
        elif key == K.Key_Left:
            self.pan(-0.15)
        elif key == K.Key_Right:
            self.pan(0.15)
        elif key == K.Key_Up:
            self.scroll_rows(-1)
        elif key == K.Key_Down:
            self.scroll_rows(1)
        elif key == K.Key_PageUp:
            self.scroll_rows(-self._rows_shown() + 1)
        elif key == K.Key_PageDown:
            self.scroll_rows(self._rows_shown() - 1)
        elif key in (K.Key_F, K.Key_Home):
            self.fit()
        elif key == K.Key_Y:
            self.zoom_as_of_year()
        elif key in (K.Key_Return, K.Key_Enter) and self.bars.selected >= 0:
            self.edit_bar(self.bars.selected)
        elif key == K.Key_Delete and self.bars.selected >= 0:
            self._actions.delete_fact(self.bars.layout.ids[self.bars.selected])
        elif key == K.Key_Escape:
            self._state.select_fact(None)
        else:
            return False
        return True

    # ── Loading ──────────────────────────────────────────────────────────
    def reload(self, refit: bool = False) -> None:
        """Query the entity's intervals and rebuild the bar arrays (not on as_of changes)."""
        state = self._state
        kg, entity = state.kg, state.entity
        facts: list[dict] = []
        conflicts: list[dict] = []
        name = None
        record = state.entity_record()
        if record is not None:
            name = record["name"]
            facts = state.entity_facts()
            conflicts = state.entity_conflicts()
        self._entity_name = name
        layout = gl.build_layout(facts, conflicts)
        self.build_count += 1
        self.bars.layout = layout
        self.bars.hovered = -1
        # A drag holds a bar's index, which may now be another fact's: it ends with the reload.
        self.bars.cancel_drag()
        self.bars.selected = layout.index_of(state.fact)
        self.bars.valid = gl.valid_mask(layout, state.as_of_posix)
        if kg is None:
            self._show_empty(
                "No knowledge graph is open.\nOpen a file or the demo to see facts on a time line."
            )
        elif entity is None:
            self._show_empty("Select an entity in the browser\nto see its facts over time.")
        elif name is None:
            self._show_empty(f"The entity “{entity}” is not in this graph any more.")
        elif layout.n == 0:
            self._show_empty(f"{name} has no facts yet.\nAdd one in the triple editor.")
        else:
            self._stack.setCurrentIndex(1)
        self._update_labels()
        self._fit_axis_width()
        if refit:
            self._top = 0.0
            self.fit()
        self._apply_rows()
        self._settle_layout()
        self._sync_cursor()
        self.bars.update()
        self.lane_axis.update()

    def _settle_layout(self) -> None:
        """Lay the chart out now (the scroll bar, the lane axis width, the wrapped labels), so
        the first paint after a reload is the final one: left to Qt's posted layout requests,
        the chart paints once with the old geometry (its axes redrawn at a stale width), then
        again."""
        page = self._stack.currentWidget().layout()
        if page is not None:
            page.activate()
        # pyqtgraph applies a new view range when it paints; apply it now, or the items it
        # moves ask for one more paint.
        pg_adapter.lay_out_now(self._glw, self.plot)

    def _show_empty(self, text: str) -> None:
        self._empty.setText(text)
        self._stack.setCurrentIndex(0)

    def _fit_axis_width(self) -> None:
        layout = self.bars.layout
        font = QFont(self.font())
        font.setPointSizeF(look.LABEL_POINT_SIZE)
        metrics = QFontMetrics(font)
        bold = QFont(font)
        bold.setBold(True)
        bold_metrics = QFontMetrics(bold)
        # Shaping 2,000 labels costs ~15 ms a selection; the widest label is among the longest
        # ones, and the column only needs its width to within its padding (clamped anyway).
        # (A lane's label is its arrow, a space and the other entity's name.)
        longest = heapq.nlargest(
            look.LABELS_MEASURED, layout.lanes, key=lambda lane: len(lane.other_name)
        )
        widest = max((metrics.horizontalAdvance(lane.short) + 40 for lane in longest), default=120)
        widest = max(
            [widest] + [bold_metrics.horizontalAdvance(h.label) + 30 for h in layout.headers]
        )
        self.lane_axis.setWidth(int(min(look.LANE_AXIS_MAX, max(look.LANE_AXIS_MIN, widest))))

    def _update_labels(self) -> None:
        layout = self.bars.layout
        if self._entity_name is None:
            self._title.setText("")
            self._legend.setText("")
            return
        conflicts = len(layout.conflicts)
        parts = [
            f"<b>{html.escape(self._entity_name)}</b>",
            f"{layout.n} fact{'s' * (layout.n != 1)} on {len(layout.lanes)} "
            f"lane{'s' * (len(layout.lanes) != 1)}",
        ]
        if conflicts:
            parts.append(
                f"<span style='color:{look.CONFLICT_TEXT}'>"
                f"{conflicts} conflict{'s' * (conflicts != 1)}</span>"
            )
        self._title.setText(" · ".join(parts))
        swatches = " &nbsp; ".join(
            f"<span style='color:{h.color}'>■</span>&nbsp;{html.escape(h.predicate)}"
            for h in layout.headers
        )
        keys = (
            "full colour: valid at as_of · pale: not valid · opacity: confidence · "
            "▶ open end · fade: unknown start · "
            f"<span style='color:{look.CONFLICT_TEXT}'>▨ conflict</span> · "
            f"<span style='color:{look.CURSOR_COLOR}'>│ as_of</span> · ┆ today"
        )
        self._legend.setText(f"{swatches}<br>{keys}")

    # ── as_of, selection: restyle only ───────────────────────────────────
    def _as_of_changed(self, _value=None) -> None:
        self.bars.set_valid(gl.valid_mask(self.bars.layout, self._state.as_of_posix))
        self._sync_cursor()

    def _sync_cursor(self) -> None:
        at = self._state.as_of_posix
        if at is None:
            self.cursor.hide()
            return
        self.cursor.show()
        pg_adapter.set_line_label(self.cursor, f"as of {self._state.as_of}")
        if self.cursor.value() != at:
            self.cursor.setValue(at)  # emits sigPositionChanged only: no loop back to the state

    def _cursor_dragged(self, line=None) -> None:
        as_day = temporal.is_date(self._state.as_of)
        value = gl.start_value(self.cursor.value(), as_day, self._seconds_per_px())
        try:
            self._state.set_as_of(value)
        except ValueError as exc:
            self._state.message.emit(f"as_of refused: {exc}")
        self._sync_cursor()

    def _fact_changed(self, triple_id=None) -> None:
        self.bars.selected = self.bars.layout.index_of(triple_id)
        if self.bars.selected >= 0:
            self.ensure_row_visible(int(self.bars.layout.row[self.bars.selected]))
        self.bars.update()
        self.lane_axis.update()

    # ── View: rows, zoom, pan ────────────────────────────────────────────
    def _rows_shown(self) -> float:
        height = max(1.0, self.view.height())
        n = self.bars.layout.n_rows
        return max(height / look.LANE_PX_MAX, min(float(max(n, 1)), height / look.LANE_PX_MIN))

    def _apply_rows(self, *_args) -> None:
        n = self.bars.layout.n_rows
        shown = self._rows_shown()
        max_top = max(0.0, n - shown)
        self._top = min(max(0.0, self._top), max_top)
        self.view.setYRange(self._top - 0.5, self._top - 0.5 + shown, padding=0)
        self._scrollbar.blockSignals(True)
        self._scrollbar.setRange(0, math.ceil(max_top))
        self._scrollbar.setPageStep(max(1, int(shown)))
        self._scrollbar.setValue(round(self._top))
        self._scrollbar.blockSignals(False)
        self._scrollbar.setVisible(max_top > 0)

    def _scrolled(self, value: int) -> None:
        self._top = float(value)
        self._apply_rows()

    def scroll_rows(self, rows: float) -> None:
        self._top += rows
        self._apply_rows()

    def ensure_row_visible(self, row: int) -> None:
        shown = self._rows_shown()
        if row < self._top:
            self._top = float(row) - 1
        elif row > self._top + shown - 1:
            self._top = row - shown + 2
        else:
            return
        self._apply_rows()

    def _range_changed(self, *_args) -> None:
        self.bars.set_view_rect(self.view.viewRect())

    def _seconds_per_px(self) -> float:
        width = self.view.width()
        (x0, x1) = self.view.viewRange()[0]
        return (x1 - x0) / width if width > 0 else 1.0

    def x_range(self) -> tuple[float, float]:
        (x0, x1) = self.view.viewRange()[0]
        return float(x0), float(x1)

    def set_x_range(self, start: float, end: float) -> None:
        self.view.setXRange(start, end, padding=0)

    def fit(self) -> None:
        self.today_line.setValue(time.time())
        lo, hi = gl.fit_range(self.bars.layout, time.time(), self._state.as_of_posix)
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
        if hi - lo < 600:
            return
        self.set_x_range(max(X_MIN, lo), min(X_MAX, hi))

    def pan(self, fraction: float) -> None:
        x0, x1 = self.x_range()
        shift = (x1 - x0) * fraction
        self.set_x_range(x0 + shift, x1 + shift)

    # ── Picking ──────────────────────────────────────────────────────────
    def _tolerance(self, px: float) -> float:
        return px * self._seconds_per_px()

    def bar_at(self, x: float, y: float) -> int:
        """The bar under view point ``(x, y)`` (view coordinates), or -1."""
        return gl.pick(self.bars.layout, x, y, self._tolerance(look.PICK_PX), look.BAR_FRACTION / 2)

    def handle_at(self, x: float, y: float) -> tuple[int, str] | None:
        return gl.pick_handle(
            self.bars.layout, x, y, self._tolerance(look.HANDLE_PX), look.BAR_FRACTION / 2
        )

    def view_point(self, triple_id: str, where: str = "middle") -> QPointF:
        """The view coordinates of a fact's bar: its ``start``, ``end`` or ``middle``."""
        layout = self.bars.layout
        i = layout.index_of(triple_id)
        if i < 0:
            raise KeyError(triple_id)
        x0, x1 = self.x_range()
        start = max(float(layout.start[i]), x0)
        end = min(float(layout.end[i]), x1)
        x = {"start": start, "end": end, "middle": (start + end) / 2}[where]
        return QPointF(x, float(layout.row[i]))

    # ── Selection, editing ───────────────────────────────────────────────
    def select_bar(self, i: int) -> None:
        layout = self.bars.layout
        self._glw.setFocus()
        self._state.select_fact(layout.ids[i] if 0 <= i < layout.n else None)

    def edit_bar(self, i: int) -> None:
        self._actions.edit_fact_dialog(self.bars.layout.ids[i])

    def drag_value(self, i: int, side: str, x: float) -> tuple[str, float]:
        """The value dragging bar ``i``'s ``side`` to ``x`` gives, and where it puts that side."""
        return gl.drag_value(self.bars.layout, i, side, x, self._seconds_per_px())

    def commit_drag(self, i: int, side: str, value: str) -> bool:
        fact = self.bars.layout.facts[i]
        valid_from, valid_to = fact["valid_from"], fact["valid_to"]
        if side == "end":
            valid_to = value
        else:
            valid_from = value
        if (valid_from, valid_to) == (fact["valid_from"], fact["valid_to"]):
            return False
        return self._actions.set_dates(fact["id"], valid_from, valid_to)

    def here_value(self, i: int, x: float) -> str:
        """The value "End fact here" writes for a click at ``x``: the clicked day when the fact
        is kept in days (a day as valid_to covers that day), else an instant at this zoom."""
        fact = self.bars.layout.facts[i]
        as_of = self._state.as_of
        if gl.fact_uses_days(fact, default=as_of is None or temporal.is_date(as_of)):
            return gl.day_of(x)
        return gl.snap_instant(x, self._seconds_per_px())

    def bar_menu(self, i: int, x: float) -> QMenu:
        """The context menu of bar ``i`` clicked at ``x`` (POSIX); actions have object names."""
        layout = self.bars.layout
        fact = layout.facts[i]
        triple_id = fact["id"]
        is_open = fact["valid_to"] is None
        as_of_here = self._as_of_value_at(x)
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        title = menu.addAction(describe(fact))
        title.setEnabled(False)
        menu.addSeparator()
        actions = self._actions

        def add(name, text, slot, enabled=True, tip=""):
            action = menu.addAction(text)
            action.setObjectName(name)
            action.setEnabled(enabled)
            if tip:
                action.setToolTip(tip)
            action.triggered.connect(slot)
            return action

        here = self.here_value(i, x)
        ended_tip = "" if is_open else f"already ended on {fact['valid_to']}"
        add(
            "ganttEndHere",
            f"End fact here ({here})",
            lambda: actions.end_fact(triple_id, here),
            is_open,
            ended_tip,
        )
        as_of = self._state.as_of
        at_text = (
            f"End fact at as_of ({as_of})"
            if as_of
            else f"End fact at as_of (today, {temporal.today()})"
        )
        add(
            "ganttEndAtAsOf",
            at_text,
            lambda: actions.end_fact(triple_id, as_of),
            is_open,
            ended_tip,
        )
        if not is_open:
            add(
                "ganttMoveEnd",
                f"Move end here ({here})",
                lambda: actions.set_dates(triple_id, fact["valid_from"], here),
            )
        menu.addSeparator()
        add(
            "ganttReplace",
            "Replace with…",
            lambda: actions.replace_fact_dialog(triple_id),
            is_open,
            ended_tip,
        )
        add("ganttEdit", "Edit…", lambda: actions.edit_fact_dialog(triple_id))
        add("ganttDelete", "Delete…", lambda: actions.delete_fact(triple_id))
        menu.addSeparator()
        add("ganttZoomFact", "Zoom to this fact", lambda: self.zoom_to_fact(triple_id))
        add(
            "ganttSetAsOf",
            f"Set as_of here ({as_of_here})",
            lambda: self._state.set_as_of(as_of_here),
        )
        return menu

    def background_menu(self, x: float) -> QMenu:
        as_of_here = self._as_of_value_at(x)
        menu = QMenu(self)

        def add(name, text, slot, enabled=True):
            action = menu.addAction(text)
            action.setObjectName(name)
            action.setEnabled(enabled)
            action.triggered.connect(slot)
            return action

        add("ganttFitMenu", "Fit all facts", self.fit)
        add("ganttAsOfYearMenu", "Zoom to as_of ± 1 year", self.zoom_as_of_year)
        menu.addSeparator()
        add(
            "ganttSetAsOf",
            f"Set as_of here ({as_of_here})",
            lambda: self._state.set_as_of(as_of_here),
        )
        add(
            "ganttAllTime",
            "All time (no as_of)",
            lambda: self._state.set_as_of(None),
            self._state.as_of is not None,
        )
        menu.addSeparator()
        add("ganttExportMenu", "Export as PNG or SVG…", self.export_dialog)
        return menu

    def _as_of_value_at(self, x: float) -> str:
        """The as_of a click at ``x`` means: the day clicked in, or an instant when as_of is one."""
        as_day = self._state.as_of is None or temporal.is_date(self._state.as_of)
        return gl.day_of(x) if as_day else gl.snap_instant(x, self._seconds_per_px())

    def zoom_to_fact(self, triple_id: str) -> None:
        i = self.bars.layout.index_of(triple_id)
        if i >= 0:
            self.zoom_to_bar(i)

    def zoom_to_bar(self, i: int) -> None:
        layout = self.bars.layout
        x0, _x1 = self.x_range()
        start, end = float(layout.start[i]), float(layout.end[i])
        start = start if math.isfinite(start) else min(x0, end if math.isfinite(end) else x0)
        end = end if math.isfinite(end) else max(time.time() if end > 0 else start, start + gl.DAY)
        width = max(end - start, gl.DAY)
        self.set_x_range(start - width * 0.15, end + width * 0.15)
        self.ensure_row_visible(int(layout.row[i]))

    # ── Tooltip ──────────────────────────────────────────────────────────
    def tooltip(self, i: int, x: float | None = None) -> str:
        layout = self.bars.layout
        fact = layout.facts[i]
        start, end = float(layout.start[i]), float(layout.end[i])
        frm = fact["valid_from"] or "unknown start"
        if fact["valid_to"] is None:
            to = "open (still true)"
        elif end == -math.inf:
            to = "ended, date unknown"
        elif temporal.is_date(fact["valid_to"]):
            to = f"{fact['valid_to']} (through that whole day)"
        else:
            to = fact["valid_to"]
        if math.isfinite(start) and math.isfinite(end):
            duration = gl.describe_duration(end - start + layout.in_days(i, "valid_to"))
        elif end == -math.inf:
            duration = "unknown"
        elif math.isfinite(start):
            duration = f"{gl.describe_duration(time.time() - start)} so far"
        else:
            duration = "unknown (no start)"
        rows = [
            f"<b>{html.escape(describe(fact))}</b>",
            f"{html.escape(frm)} → {html.escape(to)}",
            f"Duration: {duration}",
            f"Confidence: {gl.confidence_of(fact.get('confidence')):.2f}",
        ]
        sources = [
            f"{label}: {html.escape(str(fact[key]))}"
            for key, label in (
                ("source_closet", "closet"),
                ("source_file", "file"),
                ("source_drawer_id", "drawer"),
                ("adapter_name", "adapter"),
            )
            if fact.get(key)
        ]
        rows.append("Provenance: " + (", ".join(sources) if sources else "none recorded"))
        if fact.get("extracted_at"):
            rows.append(f"Extracted: {html.escape(style.show_instant(fact['extracted_at']))}")
        if self._state.as_of is not None:
            yes = "yes" if self.bars.valid[i] else "no"
            rows.append(f"Valid at as_of {self._state.as_of}: {yes}")
        for conflict in layout.conflicts:
            if fact["id"] in (conflict["a"], conflict["b"]):
                other = conflict["b"] if conflict["a"] == fact["id"] else conflict["a"]
                j = layout.index_of(other)
                name = layout.lanes[int(layout.lane[j])].other_name if j >= 0 else other
                span = f"{conflict['start'] or '…'} – {conflict['end'] or 'open'}"
                rows.append(
                    f"<span style='color:{look.CONFLICT_TEXT}'>"
                    f"Conflict: overlaps {html.escape(name)} ({html.escape(span)})</span>"
                )
        rows.append("<i>drag an end to change it · double-click to edit · right-click for more</i>")
        return "<br>".join(rows)

    # ── What is drawn ────────────────────────────────────────────────────
    def drawn_intervals(self) -> list[dict]:
        """The bars as drawn now: ``{id, start, end, lane, valid_at_as_of}`` from the arrays
        the painting uses (None for an unknown start or an open end). A fact that ended at an
        unknown time (MemPalace's empty ``valid_to``) has a lane but no bar, so it is left out."""
        layout = self.bars.layout
        valid = self.bars.valid
        lanes = [lane.label for lane in layout.lanes]
        return [
            {
                "id": layout.ids[i],
                "start": float(layout.start[i]) if np.isfinite(layout.start[i]) else None,
                "end": float(layout.end[i]) if np.isfinite(layout.end[i]) else None,
                "lane": lanes[int(layout.lane[i])],
                "valid_at_as_of": bool(valid[i]),
            }
            for i in range(layout.n)
            if layout.end[i] != -np.inf
        ]

    def lane_labels(self) -> list[str]:
        """Every row's label, top to bottom (group headers are the bare predicate)."""
        layout = self.bars.layout
        return [layout.row_label(r) for r in range(layout.n_rows)]

    # ── Export ───────────────────────────────────────────────────────────
    def export(self, path: str | Path) -> Path:
        """Save the chart (title, lanes, bars, legend) as PNG or SVG, chosen by the suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".png":
            # ImageExporter reports a failed save by returning False, not by raising.
            if (
                exporters.ImageExporter(pg_adapter.central_layout(self._glw)).export(str(path))
                is False
            ):
                raise OSError(f"cannot write {path}")
        elif suffix == ".svg":
            with pg_adapter.svg_path_data_rewritten(close_path_data):
                exporters.SVGExporter(pg_adapter.central_layout(self._glw)).export(str(path))
        else:
            raise ValueError(f"cannot export to {path.name!r}: use a .png or .svg file name")
        return path

    def export_dialog(self) -> None:
        name = (self._entity_name or "chart").replace("/", "_")
        path, _ = QFileDialog.getSaveFileName(
            self, "Export chart", f"{name}.png", "PNG image (*.png);;SVG drawing (*.svg)"
        )
        if not path:
            return
        if Path(path).suffix.lower() not in (".png", ".svg"):
            path += ".png"
        try:
            self.export(path)
        except (OSError, ValueError) as exc:
            self._state.message.emit(f"Export failed: {exc}")
            return
        self._state.message.emit(f"Exported the chart to {path}")


__all__ = ["GanttChart"]
