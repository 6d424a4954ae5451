"""MemPalace 3.11's ``KnowledgeGraph`` methods: same names, arguments and results (plus an
``id`` on every fact row), over any engine of the store.

Names are turned into ids by MemPalace's rule (:mod:`factlines.core.names`), so both programs
address the same rows; a name that is no entity's id falls back to the display name (an entity
renamed in Factlines keeps its id) and then to MemPalace's candidate matches.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

from factlines.core import temporal
from factlines.core.columns import Provenance
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id, new_triple_id, predicate_id
from factlines.core.store.as_recorded import RecordedView
from factlines.core.store.protocol import MEMPALACE_WAIT, GraphStore
from factlines.core.store.wiring import Part, writes

DIRECTIONS = ("outgoing", "incoming", "both")


def confidence_value(value: Any) -> float:
    """A confidence as MemPalace callers pass it, checked: a number between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise Refused(f"confidence={value!r} is not a number between 0 and 1") from None
    if not 0.0 <= float(value) <= 1.0:
        raise Refused(f"confidence={value!r} is not between 0 and 1")
    return float(value)


def properties_json(properties: Any) -> str:
    if properties is None:
        return "{}"
    if not isinstance(properties, dict):
        raise Refused(f"properties must be a mapping, not {type(properties).__name__}")
    try:
        return json.dumps(properties)
    except (TypeError, ValueError) as exc:
        raise Refused(f"properties cannot be stored as JSON: {exc}") from None


def _dated_rows(rows: Iterable[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """query_relationship / timeline rows: (id, subject, predicate, object, from, to)."""
    return [
        {
            "subject": sub,
            "predicate": pred,
            "object": obj,
            "valid_from": vf,
            "valid_to": vt,
            "current": vt is None,
            "id": tid,
        }
        for tid, sub, pred, obj, vf, vt in rows
    ]


class MemPalaceSurface(Part):
    """The MemPalace-compatible methods of :class:`~factlines.core.store.KnowledgeGraph`."""

    def __init__(self, store: GraphStore, recorded: RecordedView):
        super().__init__(store)
        self._recorded = recorded  # query_entity's rows as recorded by an instant

    def _mempalace_write(self) -> AbstractContextManager[None]:
        """One write of MemPalace's methods: all or nothing. A caller of MemPalace's methods
        keeps MemPalace's patience with another program's lock; the app's own edits wait less."""
        return self._store.transaction(wait=MEMPALACE_WAIT)

    # ── Names to ids ──────────────────────────────────────────────────────

    def _named(self, name: str) -> str:
        """The id MemPalace's rule gives ``name``, or, when that is no entity, the entity whose
        display name it is; the rule's id when neither exists."""
        eid = entity_id(name)
        if self._store.entities.get(eid) is not None:
            return eid
        return self._store.entities.resolve(name, rule_first=True) or eid

    def _ensure_entity(self, name: str) -> str:
        eid = entity_id(name)
        self._store.entities.ensure(eid, name)
        return eid

    def _insert_fact(
        self,
        sub_id: str,
        pred: str,
        obj_id: str,
        valid_from: str | None,
        valid_to: str | None,
        confidence: float,
        provenance: Provenance,
    ) -> str:
        triple_id = new_triple_id(sub_id, pred, obj_id)
        while self._store.facts.exists(triple_id):
            triple_id = new_triple_id(sub_id, pred, obj_id)
        self._store.facts.insert(
            triple_id,
            {
                "subject": sub_id,
                "predicate": pred,
                "object": obj_id,
                "valid_from": valid_from,
                "valid_to": valid_to,
                "confidence": confidence,
                **provenance._asdict(),
            },
        )
        return triple_id

    def open_successor(
        self,
        sub_id: str,
        pred: str,
        new_id: str,
        at: str,
        confidence: float,
        provenance: Provenance,
    ) -> str:
        """Open (subject, predicate, new object) from ``at``, unless it is open already."""
        existing = self._store.facts.open_ids(sub_id, pred, new_id)
        if existing:
            return existing[0][0]
        return self._insert_fact(sub_id, pred, new_id, at, None, confidence, provenance)

    def _end_open(self, sub_id: str, pred: str, obj_id: str, at: str, field: str) -> None:
        rows = self._store.facts.open_ids(sub_id, pred, obj_id)
        for _, valid_from in rows:
            temporal.check_interval(valid_from, at, to_field=field)
        for triple_id, _ in rows:
            self._store.facts.update(triple_id, {"valid_to": at})

    # ── Writes ────────────────────────────────────────────────────────────

    @writes
    def add_entity(
        self, name: str, entity_type: str = "unknown", properties: dict[str, Any] | None = None
    ) -> str:
        """Insert or replace the entity row (MemPalace's semantics: the row is rewritten)."""
        check_name(name, "name")
        eid = entity_id(name)
        with self._mempalace_write():
            self._store.entities.put(eid, name, entity_type, properties_json(properties))
        return eid

    @writes
    def add_triple(
        self,
        subject: str,
        predicate: str,
        obj: str,
        valid_from: str | None = None,
        valid_to: str | None = None,
        confidence: float = 1.0,
        source_closet: str | None = None,
        source_file: str | None = None,
        source_drawer_id: str | None = None,
        adapter_name: str | None = None,
    ) -> str:
        """Add subject → predicate → object; an identical open fact is returned, not doubled."""
        check_name(subject, "subject")
        check_name(obj, "object")
        check_name(predicate, "predicate")
        valid_from = temporal.parse(valid_from, "valid_from")
        valid_to = temporal.parse(valid_to, "valid_to")
        temporal.check_interval(valid_from, valid_to)
        confidence = confidence_value(confidence)
        pred = predicate_id(predicate)
        provenance = Provenance(source_closet, source_file, source_drawer_id, adapter_name)
        with self._mempalace_write():
            sub_id = self._ensure_entity(subject)
            obj_id = self._ensure_entity(obj)
            existing = self._store.facts.open_ids(sub_id, pred, obj_id)
            if existing:
                self._store.note_assertion()  # someone now relies on it: an undo must know
                return existing[0][0]
            return self._insert_fact(
                sub_id, pred, obj_id, valid_from, valid_to, confidence, provenance
            )

    @writes
    def invalidate(self, subject: str, predicate: str, obj: str, ended: str | None = None) -> None:
        """End the open (subject, predicate, object) facts at ``ended`` (default: today)."""
        ended = temporal.parse(ended, "ended") or temporal.today()
        with self._mempalace_write():
            self._end_open(
                entity_id(subject), predicate_id(predicate), entity_id(obj), ended, "ended"
            )

    @writes
    def supersede(
        self,
        subject: str,
        predicate: str,
        old_obj: str,
        new_obj: str,
        at: str | None = None,
        confidence: float = 1.0,
        source_closet: str | None = None,
        source_file: str | None = None,
        source_drawer_id: str | None = None,
        adapter_name: str | None = None,
    ) -> str:
        """Close the open old fact and open the new one at one shared instant, in one write."""
        check_name(subject, "subject")
        check_name(new_obj, "new object")
        check_name(predicate, "predicate")
        at = temporal.boundary(at)
        confidence = confidence_value(confidence)
        pred = predicate_id(predicate)
        provenance = Provenance(source_closet, source_file, source_drawer_id, adapter_name)
        with self._mempalace_write():
            sub_id = self._ensure_entity(subject)
            new_id = self._ensure_entity(new_obj)
            self._end_open(sub_id, pred, entity_id(old_obj), at, "at")
            return self.open_successor(sub_id, pred, new_id, at, confidence, provenance)

    @writes
    def rewrite(
        self,
        triple_id: str,
        predicate: str,
        obj: str,
        at: str | None = None,
        source_file: str | None = None,
    ) -> str | None:
        """Close the open fact ``triple_id`` and open its rewrite at the same instant, in one
        write (MemPalace 3.11; ``mempalace kg normalize`` uses it). Returns the successor's id.

        The successor keeps the subject, takes ``predicate`` and ``obj``, and carries the
        original's confidence and provenance: rewording is not new evidence. ``source_file``
        only fills in where the original has none. An open fact that already says the same
        from the same evidence, and holds at the boundary, is returned instead of a second
        one. A fact no longer open (ended, replaced or gone since a plan was made) is left
        alone: nothing is written and the result is None. ``at`` as in :meth:`supersede`.
        """
        boundary = temporal.boundary(at)
        check_name(predicate, "predicate")
        check_name(obj, "object")
        pred, obj_id = predicate_id(predicate), entity_id(obj)
        with self._mempalace_write():
            # A non-text id (from an untyped caller) is no fact.
            fact = self._store.facts.get(triple_id) if isinstance(triple_id, str) else None  # pyright: ignore[reportUnnecessaryIsInstance]
            if fact is None or fact["valid_to"] is not None:
                return None
            temporal.check_interval(fact["valid_from"], boundary, to_field="at")
            self._ensure_entity(obj)
            self._store.facts.update(triple_id, {"valid_to": boundary})
            confidence = 1.0 if fact["confidence"] is None else fact["confidence"]
            provenance = Provenance.of(fact)._replace(
                source_file=fact["source_file"] or source_file
            )
            for tid, valid_from in self._store.facts.open_ids(fact["subject"], pred, obj_id):
                if valid_from is not None and temporal.start_key(valid_from) > boundary:
                    continue  # a fact scheduled to start later does not cover the boundary
                twin = self._store.facts.get(tid)
                if (twin["confidence"], Provenance.of(twin)) == (confidence, provenance):
                    return tid
            return self._insert_fact(
                fact["subject"], pred, obj_id, boundary, None, confidence, provenance
            )

    @writes
    def seed_from_entity_facts(self, entity_facts: dict[str, dict[str, Any]]) -> None:
        """Bootstrap from fact_checker-style ENTITY_FACTS, as MemPalace does, in one write."""
        with self._mempalace_write():
            for key, facts in entity_facts.items():
                name = facts.get("full_name", key.capitalize())
                birthday = facts.get("birthday")
                self.add_entity(
                    name,
                    facts.get("type", "person"),
                    {"gender": facts.get("gender", ""), "birthday": facts.get("birthday", "")},
                )
                if parent := facts.get("parent"):
                    self.add_triple(name, "child_of", parent.capitalize(), valid_from=birthday)
                if partner := facts.get("partner"):
                    self.add_triple(name, "married_to", partner.capitalize())
                relationship = facts.get("relationship", "")
                if relationship == "daughter":
                    parent = facts.get("parent", "").capitalize() or name
                    self.add_triple(name, "is_child_of", parent, valid_from=birthday)
                elif relationship == "husband":
                    self.add_triple(name, "is_partner_of", facts.get("partner", name).capitalize())
                elif relationship == "brother":
                    self.add_triple(name, "is_sibling_of", facts.get("sibling", name).capitalize())
                elif relationship == "dog":
                    self.add_triple(name, "is_pet_of", facts.get("owner", name).capitalize())
                    self.add_entity(name, "animal")
                for interest in facts.get("interests", []):
                    self.add_triple(name, "loves", interest.capitalize(), valid_from="2025-01-01")

    # ── Reads ─────────────────────────────────────────────────────────────

    def query_entity(
        self,
        name: str,
        as_of: str | None = None,
        direction: str = "outgoing",
        recorded_as_of: str | None = None,
    ) -> list[dict[str, Any]]:
        """The entity's facts (as MemPalace returns them), optionally only those valid ``as_of``.
        With ``recorded_as_of``, as they were recorded by that instant (see
        :mod:`~factlines.core.store.as_recorded`): each row also says when its end was recorded
        (``end_recorded``, ``end_recorded_unknown``)."""
        if direction not in DIRECTIONS:
            raise Refused(f"direction={direction!r} is not one of {', '.join(DIRECTIONS)}")
        key = temporal.start_key(temporal.parse(as_of, "as_of"))
        recorded = temporal.start_key(temporal.parse(recorded_as_of, "recorded_as_of"))
        eid = self._named(name)
        results = self._entity_rows(eid, name, direction, key, recorded)
        if not results and self._store.entities.get(eid) is None:
            candidates = self._store.entities.candidates(name)
            if len(candidates) == 1:
                results = self._entity_rows(
                    candidates[0]["id"], candidates[0]["name"], direction, key, recorded
                )
        return results

    def _entity_rows(
        self, eid: str, name: str, direction: str, key: str | None, recorded: str | None = None
    ) -> list[dict[str, Any]]:
        if recorded is not None:
            return self._recorded.entity_rows_as_recorded(eid, name, direction, key, recorded)
        results: list[dict[str, Any]] = []
        wanted = {"outgoing": (False,), "incoming": (True,), "both": (False, True)}[direction]
        for incoming in wanted:
            rows = self._store.facts.of_entity_at(eid, incoming, key)
            results += [
                {
                    "direction": "incoming" if incoming else "outgoing",
                    "subject": other if incoming else name,
                    "predicate": pred,
                    "object": name if incoming else other,
                    "valid_from": vf,
                    "valid_to": vt,
                    "confidence": conf,
                    "source_closet": closet,
                    "current": vt is None,
                    "id": tid,
                }
                for tid, pred, other, vf, vt, conf, closet in rows
            ]
        return results

    def current_triples_with_source(self) -> list[tuple[str, str, str]]:
        """``(subject, object, source_drawer_id)`` of every open fact that names the drawer it
        came from (by the entities' display names). Not in MemPalace 3.11: its newer tests call
        it; the shape is what they read (the drawer third, names first)."""
        return self._store.facts.open_with_drawer()

    def find_entity_candidates(self, name: str) -> list[dict[str, Any]]:
        """Token/prefix matches for a name that is not an entity (MemPalace's disambiguation)."""
        return self._store.entities.candidates(name)

    def query_relationship(self, predicate: str, as_of: str | None = None) -> list[dict[str, Any]]:
        key = temporal.start_key(temporal.parse(as_of, "as_of"))
        pred = predicate_id(predicate)
        rows = self._store.facts.of_predicate(pred, key)
        return _dated_rows((tid, sub, pred, obj, vf, vt) for tid, sub, obj, vf, vt in rows)

    def timeline(
        self, entity_name: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        """Facts by valid_from ascending (unknown starts last), then id; paged."""
        limit, offset = max(1, int(limit)), max(0, int(offset))
        eid = self._named(entity_name) if entity_name else None
        return _dated_rows(self._store.facts.timeline(eid, limit, offset))

    def timeline_total(self, entity_name: str | None = None) -> int:
        return self._store.facts.count(self._named(entity_name) if entity_name else None)

    def stats(self) -> dict[str, Any]:
        entities, triples, ended, predicates = self._store.facts.counts()
        return {
            "entities": entities,
            "triples": triples,
            "current_facts": triples - ended,
            "expired_facts": ended,
            "relationship_types": predicates,
        }
