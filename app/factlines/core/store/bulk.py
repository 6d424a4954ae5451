"""Many rows at once, for exporting and importing a graph (``factlines.core.transfer``).

A selection is one consistent read of part of the graph, in batches; rows are looked up by id
and open facts by (subject, predicate, object) in bulk; rows are inserted as given, unchecked
(as :meth:`~factlines.core.store.KnowledgeGraph.apply_row` does), in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from contextlib import contextmanager
from typing import Any

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.extra_columns import checked_extras
from factlines.core.store.protocol import GraphStore, Selection
from factlines.core.store.replication import replicated_columns
from factlines.core.store.wiring import Part, writes


class BulkRows(Part):
    """Many rows at once, for export, import and copy."""

    def __init__(self, store: GraphStore, entities: EntityEdits):
        super().__init__(store)
        self._entities = entities

    @contextmanager
    def selection(
        self, as_of: str | None = None, entity: str | None = None
    ) -> Generator[Selection, None, None]:
        """The facts valid at ``as_of`` (all when None) with ``entity`` on either side (any
        when None), and the entities they refer to (every entity when neither is given; the
        entity asked for always). Inside the block every read sees one state of the graph:
        ``entity_count``, ``fact_count``, and batches of rows as stored, ``entity_rows(batch)``,
        ``fact_rows(batch)``, of ``columns[table]``: MemPalace's columns in its order, then
        those a newer MemPalace added (:meth:`extra_columns`)."""
        key = temporal.start_key(temporal.parse(as_of, "as_of"))
        eid = self._entities.require(entity)["id"] if entity is not None else None
        with self._store.bulk.selection(key, eid) as selection:
            yield selection

    def extra_columns(self, table: str) -> list[tuple[str, str]]:
        """(name, kind) of the columns of ``table`` beyond MemPalace's (a newer MemPalace's,
        such as ``created_by``), in the table's order; the kind is SQLite's affinity of the
        column (:mod:`~factlines.core.store.extra_columns`)."""
        replicated_columns(table)
        return self._store.bulk.extra_columns(table)

    def table_columns(self, table: str) -> tuple[str, ...]:
        """Every column of ``table``: MemPalace's in its order, then :meth:`extra_columns`."""
        return (
            *replicated_columns(table),
            *(name for name, _ in self.extra_columns(table)),
        )

    @writes
    def add_columns(self, table: str, extras: Iterable[Any]) -> None:
        """Give ``table`` the columns of ``extras`` ((name, kind) pairs) it lacks, empty: what
        an import or a copy does before it writes rows of a newer MemPalace. PostgreSQL keeps
        a kind as the nearest of its types. Refused: a name that is not plain, or MemPalace's
        own, an unknown kind."""
        extras = checked_extras(table, extras)
        have = {name.lower() for name, _ in self.extra_columns(table)}
        if any(name.lower() not in have for name, _ in extras):
            with self._store.transaction():
                self._store.bulk.add_columns(table, extras)

    def rows_with_ids(self, table: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The rows of ``table`` (``entities`` or ``triples``) with these ids, by id, every
        column as stored (:meth:`table_columns`)."""
        columns = self.table_columns(table)
        rows = self._store.bulk.rows_with_ids(table, columns, list(ids))
        return {row[0]: dict(zip(columns, row)) for row in rows}

    def open_fact_ids(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
        """For each ``(subject id, predicate, object id)`` with an open fact, that fact's id."""
        return self._store.bulk.open_fact_ids(list(keys))

    @writes
    def insert_rows(
        self, table: str, rows: list[Any], columns: tuple[str, ...] | None = None
    ) -> int:
        """Insert new rows into ``table`` as given: no check of their values, no entity made.
        Rows are dicts of columns, or tuples of ``columns`` (``id`` first) when given. A
        column a row leaves out takes MemPalace's default; an id already in the table is a bug
        of the caller. One write (or part of the caller's). Returns the rows inserted."""
        allowed = set(self.table_columns(table))
        groups: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        if columns is not None:
            columns = tuple(columns)
            if not columns or columns[0] != "id" or not set(columns) <= allowed:
                raise Refused(f"cannot insert {table} rows of columns {columns}")
            groups[columns] = rows
        else:
            for row in rows:
                names = tuple(row)
                if names[:1] != ("id",):
                    names = ("id", *(name for name in names if name != "id"))
                    row = {name: row.get(name) for name in names}
                if not set(names) <= allowed:
                    unknown = sorted(set(names) - allowed)
                    raise Refused(f"{table} has no column {', '.join(unknown)}")
                groups.setdefault(names, []).append(tuple(row.values()))
        for values in groups.values():
            if any(not isinstance(row[0], (str, bytes)) or not row[0] for row in values):
                raise Refused(f"a {table} row without an id cannot be inserted")
        with self._store.transaction():
            for names, values in groups.items():
                self._store.bulk.insert_rows(table, names, values)
        return len(rows)
