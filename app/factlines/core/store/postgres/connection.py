"""The long-lived PostgreSQL connection: transactions, recording for undo, errors, the feed.

Every write is one transaction holding the graph's advisory write lock, so writes of all
clients take turns as SQLite's ``BEGIN IMMEDIATE`` makes them, and the same refusals hold
(an open fact checked, then written, with nobody writing in between). A write waits up to
``write_wait`` seconds for the lock (``lock_timeout``), then fails as Unavailable. Reads run in
autocommit; several reads that must agree run in one ``REPEATABLE READ`` snapshot.

The change feed: each committed write of a Factlines client NOTIFYs ``fl_changes`` (in the
write itself, so it is heard exactly when the write commits) with the ids it touched. A second
connection LISTENs; :meth:`PGConnection.poll` reads what arrived from its socket without a
query, so an idle window costs the server nothing.

A lost connection is Unavailable for the operation that met it (a write in flight is rolled
back by the server, so nothing is half written); the next operation connects again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Generator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, cast

from factlines.core.errors import ReadOnlyGraph, Refused, Unavailable
from factlines.core.store.changes import RowImage, Touched
from factlines.core.store.postgres import schema
from factlines.core.store.postgres.errors import unavailable
from factlines.core.store.protocol import WRITE_WAIT
from factlines.core.store.row_writes import KEY_COLUMN, RowWrites
from factlines.core.store.sqlite.editlog import TABLE as EDIT_LOG

CHANNEL = "fl_changes"
# What the app writes: the rows of these tables, with each of these statements.
_WRITTEN_TABLES = ("triples", "entities", "fl_meta", EDIT_LOG)
_WRITES = ("INSERT", "UPDATE", "DELETE")
# NOTIFY's payload limit is 8000 bytes: a write of more ids says "everything".
_PAYLOAD_MAX = 7900
_CONNECT_TIMEOUT = 5
# Ids heard from other clients and not yet asked for, at most.
_PENDING_MAX = 50_000


def driver():
    """psycopg, imported when a PostgreSQL graph is opened (an optional extra)."""
    try:
        import psycopg
        import psycopg.conninfo  # imported by psycopg itself: named for the type checker
    except ImportError:
        raise Unavailable(
            "opening a PostgreSQL graph needs the PostgreSQL driver: "
            "pip install 'factlines[postgres]'"
        ) from None
    return psycopg


def connect(url: str) -> Any:
    """A new autocommit connection to ``url``, waiting at most the engine's connect timeout.
    Typed as Any: the engine composes its SQL as text, where psycopg's types ask for literal
    strings, and reads rows its own schema makes."""
    return driver().connect(url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT)


def label_of(url: str) -> str:
    """The URL as a person may see it: without its password."""
    info = driver().conninfo.conninfo_to_dict(url)
    info.pop("password", None)
    host = str(info.get("host") or "")
    port = f":{info['port']}" if info.get("port") else ""
    user = f"{info['user']}@" if info.get("user") else ""
    socket = f"?host={host}" if host.startswith("/") else ""
    host = "" if socket else host
    return f"postgresql://{user}{host}{port}/{info.get('dbname', '')}{socket}"


class PGConnection(RowWrites):
    """The connection, its lock, the open transaction's depth, recordings and the feed."""

    MARK: str = "%s"
    OTHERS: str = "another client"

    def __init__(self, url: str, *, read_only: bool = False, write_wait: float = WRITE_WAIT):
        super().__init__()
        self._psycopg = driver()
        self.url = url
        self.label = label_of(url)
        self.lock = threading.RLock()
        self.write_wait = write_wait
        self._asked_read_only = read_only
        self.read_only_reason: str | None = "opened read-only" if read_only else None
        # Counts what this client knows changed (its own writes, the feed): kept figures and
        # the search index are valid for one generation.
        self.generation = 0
        self._pending = Touched()
        # This client's committed writes, each counted in fl_writes too; whether the open
        # write found a fact it adds already open (counted, though it changes no row).
        self._own_writes = 0
        self._asserted = False
        self._closed = False
        self._conn: Any = None  # connect()'s
        self._feed: Any = None
        self.pid = 0
        self.role = ""
        try:
            self._connect(setup=True)
        except BaseException:
            self.close()
            raise

    # ── Connecting ────────────────────────────────────────────────────────

    def _connect(self, setup: bool = False) -> None:
        psycopg = self._psycopg
        try:
            conn = connect(self.url)
        except psycopg.Error as exc:
            raise unavailable(self.label, exc, "opened" if setup else "reached") or exc from None
        try:
            if setup:
                schema.prepare(conn, self.label, self._asked_read_only)
                self._decide_read_only(conn)
            if self.read_only:
                conn.execute("SET default_transaction_read_only = on")
            self.pid, self.role = conn.execute("SELECT pg_backend_pid(), current_user").fetchone()
            feed = connect(self.url)
            feed.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            conn.close()
            raise unavailable(self.label, exc, "opened") or exc from None
        except BaseException:
            conn.close()
            raise
        self._conn, self._feed = conn, feed

    def _decide_read_only(self, conn: Any) -> None:
        """Read-only when asked, on a standby, or when the role may not make every write the
        app needs (else each edit would fail as "unavailable, try again"), saying why."""
        if self.read_only_reason is not None:
            return
        # Every write counts itself in fl_writes (when the graph has it: else it is made on
        # the first read-write open, by a role that may).
        standby, rights, log_missing, may_create, may_count = conn.execute(
            "SELECT pg_is_in_recovery(), ARRAY(SELECT ARRAY[t.name, lower(r.kind)] "
            "FROM unnest(%s::text[]) WITH ORDINALITY t(name, n), unnest(%s::text[]) "
            "WITH ORDINALITY r(kind, m) WHERE to_regclass(t.name) IS NOT NULL "
            "AND NOT has_table_privilege(t.name, r.kind) ORDER BY n, m), "
            "to_regclass(%s) IS NULL, has_schema_privilege(current_schema(), 'CREATE'), "
            "CASE WHEN to_regclass('fl_writes') IS NULL THEN true "
            "ELSE has_table_privilege('fl_writes', 'UPDATE') END",
            (list(_WRITTEN_TABLES), list(_WRITES), EDIT_LOG),
        ).fetchone()
        if standby:
            self.read_only_reason = "the server is a read-only standby"
        elif rights:
            kinds = list(dict.fromkeys(kind for _, kind in rights))
            tables = ", ".join(dict.fromkeys(table for table, _ in rights))
            self.read_only_reason = f"this database role may not {' or '.join(kinds)} in {tables}"
        elif not may_count:
            self.read_only_reason = (
                "this database role may not update fl_writes (where every write is counted)"
            )
        elif log_missing and not may_create:
            self.read_only_reason = (
                "this database role may not create Factlines' edit log "
                f"({EDIT_LOG}: no CREATE right on the schema)"
            )

    def _alive(self, conn: Any) -> bool:
        return conn is not None and not conn.closed and not conn.broken

    def raw(self) -> Any:
        """The connection, connected again if it was lost (Unavailable when it cannot be)."""
        if self._closed:
            raise Refused(f"the knowledge graph {self.label} is closed")
        if not self._alive(self._conn) or not self._alive(self._feed):
            for old in (self._conn, self._feed):
                if old is not None:
                    old.close()
            self._conn = self._feed = None
            self._connect()
            # Notifications sent while we were away are lost: anything may have changed.
            self._pending.everything = True
            self.generation += 1
        return self._conn

    def close(self) -> None:
        with self.lock:
            self._closed = True
            for conn in (self._conn, self._feed):
                if conn is not None:
                    conn.close()
            self._conn = self._feed = None

    @property
    def closed(self) -> bool:
        return self._closed

    # ── Read-only ─────────────────────────────────────────────────────────

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    def refuse_writes(self) -> None:
        if self.read_only:
            raise ReadOnlyGraph(
                f"{self.label} is open read-only ({self.read_only_reason}); nothing can be changed"
            )

    # ── Reading ───────────────────────────────────────────────────────────

    @contextmanager
    def read(self) -> Generator[Any, None, None]:
        """The connection for a read, under the lock; environment errors become Unavailable."""
        with self.lock:
            conn = self.raw()
            try:
                yield conn
            except self._psycopg.Error as exc:
                raise unavailable(self.label, exc, "read") or exc from None

    @contextmanager
    def snapshot(self) -> Generator[Any, None, None]:
        """Several reads in one snapshot (inside a write, the write's own)."""
        with self.read() as conn:
            if self._depth or self._in_transaction(conn):
                yield conn
                return
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield conn
            finally:
                if self._alive(conn):
                    conn.execute("COMMIT")

    def _in_transaction(self, conn: Any) -> bool:
        status = self._psycopg.pq.TransactionStatus
        return conn.info.transaction_status != status.IDLE

    # ── Writing ───────────────────────────────────────────────────────────

    @contextmanager
    def transaction(self, wait: float | None = None) -> Generator[Any, None, None]:
        """One write transaction; writes inside it join it: all or nothing. The outermost one
        waits up to ``wait`` seconds (default :attr:`write_wait`) for the write lock."""
        self.refuse_writes()
        with self.lock:
            conn = self.raw()
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            ms = max(1, round((self.write_wait if wait is None else wait) * 1000))
            try:
                conn.execute("BEGIN")
                conn.execute(f"SET LOCAL lock_timeout = {ms}")
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (schema.WRITE_LOCK,))
            except self._psycopg.Error as exc:
                self._rollback(conn)
                raise unavailable(self.label, exc, "written") or exc from None
            self._depth = 1
            try:
                yield conn
                self._fill_after_images(conn)
                counted = bool(self._touched) or self._asserted
                if counted:
                    conn.execute("UPDATE fl_writes SET n = n + 1")
                if self._touched:
                    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self._payload()))
                conn.execute("COMMIT")
            except BaseException as exc:
                self._rollback(conn)
                self._forget_uncommitted()
                if isinstance(exc, self._psycopg.Error):
                    raise unavailable(self.label, exc, "written") or exc from None
                raise
            finally:
                self._depth = 0
                self._asserted = False
            touched = self._take_touched()
            self._own_writes += counted
            if touched:
                self.generation += 1
        if touched:
            self._tell(touched)

    def _rollback(self, conn: Any) -> None:
        if self._alive(conn) and self._in_transaction(conn):
            conn.execute("ROLLBACK")

    def _payload(self) -> str:
        touched = self._touched
        message = {
            "pid": self.pid,
            "facts": sorted(touched.facts),
            "entities": sorted(touched.entities),
            "settings": sorted(touched.settings),
        }
        text = json.dumps(message, separators=(",", ":"))
        if touched.everything or len(text.encode()) > _PAYLOAD_MAX:
            text = json.dumps({"pid": self.pid, "everything": True})
        return text

    # ── What other clients wrote (the feed) ───────────────────────────────

    def poll(self) -> None:
        """Take in what the feed heard (no query: the socket is read)."""
        with self.lock:
            if self._closed:
                return
            try:
                self.raw()
                heard = list(self._feed.notifies(timeout=0))
            except self._psycopg.OperationalError:
                self._feed.close()  # connected again on the next use
                return
            for note in heard:
                message = json.loads(note.payload or "{}")
                if note.pid == self.pid:
                    continue
                self.generation += 1
                if message.get("everything"):
                    self._pending.everything = True
                for table, key in (("triples", "facts"), ("entities", "entities")):
                    for row_id in message.get(key, ()):
                        self._pending.add(table, row_id)
                for row_id in message.get("settings", ()):
                    self._pending.add("fl_meta", row_id)
            pending = self._pending
            if len(pending.facts) + len(pending.entities) > _PENDING_MAX:
                # Nobody asked for a long while: "everything" says as much in less memory.
                self._pending = Touched.all_rows()

    def take_external(self) -> Touched:
        """What other clients changed since the last call (empty when nothing)."""
        self.poll()
        with self.lock:
            pending, self._pending = self._pending, Touched()
        return pending

    # ── Row images and other writers, for undo ────────────────────────────

    def note_assertion(self) -> None:
        self._asserted = True

    def write_mark(self, conn: Any) -> tuple[Decimal, int]:
        """Before this write's own count: all clients' writes (a SUM of BIGINT is NUMERIC), and
        this client's."""
        return conn.execute("SELECT SUM(n) FROM fl_writes").fetchone()[0], self._own_writes

    def written_since(self, conn: Any, mark: object) -> bool:
        # A mark this connection made (write_mark's).
        all_then, own_then = cast("tuple[Decimal, int]", mark)
        all_now, own_now = self.write_mark(conn)
        return all_now - all_then != own_now - own_then

    def row_image(self, conn: Any, table: str, row_id: str) -> RowImage | None:
        cursor = conn.execute(f"SELECT * FROM {table} WHERE {KEY_COLUMN[table]} = %s", (row_id,))
        row = cursor.fetchone()
        if row is None:
            return None
        return RowImage(dict(zip([d.name for d in cursor.description], row)))

    def put_row(self, conn: Any, table: str, row_id: str, image: RowImage | None) -> None:
        conn.execute(f"DELETE FROM {table} WHERE {KEY_COLUMN[table]} = %s", (row_id,))
        if image is not None:
            columns = ", ".join(image.values)
            marks = ", ".join(["%s"] * len(image.values))
            conn.execute(
                f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(image.values.values())
            )
