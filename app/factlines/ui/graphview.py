"""The neighbourhood graph: the selected entity in the middle, its neighbours on a circle.

Edges are coloured by predicate; edges with a fact valid at ``as_of`` are solid, the others
dashed and faint. Clicking a neighbour selects it. Moving ``as_of`` only restyles the edges.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPen,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

from factlines.ui import style
from factlines.ui.painting import paint_with_the_window
from factlines.ui.state import AppState

MAX_NEIGHBOURS = 40
NODE_RADIUS = 15
CENTER_RADIUS = 24
ENTITY_ROLE = 0


class GraphView(QGraphicsView):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("graphView")
        self._state = state
        self._scene = QGraphicsScene(self)
        paint_with_the_window(self._scene)
        self.setScene(self._scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setBackgroundBrush(QBrush(style.GRAPH_BACKGROUND))
        self.setMinimumSize(220, 140)  # small screens: the chart above needs the height
        self.setMouseTracking(True)
        # (path item, colour, its facts' positions in the state's facts) per drawn edge
        self._edges: list[tuple[QGraphicsPathItem, QColor, list[int]]] = []
        # (node item, label item, its facts' positions) per neighbour
        self._nodes: list[tuple[QGraphicsEllipseItem, QGraphicsSimpleTextItem, list[int]]] = []
        self._legend: list[tuple[str, QColor]] = []
        self._note = ""
        # Each drawn fact's edge, the facts drawn on it (dicts shared with the state's rows,
        # patched in place) and the edge's key as drawn: (predicate, direction, neighbour)
        self._drawn: dict[str, tuple[QGraphicsPathItem, list[dict], tuple]] = {}
        self._stale = False  # the state changed while the view was hidden
        state.entityChanged.connect(lambda _e: self.rebuild())
        state.factsChanged.connect(self._facts_changed)
        state.asOfChanged.connect(lambda _v: self.restyle())
        self.rebuild()

    def sizeHint(self) -> QSize:
        return QSize(400, 400)

    # Building
    def rebuild(self) -> None:
        """Draw the selected entity's neighbourhood; deferred to showing while hidden (a closed
        or tabbed-away dock costs a selection nothing)."""
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        self._scene.clear()
        self._edges, self._nodes, self._legend = [], [], []
        self._drawn = {}
        entity = self._state.entity_record()
        if entity is None:
            self._note = "Select an entity to see its neighbours"
            self._scene.setSceneRect(QRectF(-150, -100, 300, 200))
            self.viewport().update()
            return
        facts = self._state.entity_facts()

        def position(fact: dict) -> int:
            return self._state.fact_index(fact["id"])

        by_neighbour: dict[str, list[dict]] = defaultdict(list)
        names: dict[str, str] = {}
        for fact in facts:
            by_neighbour[fact["other"]].append(fact)
            names[fact["other"]] = fact["other_name"]
        by_neighbour.pop(entity["id"], None)  # a self-loop has no neighbour to draw
        # Only the MAX_NEIGHBOURS most connected are drawn: pick them without sorting the rest
        # (the same ones and order as sorting all, then taking the first).
        ranked = heapq.nsmallest(
            MAX_NEIGHBOURS,
            by_neighbour,
            key=lambda n: (-len(by_neighbour[n]), style.order_key(names[n])),
        )
        shown = sorted(ranked, key=lambda n: self._angle_key(by_neighbour[n]))
        hidden = len(by_neighbour) - len(shown)
        self._note = f"+{hidden} more neighbours not drawn" if hidden else ""

        count = max(len(shown), 1)
        radius = max(150.0, count * 2.6 * NODE_RADIUS * 1.6 / (2 * math.pi))
        predicates: dict[str, QColor] = {}
        label_font = QFont()
        label_font.setPointSizeF(8.5)
        for i, neighbour in enumerate(shown):
            angle = -math.pi / 2 + 2 * math.pi * i / count
            pos = QPointF(radius * math.cos(angle), radius * math.sin(angle))
            groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
            for fact in by_neighbour[neighbour]:
                groups[(fact["predicate"], fact["direction"])].append(fact)
            edges = sorted(groups.items(), key=lambda item: (_text_key(item[0][0]), item[0][1]))
            for k, ((predicate, _direction), group) in enumerate(edges):
                color = predicates.setdefault(predicate, style.predicate_color(predicate))
                bend = (k - (len(groups) - 1) / 2) * 22.0
                spans = [position(f) for f in group]
                item = self._edge(QPointF(0, 0), pos, bend)
                item.setToolTip(_edge_tooltip(entity["name"], group))
                self._edges.append((item, color, spans))
                for fact in group:
                    self._drawn[fact["id"]] = (item, group, _edge_key(fact))
            node = self._node(pos, NODE_RADIUS, neighbour, names[neighbour])
            label = self._label(names[neighbour], pos, angle, label_font)
            self._nodes.append((node, label, [position(f) for f in by_neighbour[neighbour]]))
        center = self._node(QPointF(0, 0), CENTER_RADIUS, entity["id"], entity["name"])
        center.setBrush(QBrush(style.CENTER_FILL))
        center.setPen(QPen(style.CENTER_OUTLINE, 2))
        center.setCursor(Qt.CursorShape.ArrowCursor)
        title_font = QFont()
        title_font.setBold(True)
        title = QGraphicsSimpleTextItem(style.elide(entity["name"]))
        title.setFont(title_font)
        title.setBrush(style.GRAPH_TEXT)
        title.setZValue(5)
        box = title.boundingRect()
        title.setPos(-box.width() / 2, CENTER_RADIUS + 4)
        self._scene.addItem(title)
        self._legend = sorted(predicates.items(), key=lambda item: _text_key(item[0]))
        extent = radius + 75
        self._scene.setSceneRect(QRectF(-extent, -extent, 2 * extent, 2 * extent))
        self.restyle()
        self._fit()

    @staticmethod
    def _angle_key(facts: list[dict]) -> tuple:
        # Neighbours around the circle grouped by their first predicate, then by name.
        first = min(
            facts, key=lambda f: (_text_key(f["predicate"]), style.order_key(f["other_name"]))
        )
        return _text_key(first["predicate"]), style.order_key(first["other_name"])

    def _edge(self, start: QPointF, end: QPointF, bend: float) -> QGraphicsPathItem:
        path = QPainterPath(start)
        middle = (start + end) / 2
        dx, dy = end.x() - start.x(), end.y() - start.y()
        length = math.hypot(dx, dy) or 1.0
        control = middle + QPointF(-dy / length * bend, dx / length * bend)
        path.quadTo(control, end)
        item = QGraphicsPathItem(path)
        item.setZValue(0)
        self._scene.addItem(item)
        return item

    def _node(self, pos: QPointF, radius: float, entity_id: str, name: str) -> QGraphicsEllipseItem:
        node = QGraphicsEllipseItem(QRectF(-radius, -radius, 2 * radius, 2 * radius))
        node.setPos(pos)
        node.setBrush(QBrush(style.NODE_FILL))
        node.setPen(QPen(style.NODE_OUTLINE, 1.5))
        node.setZValue(2)
        node.setData(ENTITY_ROLE, entity_id)
        node.setToolTip(f"{style.tip_text(name)}\nClick to select")
        node.setCursor(Qt.CursorShape.PointingHandCursor)
        self._scene.addItem(node)
        return node

    def _label(self, text: str, pos: QPointF, angle: float, font: QFont) -> QGraphicsSimpleTextItem:
        label = QGraphicsSimpleTextItem(style.elide(text))
        label.setFont(font)
        label.setBrush(style.GRAPH_TEXT)
        label.setZValue(3)
        box = label.boundingRect()
        out = NODE_RADIUS + 4
        x = pos.x() + math.cos(angle) * out
        y = pos.y() + math.sin(angle) * out
        # Anchor the label on the side facing away from the centre.
        cos, sin = math.cos(angle), math.sin(angle)
        x -= box.width() * (0.5 - 0.5 * cos) if abs(cos) > 0.3 else box.width() / 2
        y -= box.height() * (0.5 - 0.5 * sin) if abs(sin) > 0.3 else box.height() / 2
        label.setPos(x, y)
        self._scene.addItem(label)
        return label

    def _facts_changed(self, patch) -> None:
        """A write touched some facts: when they keep their neighbour, predicate and direction
        (an end moved, a date corrected), refresh their edges' tooltips and restyle; else
        draw again."""
        if patch.reloaded or patch.added or patch.removed or self._stale:
            self.rebuild()
            return
        state = self._state
        facts = state.entity_facts()
        for tid in patch.changed:
            drawn = self._drawn.get(tid)
            fact = facts[state.fact_index(tid)]
            if drawn is not None and _edge_key(fact) != drawn[2]:
                self.rebuild()
                return
        record = state.entity_record()
        for tid in patch.changed:
            if tid in self._drawn:
                item, group, _key = self._drawn[tid]
                item.setToolTip(_edge_tooltip(record["name"], group))
        self.restyle()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self.setBackgroundBrush(QBrush(style.GRAPH_BACKGROUND))
            self.rebuild()  # every item was made with the previous palette's colours

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.rebuild()

    # Restyling at as_of
    def restyle(self) -> None:
        if self._stale:
            return  # rebuilt, restyled, when shown
        mask = self._state.valid_mask()  # the rule, evaluated once per step by the state

        def valid(positions: list[int]) -> bool:
            return bool(mask[positions].any())

        for item, color, spans in self._edges:
            if valid(spans):
                pen = QPen(color, 2.6)
                item.setZValue(1)
            else:
                faded = QColor(color)
                faded.setAlpha(90)
                pen = QPen(faded, 1.2, Qt.PenStyle.DashLine)
                item.setZValue(0)
            item.setPen(pen)
        for node, label, spans in self._nodes:
            now = valid(spans)
            node.setOpacity(1.0 if now else 0.45)
            label.setOpacity(1.0 if now else 0.5)

    # Drawing and interaction
    def _legend_width(self) -> int:
        if not self._legend:
            return 0
        metrics = self.fontMetrics()
        return 40 + max(
            metrics.horizontalAdvance(self._legend_text(p, metrics)) for p, _ in self._legend
        )

    def _legend_text(self, predicate: str, metrics) -> str:
        """A predicate as the legend shows it: at most a third of the view wide."""
        width = max(80, self.viewport().width() // 3)
        return metrics.elidedText(style.elide(predicate), Qt.TextElideMode.ElideRight, width)

    def _fit(self) -> None:
        """Scale the circle into the viewport beside the legend (which is drawn unscaled)."""
        rect = self._scene.sceneRect()
        viewport = self.viewport().rect()
        if not rect.isValid() or viewport.width() < 10 or viewport.height() < 10:
            return
        left = self._legend_width()
        width = max(viewport.width() - left - 8, 40)
        height = max(viewport.height() - 28, 40)
        scale = min(width / rect.width(), height / rect.height())
        self.resetTransform()
        self.scale(scale, scale)
        self.setSceneRect(rect.adjusted(-left / scale, -14 / scale, 8 / scale, 14 / scale))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def drawForeground(self, painter: QPainter, rect) -> None:
        painter.save()
        painter.resetTransform()
        font = QFont()
        font.setPointSizeF(8.5)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        y = 8 + metrics.ascent()
        for predicate, color in self._legend:
            painter.setPen(QPen(color, 3))
            painter.drawLine(8, y - metrics.ascent() // 2 + 1, 26, y - metrics.ascent() // 2 + 1)
            painter.setPen(style.GRAPH_TEXT)
            painter.drawText(32, y, self._legend_text(predicate, metrics))
            y += metrics.height()
        if self._note:
            painter.setPen(style.GRAPH_MUTED)
            painter.drawText(8, self.viewport().height() - 8, self._note)
        if self._legend:
            painter.setPen(style.GRAPH_MUTED)
            hint = "solid: valid at as_of · dashed: not"
            width = metrics.horizontalAdvance(hint)
            bottom = self.viewport().height() - 8
            painter.drawText(self.viewport().width() - width - 8, bottom, hint)
        painter.restore()

    def neighbour_at(self, pos) -> str | None:
        for item in self.items(pos):
            entity_id = item.data(ENTITY_ROLE)
            if entity_id:
                return entity_id
        return None

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            entity_id = self.neighbour_at(event.position().toPoint())
            if entity_id and entity_id != self._state.entity:
                self._state.select_entity(entity_id)
                return
        super().mouseReleaseEvent(event)

    def drawn_neighbours(self) -> list[dict]:
        """What is drawn: each neighbour's id and whether it has a fact valid at as_of."""
        return [
            {"id": node.data(ENTITY_ROLE), "valid_at_as_of": node.opacity() == 1.0}
            for node, _label, _spans in self._nodes
        ]

    def legend_labels(self) -> list[str]:
        """The legend's predicates as drawn (elided to fit)."""
        font = QFont()
        font.setPointSizeF(8.5)
        metrics = QFontMetrics(font)
        return [self._legend_text(predicate, metrics) for predicate, _ in self._legend]

    def drawn_edges(self) -> list[dict]:
        return [
            {"color": color.name(), "solid": item.pen().style() == Qt.PenStyle.SolidLine}
            for item, color, _spans in self._edges
        ]


def _text_key(value) -> tuple[bool, str]:
    """Text in its own order; anything else (a BLOB, from raw SQL) after it."""
    return not isinstance(value, str), style.stored_text(value)


def _edge_key(fact: dict) -> tuple[str, str, str]:
    """What puts a fact on an edge: its predicate, its direction, the neighbour."""
    return fact["predicate"], fact["direction"], fact["other"]


def _edge_tooltip(entity_name: str, group: list[dict]) -> str:
    """One line per fact drawn on an edge: who, how, whom, and when."""
    lines = []
    for fact in group:
        arrow = "→" if fact["direction"] == "outgoing" else "←"
        lines.append(
            f"{style.elide(entity_name)} {arrow} {style.elide(fact['predicate'])} {arrow} "
            f"{style.elide(fact['other_name'])}: "
            f"{style.show_time(fact['valid_from'], '?')} → "
            f"{style.show_time(fact['valid_to'], 'open')}"
        )
        notes = (
            style.time_note(fact["valid_from"], as_end=False),
            style.time_note(fact["valid_to"], as_end=True),
        )
        lines += [f"    {style.MARK} {note}" for note in notes if note]
    return "\n".join(lines)
