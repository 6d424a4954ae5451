"""Where the neighbourhood graph's node names go: the room kept beside the rings for them, and
which of them are shown, each where it covers nothing already there (:func:`.layout.fitting_labels`
decides, in plain Python)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtWidgets import QGraphicsView

from factlines.ui.graph import layout
from factlines.ui.graph.scene import NodeItem

MOST_MARGIN = 120  # pixels beside the rings for the labels of the nodes at their sides


def margin(nodes: dict[str, NodeItem], depth: int, view: QSize) -> QSize:
    """Room beside the rings for the labels of the outermost ring (``depth``): as wide as its
    longest (up to MOST_MARGIN), and a line of text above and below."""
    outer = [item for item in nodes.values() if item.node.ring == depth] or list(nodes.values())
    wide = max((item.label.boundingRect().width() for item in outer), default=0.0)
    tall = max((item.label.boundingRect().height() for item in outer), default=0.0)
    radius = max(item.full_radius for item in outer) + 4 if outer else 0
    # A small view keeps most of its room for the nodes: labels that do not fit go.
    return QSize(
        int(min(wide + radius, MOST_MARGIN, view.width() * 0.16)),
        int(min(tall + radius, view.height() * 0.14)),
    )


def place(
    view: QGraphicsView,
    nodes: dict[str, NodeItem],
    blocked: list[QRectF],
    legend: tuple[float, float],
) -> None:
    """Show each label that fits: inner rings first, then the most linked, each where it
    covers no label already shown, no other node, the legend (its ``legend`` size at the top
    left) or what is ``blocked`` (away from the centre if it can, else below, above or beside
    its node); one that fits nowhere is hidden (pointing at its node shows it). The centre's is
    always shown."""
    kept_clear = [_box(rect) for rect in blocked]
    width, height = legend
    if width:
        kept_clear.append((0.0, 0.0, width + 4.0, height + 4.0))
    boxes, labels = {}, []
    for eid, item in sorted(nodes.items(), key=lambda pair: pair[1].node.ring):
        at = QPointF(view.mapFromScene(item.pos()))
        boxes[eid] = _box(item.boundingRect().translated(at))
        places = [_box(item.label_rect(at, place)) for place in item.label_places()]
        if item.node.ring:
            labels.append((eid, places))
        else:  # the selected entity's name is always shown
            kept_clear.append(places[0])
    bounds = _box(QRectF(view.viewport().rect()))
    chosen = layout.fitting_labels(labels, boxes, bounds, kept_clear)
    for eid, item in nodes.items():
        if item.node.ring:
            item.label.setVisible(eid in chosen)
            item.place_label(chosen.get(eid, 0))


def _box(rect: QRectF) -> layout.Box:
    return rect.left(), rect.top(), rect.right(), rect.bottom()
