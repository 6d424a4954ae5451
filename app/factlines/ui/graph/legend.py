"""The neighbourhood graph's legend, painted over the view's top-left corner in pixels: the
types in view (shape and colour), what the line styles mean (at as_of, or in a diff), and the
predicates' colours."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPen

from factlines.ui.graph.look import Look, shape_path
from factlines.ui.graph.scene import edge_pen
from factlines.ui.look import style

SWATCH = 22  # pixels of line or shape before an entry's text
PADDING = 6


@dataclass(frozen=True)
class Entry:
    kind: str  # "type", "line", "predicate", or "more" (what did not fit)
    text: str
    look: Look | None = None  # for a type
    line: str = ""  # for a line: the edge style (scene.STYLES)
    predicate: str = ""  # for a predicate


def entries(types: list[tuple[str, Look]], predicates: list[str], diff: bool) -> list[Entry]:
    found = [Entry("type", name or "no type", look=look) for name, look in types]
    if diff:
        found += [
            Entry("line", "started in (A, B]", line="started"),
            Entry("line", "ended in (A, B]", line="ended"),
            Entry("line", "unchanged", line="unchanged valid"),
        ]
    else:
        found.append(Entry("line", "valid at as_of / not", line="valid"))
    found += [Entry("predicate", style.elide(p), predicate=p) for p in predicates]
    return found


def columns(shown: list[Entry], metrics: QFontMetrics, room: QSize, text_width: int):
    """The legend laid out in columns as tall as ``room`` allows, as many as fit in its width
    (texts at most ``text_width`` wide): ``(columns of entries, their widths, height)``; when
    not all fit, the last entry says how many more there are."""
    line = metrics.height()
    rows = max(1, (room.height() - 2 * PADDING) // line)
    laid: list[list[Entry]] = [shown[i : i + rows] for i in range(0, len(shown), rows)]
    widths: list[int] = []
    used = 2 * PADDING
    for k, column in enumerate(laid):
        text = min(text_width, max(metrics.horizontalAdvance(e.text) for e in column))
        width = SWATCH + 6 + text
        if used + width + PADDING * k > room.width() and widths:
            left = sum(len(c) for c in laid[k:]) + 1
            last = laid[k - 1]
            last[-1] = Entry("more", f"… {left} more (hover)")
            laid = laid[:k]
            break
        widths.append(width)
        used += width
    height = 2 * PADDING + line * max((len(c) for c in laid), default=0)
    return laid, widths, height


def size(shown: list[Entry], metrics: QFontMetrics, room: QSize, text_width: int):
    """The legend's width and height in pixels (0, 0 when empty)."""
    if not shown:
        return 0, 0
    _laid, widths, height = columns(shown, metrics, room, text_width)
    return 2 * PADDING + sum(widths) + PADDING * (len(widths) - 1), height


def paint(painter: QPainter, shown: list[Entry], room: QSize, text_width: int) -> None:
    """Paint ``shown`` from the top-left corner, within ``room``."""
    if not shown:
        return
    metrics = painter.fontMetrics()
    laid, widths, height = columns(shown, metrics, room, text_width)
    colours = style.theme()
    back = QColor(colours.graph_background)
    back.setAlpha(225)
    painter.setPen(QPen(colours.node_outline, 0.8))
    painter.setBrush(QBrush(back))
    width = size(shown, metrics, room, text_width)[0]
    painter.drawRoundedRect(QRectF(2.5, 2.5, width, height), 4, 4)
    x = 2 + PADDING
    line = metrics.height()
    for column, width in zip(laid, widths):
        y = 2 + PADDING
        for entry in column:
            _paint_entry(painter, entry, x, y, line, width - SWATCH - 6)
            y += line
        x += width + PADDING


def _paint_entry(painter: QPainter, entry: Entry, x: float, y: float, line: int, text_width: int):
    colours = style.theme()
    middle = y + line / 2
    if entry.kind == "type":
        painter.setPen(QPen(colours.graph_background, 1))
        painter.setBrush(QBrush(entry.look.color()))
        painter.drawPath(
            shape_path(entry.look.shape, 6).translated(QPointF(x + SWATCH / 2, middle))
        )
    elif entry.kind in ("line", "predicate"):
        color = style.predicate_color(entry.predicate) if entry.predicate else None
        pen = _plain(edge_pen(entry.line or "valid", color or QColor(colours.graph_muted)))
        if entry.kind == "predicate":
            pen.setWidthF(3.0)
        painter.setPen(pen)
        if entry.line == "valid":  # both at as_of's styles: solid, then dashed
            painter.drawLine(QPointF(x, middle), QPointF(x + SWATCH / 2 - 1, middle))
            painter.setPen(_plain(edge_pen("not valid", color or QColor(colours.graph_muted))))
            painter.drawLine(QPointF(x + SWATCH / 2 + 1, middle), QPointF(x + SWATCH, middle))
        else:
            painter.drawLine(QPointF(x, middle), QPointF(x + SWATCH, middle))
    painter.setPen(
        colours.graph_text if entry.kind in ("type", "predicate") else colours.graph_muted
    )
    metrics = painter.fontMetrics()
    text = metrics.elidedText(entry.text, Qt.TextElideMode.ElideRight, text_width)
    painter.drawText(QPointF(x + SWATCH + 6, y + metrics.ascent()), text)


def _plain(pen: QPen) -> QPen:
    """An edge's pen for the legend, painted without a transformation: in pixels, not device
    pixels (the same width at 2x as the rest of the text)."""
    pen.setCosmetic(False)
    return pen


GLYPHS = {"circle": "●", "square": "■", "diamond": "◆", "triangle": "▲", "hexagon": "⬢"}
LINE_GLYPHS = {"valid": "━━ ┅┅", "started": "━━", "ended": "┅┅", "unchanged valid": "━━"}


def as_html(shown: list[Entry]) -> str:
    """The whole legend as rich text, for a tooltip (what the painted one cut is there too)."""
    colours = style.theme()
    lines = []
    for entry in shown:
        if entry.kind == "type":
            color, glyph = entry.look.color().name(), GLYPHS.get(entry.look.shape, "●")
        elif entry.kind == "predicate":
            color, glyph = style.predicate_color_name(entry.predicate), "━━"
        elif entry.kind == "line":
            color = edge_pen(entry.line, QColor(colours.graph_muted)).color().name()
            glyph = LINE_GLYPHS.get(entry.line, "━━")
        else:
            continue
        lines.append(f"<span style='color:{color}'>{glyph}</span>&nbsp;{html.escape(entry.text)}")
    return "<br>".join(lines)


SHOWN_FROM_WIDTH = 380  # narrower views start with the legend hidden


class LegendOverlay:
    """The legend as a view shows it: over its top-left corner, up to 38% of its width,
    hidden in a narrow view until the person asks (``controls.legend_button``)."""

    def __init__(self, view, controls):
        self._view = view
        self._controls = controls
        self.entries: list[Entry] = []

    def set(self, types: list[tuple[str, Look]], predicates: list[str], diff: bool) -> None:
        self.entries = entries(types, predicates, diff)
        self._controls.legend_button.setToolTip(
            "Show or hide what the shapes, colours and lines mean:<br>" + as_html(self.entries)
        )

    def shown(self) -> bool:
        button = self._controls.legend_button
        if not self._controls.chosen:
            button.setChecked(self._view.viewport().width() >= SHOWN_FROM_WIDTH)
        return button.isChecked() and bool(self.entries)

    def room(self) -> QSize:
        """Up to 38% of the view's width; its height, above the "N of M" button if shown."""
        viewport = self._view.viewport()
        below = self._view.shown_button
        height = viewport.height() - 4 - (below.height() + 2 if below.isVisible() else 0)
        return QSize(viewport.width() * 38 // 100, height)

    def text_width(self) -> int:
        return max(90, min(160, self._view.viewport().width() * 2 // 7))

    def size(self) -> tuple[int, int]:
        """Its width and height in pixels; (0, 0) when hidden."""
        if not self.shown():
            return 0, 0
        return size(self.entries, self._view.fontMetrics(), self.room(), self.text_width())

    def paint(self, painter: QPainter) -> None:
        if self.shown():
            paint(painter, self.entries, self.room(), self.text_width())

    def tooltip_at(self, pos: QPointF) -> str | None:
        """The whole legend, over the painted one (it may have cut some)."""
        width, height = self.size()
        return as_html(self.entries) if QRectF(0, 0, width, height).contains(pos) else None

    def labels(self) -> list[str]:
        """The entries as drawn (elided to fit)."""
        metrics = self._view.fontMetrics()
        return [
            metrics.elidedText(e.text, Qt.TextElideMode.ElideRight, self.text_width())
            for e in self.entries
        ]
