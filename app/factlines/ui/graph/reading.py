"""What the neighbourhood graph reads and lays out for a selection, before anything is drawn.

No widget here: for a hub, :func:`read_picture` runs on the worker that reads its facts
(``AppState.prepare_with``), and the view only draws the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from factlines import KnowledgeGraph
from factlines.core.store.neighbourhood import Neighbourhood
from factlines.ui.graph import layout
from factlines.ui.graph.controls import LEFT_OUT_NAMED
from factlines.ui.look import style


@dataclass
class Picture:
    """The neighbourhood of ``centre`` at ``depth`` with at most ``cap`` neighbours a ring,
    read and laid out."""

    centre: str
    depth: int
    cap: int
    hood: Neighbourhood
    kept: layout.Kept
    records: dict[str, dict]  # every drawn entity's row
    nodes: dict[str, layout.Node]
    edges: list[layout.Edge]
    left_out_names: dict[str, str]  # the first few entities left out, by id

    def fits(self, centre: str, depth: int, cap: int) -> bool:
        return (self.centre, self.depth, self.cap) == (centre, depth, cap)


def read_picture(
    kg: KnowledgeGraph, entity: dict, depth: int, cap: int, links: list[tuple] | None = None
) -> Picture:
    """Read ``entity``'s neighbourhood (its own ``links`` when read already) and place its
    nodes and edges."""
    hood = kg.neighbourhood(entity["id"], depth, links)
    kept = layout.keep(hood, cap)
    ring = {hood.centre: 0}
    for k, ids in enumerate(kept.rings, start=1):
        ring.update(dict.fromkeys(ids, k))
    records = kg.rows_with_ids("entities", list(ring))
    records[hood.centre] = entity
    for eid in ring:  # a fact may name an entity that has no row (raw SQL)
        records.setdefault(eid, {"id": eid, "name": eid, "type": None})
    facts = kg.facts_among(list(ring))
    name_keys = {eid: style.order_key(records[eid]["name"]) for eid in ring}
    nodes = layout.place(kept, layout.sibling_order(facts, ring, name_keys))
    named = kg.rows_with_ids("entities", kept.left_out[:LEFT_OUT_NAMED])
    return Picture(
        entity["id"],
        depth,
        cap,
        hood,
        kept,
        records,
        nodes,
        layout.edges(facts, nodes),
        {eid: row["name"] for eid, row in named.items()},
    )
