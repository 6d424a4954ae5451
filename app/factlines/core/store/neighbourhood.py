"""An entity's neighbourhood across its whole history: the entities within a few facts of it,
ring by ring, and the facts that link them.

Time plays no part: a fact that ended long ago links as well as an open one, so the rings stay
the same while as_of moves (a view lays them out once and only restyles them). One read per
ring: the facts touching the ring found last.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from factlines.core.errors import Refused
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.protocol import GraphStore
from factlines.core.store.wiring import Part


def id_order(eid: object) -> tuple[bool, str]:
    """Ids in text order; an id that is not text (a BLOB, from raw SQL) after them."""
    return not isinstance(eid, str), str(eid)


def in_id_order(ids: Iterable[Any]) -> list[Any]:
    """``ids`` sorted as :func:`id_order` says (plain text order when all are text)."""
    try:
        return sorted(ids)
    except TypeError:  # text and BLOBs mixed
        return sorted(ids, key=id_order)


@dataclass
class Neighbourhood:
    centre: str
    rings: list[list[str]]  # rings[k - 1]: ids at distance k, in id order
    # (position, subject, object) of every fact with an end in the centre or a ring but the
    # last (position: see :meth:`GraphNeighbourhood.link_positions`), by the ring whose search
    # read it: reads[k - 1] holds every fact with an end in ring k - 1, so every fact between
    # ring k - 1 and ring k (a fact between two rings is in both their reads).
    reads: list[list[tuple[Any, ...]]]
    # The reads as (subject, object) by position: what a write is checked against. Made with
    # the reads, where they are read (a worker, for a hub): 126 ms at depth 2 around the 1M
    # graph's hub, which a first write after it used to pay on the UI thread.
    links: dict[object, tuple[str, str]] = field(init=False)

    def __post_init__(self) -> None:
        self.links = {
            position: (subject, obj) for read in self.reads for position, subject, obj in read
        }

    @property
    def depth(self) -> int:
        return len(self.rings)

    def distances(self) -> dict[str, int]:
        """Each entity's distance from the centre (the centre's is 0)."""
        found = {self.centre: 0}
        for k, ring in enumerate(self.rings, start=1):
            found.update(dict.fromkeys(ring, k))
        return found

    def size(self) -> int:
        """How many entities are within the depth, the centre left out."""
        return sum(len(ring) for ring in self.rings)


class GraphNeighbourhood(Part):
    """The entities around one, for the neighbourhood graph."""

    def __init__(self, store: GraphStore, entities: EntityEdits):
        super().__init__(store)
        self._entities = entities

    def neighbourhood(
        self, entity: str, depth: int = 1, links: list[tuple[Any, ...]] | None = None
    ) -> Neighbourhood:
        """The entities within ``depth`` facts of ``entity`` (either direction, any time),
        ring by ring, each ring in id order, and the facts read to find them; ``links``: the
        entity's own facts' (position, subject, object) when the caller read them already
        (``IntervalTable.links``: a hub's 20,000 need not be read twice)."""
        # Checked for untyped callers, whatever the annotation says.
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise Refused(f"depth must be a whole number of at least 1, not {depth!r}")
        eid = self._entities.id_of(entity)
        rings: list[list[str]] = []
        reads: list[list[tuple[Any, ...]]] = []
        seen = {eid}
        frontier = [eid]
        for k in range(depth):
            rows = links if k == 0 and links is not None else self._store.facts.links(frontier)
            reads.append(rows)
            ring = set(map(itemgetter(1), rows))
            ring.update(map(itemgetter(2), rows))
            ring -= seen
            ring.discard(None)  # a fact without a subject or object (raw SQL) links nothing
            frontier = in_id_order(ring)
            rings.append(frontier)
            seen |= ring
        return Neighbourhood(eid, rings, reads)

    def link_positions(self, triple_ids: list[str]) -> dict[str, tuple[Any, ...]]:
        """``(position, subject, object)`` of each of these facts that exists, by id: whether
        a write moved a fact in or out of a :class:`Neighbourhood` (an edit keeps a fact's
        position; a new fact has a position no neighbourhood read before holds)."""
        return {row[0]: row[1:] for row in self._store.facts.link_positions(list(triple_ids))}

    def facts_among(self, entities: list[str]) -> list[dict[str, Any]]:
        """Every fact whose subject and object are both among ``entities`` (ids): the fact's
        columns, the entities' names and POSIX ``start``/``end``, as ``get_fact`` rows."""
        return self._store.facts.among(list(entities))
