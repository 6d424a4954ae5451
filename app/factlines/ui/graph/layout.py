"""Where the neighbourhood graph puts its nodes: which neighbours are kept when there are too
many, and a radial tree of rings around the selected entity. Pure Python, no Qt.

Everything here is decided from the whole history (every fact, whenever it held) and never from
as_of, so the picture stays put while as_of moves: an edge that appears or ends only changes
its style. When a ring has more neighbours than fit, the kept ones are those with the most
facts to the kept ring inside it (then by id): the same ones every time.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from operator import itemgetter

from factlines.core.store.neighbourhood import Neighbourhood, id_order

SPACING = 36.0  # scene units between neighbouring nodes on a ring, at the least
FIRST_RADIUS = 120.0  # the first ring's radius, at the least
RING_GAP = 95.0  # from one ring to the next, at the least
TOP = -math.pi / 2  # the first node of a ring is drawn at the top, the next ones clockwise


@dataclass
class Node:
    id: str
    ring: int  # 0 for the centre
    parent: str | None = None  # the kept node one ring further in it hangs from
    angle: float = 0.0
    x: float = 0.0
    y: float = 0.0
    room: float = math.inf  # scene units to the nearest node on its ring


@dataclass
class Kept:
    """The kept neighbours of each ring and what was left out."""

    centre: str
    rings: list[list[str]]  # rings[k - 1]: the kept ids at distance k, most linked first
    totals: list[int]  # how many are at each distance
    left_out: list[str]  # the others, ring by ring (most linked first, then by id)
    # (inner, outer) -> how many facts link them, for every pair of kept nodes one ring apart
    links: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def shown(self) -> int:
        return sum(len(ring) for ring in self.rings)

    @property
    def total(self) -> int:
        return sum(self.totals)


def keep(neighbourhood: Neighbourhood, cap: int) -> Kept:
    """Up to ``cap`` neighbours per ring: in the first ring the centre's most linked; further
    out, those most linked to the kept ring inside them (one not linked to it is left out:
    nothing drawn would lead to it)."""
    kept_rings: list[list[str]] = []
    left_out: list[str] = []
    links: dict[tuple[str, str], int] = {}
    inside = {neighbourhood.centre}
    for ring, read in zip(neighbourhood.rings, neighbourhood.reads):
        members = set(ring)
        # Every fact from the kept ring inside to this ring, as (inner, outer); counted in C
        # (a hub's first ring: 20,000 facts).
        found = [
            (subject, obj) if subject in inside else (obj, subject)
            for _position, subject, obj in read
            if (subject in inside and obj in members) or (obj in inside and subject in members)
        ]
        weight = Counter(map(itemgetter(1), found))
        # The ring is in id order: then the most linked first (a stable sort).
        ranked = [eid for eid in ring if eid in weight]
        ranked.sort(key=weight.__getitem__, reverse=True)
        kept = ranked[:cap]
        inside = set(kept)
        left_out += ranked[cap:] + [eid for eid in ring if eid not in weight]
        links.update(Counter(pair for pair in found if pair[1] in inside))
        kept_rings.append(kept)
    return Kept(
        neighbourhood.centre,
        kept_rings,
        [len(ring) for ring in neighbourhood.rings],
        left_out,
        links,
    )


def place(kept: Kept, order: dict[str, tuple]) -> dict[str, Node]:
    """A radial tree: each kept neighbour hangs from the kept node one ring in with the most
    facts to it; each node gets a share of the circle as wide as the outermost nodes it
    leads to; siblings go round in ``order`` (a sort key per id, e.g. (first predicate, name)).

    Radii grow so that neighbouring nodes on a ring are at least SPACING apart."""
    centre = kept.centre
    nodes = {centre: Node(centre, 0)}
    children: dict[str, list[str]] = defaultdict(list)
    rank = {centre: 0}
    inward: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for (inner, outer), count in kept.links.items():
        inward[outer].append((count, inner))
    for k, ring in enumerate(kept.rings, start=1):
        for eid in ring:
            parent = min(inward[eid], key=lambda p: (-p[0], rank[p[1]]))[1]
            nodes[eid] = Node(eid, k, parent)
        for parent, siblings in _group(ring, nodes).items():
            siblings.sort(key=lambda eid: order.get(eid, ()))
            children[parent] = siblings
        # Ranks in drawing order, so that ties among parents go to the earlier one.
        for eid in _walk(centre, children):
            rank.setdefault(eid, len(rank))
    leaves: dict[str, int] = {}
    _count_leaves(centre, children, leaves)
    unit = 2 * math.pi / max(leaves[centre], 1)
    _share(centre, TOP - unit / 2, children, leaves, unit, nodes)
    radius = 0.0
    for k, ring in enumerate(kept.rings, start=1):
        if not ring:
            break
        angles = sorted(nodes[eid].angle for eid in ring)
        gap = min(b - a for a, b in zip(angles, [*angles[1:], angles[0] + 2 * math.pi]))
        least = FIRST_RADIUS if k == 1 else radius + RING_GAP
        radius = max(least, SPACING / gap if gap > 0 else least)
        for eid in ring:
            node = nodes[eid]
            node.x, node.y = radius * math.cos(node.angle), radius * math.sin(node.angle)
            node.room = 2 * radius * math.sin(min(gap, math.pi) / 2) if len(ring) > 1 else math.inf
    return nodes


def _group(ring: list[str], nodes: dict[str, Node]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for eid in ring:
        grouped[nodes[eid].parent].append(eid)
    return grouped


def _walk(eid: str, children: dict[str, list[str]]):
    yield eid
    for child in children.get(eid, ()):
        yield from _walk(child, children)


def _count_leaves(eid: str, children: dict[str, list[str]], leaves: dict[str, int]) -> int:
    below = children.get(eid, ())
    leaves[eid] = sum(_count_leaves(c, children, leaves) for c in below) if below else 1
    return leaves[eid]


def _share(eid, start, children, leaves, unit, nodes) -> None:
    """Give ``eid``'s children consecutive parts of its share starting at ``start``."""
    for child in children.get(eid, ()):
        width = leaves[child] * unit
        nodes[child].angle = start + width / 2
        _share(child, start, children, leaves, unit, nodes)
        start += width


@dataclass
class Edge:
    """The facts of one predicate, one way, between two kept nodes one ring apart."""

    inner: str
    outer: str
    predicate: str
    outgoing: bool  # the inner node is the subject
    facts: list[dict]
    bend: float = 0.0  # scene units sideways at the middle (several edges between two nodes)
    # It leads to the outer node from the node it hangs from (drawn fainter when not).
    primary: bool = True


def text_key(value) -> tuple[bool, str]:
    """Text in its own order; anything else (a BLOB, from raw SQL) after it."""
    return not isinstance(value, str), value if isinstance(value, str) else repr(value)


def _one_ring_apart(facts: list[dict], ring: dict[str, int]):
    """(fact, inner id, outer id, outgoing) for each fact between nodes one ring apart."""
    for fact in facts:
        subject, obj = ring.get(fact["subject"]), ring.get(fact["object"])
        if subject is None or obj is None or abs(subject - obj) != 1:
            continue
        if subject < obj:
            yield fact, fact["subject"], fact["object"], True
        else:
            yield fact, fact["object"], fact["subject"], False


def edges(facts: list[dict], nodes: dict[str, Node]) -> list[Edge]:
    """The drawn edges: facts between kept nodes one ring apart, grouped by the two nodes,
    the predicate and the direction; edges between the same two nodes bend apart."""
    ring = {eid: node.ring for eid, node in nodes.items()}
    grouped: dict[tuple, list[dict]] = defaultdict(list)
    for fact, inner, outer, outgoing in _one_ring_apart(facts, ring):
        grouped[inner, outer, fact["predicate"], outgoing].append(fact)
    drawn = [Edge(*key, group) for key, group in grouped.items()]
    for edge in drawn:
        edge.primary = nodes[edge.outer].parent == edge.inner
    drawn.sort(key=lambda e: (id_order(e.inner), id_order(e.outer), text_key(e.predicate)))
    between: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    for edge in drawn:
        between[edge.inner, edge.outer].append(edge)
    for group in between.values():
        for k, edge in enumerate(group):
            edge.bend = (k - (len(group) - 1) / 2) * 22.0
    return drawn


def sibling_order(facts: list[dict], ring: dict[str, int], name_keys: dict[str, tuple]) -> dict:
    """Each kept node's place among its siblings: grouped by the first predicate (in text
    order) linking it to the ring inside, then by its name's key (``name_keys``)."""
    first: dict[str, tuple] = {}
    for fact, _inner, outer, _outgoing in _one_ring_apart(facts, ring):
        key = text_key(fact["predicate"])
        if outer not in first or key < first[outer]:
            first[outer] = key
    return {eid: (first.get(eid, (False, "")), name_keys.get(eid, ())) for eid in ring}


Box = tuple[float, float, float, float]  # left, top, right, bottom, in pixels
CELL = 48.0  # pixels: the grid that finds a box's neighbours


def fitting_labels(
    labels: list[tuple[str, list[Box]]], nodes: dict[str, Box], bounds: Box, blocked: list[Box]
) -> dict[str, int]:
    """Where to show which labels: in the order given (the most important first), each label
    takes the first of its places (boxes, the preferred first) that lies within ``bounds``
    and covers no label placed before it, no other node and nothing in ``blocked`` (the
    legend, the buttons); a label none of whose places fits is left out. Returns the place
    chosen, by label."""
    grid: dict[tuple[int, int], list[tuple[str | None, Box]]] = defaultdict(list)

    def cells(box: Box):
        for i in range(int(box[0] // CELL), int(box[2] // CELL) + 1):
            for j in range(int(box[1] // CELL), int(box[3] // CELL) + 1):
                yield i, j

    def add(owner: str | None, box: Box) -> None:
        for cell in cells(box):
            grid[cell].append((owner, box))

    def fits(eid: str, box: Box) -> bool:
        inside = (
            box[0] >= bounds[0]
            and box[1] >= bounds[1]
            and box[2] <= bounds[2]
            and box[3] <= bounds[3]
        )
        return inside and not any(
            owner != eid
            and box[0] < other[2]
            and other[0] < box[2]
            and box[1] < other[3]
            and other[1] < box[3]
            for cell in cells(box)
            for owner, other in grid[cell]
        )

    for box in blocked:
        add(None, box)
    for eid, box in nodes.items():
        add(eid, box)
    chosen: dict[str, int] = {}
    for eid, places in labels:
        for k, box in enumerate(places):
            if fits(eid, box):
                chosen[eid] = k
                add(eid, box)
                break
    return chosen
