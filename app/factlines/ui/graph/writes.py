"""What a write means for the neighbourhood drawn: nothing, new times for facts drawn (restyle),
or a link added, removed or moved (lay out again). No Qt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from factlines.core.store import KnowledgeGraph, Touched
from factlines.core.store.neighbourhood import Neighbourhood

# Past this many touched facts, laying out again beats looking at each.
MAX_LOOKED_AT = 200
NOTHING, RESTYLE, REBUILD = "nothing", "restyle", "rebuild"


@dataclass
class Drawn:
    """The neighbourhood as drawn: the rings and the facts read, what is shown."""

    hood: Neighbourhood
    nodes: set[str]  # the ids drawn
    facts: dict[str, dict] = field(default_factory=dict)  # each drawn fact's row by id

    def __post_init__(self) -> None:
        self.inner = {self.hood.centre}.union(*self.hood.rings[:-1])

    def after_write(
        self, touched: Touched, kg: KnowledgeGraph, read_fact: Callable[[str], dict]
    ) -> str:
        """NOTHING, RESTYLE (the drawn facts' rows were patched in place with ``read_fact``)
        or REBUILD. A fact keeps its position when edited, so a position read with the rings
        tells whether its ends moved; a new position touching the rings inside is a new
        link; a fact gone may have been one the rings were found by."""
        if (
            touched.everything
            or len(touched.facts) > MAX_LOOKED_AT
            or touched.entities & self.nodes  # a name or a type drawn
        ):
            return REBUILD
        if not touched.facts:
            return NOTHING
        now = kg.link_positions(sorted(touched.facts, key=str))
        if len(now) < len(touched.facts):
            return REBUILD
        links, patched = self.hood.links, []
        for tid, (position, subject, obj) in now.items():
            before = links.get(position)
            if before is None:
                if subject in self.inner or obj in self.inner:
                    return REBUILD
            elif before != (subject, obj):
                return REBUILD
            fact = self.facts.get(tid)
            if fact is not None:
                row = read_fact(tid)
                if row["predicate"] != fact["predicate"]:
                    return REBUILD
                patched.append((fact, row))
        for fact, row in patched:
            fact.update(row)
        return RESTYLE if patched else NOTHING
