"""The façade's questions about the memories behind facts: ``source_memory`` and
``facts_from_source`` (contract §11), read from MemPalace's palace by :mod:`factlines.core.palace`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from factlines.core.palace import Memories, find_palace
from factlines.core.store.fact_edits import FactEdits
from factlines.core.store.protocol import GraphStore
from factlines.core.store.wiring import Part


class SourceMemories(Part):
    """The memories behind facts: the palace is found once per ``palace`` argument."""

    def __init__(self, store: GraphStore, facts: FactEdits, graph_file: str | None):
        super().__init__(store)
        self._facts = facts
        self._graph_file = graph_file  # None for a graph on a server: no folder to look in
        self._found: dict[str | None, Memories] = {}

    def source_memory(
        self, fact_id: str, palace: str | os.PathLike[str] | None = None
    ) -> dict[str, Any] | None:
        """The memory the fact was recorded from (see :mod:`factlines.core.palace.memory`):
        None when the fact names no source (no drawer, closet or file). ``palace``: the
        palace folder, instead of the one found from the graph's place or MemPalace's
        configuration. Reads the palace only, and never writes to it."""
        fact = self._facts.get_fact(fact_id)
        if not any(fact[key] for key in ("source_drawer_id", "source_closet", "source_file")):
            return None
        return self._memories(palace).memory(fact["source_drawer_id"], fact["source_closet"])

    def facts_from_source(
        self, fact_id: str, palace: str | os.PathLike[str] | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """The other facts from the fact's memory: ``memory``, those naming the same drawer
        (a split drawer's group id and its chunks' ids count as one drawer), and ``file``,
        the rest of those from the same source file (named by the fact, or by its drawer's
        metadata; with any drawer of that file). Each list as ``get_fact`` rows, by
        valid_from, then id; both empty for a fact with no source."""
        fact = self._facts.get_fact(fact_id)
        memory = self.source_memory(fact_id, palace)
        if memory is None:
            return {"memory": [], "file": []}
        drawer_ids = {memory["drawer_id"], memory["group_id"], *memory["chunk_ids"]} - {None, ""}
        same_memory = self._store.facts.from_sources(sorted(drawer_ids), None)
        source_file = memory["metadata"].get("source_file") or fact["source_file"]
        file_ids = self._memories(palace).drawer_ids_of_file(source_file) - drawer_ids
        same_file = self._store.facts.from_sources(sorted(file_ids), source_file or None)
        taken = {fact_id} | {f["id"] for f in same_memory}
        return {
            "memory": _in_time_order(f for f in same_memory if f["id"] != fact_id),
            "file": _in_time_order(f for f in same_file if f["id"] not in taken),
        }

    def _memories(self, palace: str | os.PathLike[str] | None) -> Memories:
        key = None if palace is None else os.fspath(palace)
        if key not in self._found:
            found = Memories(find_palace(self._graph_file, palace))
            if found.palace is None:
                return found  # looked for again next time: a palace may be made meanwhile
            self._found[key] = found
        return self._found[key]


def _in_time_order(facts: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(facts, key=lambda f: (f["valid_from"] is None, f["valid_from"] or "", f["id"]))
