"""What the app adds for facts: address one by id, correct it, end or replace it; an entity's
intervals ready to draw; the graph's span. (Contradictions are in :mod:`.history`.)"""

from __future__ import annotations

from typing import Any

from factlines.core import temporal
from factlines.core.columns import EDITABLE, NO_PROVENANCE, Provenance
from factlines.core.errors import DuplicateFact, FactNotFound, Refused
from factlines.core.names import check_name, entity_id, predicate_id
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.intervals import IntervalTable
from factlines.core.store.mempalace import MemPalaceSurface, confidence_value
from factlines.core.store.protocol import GraphStore
from factlines.core.store.rows import PROVENANCE, describe, fact_dict
from factlines.core.store.wiring import Part, writes


class FactEdits(Part):
    """Facts by id: read, found, added, corrected, ended, replaced, deleted."""

    def __init__(self, store: GraphStore, entities: EntityEdits, mempalace: MemPalaceSurface):
        super().__init__(store)
        self._entities = entities
        self._mempalace = mempalace

    # ── One fact by id ────────────────────────────────────────────────────

    def get_fact(self, triple_id: str) -> dict[str, Any]:
        """One fact with every column, the entities' display names and POSIX start/end."""
        fact = self._store.facts.get(triple_id)
        if fact is None:
            raise FactNotFound(f"no fact with id {triple_id!r}")
        return fact

    def has_fact(self, triple_id: str) -> bool:
        return self._store.facts.exists(triple_id)

    def fact_count(self, entity_id: str | None) -> int:
        """How many facts the entity with this id (not a name) is the subject or object of."""
        return self._store.facts.count(entity_id)

    def has_facts(self) -> bool:
        """Whether the graph holds any fact (at once, where ``stats()`` counts them all)."""
        return self._store.facts.any_fact()

    @writes
    def update_fact(self, triple_id: str, **changes: Any) -> dict[str, Any]:
        """Correct any field of one fact; the result is validated as a new fact would be.

        Fields: subject, predicate, object (names; a missing entity is created), valid_from,
        valid_to, confidence and the provenance columns. Returns the fact as stored.
        """
        unknown = sorted(set(changes) - EDITABLE)
        if unknown:
            raise Refused(
                f"cannot set {', '.join(unknown)} on a fact; "
                f"the fields are {', '.join(sorted(EDITABLE))}"
            )
        values: dict[str, Any] = {}
        for field in ("valid_from", "valid_to"):
            if field in changes:
                values[field] = temporal.parse(changes[field], field)
        if "confidence" in changes:
            values["confidence"] = confidence_value(changes["confidence"])
        for field in PROVENANCE:
            if field in changes:
                value = changes[field]
                if value is not None and not isinstance(value, str):
                    raise Refused(f"{field} must be text or empty")
                values[field] = value or None
        if "predicate" in changes:
            check_name(changes["predicate"], "predicate")
            values["predicate"] = predicate_id(changes["predicate"])
        for field in ("subject", "object"):
            if field in changes:
                check_name(changes[field], field)
        # The fact is read inside the write: another client's edit is seen, never overwritten.
        with self._store.transaction():
            fact = self.get_fact(triple_id)
            temporal.check_interval(
                values.get("valid_from", fact["valid_from"]),
                values.get("valid_to", fact["valid_to"]),
            )
            for field in ("subject", "object"):
                if field in changes:
                    values[field] = self._entity_for(changes[field])
            merged = {**fact, **values}
            if merged["valid_to"] is None:
                twins = self._store.facts.open_ids(
                    merged["subject"], merged["predicate"], merged["object"]
                )
                twin = next((tid for tid, _ in twins if tid != triple_id), None)
                if twin is not None:
                    other = self.get_fact(twin)
                    raise DuplicateFact(
                        f"an open fact {describe(other)} already exists (since "
                        f"{other['valid_from'] or 'an unknown date'}); end one of them first",
                        twin,
                    )
            self._store.facts.update(triple_id, values)
            return self.get_fact(triple_id)

    def _entity_for(self, name: str) -> str:
        """The id of the entity ``name`` means, created (as MemPalace would) if there is none."""
        eid = self._entities.resolve_entity(name)
        if eid is None:
            eid = entity_id(name)
            self._store.entities.ensure(eid, name)
        return eid

    def find_open_fact(self, subject: str, predicate: str, obj: str) -> dict[str, Any] | None:
        """The open fact (subject, predicate, object), the one ``add_triple`` would return."""
        # Checked for untyped callers, whatever the annotations say.
        if not all(isinstance(v, str) for v in (subject, predicate, obj)):  # pyright: ignore[reportUnnecessaryIsInstance]
            return None
        rows = self._store.facts.open_ids(
            entity_id(subject), predicate_id(predicate), entity_id(obj)
        )
        return self.get_fact(rows[0][0]) if rows else None

    @writes
    def add_fact(self, subject: str, predicate: str, obj: str, **fields: Any) -> str:
        """``add_triple`` for a person at the keyboard: names resolve to existing entities (also
        by display name), and an identical open fact is refused, not silently returned."""
        check_name(subject, "subject")
        check_name(obj, "object")
        check_name(predicate, "predicate")
        with self._store.transaction():
            subject = self._entities.resolve_entity(subject) or subject
            obj = self._entities.resolve_entity(obj) or obj
            twin = self._store.facts.open_ids(
                entity_id(subject), predicate_id(predicate), entity_id(obj)
            )
            if twin:
                fact = self.get_fact(twin[0][0])
                raise DuplicateFact(
                    f"{describe(fact)} is already an open fact (since "
                    f"{fact['valid_from'] or 'an unknown date'}); end it or edit it instead",
                    fact["id"],
                )
            return self._mempalace.add_triple(subject, predicate, obj, **fields)

    @writes
    def supersede_fact(
        self,
        triple_id: str,
        new_object: str,
        at: str | None = None,
        confidence: float = 1.0,
        provenance: Provenance = NO_PROVENANCE,
    ) -> str:
        """``supersede`` addressed by the fact's id: end it at ``at`` and open its successor with
        ``new_object`` at the same instant, in one write. Returns the successor's id."""
        check_name(new_object, "new object")
        at = temporal.boundary(at)
        confidence = confidence_value(confidence)
        with self._store.transaction():
            fact = self._open_fact(triple_id)
            temporal.check_interval(fact["valid_from"], at, to_field="at")
            new_id = self._entity_for(new_object)
            if new_id == fact["object"]:
                raise Refused(f"{describe(fact)} already has {new_object!r} as its object")
            self._store.facts.update(triple_id, {"valid_to": at})
            return self._mempalace.open_successor(
                fact["subject"], fact["predicate"], new_id, at, confidence, provenance
            )

    @writes
    def end_fact(self, triple_id: str, ended: str | None = None) -> dict[str, Any]:
        """End one open fact at ``ended`` (default today), as ``invalidate`` does by triple."""
        ended = temporal.parse(ended, "ended") or temporal.today()
        with self._store.transaction():
            fact = self._open_fact(triple_id)
            temporal.check_interval(fact["valid_from"], ended, to_field="ended")
            self._store.facts.update(triple_id, {"valid_to": ended})
            return self.get_fact(triple_id)

    def _open_fact(self, triple_id: str) -> dict[str, Any]:
        """The fact, read in the caller's write; refused when it has already ended."""
        fact = self.get_fact(triple_id)
        if fact["valid_to"] is not None:
            raise Refused(f"the fact {describe(fact)} already ended on {fact['valid_to']}")
        return fact

    @writes
    def delete_fact(self, triple_id: str) -> dict[str, Any]:
        """Remove one fact (for mistakes; a fact that stopped being true is ended instead)."""
        with self._store.transaction():
            fact = self.get_fact(triple_id)
            self._store.facts.delete(triple_id)
        return fact

    # ── Finding facts ─────────────────────────────────────────────────────

    def find_facts(
        self,
        text: str = "",
        predicate: str | None = None,
        as_of: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        """Facts whose predicate, subject or object name, or provenance (source file, closet,
        drawer, adapter) holds ``text`` (case-insensitive for ASCII; empty: any), of exactly
        ``predicate`` when given, valid at ``as_of`` when given; fact rows (:meth:`get_fact`'s)
        by id, one page (``limit`` below 1 counts as 1, ``offset`` below 0 as 0).
        :meth:`count_found_facts` counts them all."""
        text, pred, key = self._search_terms(text, predicate, as_of)
        limit, offset = max(1, int(limit)), max(0, int(offset))
        return [fact_dict(r) for r in self._store.facts.search(text, pred, key, limit, offset)]

    def count_found_facts(
        self, text: str = "", predicate: str | None = None, as_of: str | None = None
    ) -> int:
        """How many facts :meth:`find_facts` pages through."""
        return self._store.facts.search_count(*self._search_terms(text, predicate, as_of))

    @staticmethod
    def _search_terms(
        text: object, predicate: str | None, as_of: str | None
    ) -> tuple[str, str | None, str | None]:
        if not isinstance(text, str):
            raise Refused("the search text must be text")
        if predicate is not None:
            check_name(predicate, "predicate")
            predicate = predicate_id(predicate)
        return text.strip(), predicate, temporal.start_key(temporal.parse(as_of, "as_of"))

    # ── For the chart ─────────────────────────────────────────────────────

    def intervals(
        self, ref: str, start: str | None = None, end: str | None = None
    ) -> list[dict[str, Any]]:
        """Every fact of the entity, both directions, meeting ``[start, end)`` if given.

        Each row has the fact's columns, ``direction``, ``other`` / ``other_name`` (the entity at
        the other end), and ``start`` / ``end`` in POSIX seconds (None for an unknown start or
        an open end), the end being the end key of ``valid_to``.
        """
        return list(self.interval_table(ref, start, end))

    def interval_table(
        self, ref: str, start: str | None = None, end: str | None = None
    ) -> IntervalTable:
        """:meth:`intervals` as a table: rows made when asked for, and the columns views sort
        and lay out by (a hub's 20,000 facts)."""
        start_key = temporal.start_key(temporal.parse(start, "start"))
        end_key = temporal.start_key(temporal.parse(end, "end"))
        return self._store.facts.of_entity(self._entities.id_of(ref), start_key, end_key)

    def time_span(self) -> tuple[str, str] | None:
        """The earliest and latest comparison keys of any dated fact, or None if none is dated."""
        return self._store.facts.time_span()
