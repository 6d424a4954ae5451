"""The PostgreSQL engine: one graph per database, shared by several clients at once.

Everything PostgreSQL-specific lives in this package: the SQL (the time rules' SQL ported, on
bytes whatever the database's collation), the schema, the advisory write lock that makes
writes take turns, the change feed (LISTEN/NOTIFY), and the split of PostgreSQL's errors into
refusals, unavailability and bugs. The driver, psycopg 3, is an optional extra
(``factlines[postgres]``), imported only when a PostgreSQL graph is opened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factlines.core.errors import Refused
from factlines.core.progress import Progress
from factlines.core.store.changes import Touched
from factlines.core.store.engine_common import EngineStore, bulk_columns
from factlines.core.store.postgres import schema
from factlines.core.store.postgres.bulk import PGBulk
from factlines.core.store.postgres.connection import PGConnection, connect, driver
from factlines.core.store.postgres.editlog import TABLE, PGEditLog
from factlines.core.store.postgres.entities import PGEntities
from factlines.core.store.postgres.errors import unavailable
from factlines.core.store.postgres.facts import PGFacts, PGPredicates
from factlines.core.store.postgres.history import PGHistory
from factlines.core.store.postgres.timesql import C
from factlines.core.store.postgres.values import refuse_unstorable
from factlines.core.store.protocol import WRITE_WAIT


def graph_at(url: str) -> bool:
    """Whether the database at ``url`` has any table in its current schema (a graph, or what
    is refused); True when it cannot be asked (opening it then says why)."""
    try:
        with connect(url) as conn:
            return bool(schema.tables(conn))
    except driver().Error:
        return True


def discard_new_graph(url: str) -> None:
    """Remove the graph a command made in an empty database moments ago and then wrote
    nothing into, if it still holds nothing but our empty tables: the tables go, the
    database stays (it was the server's before)."""
    own = {"entities", "triples", "fl_meta", "fl_schema", "fl_writes", TABLE}
    with connect(url) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (schema.WRITE_LOCK,))
        found = set(schema.tables(conn))
        if not found <= own or any(
            conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]
            for table in ("entities", "triples", TABLE, "fl_meta")
            if table in found
        ):
            return
        for table in found:
            conn.execute(f"DROP TABLE {table}")


class PostgresStore(EngineStore[PGConnection]):
    """A :class:`~factlines.core.store.protocol.GraphStore` over one PostgreSQL database."""

    def __init__(self, url: str, *, read_only: bool = False, write_wait: float = WRITE_WAIT):
        self._db = PGConnection(url, read_only=read_only, write_wait=write_wait)
        self.location = self._db.label
        self.url = url
        with self._db.read() as conn:
            self.engine = f"PostgreSQL {server_version(conn.info.server_version)}"
        self.entities = PGEntities(self._db)
        self.facts = PGFacts(self._db)
        self.predicates = PGPredicates(self._db)
        self.history = PGHistory(self._db)
        self.bulk = PGBulk(self._db)
        self.edit_log = PGEditLog(self._db)
        self._db.listeners.append(self._forget_search_index)

    # ── Lifecycle ─────────────────────────────────────────────────────────

    @property
    def read_only_reason(self) -> str | None:
        return self._db.read_only_reason

    @property
    def private_copy(self) -> bool:
        """A database is read where it is, never through a copy."""
        return False

    @property
    def role(self) -> str:
        """The PostgreSQL role this client writes as (the edit log's ``who``)."""
        return self._db.role

    # ── Writes, undo and change notes ─────────────────────────────────────

    def changed_externally(self) -> Touched:
        """What other clients changed since we last looked, by id (from the change feed: no
        query is made); everything after the connection was lost and made again."""
        touched = self._db.take_external()
        if touched.entities or touched.everything:
            self.entities.forget_index()
        return touched

    # ── Replication: rows in id order (bytes), replaced by id ─────────────

    def rows_after(
        self, table: str, columns: tuple[str, ...], after: object, limit: int
    ) -> list[tuple[str, tuple[Any, ...]]]:
        """(id, values of ``columns``) of ``table``'s rows after id ``after`` (0: from the
        start), in id order: PostgreSQL keeps no row order, so the id is the position."""
        names = bulk_columns(table, columns)
        where, params = ("", []) if after in (0, "0", None) else (f" WHERE id {C} > %s", [after])
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT id, {names} FROM {table}{where} ORDER BY id {C} LIMIT %s",
                [*params, int(limit)],
            ).fetchall()
        return [(row[0], row[1:]) for row in rows]

    def replace_row(self, table: str, values: dict[str, Any]) -> None:
        names = bulk_columns(table, tuple(values))
        row = tuple(values.values())
        refuse_unstorable(table, tuple(values), [row])
        with self._db.transaction() as conn:
            self._db.touch(conn, table, values["id"])
            conn.execute(f"DELETE FROM {table} WHERE id = %s", (values["id"],))
            conn.execute(
                f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(values))})", row
            )

    # ── Our indexes: made with the graph; an older graph's built on request ──

    def missing_indexes(self) -> list[str]:
        if self.read_only:
            return []
        with self._db.read() as conn:
            present = schema.indexes(conn)
        return [name for name in schema.DEFAULT_INDEXES if name not in present]

    def build_indexes(self, progress: Callable[[int, int, str], None] | None = None) -> list[str]:
        """Build the missing default indexes on a connection of their own (CONCURRENTLY:
        other clients go on writing)."""
        self.refuse_writes()
        names = self.missing_indexes()
        psycopg = driver()
        conn: Any  # see connect()
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                for done, name in enumerate(names):
                    if progress is not None:
                        progress(done, len(names), name)
                    conn.execute(
                        schema.create_statement(name).replace("INDEX", "INDEX CONCURRENTLY", 1)
                    )
        except psycopg.Error as exc:
            raise unavailable(self.location, exc, "indexed") or exc from None
        if progress is not None:
            progress(len(names), len(names), "")
        return names

    # PostgreSQL's planner serves the app's views from the default indexes: no speed indexes.
    def speed_indexes(self) -> list[str]:
        return []

    def speed_index_cost(self) -> int:
        return 0

    def add_speed_indexes(
        self, progress: Callable[[int, int, str], None] | None = None
    ) -> list[str]:
        self.refuse_writes()
        return []

    def remove_speed_indexes(
        self, progress: Callable[[int, int, str], None] | None = None
    ) -> list[str]:
        self.refuse_writes()
        return []

    # ── The app's own settings of this graph ──────────────────────────────

    def get_meta(self, key: str) -> str | None:
        with self._db.read() as conn:
            if conn.execute("SELECT to_regclass('fl_meta')").fetchone()[0] is None:
                return None  # a read-only graph Factlines never set up
            row = conn.execute("SELECT value FROM fl_meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def meta_items(self) -> list[tuple[str, str]]:
        with self._db.read() as conn:
            if conn.execute("SELECT to_regclass('fl_meta')").fetchone()[0] is None:
                return []  # a read-only graph Factlines never set up
            return conn.execute(f"SELECT key, value FROM fl_meta ORDER BY key {C}").fetchall()

    def set_meta(self, key: str, value: str | None) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "fl_meta", key)
            conn.execute("DELETE FROM fl_meta WHERE key = %s", (key,))
            if value is not None:
                conn.execute("INSERT INTO fl_meta (key, value) VALUES (%s, %s)", (key, value))

    def backup_to(self, target: str, progress: Progress | None = None) -> None:
        raise Refused(
            f"{self.location} is a PostgreSQL database: copy it with "
            "`factlines copy` or the server's own backups (pg_dump)"
        )

    # ── What the database holds ───────────────────────────────────────────

    def own_objects(self) -> list[tuple[str, str]]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END, c.relname "
                "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') "
                # A table's primary key index comes with the table (as SQLite's autoindex).
                "AND NOT EXISTS (SELECT 1 FROM pg_index x WHERE x.indexrelid = c.oid "
                "AND x.indisprimary) "
                f"AND substr(c.relname, 1, 3) = 'fl_' ORDER BY 1 DESC, c.relname {C}"
            ).fetchall()
        return [(kind, name) for kind, name in rows]

    def columns(self, table: str) -> list[str]:
        with self._db.read() as conn:
            return schema.tables(conn).get(table, [])


def engine_version() -> str:
    """The driver's version (the server's is known once connected)."""
    return f"PostgreSQL (psycopg {driver().__version__})"


def server_version(number: int) -> str:
    """libpq's version number as a person reads it: 150018 is 15.18, 90624 is 9.6.24."""
    if number >= 100_000:
        return f"{number // 10_000}.{number % 10_000}"
    return f"{number // 10_000}.{number // 100 % 100}.{number % 100}"


__all__ = ["PostgresStore", "engine_version"]
