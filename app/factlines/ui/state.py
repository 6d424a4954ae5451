"""The one state object: the open graph, ``as_of``, the selected entity and fact.

Views read from it and listen to its signals; none keeps its own copy.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from factlines.core import temporal
from factlines.core.store import KnowledgeGraph


class AppState(QObject):
    graphChanged = Signal()  # another file is open (or none)
    asOfChanged = Signal(object)  # stored form, or None for "all time"
    entityChanged = Signal(object)  # entity id, or None
    factChanged = Signal(object)  # triple id, or None
    dataChanged = Signal()  # rows were written (by us or, noticed later, by another process)
    message = Signal(str)  # a refused action or a result, for the status bar

    def __init__(self, kg: KnowledgeGraph | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._kg = kg
        self._as_of: str | None = None
        self._entity: str | None = None
        self._fact: str | None = None
        # What was read of the selected entity, by reader: (entity, rows)
        self._read: dict[str, tuple[str, object]] = {}

    # The graph
    @property
    def kg(self) -> KnowledgeGraph | None:
        return self._kg

    def set_kg(self, kg: KnowledgeGraph | None) -> None:
        self._kg = kg
        self._forget_facts()
        self._entity = None
        self._fact = None
        self.graphChanged.emit()
        self.entityChanged.emit(None)
        self.factChanged.emit(None)
        self.dataChanged.emit()

    # as_of
    @property
    def as_of(self) -> str | None:
        return self._as_of

    @property
    def as_of_key(self) -> str | None:
        """``as_of`` as a comparison key (a day means its first second)."""
        return temporal.start_key(self._as_of)

    @property
    def as_of_posix(self) -> float | None:
        return temporal.to_posix(self.as_of_key)

    def set_as_of(self, value: str | None) -> None:
        """Set ``as_of`` from an accepted form (raises TimeValueError) or None for all time."""
        value = temporal.parse(value, "as_of")
        if value != self._as_of:
            self._as_of = value
            self.asOfChanged.emit(value)

    # Selection
    @property
    def entity(self) -> str | None:
        return self._entity

    def select_entity(self, entity_id: str | None) -> None:
        if entity_id != self._entity:
            self._entity = entity_id
            self._forget_facts()
            self._fact = None
            self.entityChanged.emit(entity_id)
            self.factChanged.emit(None)

    @property
    def fact(self) -> str | None:
        return self._fact

    def select_fact(self, triple_id: str | None) -> None:
        if triple_id != self._fact:
            self._fact = triple_id
            self.factChanged.emit(triple_id)

    def notify_data_changed(self) -> None:
        if (
            self._kg is not None
            and self._entity is not None
            and self._kg.get_entity(self._entity) is None
        ):
            self.select_entity(None)
        if self._fact is not None and self._kg is not None and not self._kg.has_fact(self._fact):
            self.select_fact(None)
        self._forget_facts()
        self.dataChanged.emit()

    # The selected entity's facts, read once per selection or write and shared by every view
    def _forget_facts(self) -> None:
        self._read.clear()

    def entity_record(self) -> dict | None:
        """The selected entity's row (``kg.get_entity``), None if it is not in the graph."""
        return self._read_once("get_entity", None)

    def entity_facts(self) -> list[dict]:
        """Every fact of the selected entity, both directions (``kg.intervals`` rows)."""
        return self._read_once("intervals", [])

    def entity_conflicts(self) -> list[dict]:
        """Conflicts involving one of the selected entity's facts (``kg.conflicts_touching``)."""
        return self._read_once("conflicts_touching", [])

    def _read_once(self, reader: str, nothing):
        """``kg.<reader>(entity)`` for the selected entity, read once per selection or write;
        ``nothing`` while no entity is selected."""
        if self._kg is None or self._entity is None:
            return nothing
        read = self._read.get(reader)
        if read is None or read[0] != self._entity:
            read = self._read[reader] = (self._entity, getattr(self._kg, reader)(self._entity))
        return read[1]

    def conflicts_by_fact(self) -> dict[str, list[dict]]:
        """The same conflicts by triple id, each with ``other``: the fact it clashes with."""
        by_fact: dict[str, list[dict]] = {}
        for conflict in self.entity_conflicts():
            by_fact.setdefault(conflict["a"], []).append({**conflict, "other": conflict["b"]})
            by_fact.setdefault(conflict["b"], []).append({**conflict, "other": conflict["a"]})
        return by_fact
