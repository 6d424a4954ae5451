"""Many rows at once, for export and import: one consistent read of a selection of the graph,
rows looked up by the hundred, rows inserted as given.

A selection is read inside one read transaction (a snapshot), so an export is a copy of one
state of the file even while MemPalace writes it. Its rows come in batches from one cursor per
table, in rowid order: no page is read twice and nothing is held in memory but a batch.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

from factlines.core.store.engine_common import CHUNK, RowInserts, bulk_columns
from factlines.core.store.extra_columns import MEMPALACE_COLUMNS, extras_of
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection


def _fact_filter(as_of_key: str | None, eid: str | None) -> tuple[str, list[str | None]]:
    """A WHERE clause over ``triples t`` keeping the facts valid at ``as_of_key`` (when given)
    with ``eid`` on either side (when given); empty when neither is."""
    terms: list[str] = []
    params: list[str | None] = []
    if as_of_key is not None:
        terms.append(f"({timesql.valid_at('t')})")
        params += timesql.valid_at_params(as_of_key)
    if eid is not None:
        terms.append("(t.subject = ? OR t.object = ?)")
        params += [eid, eid]
    return (" WHERE " + " AND ".join(terms) if terms else ""), params


class SQLiteSelection:
    """The rows of one selection (see :meth:`SQLiteBulk.selection`), read in one snapshot."""

    def __init__(self, conn: sqlite3.Connection, as_of_key: str | None, eid: str | None):
        self._conn = conn
        # (name, kind) of the columns a newer MemPalace added; each table's columns:
        # MemPalace's in its order, then those.
        self.extras = {table: table_extras(conn, table) for table in MEMPALACE_COLUMNS}
        self.columns = {
            table: (*MEMPALACE_COLUMNS[table], *(name for name, _ in self.extras[table]))
            for table in MEMPALACE_COLUMNS
        }
        where, params = _fact_filter(as_of_key, eid)
        columns = bulk_columns("triples", self.columns["triples"])
        self._facts_sql = (f"SELECT {columns} FROM triples t{where} ORDER BY t.rowid", params)
        self._entities_sql: tuple[str, list[str | None]]
        if not where:
            self._entities_sql = ("FROM entities", [])
        else:
            # The entities the kept facts refer to (and the entity asked for, factless or not).
            referred = (
                f"SELECT t.subject FROM triples t{where} "
                f"UNION SELECT t.object FROM triples t{where}"
            )
            extra = " OR id = ?" if eid is not None else ""
            extra_params: list[str | None] = [eid] if eid is not None else []

            self._entities_sql = (
                f"FROM entities WHERE id IN ({referred}){extra}",
                params + params + extra_params,
            )
        sql, args = self._entities_sql
        self.entity_count = conn.execute(f"SELECT COUNT(*) {sql}", args).fetchone()[0]
        self.fact_count = conn.execute(f"SELECT COUNT(*) FROM triples t{where}", params).fetchone()[
            0
        ]

    def entity_rows(self, batch: int = 1000) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of entity rows (``columns["entities"]``), in rowid order."""
        sql, args = self._entities_sql
        columns = bulk_columns("entities", self.columns["entities"])
        yield from _batches(
            self._conn.execute(f"SELECT {columns} {sql} ORDER BY rowid", args), batch
        )

    def fact_rows(self, batch: int = 1000) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of fact rows (``columns["triples"]``), in rowid order."""
        sql, args = self._facts_sql
        yield from _batches(self._conn.execute(sql, args), batch)


def table_extras(conn: sqlite3.Connection, table: str) -> list[tuple[str, str]]:
    """(name, kind) of the columns of ``table`` beyond MemPalace's, in the table's order."""
    declared = conn.execute("SELECT name, type FROM pragma_table_info(?)", (table,)).fetchall()
    return extras_of(table, declared)


def _batches(cursor: sqlite3.Cursor, size: int) -> Iterator[list[tuple[Any, ...]]]:
    while True:
        rows: list[tuple[Any, ...]] = cursor.fetchmany(size)
        if not rows:
            return
        yield rows


class SQLiteBulk(RowInserts[Connection]):
    def __init__(self, db: Connection):
        self._db = db

    @contextmanager
    def selection(
        self, as_of_key: str | None, eid: str | None
    ) -> Generator[SQLiteSelection, None, None]:
        with self._db.snapshot() as conn:
            yield SQLiteSelection(conn, as_of_key, eid)

    def extra_columns(self, table: str) -> list[tuple[str, str]]:
        with self._db.read() as conn:
            return table_extras(conn, table)

    def add_columns(self, table: str, extras: list[tuple[str, str]]) -> None:
        """Add the columns of ``extras`` (checked names and kinds) that ``table`` lacks, empty,
        declared by their kind (which gives them that affinity)."""
        with self._db.transaction() as conn:
            have = {name.lower() for name, _ in table_extras(conn, table)}
            for name, kind in extras:
                if name.lower() not in have:
                    conn.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {kind}')

    def rows_with_ids(
        self, table: str, columns: tuple[str, ...], ids: list[str]
    ) -> list[tuple[Any, ...]]:
        """The rows of ``table`` whose id is one of ``ids``: ``columns`` (``id`` first).

        A few ids are looked up by the hundred; ids by the thousands, a good share of the
        table, are found in one pass over it (cheaper than as many index searches)."""
        names = bulk_columns(table, columns)
        found: list[tuple[Any, ...]] = []

        with self._db.snapshot() as conn:
            if _many(conn, table, len(ids)):
                wanted = set(ids)
                cursor = conn.execute(f"SELECT {names} FROM {table}")
                return [row for row in cursor if row[0] in wanted]
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start : start + CHUNK]
                found += conn.execute(
                    f"SELECT {names} FROM {table} WHERE id IN ({', '.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
        return found

    def open_fact_ids(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
        """The id of an open fact for each ``(subject, predicate, object)`` that has one (the
        first in rowid order when there are several)."""
        found: dict[tuple[str, str, str], str] = {}
        with self._db.snapshot() as conn:
            if _many(conn, "triples", len(keys)):
                wanted = set(keys)
                cursor = conn.execute(
                    "SELECT subject, predicate, object, id FROM triples "
                    "WHERE valid_to IS NULL ORDER BY rowid"
                )
                for subject, predicate, obj, tid in cursor:
                    key = (subject, predicate, obj)
                    if key in wanted and key not in found:
                        found[key] = tid
                return found
            for start in range(0, len(keys), CHUNK):
                chunk = keys[start : start + CHUNK]
                values = ", ".join("(?, ?, ?)" for _ in chunk)
                # The keys drive the join (CROSS JOIN keeps them outside), and the search goes
                # by subject or object: without statistics SQLite would take the predicate
                # index, a few predicates for the whole graph.
                rows = conn.execute(
                    f"WITH k(s, p, o) AS (VALUES {values}) "
                    "SELECT t.subject, t.predicate, t.object, t.id FROM k CROSS JOIN triples t "
                    "ON t.subject = k.s AND +t.predicate = k.p AND t.object = k.o "
                    "WHERE t.valid_to IS NULL ORDER BY t.rowid",
                    [value for key in chunk for value in key],
                ).fetchall()
                for subject, predicate, obj, tid in rows:
                    found.setdefault((subject, predicate, obj), tid)
        return found


def _many(conn: sqlite3.Connection, table: str, wanted: int) -> bool:
    """Whether ``wanted`` lookups are better served by one pass over ``table``."""
    if wanted < 2000:
        return False
    return wanted * 50 > conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
