"""What the app adds for entities: find them, list and search them, correct them.

Methods take an entity's id; a name a person typed also works (:meth:`resolve_entity`): the id
itself first, so ``Ann`` and ``ann`` in a file whose ids are not normalised each stay
themselves, then MemPalace's id of the name, then a display name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, overload

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id
from factlines.core.progress import Progress, RowCounter
from factlines.core.search import EntitySearchIndex
from factlines.core.store.edit_history import EditHistory
from factlines.core.store.mempalace import properties_json
from factlines.core.store.protocol import FactStore, GraphStore
from factlines.core.store.rows import ENTITY_ORDERS
from factlines.core.store.wiring import Part, writes

# Facts read again and re-pointed at once (a few such parts to each short transaction), and
# the columns of each as ``FactStore.touching`` gives it.
_FACTS_PER_PART = 500
_TOUCHING = ("id", "subject", "predicate", "object", "valid_from", "valid_to")


def keep_earlier_start(
    facts: FactStore, survivor_id: str, survivor_from: str | None, valid_from: str | None
) -> str | None:
    """Where two open copies of one fact become one: the survivor starts at the earlier of
    the two starts (an unknown start is the earliest). Returns the survivor's start."""
    if valid_from is None or (
        survivor_from is not None
        and temporal.start_key(valid_from) < temporal.start_key(survivor_from)
    ):
        facts.update(survivor_id, {"valid_from": valid_from})
        return valid_from
    return survivor_from


class EntityEdits(Part):
    """Entities: found by name, listed, renamed, typed, merged."""

    def __init__(self, store: GraphStore, log: EditHistory):
        super().__init__(store)
        self._log = log

    def resolve_entity(self, ref: str) -> str | None:
        """The id of the entity ``ref`` (an id or a name) means, or None. A BLOB id (its table
        can hold one; the views hand it back as they got it) names its own row."""
        if isinstance(ref, bytes):
            return ref if self._store.entities.get(ref) is not None else None
        if not isinstance(ref, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            return None  # from an untyped caller: no entity's id or name
        return self._store.entities.resolve(ref)

    @overload
    def id_of(self, ref: str) -> str: ...
    @overload
    def id_of(self, ref: bytes) -> bytes: ...
    @overload
    def id_of(self, ref: str | bytes) -> str | bytes: ...
    def id_of(self, ref: str | bytes) -> str | bytes:
        """The id ``ref`` stands for; MemPalace's rule when no entity matches (a BLOB id stands
        for itself)."""
        if isinstance(ref, bytes):
            return ref
        return self.resolve_entity(ref) or entity_id(ref)

    def get_entity(self, ref: str) -> dict[str, Any] | None:
        """The entity ``ref`` means, properties decoded; or None."""
        eid = self.resolve_entity(ref)
        row = self._store.entities.get(eid) if eid is not None else None
        if row is None:
            return None
        try:
            properties: Any = json.loads(row["properties"]) if row["properties"] else {}
        except ValueError:
            properties = {}
        return {**row, "properties": properties}

    def require(self, ref: str, field: str = "entity") -> dict[str, Any]:
        entity = self.get_entity(ref)
        if entity is None:
            raise Refused(f"{field} {ref!r} is not in the graph")
        return entity

    def list_entities(
        self,
        search: str = "",
        entity_type: str | None = None,
        valid_at: str | None = None,
        order: str = "name",
        descending: bool = False,
        limit: int = 100,
        offset: int = 0,
        counts: bool = True,
    ) -> list[dict[str, Any]]:
        """A page of entities with their current and ended fact counts.

        ``search`` matches id or name, case-insensitively, as a prefix or a substring (prefix
        matches first when ordered by name). ``valid_at`` keeps entities with a fact valid then.
        ``counts=False`` leaves the counts None unless the order needs them (a long list
        read to find one entity, its counts read for the rows shown: ``entity_list_rows``).
        """
        key = _listing_key(order, valid_at)
        return self._store.entities.page(
            (search or "").strip(),
            entity_type,
            key,
            order,
            descending,
            max(0, int(limit)),
            max(0, int(offset)),
            counts,
        )

    def entity_position(
        self,
        entity: str,
        search: str = "",
        entity_type: str | None = None,
        valid_at: str | None = None,
        order: str = "name",
        descending: bool = False,
    ) -> int | None:
        """The row (from 0) of the entity with id ``entity`` in :meth:`list_entities`' listing
        of these filters and order; None when that listing leaves it out. A list shows an
        entity chosen elsewhere by reading its page alone, not every row before it."""
        key = _listing_key(order, valid_at)
        return self._store.entities.position(
            entity, (search or "").strip(), entity_type, key, order, descending
        )

    def entity_list_rows(self, ids: Sequence[str | None]) -> list[dict[str, Any]]:
        """The rows :meth:`list_entities` gives for these entity ids (with their counts), in
        their order; an id no entity has is left out."""
        return self._store.entities.listed([eid for eid in ids if eid is not None])

    def count_entities(
        self, search: str = "", entity_type: str | None = None, valid_at: str | None = None
    ) -> int:
        key = temporal.start_key(temporal.parse(valid_at, "valid_at"))
        return self._store.entities.count((search or "").strip(), entity_type, key)

    def prepare_search(self) -> None:
        """Build the in-memory search index now, if the file changed since it was built.

        The first search after a change builds it otherwise (about 25 ms per 10k entities):
        an app calls this when the user is about to type, not on the first keystroke.
        """
        self._store.entities.prepare_search()

    def search_index_stamp(self) -> object | None:
        """None when the search index is up to date; else what the graph is now, for
        :meth:`adopt_search_index`. Building the index takes ~1 s at 100k entities: an app
        builds it with :meth:`read_search_index` on another thread, on a store of its own,
        and hands it to this one."""
        return self._store.entities.search_index_stamp()

    def read_search_index(self) -> EntitySearchIndex:
        """A search index of the entities as they are now; this store does not keep it."""
        return self._store.entities.read_search_index()

    def adopt_search_index(self, index: EntitySearchIndex, stamp: object) -> bool:
        """Keep ``index`` (read since :meth:`search_index_stamp` gave ``stamp``, on any store
        of the same graph) as this store's search index, unless the graph changed since
        ``stamp`` (as this store knows: a write of its own, or another program's it has
        seen); whether it was kept."""
        return self._store.entities.adopt_search_index(index, stamp)

    def entity_types(self) -> list[str]:
        return self._store.entities.types()

    def entity_names(self) -> list[str]:
        """Every display name, for completion."""
        return self._store.entities.names()

    def predicates(self) -> list[str]:
        return self._store.facts.predicates()

    @writes
    def rename_entity(self, ref: str, new_name: str) -> str:
        """Change the display name; the id (and every fact pointing at it) stays."""
        check_name(new_name, "new name")
        with self._store.transaction():
            entity = self.require(ref)
            self._store.entities.update(entity["id"], name=new_name)
        return entity["id"]

    @writes
    def set_entity_type(self, ref: str, entity_type: str) -> None:
        # Checked for untyped callers, whatever the annotation says.
        if not isinstance(entity_type, str) or not entity_type.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
            raise Refused("an entity type must be a non-empty string")
        with self._store.transaction():
            entity = self.require(ref)
            self._store.entities.update(entity["id"], type=entity_type.strip())

    @writes
    def set_entity_properties(self, ref: str, properties: dict[str, Any]) -> None:
        text = properties_json(properties)
        with self._store.transaction():
            entity = self.require(ref)
            self._store.entities.update(entity["id"], properties=text)

    @writes
    def merge_entities(self, source: str, target: str, progress: Progress | None = None) -> str:
        """Re-point every fact of ``source`` at ``target`` and drop ``source``, in one write
        (in short transactions, between which MemPalace writes: :meth:`batched`).

        Where the merge leaves two open facts with the same subject, predicate and object, the
        one that came from ``source`` is closed into the survivor: the survivor keeps the earlier
        start, and the duplicate row is removed. ``progress(done, total)``: the facts re-pointed,
        after each short transaction; returning False cancels (``Cancelled``: what was written
        is taken back).
        """
        facts = self._store.facts
        src, dst = self.require(source, "source"), self.require(target, "target")
        if src["id"] == dst["id"]:
            raise Refused(f"cannot merge {src['name']!r} into itself")
        touching = facts.touching(src["id"])

        def write(part: list[tuple[Any, ...]]) -> None:
            now = self._store.bulk.rows_with_ids("triples", _TOUCHING, [row[0] for row in part])
            still = set(now) & {tuple(row) for row in part}
            for row in part:
                if tuple(row) in still:  # one changed since is taken as it is now, below
                    self._repoint(row, src["id"], dst["id"])

        parts = (
            touching[i : i + _FACTS_PER_PART] for i in range(0, len(touching), _FACTS_PER_PART)
        )
        counter = RowCounter(progress, len(touching))
        with self._log.batched():
            self._log.write_in_parts(parts, write, lambda part: counter.add(len(part)))
            with self._log.batch():  # what another program wrote with the source meanwhile, too
                # Checked again inside the write that finishes the merge: another client may
                # have merged or renamed either entity meanwhile.
                self.require(src["id"], "source")
                self.require(dst["id"], "target")
                for row in facts.touching(src["id"]):
                    self._repoint(row, src["id"], dst["id"])
                self._store.entities.delete(src["id"])
        return dst["id"]

    def _repoint(self, row: tuple[Any, ...], source: str, target: str) -> None:
        """Point one fact (``touching``'s row) at ``target`` instead of ``source``; where that
        makes it an open twin of another fact, close it into that one."""
        facts = self._store.facts
        tid, sub, pred, obj, vf, vt = row
        new_sub = target if sub == source else sub
        new_obj = target if obj == source else obj
        twins: list[tuple[str, str | None]] = (
            [] if vt is not None else facts.open_ids(new_sub, pred, new_obj)
        )
        survivor = next(((i, f) for i, f in twins if i != tid), None)
        if survivor is None:
            facts.update(tid, {"subject": new_sub, "object": new_obj})
            return
        keep_earlier_start(facts, *survivor, vf)
        facts.delete(tid)


def _listing_key(order: str, valid_at: str | None) -> str | None:
    """The stored-time key of a listing's ``valid_at``, once its order is known to be one."""
    if order not in ENTITY_ORDERS:
        raise Refused(f"order={order!r} is not one of {', '.join(ENTITY_ORDERS)}")
    return temporal.start_key(temporal.parse(valid_at, "valid_at"))
