"""Many rows at once, for exporting and importing a graph (``factlines.core.transfer``).

A selection is one consistent read of part of the graph, in batches; rows are looked up by id
and open facts by (subject, predicate, object) in bulk; rows are inserted as given, unchecked
(as :meth:`~factlines.core.store.KnowledgeGraph.apply_row` does), in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.store.protocol import GraphStore, Selection
from factlines.core.store.replication import REPLICATED


def _columns(table: str) -> tuple[str, ...]:
    columns = REPLICATED.get(table) if isinstance(table, str) else None
    if columns is None:
        raise Refused(f"table must be one of {sorted(REPLICATED)}")
    return columns


class BulkRows:
    _store: GraphStore

    # Also uses, from the façade's other parts: _require_entity (EntityEdits).

    @contextmanager
    def selection(self, as_of: str | None = None, entity: str | None = None) -> Iterator[Selection]:
        """The facts valid at ``as_of`` (all when None) with ``entity`` on either side (any
        when None), and the entities they refer to (every entity when neither is given; the
        entity asked for always). Inside the block every read sees one state of the graph:
        ``entity_count``, ``fact_count``, ``entity_rows(batch)`` (MemPalace's entity columns)
        and ``fact_rows(batch)`` (``rows.FACT_FIELDS``: the stored columns and both names)."""
        key = temporal.start_key(temporal.parse(as_of, "as_of"))
        eid = self._require_entity(entity)["id"] if entity is not None else None
        with self._store.bulk.selection(key, eid) as selection:
            yield selection

    def rows_with_ids(self, table: str, ids: list[str]) -> dict[str, dict]:
        """The rows of ``table`` (``entities`` or ``triples``) with these ids, by id, every
        column as stored."""
        columns = _columns(table)
        rows = self._store.bulk.rows_with_ids(table, columns, list(ids))
        return {row[0]: dict(zip(columns, row)) for row in rows}

    def open_fact_ids(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
        """For each ``(subject id, predicate, object id)`` with an open fact, that fact's id."""
        return self._store.bulk.open_fact_ids(list(keys))

    def insert_rows(self, table: str, rows: list[dict]) -> int:
        """Insert new rows into ``table`` as given: no check of their values, no entity made.
        A column a row leaves out takes MemPalace's default; an id already in the table is a
        bug of the caller. One write (or part of the caller's). Returns the rows inserted."""
        allowed = set(_columns(table))
        groups: dict[tuple[str, ...], list[tuple]] = {}
        for row in rows:
            if not isinstance(row.get("id"), str) or not row["id"]:
                raise Refused(f"a {table} row without an id cannot be inserted")
            unknown = set(row) - allowed
            if unknown:
                raise Refused(f"{table} has no column {', '.join(sorted(unknown))}")
            columns = ("id", *(column for column in row if column != "id"))
            groups.setdefault(columns, []).append(tuple(row[column] for column in columns))
        with self._store.transaction():
            for columns, values in groups.items():
                self._store.bulk.insert_rows(table, columns, values)
        return len(rows)
