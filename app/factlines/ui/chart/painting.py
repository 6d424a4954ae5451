"""What the chart paints: the bars item, the lane axis, the title and the legend.

Drawing is batched: every bar is painted by one :class:`BarsItem` from the numpy arrays of
:mod:`factlines.ui.chart.layout`, one ``drawRects`` per style group (colour x valid at as_of x
confidence step), in device pixels so that an instant stays visible and the open-end arrows and
unknown-start fades keep their size at every zoom. An ``as_of`` change recomputes one boolean
array and repaints; it never rebuilds anything. The items paint; what the pointer does on them
is :mod:`factlines.ui.chart.interaction`'s.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Protocol

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
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
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem

from factlines.ui.chart import layout as gl
from factlines.ui.chart import look, pg_adapter
from factlines.ui.look import style
from factlines.ui.look.style import MARK, elide, palette_color, show_time


class BarEvents(Protocol):
    """Who handles the pointer on the bars (pyqtgraph's hover, click and drag events)."""

    def hover(self, ev) -> None: ...

    def click(self, ev) -> None: ...

    def drag(self, ev) -> None: ...


def _mix(color: QColor, alpha: float) -> QColor:
    c = QColor(color)
    c.setAlphaF(max(0.0, min(1.0, alpha)))
    return c


def draw_dates(p: QPainter, box: QRectF, dates, across, clear) -> list[tuple[str, QRectF]]:
    """A bar's dates (``dates``: its stored start and end) over its start and end, within
    ``across`` (left, right device pixels): below the bar where a label in ``clear`` (device
    rects), or the other date (a short bar), covers the place over it, left out where both are
    covered. Returns what was drawn where."""
    left_px, right_px = across
    if box.right() < left_px or box.left() > right_px:
        return []
    metrics = QFontMetrics(p.font())
    p.setPen(QColor(style.theme().text_color))
    start, end = dates
    ends = []
    if start is not None and box.left() > left_px:
        ends.append((show_time(start), box.left(), left_px + 2))
    if end is not None and left_px < box.right() < right_px:
        ends.append((show_time(end), box.right(), None))
    drawn = []
    for text, x, least in ends:
        w = metrics.horizontalAdvance(text)
        left = max(least, x - w / 2) if least is not None else min(right_px - w - 2, x - w / 2)
        for baseline in (box.top() - 3, box.bottom() + metrics.ascent() + 2):
            place = QRectF(left, baseline - metrics.ascent(), w, metrics.height())
            taken = [*clear, *(other for _text, other in drawn)]
            if not any(place.intersects(rect) for rect in taken):
                p.drawText(QPointF(left, baseline), text)
                drawn.append((text, place))
                break
    return drawn


def _mark_odd_sides(p, layout, idx, g, sy, dy, y0, y1, left_px, right_px) -> None:
    """A mark beside each side whose stored value the rules do not accept (drawn where the
    queries read it; the tooltip says how), and at the lane's start for such a fact that is
    valid at no instant, which has no bar."""
    if not layout.odd.any():
        return
    marks: list[tuple[float, float]] = []
    if g is not None:
        for k in np.flatnonzero(layout.odd[idx]).tolist():
            i, yc = int(idx[k]), float(g["yc"][k])
            s, e = float(g["s"][k]), float(g["e"][k])
            if layout.odd[i] & gl.ODD_START:
                marks.append((s - 13 if s > left_px + 14 else s + 2, yc))
            if layout.odd[i] & gl.ODD_END:
                marks.append((e + 2 if e < right_px - 14 else e - 13, yc))
    lo, hi = min(y0, y1), max(y0, y1)
    nowhere = np.flatnonzero(
        (layout.odd != 0)
        & ((layout.start == np.inf) | (layout.end == -np.inf))
        & (layout.row >= lo - 1)
        & (layout.row <= hi + 1)
    )
    marks += [(left_px + 3, float(layout.row[i]) * sy + dy) for i in nowhere.tolist()]
    if not marks:
        return
    font = QFont(p.font())
    font.setPointSizeF(look.MARK_POINT_SIZE)
    p.setFont(font)
    metrics = QFontMetrics(font)
    width, height = metrics.horizontalAdvance(MARK) + 2, metrics.height()
    backing = QColor(*style.theme().cursor_label_fill)  # readable over a bar as beside one
    text = QColor(style.theme().muted_text)
    for x, yc in marks:
        box = QRectF(x - 1, yc - height / 2, width, height)
        p.fillRect(box, backing)
        p.setPen(text)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, MARK)


class BarsItem(pg.GraphicsObject):
    """Every bar, lane stripe, conflict span and the selection, painted from arrays."""

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.events: BarEvents | None = None  # who handles the pointer on the bars
        self._rect = QRectF()
        self.layout = gl.empty_layout()
        self.valid = np.ones(0, dtype=bool)
        self.selected = -1
        self.hovered = -1
        self.preview: tuple[int, str, float, str] | None = None  # bar, side, posix, value
        self.keep_clear: tuple[QGraphicsItem, ...] = ()  # the selection's dates avoid these
        self.dates_drawn: list[tuple[str, QRectF]] = []  # ... as last painted, in device pixels
        self._rects = pg_adapter.RectArray()
        self._styles: dict[int, tuple[QBrush, QPen, QColor]] = {}
        self.paint_count = 0
        self.build_count = 0  # how many layouts it was given (the lane axis caches per layout)

    def set_layout(self, layout: gl.Layout, selected: int, valid: np.ndarray) -> None:
        """Paint a new layout (a reload), with bar ``selected`` selected and ``valid`` bars
        valid at as_of; nothing is hovered until the pointer moves."""
        self.build_count += 1
        self.layout = layout
        self.hovered = -1
        self.selected = selected
        self.valid = valid

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
            color = QColor(palette_color(key // (2 * (gl.CONFIDENCE_LEVELS + 1))))
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

    def forget_colors(self) -> None:
        """The palette changed: make the bars' brushes and pens again."""
        self._styles.clear()
        self.update()

    def set_valid(self, valid: np.ndarray) -> None:
        """Restyle for a new as_of: repaint only the bars in view whose validity flipped (a
        step over a 20,000-fact entity flips hundreds, most of them scrolled out of view)."""
        old, self.valid = self.valid, valid
        if old.shape != valid.shape:
            self.update()
            return
        flipped = np.flatnonzero(old != valid)
        view = self._rect
        if flipped.size and not view.isEmpty():
            flipped = flipped[
                gl.in_view(
                    self.layout, flipped, view.left(), view.right(), view.top(), view.bottom()
                )
            ]
        if flipped.size > 64:
            self.update()
            return
        for i in flipped.tolist():
            self.update_bar(i)

    def set_hovered(self, i: int) -> None:
        """Outline bar ``i`` (-1: none) as the one under the pointer."""
        if i != self.hovered:
            self.update_bar(self.hovered, 0.5)
            self.hovered = i
            self.update_bar(i, 0.5)

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

    def update_marks(self) -> None:
        """Schedule a repaint of the selected (or dragged) bar's dates, which may have to move
        out from under a label in ``keep_clear``."""
        i = self.preview[0] if self.preview is not None else self.selected
        if 0 <= i < self.layout.n and not self._rect.isEmpty():
            view, row = self._rect, float(self.layout.row[i])
            self.update(QRectF(view.left(), row - 1.5, view.width(), 3.0))

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
        _mark_odd_sides(p, layout, idx, geometry, sy, dy, y0, y1, left_px, right_px)
        self._paint_marks(p, layout, sx, dx, sy, dy, left_px, right_px)
        p.restore()

    def _paint_rows(self, p, layout, sy, dy, y0, y1, left_px, right_px) -> None:
        lo, hi = min(y0, y1), max(y0, y1)
        r0 = max(0, math.floor(lo))
        r1 = min(layout.n_rows - 1, math.ceil(hi))
        stripe = style.theme().row_stripe
        header = style.theme().header_row
        line = QPen(style.theme().group_line)
        line.setCosmetic(True)
        selected_row = int(layout.row[self.selected]) if 0 <= self.selected < layout.n else -1
        p.setPen(Qt.PenStyle.NoPen)
        for r in range(r0, r1 + 1):
            top = sy * (r - 0.5) + dy
            height = sy
            band = QRectF(left_px, top, right_px - left_px, height).normalized()
            if r == selected_row:
                p.fillRect(band, style.theme().selected_row)
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
        # An end the rules do not accept that MemPalace reads as never reached (a word such as
        # "never") reaches the edge, but is not drawn as open: no arrow.
        open_ = ~np.isfinite(end) & ((layout.odd[idx] & gl.ODD_END) == 0)
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
        p.setBrush(QBrush(_mix(style.theme().conflict_color, 0.85), Qt.BrushStyle.BDiagPattern))
        pen = QPen(_mix(style.theme().conflict_color, 0.9))
        pen.setCosmetic(True)
        p.setPen(pen)
        self._draw_rects(p, s, top, e - s, h)

    def _paint_marks(self, p, layout, sx, dx, sy, dy, left_px, right_px) -> None:
        """The hovered and selected bars' outlines, the selection's dates, a drag's preview."""
        to_device = QTransform(sx, 0.0, 0.0, sy, dx, dy)
        clear = [  # with a little room
            to_device.mapRect(self.mapRectFromItem(item, item.boundingRect())).adjusted(
                -2, -2, 2, 2
            )
            for item in self.keep_clear
            if item.isVisible()
        ]
        self.dates_drawn = []
        font = QFont(p.font())
        font.setPointSizeF(look.MARK_POINT_SIZE)
        p.setFont(font)
        for i, color, width in (
            (self.hovered, style.theme().hover_outline, 1.0),
            (self.selected, style.theme().selected_outline, 2.0),
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
            dates = (fact["valid_from"], fact["valid_to"])
            self.dates_drawn += draw_dates(p, box, dates, (left_px, right_px), clear)
        if self.preview is not None:
            i, side, posix, value = self.preview
            box = self._bar_box(layout, i, sx, dx, sy, dy, left_px, right_px)
            x = posix * sx + dx
            if side == "end":
                box.setRight(max(x, box.left() + look.MIN_BAR_PX))
            else:
                box.setLeft(min(x, box.right() - look.MIN_BAR_PX))
            pen = QPen(QColor(style.theme().selected_outline))
            pen.setStyle(Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            p.setPen(pen)
            p.setBrush(QBrush(style.theme().preview_fill))
            p.drawRect(box)
            fact = layout.facts[i]
            start = value if side == "start" else fact["valid_from"]
            end = value if side == "end" else fact["valid_to"]
            self.dates_drawn += draw_dates(p, box, (start, end), (left_px, right_px), clear)

    def _bar_box(self, layout, i, sx, dx, sy, dy, left_px, right_px) -> QRectF:
        start, end = layout.start[i], layout.end[i]
        s = left_px if not np.isfinite(start) else max(start * sx + dx, left_px - 4)
        e = right_px if end == np.inf else min(end * sx + dx, right_px + 4)
        e = max(e, s + look.MIN_BAR_PX)
        h = look.BAR_FRACTION * abs(sy)
        yc = layout.row[i] * sy + dy
        return QRectF(s, yc - h / 2, e - s, h)

    # ── Pointer events, handed to ``events`` (picking is an array search) ──
    def hoverEvent(self, ev) -> None:
        if self.events is not None:
            self.events.hover(ev)

    def mouseClickEvent(self, ev) -> None:
        if self.events is not None:
            self.events.click(ev)

    def mouseDragEvent(self, ev) -> None:
        if self.events is not None:
            self.events.drag(ev)


class LaneAxis(pg.AxisItem):
    """The left axis: group headers (predicate, colour swatch) and lane labels, elided."""

    def __init__(self, bars: BarsItem, scroll_rows: Callable[[float], None]):
        super().__init__("left")
        self._bars = bars
        self._scroll_rows = scroll_rows
        self.setWidth(look.LANE_AXIS_WIDTH)
        self.setStyle(showValues=False)
        self._cache: QPicture | None = None
        self._cache_key: tuple | None = None

    def tickValues(self, minVal, maxVal, size):
        return []

    def paint(self, p: QPainter, *args) -> None:
        """Replay the labels from a picture; redraw it only when lanes, scroll, size or the
        selected row changed (an as_of step changes none of them)."""
        bars = self._bars
        layout = bars.layout
        vb = self.linkedView()
        if vb is None or layout.n_rows == 0:
            return
        selected = bars.selected
        bounds = self.boundingRect()
        origin = self.mapFromScene(vb.mapViewToScene(QPointF(0, 0)))
        key = (
            bars.build_count,  # not id(layout): ids of freed layouts are reused
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
        selected = self._bars.selected
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
        selected_row = int(layout.row[selected]) if 0 <= selected < layout.n else -1
        conflict_rows = set(layout.conflict_row.tolist())
        for r in range(r0, r1 + 1):
            y_top, y_bottom = row_y(r - 0.5), row_y(r + 0.5)
            band = QRectF(0, min(y_top, y_bottom), width, abs(y_bottom - y_top))
            if r == selected_row:
                p.fillRect(band, style.theme().selected_row)
            if layout.row_kind[r] == 0:
                header = next(h for h in layout.headers if h.row == r)
                p.fillRect(band, style.theme().header_row)
                p.fillRect(QRectF(6, band.center().y() - 5, 10, 10), QColor(header.color))
                p.setFont(bold)
                p.setPen(QColor(style.theme().text_color))
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
                    QColor(
                        style.theme().text_color
                        if lane.direction == gl.OUTGOING
                        else style.theme().muted_text
                    )
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
                    p.setBrush(style.theme().conflict_color)
                    p.drawEllipse(QPointF(width - 10, band.center().y()), 3.5, 3.5)
        p.restore()
        pen = QPen(QColor(style.theme().axis_color))
        pen.setCosmetic(True)
        p.setPen(pen)
        p.drawLine(QPointF(width - 0.5, bounds.top()), QPointF(width - 0.5, bounds.bottom()))

    def fit_width(self, layout: gl.Layout, font: QFont) -> None:
        """Size the column to ``layout``'s labels (in ``font`` at the labels' size), clamped."""
        font = QFont(font)
        font.setPointSizeF(look.LABEL_POINT_SIZE)
        metrics = QFontMetrics(font)
        bold = QFont(font)
        bold.setBold(True)
        bold_metrics = QFontMetrics(bold)
        # Shaping 2,000 labels costs ~15 ms a selection; the widest label is among the longest
        # ones, and the column only needs its width to within its padding (clamped anyway).
        widest = max(
            (metrics.horizontalAdvance(lane.short) + 40 for lane in layout.longest), default=120
        )
        widest = max(
            [widest] + [bold_metrics.horizontalAdvance(h.label) + 30 for h in layout.headers]
        )
        self.setWidth(int(min(look.LANE_AXIS_MAX, max(look.LANE_AXIS_MIN, widest))))

    def wheelEvent(self, ev) -> None:
        self._scroll_rows(-ev.delta() / 40.0)
        ev.accept()

    def mouseDragEvent(self, ev) -> None:
        ev.ignore()

    def mouseClickEvent(self, ev) -> None:
        ev.ignore()


def title_html(entity_name: str, layout: gl.Layout) -> str:
    """The line over the chart: the entity, its facts and lanes, its conflicts."""
    conflicts = len(layout.conflicts)
    parts = [
        f"<b>{html.escape(elide(entity_name))}</b>",
        f"{layout.n} fact{'s' * (layout.n != 1)} on {len(layout.lanes)} "
        f"lane{'s' * (len(layout.lanes) != 1)}",
    ]
    if conflicts:
        parts.append(
            f"<span style='color:{style.theme().conflict_text}'>"
            f"{conflicts} conflict{'s' * (conflicts != 1)}</span>"
        )
    return " · ".join(parts)


def legend_html(layout: gl.Layout) -> str:
    """The legend under the chart: the predicates' colours, then what the marks mean. A huge
    predicate is elided: rich text of a megabyte took the window ~44 s on every selection."""
    swatches = " &nbsp; ".join(
        f"<span style='color:{h.color}'>■</span>&nbsp;{html.escape(elide(h.predicate, 60))}"
        for h in layout.headers
    )
    odd = f"{MARK} a date the rules do not accept (hover it) · " if layout.odd.any() else ""
    keys = (
        "full colour: valid at as_of · pale: not valid · opacity: confidence · "
        f"▶ open end · fade: unknown start · {odd}"
        f"<span style='color:{style.theme().conflict_text}'>▨ conflict</span> · "
        f"<span style='color:{style.theme().cursor_color}'>│ as_of</span> · ┆ today"
    )
    return f"{swatches} · {keys}"  # one paragraph: a line less where the chart is short


__all__ = ["BarEvents", "BarsItem", "LaneAxis", "legend_html", "title_html"]
