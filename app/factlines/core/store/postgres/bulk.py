"""Many rows at once in PostgreSQL, for export and import (the SQLite engine's
:mod:`factlines.core.store.sqlite.bulk`): a selection read in one snapshot through a
server-side cursor, rows looked up by array, rows inserted as given."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

from factlines.core.store.engine_common import RowInserts, bulk_columns
from factlines.core.store.extra_columns import MEMPALACE_COLUMNS, extras_of
from factlines.core.store.postgres import timesql
from factlines.core.store.postgres.connection import PGConnection
from factlines.core.store.postgres.timesql import C
from factlines.core.store.postgres.values import refuse_unstorable

# A kind of column (extra_columns) as PostgreSQL keeps it, and back: what its types can hold.
PG_TYPES = {
    "TEXT": f"TEXT {C}",
    "INTEGER": "BIGINT",
    "REAL": "DOUBLE PRECISION",
    "NUMERIC": f"TEXT {C}",
    "BLOB": f"TEXT {C}",
}
_KIND_OF = {
    "smallint": "INTEGER",
    "integer": "INTEGER",
    "bigint": "INTEGER",
    "real": "REAL",
    "double precision": "REAL",
}


def table_extras(conn: Any, table: str) -> list[tuple[str, str]]:
    """(name, kind) of the columns of ``table`` beyond MemPalace's, in the table's order:
    integers INTEGER, floating point REAL, anything else TEXT."""
    rows = conn.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return extras_of(table, [(name, _KIND_OF.get(kind, "TEXT")) for name, kind in rows])


class PGSelection:
    """The rows of one selection, read in the snapshot the selection's block holds."""

    def __init__(self, conn: Any, as_of_key: str | None, eid: str | None):
        self._conn = conn
        # (name, kind) of the columns a newer MemPalace added; each table's columns:
        # MemPalace's in its order, then those.
        self.extras = {table: table_extras(conn, table) for table in MEMPALACE_COLUMNS}
        self.columns = {
            table: (*MEMPALACE_COLUMNS[table], *(name for name, _ in self.extras[table]))
            for table in MEMPALACE_COLUMNS
        }
        terms: list[str] = []
        params: list[str | None] = []
        if as_of_key is not None:
            terms.append(f"({timesql.valid_at('t')})")
            params += timesql.valid_at_params(as_of_key)
        if eid is not None:
            terms.append("(t.subject = %s OR t.object = %s)")
            params += [eid, eid]
        where = " WHERE " + " AND ".join(terms) if terms else ""
        columns = bulk_columns("triples", self.columns["triples"])
        self._facts = (f"SELECT {columns} FROM triples t{where} ORDER BY t.id {C}", params)
        self._entities: tuple[str, list[str | None]] = ("FROM entities", [])
        if where:
            extra, extra_params = (" OR id = %s", [eid]) if eid is not None else ("", [])
            self._entities = (
                f"FROM entities WHERE id IN (SELECT t.subject FROM triples t{where} "
                f"UNION SELECT t.object FROM triples t{where}){extra}",
                params + params + extra_params,
            )
        sql, args = self._entities
        self.entity_count: int = conn.execute(f"SELECT COUNT(*) {sql}", args).fetchone()[0]
        self.fact_count: int = conn.execute(
            f"SELECT COUNT(*) FROM triples t{where}", params
        ).fetchone()[0]

    def entity_rows(self, batch: int = 1000) -> Iterator[list[tuple[Any, ...]]]:
        sql, args = self._entities
        yield from self._batches(
            f"SELECT {bulk_columns('entities', self.columns['entities'])} {sql} ORDER BY id {C}",
            args,
            batch,
        )

    def fact_rows(self, batch: int = 1000) -> Iterator[list[tuple[Any, ...]]]:
        yield from self._batches(*self._facts, batch)

    def _batches(
        self, sql: str, args: list[str | None], size: int
    ) -> Iterator[list[tuple[Any, ...]]]:
        with self._conn.cursor(name="fl_selection") as cursor:
            cursor.execute(sql, args)
            while rows := cursor.fetchmany(size):
                yield rows


class PGBulk(RowInserts[PGConnection]):
    def __init__(self, db: PGConnection):
        self._db = db

    @contextmanager
    def selection(
        self, as_of_key: str | None, eid: str | None
    ) -> Generator[PGSelection, None, None]:
        with self._db.snapshot() as conn:
            yield PGSelection(conn, as_of_key, eid)

    def extra_columns(self, table: str) -> list[tuple[str, str]]:
        with self._db.read() as conn:
            return table_extras(conn, table)

    def add_columns(self, table: str, extras: list[tuple[str, str]]) -> None:
        """Add the columns of ``extras`` that ``table`` lacks, empty, of the type that holds
        their kind (:data:`PG_TYPES`)."""
        with self._db.transaction() as conn:
            have = {name.lower() for name, _ in table_extras(conn, table)}
            for name, kind in extras:
                if name.lower() not in have:
                    conn.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {PG_TYPES[kind]}')

    def rows_with_ids(
        self, table: str, columns: tuple[str, ...], ids: list[str]
    ) -> list[tuple[Any, ...]]:
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

    def insert_rows(
        self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]
    ) -> None:
        beyond = set(columns) - set(MEMPALACE_COLUMNS[table])
        extras = dict(self.extra_columns(table)) if beyond else {}
        refuse_unstorable(table, columns, rows, extras)
        super().insert_rows(table, columns, rows)
