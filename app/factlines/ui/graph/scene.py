"""The neighbourhood graph's items: nodes shaped and coloured by type with their labels, and
edges coloured by predicate; styled at as_of, or as a diff between two instants.

Nodes and labels keep their size in pixels whatever the zoom (they ignore the view's
transformation); only the positions scale. Edges are drawn with cosmetic pens for the same
reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
)

from factlines.ui.graph import layout
from factlines.ui.graph.look import Look, shape_path
from factlines.ui.look import style
from factlines.ui.models.changes import ENDED_COLOR, STARTED_COLOR
from factlines.ui.session.entity_facts import time_bounds, valid_mask

ENTITY_ROLE = 0
NODE_RADIUS = (13.0, 9.0, 7.5, 6.5)  # pixels, by ring, when there is room
SMALLEST_RADIUS = 3.5  # pixels: a crowded ring's nodes shrink down to this
LABEL_WIDTH = (220, 150, 120, 110)  # pixels a name may take before it is elided, by ring
LABEL_GAP = 3.0  # pixels between a node and its label
STYLES = ("valid", "not valid", "started", "ended", "unchanged valid", "unchanged not valid")


@dataclass
class Diff:
    """What the changes panel shows: the facts that started and ended within (A, B]."""

    started: frozenset[str] = frozenset()
    ended: frozenset[str] = frozenset()

    def change(self, facts: list[dict]) -> str:
        ids = {fact["id"] for fact in facts}
        if ids & self.started:
            return "started"
        return "ended" if ids & self.ended else "unchanged"


class Label(QGraphicsSimpleTextItem):
    """A name on a pale ground, so that edges passing under it do not cross its letters."""

    def paint(self, painter: QPainter, option, widget=None) -> None:
        ground = QColor(style.theme().graph_background)
        ground.setAlpha(200)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ground)
        painter.drawRoundedRect(self.boundingRect().adjusted(-1, 0, 1, 0), 3, 3)
        super().paint(painter, option, widget)


class NodeItem(QGraphicsPathItem):
    """An entity: its type's shape and colour, its name beside it, away from the centre."""

    def __init__(self, node: layout.Node, record: dict, look: Look, font: QFont):
        super().__init__()
        self.node = node
        self.record = record
        self.look = look
        self.radius = 0.0
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPos(node.x, node.y)
        self.setZValue(3 if node.ring else 4)
        self.setData(ENTITY_ROLE, node.id)
        if node.ring:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.label = Label(self)
        font = QFont(font)
        font.setBold(not node.ring)  # the selected entity's name
        self.label.setFont(font)
        width = LABEL_WIDTH[min(node.ring, 3)]
        self.label.setText(
            QFontMetrics(font).elidedText(
                style.elide(record["name"]), Qt.TextElideMode.ElideRight, width
            )
        )
        self.resize(self.full_radius)
        self.paint_colours()
        steps = "the selected entity" if not node.ring else f"{node.ring} step(s) away"
        kind = style.tip_text(record.get("type")) or "no type"
        self.setToolTip(
            f"{style.tip_text(record['name'])} ({kind}), {steps}"
            + ("\nClick to select" if node.ring else "")
        )

    @property
    def full_radius(self) -> float:
        return NODE_RADIUS[min(self.node.ring, 3)]

    def resize(self, radius: float) -> None:
        """Draw the node ``radius`` pixels large (smaller when its ring is crowded)."""
        if radius == self.radius:
            return
        self.radius = radius
        self.setPath(shape_path(self.look.shape, radius))
        self.place_label(0)

    def label_places(self) -> list[QPointF]:
        """Where the label may go, the preferred first: on the side facing away from the
        centre (the centre's: below it), then below, above, right and left of the node."""
        box = self.label.boundingRect()
        out = self.radius + LABEL_GAP
        below = QPointF(-box.width() / 2, out)
        if not self.node.ring:
            return [below]
        cos, sin = math.cos(self.node.angle), math.sin(self.node.angle)
        x = cos * out - box.width() * (0.5 - 0.5 * cos if abs(cos) > 0.3 else 0.5)
        y = sin * out - box.height() * (0.5 - 0.5 * sin if abs(sin) > 0.3 else 0.5)
        return [
            QPointF(x, y),
            below,
            QPointF(-box.width() / 2, -out - box.height()),
            QPointF(out, -box.height() / 2),
            QPointF(-out - box.width(), -box.height() / 2),
        ]

    def place_label(self, place: int) -> None:
        self.label.setPos(self.label_places()[place])

    def paint_colours(self) -> None:
        colours = style.theme()
        self.setBrush(QBrush(self.look.color()))
        if self.node.ring:
            self.setPen(QPen(colours.graph_background, 1.5))
        else:
            self.setPen(QPen(colours.center_outline, 3))
        self.label.setBrush(colours.graph_text if self.node.ring < 2 else colours.graph_muted)

    def label_rect(self, at: QPointF, place: QPointF | None = None):
        """The label's rectangle in view pixels, the node being drawn at ``at`` (and the label
        at ``place`` from it, where it is by default)."""
        return self.label.boundingRect().translated(at + (place or self.label.pos()))


class EdgeItem(QGraphicsPathItem):
    def __init__(self, edge: layout.Edge, start: QPointF, end: QPointF, tooltip: str):
        path = QPainterPath(start)
        middle = (start + end) / 2
        dx, dy = end.x() - start.x(), end.y() - start.y()
        length = math.hypot(dx, dy) or 1.0
        path.quadTo(middle + QPointF(-dy / length * edge.bend, dx / length * edge.bend), end)
        super().__init__(path)
        self.edge = edge
        self.color = style.predicate_color(edge.predicate)
        self.drawn_as = ""  # the style drawn: one of STYLES
        self.setToolTip(tooltip)


class GraphScene(QGraphicsScene):
    """The items of one neighbourhood, laid out once; :meth:`restyle` follows as_of."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.nodes: dict[str, NodeItem] = {}
        self.edges: list[EdgeItem] = []
        self._starts = self._ends = np.zeros(0)
        self._offsets = np.zeros(0, dtype=np.int64)
        self.node_valid: dict[str, bool] = {}
        self._hovered: NodeItem | None = None  # its label shown only while pointed at
        self.pixel_ratio = 1.0  # device pixels a pixel, where the scene is shown (high DPI)

    def build(self, nodes, records, looks, edges, font: QFont) -> None:
        """Items for ``nodes`` (layout.Node by id; ``records`` their entity rows, ``looks``
        their Look by id) and ``edges`` (layout.Edge)."""
        self.clear()
        self.nodes, self.edges, self._hovered = {}, [], None
        for eid, node in nodes.items():
            item = NodeItem(node, records[eid], looks[eid], font)
            self.addItem(item)
            self.nodes[eid] = item
        facts: list[dict] = []
        offsets = []
        # Ring by ring outwards: restyling finds the nodes reached from the centre in one pass.
        for edge in sorted(edges, key=lambda e: nodes[e.outer].ring):
            start, end = self.nodes[edge.inner].pos(), self.nodes[edge.outer].pos()
            item = EdgeItem(edge, start, end, edge_tooltip(edge))
            self.addItem(item)
            self.edges.append(item)
            offsets.append(len(facts))
            facts += edge.facts
        self._facts = facts
        self._offsets = np.array(offsets, dtype=np.int64)
        self.refresh_times()

    def size_nodes(self, scale: float) -> None:
        """Nodes as large as their ring's crowding allows at ``scale``: at most their full
        size, at least SMALLEST_RADIUS, never touching their neighbours on the ring."""
        first = SMALLEST_RADIUS
        for item in self.nodes.values():
            if item.node.ring:
                room = item.node.room * scale * 0.4
                item.resize(max(SMALLEST_RADIUS, min(item.full_radius, room)))
                first = max(first, item.radius) if item.node.ring == 1 else first
        for item in self.nodes.values():
            if not item.node.ring:  # the selected entity: half again its neighbours' size
                item.resize(min(item.full_radius, max(7.0, first * 1.5)))

    def hover(self, entity_id: str | None) -> None:
        """Show the label of the node pointed at even where crowding hid it (on top), and
        hide the one shown that way before."""
        if self._hovered is not None and self._hovered.node.id != entity_id:
            self._hovered.label.setVisible(False)
            self._hovered.setZValue(3)
            self._hovered = None
        item = self.nodes.get(entity_id)
        if item is not None and not item.label.isVisible():
            item.label.setVisible(True)
            item.setZValue(5)
            self._hovered = item

    def refresh_times(self) -> None:
        """The drawn facts' times were patched in place: read them again."""
        self._starts, self._ends = time_bounds(self._facts)

    def repaint_colours(self) -> None:
        for item in self.nodes.values():
            item.paint_colours()
        for item in self.edges:
            item.color = style.predicate_color(item.edge.predicate)
            item.drawn_as = ""

    def restyle(self, at: float | None, diff: Diff | None) -> None:
        """Style every edge and node for as_of ``at`` (POSIX; None: all time), or for
        ``diff``: a node is in full colour when an edge valid at as_of leads to it from the
        centre."""
        if self.edges:
            valid = valid_mask(self._starts, self._ends, at)
            edge_valid = np.logical_or.reduceat(valid, self._offsets)
        else:
            edge_valid = np.zeros(0, dtype=bool)
        reached = {item.node.id for item in self.nodes.values() if not item.node.ring}
        for item, now in zip(self.edges, edge_valid):
            if now and item.edge.inner in reached:
                reached.add(item.edge.outer)
            wanted = "valid" if now else "not valid"
            if diff is not None:
                change = diff.change(item.edge.facts)
                wanted = f"unchanged {wanted}" if change == "unchanged" else change
            if wanted != item.drawn_as:
                _style_edge(item, wanted, self.pixel_ratio)
        self.node_valid = {eid: eid in reached for eid in self.nodes}
        for eid, item in self.nodes.items():
            item.setOpacity(1.0 if self.node_valid[eid] else 0.4)

    # ── What is drawn, for tests and tools ────────────────────────────────

    def described_nodes(self) -> list[dict]:
        """Each drawn neighbour: its id, ring, position in the scene, whether an edge valid
        at as_of leads to it, its look and whether its label is shown."""
        return [
            {
                "id": eid,
                "ring": item.node.ring,
                "x": item.pos().x(),
                "y": item.pos().y(),
                "valid_at_as_of": self.node_valid.get(eid, False),
                "shape": item.look.shape,
                "color": item.brush().color().name(),
                "label_shown": item.label.isVisible(),
            }
            for eid, item in self.nodes.items()
            if item.node.ring
        ]

    def described_edges(self) -> list[dict]:
        return [
            {
                "inner": item.edge.inner,
                "outer": item.edge.outer,
                "predicate": item.edge.predicate,
                "facts": [f["id"] for f in item.edge.facts],
                "color": item.color.name(),
                "style": item.drawn_as,
                "solid": item.pen().style() == Qt.PenStyle.SolidLine,
            }
            for item in self.edges
        ]


def edge_pen(kind: str, color: QColor, primary: bool = True, ratio: float = 1.0) -> QPen:
    """How an edge is drawn: ``valid`` / ``not valid`` at as_of in its predicate's colour, or
    in a diff ``started`` / ``ended`` / ``unchanged valid`` / ``unchanged not valid``; thinner
    and paler when it is not the edge its outer node hangs from. Cosmetic (the same width at
    any zoom), so its width is in device pixels: ``ratio`` device pixels a pixel."""
    dark = style.is_dark_variant()
    if kind == "started":
        pen = QPen(STARTED_COLOR.lighter(150) if dark else STARTED_COLOR, 3.2)
    elif kind == "ended":
        pen = QPen(ENDED_COLOR.lighter(150) if dark else ENDED_COLOR, 3.2, Qt.PenStyle.DashLine)
    elif kind.startswith("unchanged"):
        muted = QColor(style.theme().graph_muted)
        muted.setAlpha(150)
        if kind.endswith("not valid"):
            pen = QPen(muted, 1.0, Qt.PenStyle.DotLine)
        else:
            pen = QPen(muted, 1.6)
    elif kind == "valid":
        pen = QPen(color, 2.4)
    else:
        faded = QColor(color)
        faded.setAlpha(110)
        pen = QPen(faded, 1.2, Qt.PenStyle.DashLine)
    if not primary:
        paler = pen.color()
        paler.setAlphaF(paler.alphaF() * 0.55)
        pen.setColor(paler)
        pen.setWidthF(pen.widthF() * 0.6)
    pen.setWidthF(pen.widthF() * ratio)
    pen.setCosmetic(True)
    return pen


def _style_edge(item: EdgeItem, kind: str, ratio: float) -> None:
    item.drawn_as = kind
    item.setPen(edge_pen(kind, item.color, item.edge.primary, ratio))
    item.setZValue(1 if kind in ("valid", "started", "ended") else 0)


def edge_tooltip(edge: layout.Edge) -> str:
    """One line per fact drawn on an edge: who, how, whom, and when."""
    lines = []
    for fact in edge.facts:
        lines.append(
            f"{style.elide(fact['subject_name'])} → {style.elide(fact['predicate'])} → "
            f"{style.elide(fact['object_name'])}: "
            f"{style.show_time(fact['valid_from'], '?')} → "
            f"{style.show_time(fact['valid_to'], 'open')}"
        )
        notes = (
            style.time_note(fact["valid_from"], as_end=False),
            style.time_note(fact["valid_to"], as_end=True),
        )
        lines += [f"    {style.MARK} {note}" for note in notes if note]
    return "\n".join(lines)
