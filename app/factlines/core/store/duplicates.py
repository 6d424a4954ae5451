"""Likely duplicate entities in the graph (:mod:`factlines.core.duplicates` finds them), the
pairs a person said are not the same (kept in the graph), and a merge that keeps the names it
merged away as aliases."""

from __future__ import annotations

import json
from typing import Any, cast

from factlines.core.duplicates import find_duplicates
from factlines.core.errors import Refused
from factlines.core.progress import Progress, report
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.protocol import GraphStore
from factlines.core.store.wiring import Part, writes
from factlines.core.turns import let_go

NOT_SAME = "not_duplicates"
ALIASES = "aliases"
_STEPS = 4


class DuplicateEntities(Part):
    """Likely duplicate entities, merged or kept apart."""

    def __init__(self, store: GraphStore, entities: EntityEdits):
        super().__init__(store)
        self._entities = entities

    def duplicate_entities(
        self, limit: int = 100, progress: Progress | None = None
    ) -> list[dict[str, Any]]:
        """Likely duplicate entities, the surest first, at most ``limit``: each ``{ids,
        names, reason, score, rule}`` (``ids`` two or more entity ids; ``reason`` in words;
        ``rule`` ``same name``, ``first words`` or ``neighbours``, see
        :mod:`factlines.core.duplicates`). Groups marked :meth:`not_duplicates` are left out.
        ``progress(done, total)`` hears the steps, and cancels."""
        steps = iter(range(2, _STEPS + 1))
        report(progress, 0, _STEPS)
        entities = self._store.entities.every()
        report(progress, 1, _STEPS)
        links = self._store.facts.ends()
        found = find_duplicates(
            entities,
            links,
            self.not_duplicates(),
            max(1, int(limit)),
            lambda: report(progress, next(steps), _STEPS),
        )
        let_go(links)  # a million rows freed in turns, not in one call that holds the lock
        let_go(entities)
        return found

    def not_duplicates(self) -> set[frozenset[str]]:
        """The groups of entities a person said are not the same."""
        value = self._store.get_meta(NOT_SAME)
        return {frozenset(ids) for ids in json.loads(value)} if value else set()

    @writes
    def mark_not_duplicates(self, ids: list[str]) -> None:
        """These entities are not the same: :meth:`duplicate_entities` leaves them out."""
        if len(set(ids)) < 2:
            raise Refused("name two entities or more that are not the same")
        with self._store.transaction():  # read inside the write: another client's mark stays
            marked = self.not_duplicates() | {frozenset(ids)}
            stored = sorted(sorted(group, key=str) for group in marked)
            self._store.set_meta(NOT_SAME, json.dumps(stored))

    @writes
    def merge_duplicates(self, into: str, others: list[str]) -> str:
        """Merge each of ``others`` into ``into`` (:meth:`merge_entities`) in one write, and
        keep their names (and their own aliases) in ``into``'s ``aliases`` property, so that a
        name seen again can be pointed at it. Returns ``into``'s id."""
        with self._store.transaction():
            target = self._entities.get_entity(into)
            if target is None:
                raise Refused(f"{into!r} is not an entity of this graph")
            aliases = set(_aliases(target))
            for other in others:
                entity = self._entities.get_entity(other)
                if entity is None:
                    raise Refused(f"{other!r} is not an entity of this graph")
                aliases |= {entity["name"], *_aliases(entity)}
                self._entities.merge_entities(entity["id"], target["id"])
            aliases.discard(target["name"])
            properties = {**target["properties"], ALIASES: sorted(aliases)}
            self._entities.set_entity_properties(target["id"], properties)
        return target["id"]


def _aliases(entity: dict[str, Any]) -> list[str]:
    # The properties are JSON (Any): isinstance alone would leave their items unknown.
    properties = entity["properties"]
    found = cast(dict[str, Any], properties).get(ALIASES) if isinstance(properties, dict) else None
    if not isinstance(found, list):
        return []
    return [name for name in cast(list[Any], found) if isinstance(name, str)]
