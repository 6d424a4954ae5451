"""Many rows at once in PostgreSQL, for export and import (the SQLite engine's
:mod:`factlines.core.store.sqlite.bulk`): a selection read in one snapshot through a
server-side cursor, rows looked up by array, rows inserted as given."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from factlines.core.store.engine_common import RowInserts, bulk_columns
from factlines.core.store.postgres import timesql
from factlines.core.store.postgres.connection import PGConnection
from factlines.core.store.postgres.timesql import C
from factlines.core.store.postgres.values import refuse_unstorable
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS


class PGSelection:
    """The rows of one selection, read in the snapshot the selection's block holds."""

    def __init__(self, conn, as_of_key: str | None, eid: str | None):
        self._conn = conn
        terms, params = [], []
        if as_of_key is not None:
            terms.append(f"({timesql.valid_at('t')})")
            params += timesql.valid_at_params(as_of_key)
        if eid is not None:
            terms.append("(t.subject = %s OR t.object = %s)")
            params += [eid, eid]
        where = " WHERE " + " AND ".join(terms) if terms else ""
        columns = ", ".join(f"t.{column}" for column in TRIPLE_COLUMNS)
        self._facts = (f"SELECT {columns} FROM triples t{where} ORDER BY t.id {C}", params)
        self._entities: tuple[str, list] = ("FROM entities", [])
        if where:
            extra, extra_params = (" OR id = %s", [eid]) if eid is not None else ("", [])
            self._entities = (
                f"FROM entities WHERE id IN (SELECT t.subject FROM triples t{where} "
                f"UNION SELECT t.object FROM triples t{where}){extra}",
                params + params + extra_params,
            )
        sql, args = self._entities
        self.entity_count = conn.execute(f"SELECT COUNT(*) {sql}", args).fetchone()[0]
        self.fact_count = conn.execute(f"SELECT COUNT(*) FROM triples t{where}", params).fetchone()[
            0
        ]

    def entity_rows(self, batch: int = 1000) -> Iterator[list[tuple]]:
        sql, args = self._entities
        yield from self._batches(
            f"SELECT {', '.join(ENTITY_COLUMNS)} {sql} ORDER BY id {C}", args, batch
        )

    def fact_rows(self, batch: int = 1000) -> Iterator[list[tuple]]:
        yield from self._batches(*self._facts, batch)

    def _batches(self, sql: str, args: list, size: int) -> Iterator[list[tuple]]:
        with self._conn.cursor(name="fl_selection") as cursor:
            cursor.execute(sql, args)
            while rows := cursor.fetchmany(size):
                yield rows


class PGBulk(RowInserts):
    def __init__(self, db: PGConnection):
        self._db = db

    @contextmanager
    def selection(self, as_of_key: str | None, eid: str | None) -> Iterator[PGSelection]:
        with self._db.snapshot() as conn:
            yield PGSelection(conn, as_of_key, eid)

    def rows_with_ids(self, table: str, columns: tuple[str, ...], ids: list[str]) -> list[tuple]:
        names = bulk_columns(table, columns)
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT {names} FROM {table} WHERE id = ANY(%s)", (list(ids),)
            ).fetchall()

    def open_fact_ids(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
        """The id of an open fact for each key that has one (the least id when several do)."""
        found: dict[tuple[str, str, str], str] = {}
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT t.subject, t.predicate, t.object, t.id FROM "
                "unnest(%s::text[], %s::text[], %s::text[]) AS k(s, p, o) JOIN triples t "
                "ON t.subject = k.s AND t.predicate = k.p AND t.object = k.o "
                f"WHERE t.valid_to IS NULL ORDER BY t.id {C}",
                [[key[i] for key in keys] for i in range(3)],
            ).fetchall()
        for subject, predicate, obj, tid in rows:
            found.setdefault((subject, predicate, obj), tid)
        return found

    def insert_rows(self, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
        refuse_unstorable(table, columns, rows)
        super().insert_rows(table, columns, rows)
