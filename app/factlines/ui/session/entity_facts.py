"""The selected entity's facts as every view reads them: rows, time arrays, validity, conflicts.

Read once per selection; patched, not re-read, when a write reports which facts it touched; the
validity rule evaluated once per as_of step for the table, the chart and the graph alike. No Qt
here: :class:`~factlines.ui.session.state.AppState` owns one and announces what changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from factlines.core.errors import FactNotFound
from factlines.core.store import KnowledgeGraph, Touched
from factlines.core.store.intervals import IntervalTable, bounds_of, column_reader

# Past this many touched facts, one read of the entity's facts beats one read per fact.
MAX_PATCHED = 200


@dataclass
class FactsPatch:
    """How the selected entity's fact rows changed: ids, in the rows' order where it matters."""

    changed: list[str] = field(default_factory=list)  # same row, new values or conflicts
    added: list[str] = field(default_factory=list)  # appended to the rows
    removed: list[str] = field(default_factory=list)  # gone from the rows
    reloaded: bool = False  # everything was read again: rows may be in any order

    def __bool__(self) -> bool:
        return self.reloaded or bool(self.changed or self.added or self.removed)


def time_bounds(facts: Sequence[dict]) -> tuple[np.ndarray, np.ndarray]:
    """POSIX start and end keys of each fact row: -inf for an unknown start, +inf for an open
    end. A stored value the time rules do not accept is already, in the row, where the store
    and MemPalace read it (contract §2.8): an end nobody knows is -inf, valid nowhere."""
    column = column_reader(facts)
    return bounds_of(column("start"), -np.inf), bounds_of(column("end"), np.inf)


def valid_mask(starts: np.ndarray, ends: np.ndarray, at: float | None) -> np.ndarray:
    """The contract's validity rule over the arrays: ``start <= at < end``; all when None."""
    if at is None:
        return np.ones(len(starts), dtype=bool)
    return (starts <= at) & (ends > at)


class EntityFacts:
    """One entity's record; once :meth:`read_facts` is asked, its facts (``kg.intervals``
    rows), their time arrays and conflicts; and what views made of them where the facts were
    read (:attr:`prepared`), dropped at the first write that changes them."""

    def __init__(self, kg: KnowledgeGraph, entity: str, at: float | None):
        self._kg = kg
        self.entity = entity
        self._at = at
        self.record = kg.get_entity(entity)
        self.read = False  # whether the facts were read
        self.facts = IntervalTable(entity, [])
        self.conflicts: list[dict] = []
        self.conflicts_by_fact: dict[str, list[dict]] = {}
        self.prepared: dict[object, object] = {}  # view -> what it made of these facts

    def read_facts(self, kg: KnowledgeGraph | None = None) -> None:
        """Read the facts, once; through ``kg`` when given: a store of a worker's own, the
        window's being the UI thread's alone (a hub's facts are read there)."""
        if not self.read:
            self._read_facts(kg or self._kg)

    def _read_all(self) -> None:
        """Read the entity's record, facts and conflicts (none when it is not in the graph)."""
        self.record = self._kg.get_entity(self.entity)
        self._read_facts(self._kg)

    def _read_facts(self, kg: KnowledgeGraph) -> None:
        self.prepared = {}
        if self.record is not None:
            self.facts = kg.interval_table(self.entity)
        else:
            self.facts = IntervalTable(self.entity, [])
        self._index_rows()
        self.valid = valid_mask(self.starts, self.ends, self._at)
        self._read_conflicts(kg)
        self.read = True  # only now: a read that failed (a bug) is tried again

    def _read_conflicts(self, kg: KnowledgeGraph) -> set[str]:
        """Read the conflicts again; the ids whose conflicts are not what they were."""
        before = self.conflicts_by_fact
        touching = kg.conflicts_touching(self.entity) if self.record is not None else []
        # A same-day handover is how MemPalace writes a change, no mistake: not flagged here
        # (the conflicts panel lists it when asked).
        self.conflicts = [conflict for conflict in touching if conflict["kind"] != "handover"]
        by_fact: dict[str, list[dict]] = {}
        for conflict in self.conflicts:
            by_fact.setdefault(conflict["a"], []).append({**conflict, "other": conflict["b"]})
            by_fact.setdefault(conflict["b"], []).append({**conflict, "other": conflict["a"]})
        self.conflicts_by_fact = by_fact
        ids = before.keys() | by_fact.keys()
        return {tid for tid in ids if before.get(tid) != by_fact.get(tid)}

    # ── as_of ─────────────────────────────────────────────────────────────

    def move_to(self, at: float | None) -> np.ndarray:
        """as_of moved: validity evaluated once; returns the indices whose validity flipped."""
        self._at = at
        if not self.read:
            return np.zeros(0, np.int64)
        before, self.valid = self.valid, valid_mask(self.starts, self.ends, at)
        return np.flatnonzero(before != self.valid)

    # ── Writes ────────────────────────────────────────────────────────────

    def apply(self, touched: Touched) -> FactsPatch:
        """Bring the rows up to date with a write that touched these ids."""
        if not self.read:  # the facts will be read as they are then
            self.record = self._kg.get_entity(self.entity)
            return FactsPatch()
        if (
            touched.everything
            or touched.settings  # the single-valued predicates: conflicts anywhere
            or self._names_shown(touched.entities)  # a name shown on the rows changed
            or len(touched.facts) > MAX_PATCHED
        ):
            self._read_all()
            return FactsPatch(reloaded=True)
        if not touched.facts or self.record is None:
            return FactsPatch()
        patch = FactsPatch()
        for tid in sorted(touched.facts):
            row = self._read_fact(tid)
            if tid in self.index_of:
                if row is None:
                    patch.removed.append(tid)
                else:
                    self.facts.put(self.index_of[tid], row)
                    patch.changed.append(tid)
            elif row is not None:
                self.index_of[tid] = len(self.facts)
                self.facts.append(row)
                patch.added.append(tid)
        if patch.removed:
            self.facts = self.facts.without(patch.removed)
            self._index_rows()
        else:
            # The rows changed keep their places, the added come last: only they are redone
            # (a hub's 20,000 rows redone after each edit took ~60 ms of the UI thread).
            self._bounds_of([self.index_of[tid] for tid in (*patch.changed, *patch.added)])
        self.valid = valid_mask(self.starts, self.ends, self._at)
        restyled = self._read_conflicts(self._kg) - set(patch.changed) - set(patch.added)
        patch.changed += sorted(tid for tid in restyled if tid in self.index_of)
        if patch:
            self.prepared = {}
        return patch

    def _names_shown(self, entities: set) -> bool:
        """Whether the rows show the name of one of ``entities`` (theirs, or this one's)."""
        return bool(entities) and (
            self.entity in entities or any(o in entities for o in self.facts.column("other"))
        )

    def _index_rows(self) -> None:
        """Each fact's position by id, and the time arrays, of the rows as they are now."""
        self.index_of = {tid: i for i, tid in enumerate(self.facts.column("id"))}
        self.starts, self.ends = (bound.copy() for bound in self.facts.bounds)

    def _bounds_of(self, rows: list[int]) -> None:
        """The time arrays brought up to date at ``rows`` (those past their end: added)."""
        starts, ends = time_bounds([self.facts[i] for i in rows])
        grown = len(self.facts) - len(self.starts)
        if grown:
            self.starts = np.concatenate([self.starts, np.zeros(grown)])
            self.ends = np.concatenate([self.ends, np.zeros(grown)])
        self.starts[rows], self.ends[rows] = starts, ends

    def _read_fact(self, tid: str) -> dict | None:
        """The fact as an ``intervals`` row of this entity, or None when it is not one now."""
        try:
            fact = self._kg.get_fact(tid)
        except FactNotFound:
            return None
        eid = self.entity
        if eid not in (fact["subject"], fact["object"]):
            return None
        outgoing = fact["subject"] == eid
        fact["direction"] = "outgoing" if outgoing else "incoming"
        fact["other"] = fact["object"] if outgoing else fact["subject"]
        fact["other_name"] = fact["object_name"] if outgoing else fact["subject_name"]
        return fact
