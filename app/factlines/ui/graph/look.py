"""How a node shows its entity's type: a shape and a palette colour, the same for a type in
every picture as far as the types in view allow; the less common ones share an "other" look.

The choice is plain Python (:func:`assign`); :func:`shape_path` draws a shape for Qt.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QPainterPath, QPolygonF

from factlines.ui.look import style

SHAPES = ("circle", "square", "diamond", "triangle", "hexagon")
# Palette places (style.theme().palette) distinct from each other in both themes: blue, orange,
# green, purple, teal, gold, pink, brown.
COLOURS = (0, 1, 2, 3, 4, 5, 7, 6)
# Every (shape, colour) once: 5 shapes and 8 colours give 40, each step changing both.
LOOKS = tuple((SHAPES[i % len(SHAPES)], COLOURS[i % len(COLOURS)]) for i in range(40))
# Types MemPalace's miners and people use most, with a look of their own (an index in LOOKS).
KNOWN = {
    "person": 0,
    "people": 0,
    "organisation": 1,
    "organization": 1,
    "company": 1,
    "project": 2,
    "tool": 3,
    "technology": 3,
    "place": 4,
    "location": 4,
    "concept": 5,
    "event": 6,
    "animal": 7,
}
NO_TYPE = ("", "unknown")  # MemPalace's default type: no look of its own
MAX_TYPES = 7  # types with a look of their own in one picture; the rest are "other"
OTHER = "other"  # the legend's entry for the types without a look of their own


@dataclass(frozen=True)
class Look:
    shape: str
    colour: int | None  # a palette place; None: the muted "other" colour

    def color(self) -> QColor:
        if self.colour is None:
            return QColor(style.theme().graph_muted)
        return QColor(style.palette_color(self.colour))


OTHER_LOOK = Look("circle", None)


def type_name(value: object) -> str:
    """An entity's type as the legend names it ("" for none)."""
    return style.stored_text(value).strip().casefold()


def assign(counts: dict[str, int]) -> tuple[dict[str, Look], list[tuple[str, Look]]]:
    """Looks for the types in view (``counts``: nodes per type, by :func:`type_name`) and the
    legend's entries in order. The most common types get their own look (a known type its
    usual one, another a look chosen by its name; a look already taken goes to the next free
    one); the others, and entities without a type, the "other" look."""
    ranked = sorted((t for t in counts if t not in NO_TYPE), key=lambda t: (-counts[t], t))
    looks: dict[str, Look] = {}
    taken: set[int] = set()
    for name in ranked[:MAX_TYPES]:
        wanted = KNOWN.get(name, zlib.crc32(name.encode("utf-8", "surrogatepass")) % len(LOOKS))
        while wanted in taken:
            wanted = (wanted + 1) % len(LOOKS)
        taken.add(wanted)
        looks[name] = Look(*LOOKS[wanted])
    legend = sorted(looks.items(), key=lambda item: item[0])
    others = [t for t in counts if t not in looks]
    if others:
        named = sorted(t for t in others if t not in NO_TYPE)
        legend.append((f"{OTHER}: {', '.join(named)}" if named else "no type", OTHER_LOOK))
    return looks, legend


def look_of(looks: dict[str, Look], entity_type: object) -> Look:
    return looks.get(type_name(entity_type), OTHER_LOOK)


def shape_path(shape: str, radius: float) -> QPainterPath:
    """``shape`` centred on (0, 0), about as large as a circle of ``radius``."""
    path = QPainterPath()
    if shape == "circle":
        path.addEllipse(QPointF(0, 0), radius, radius)
        return path
    corners = {"square": (4, math.pi / 4, 1.25), "diamond": (4, 0, 1.3), "triangle": (3, 0, 1.4)}
    sides, turn, size = corners.get(shape, (6, 0, 1.1))
    points = [
        QPointF(
            size * radius * math.sin(turn + 2 * math.pi * i / sides),
            -size * radius * math.cos(turn + 2 * math.pi * i / sides),
        )
        for i in range(sides)
    ]
    if shape == "triangle":  # its centre of mass a little low: centred on its box instead
        points = [QPointF(p.x(), p.y() + size * radius * 0.25) for p in points]
    path.addPolygon(QPolygonF([*points, points[0]]))
    return path
