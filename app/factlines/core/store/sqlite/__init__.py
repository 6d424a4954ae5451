"""The SQLite engine: MemPalace's own file, read and written in place.

Everything SQLite-specific lives in this package: the SQL (the time rules' SQL included), the
schema and its upgrade, WAL and the busy timeout, rowid, ``data_version``, and the split of
SQLite's errors into refusals, unavailability and bugs.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from typing import Any, SupportsInt, cast

from factlines.core.errors import Unavailable
from factlines.core.progress import Cancelled, Progress, report
from factlines.core.store.changes import Touched
from factlines.core.store.engine_common import EngineStore, bulk_columns
from factlines.core.store.protocol import WRITE_WAIT
from factlines.core.store.sqlite import indexes
from factlines.core.store.sqlite.bulk import SQLiteBulk
from factlines.core.store.sqlite.compat import MemPalaceConnection
from factlines.core.store.sqlite.connection import Connection
from factlines.core.store.sqlite.editlog import TABLE, SQLiteEditLog
from factlines.core.store.sqlite.entities import SQLiteEntities
from factlines.core.store.sqlite.facts import SQLiteFacts
from factlines.core.store.sqlite.history import SQLiteHistory
from factlines.core.store.sqlite.predicates import SQLitePredicates
from factlines.core.store.sqlite.schema import DEFAULT_INDEXES, SPEED_INDEXES, connect_read_only

# A backup copies this much per step (SQLite's online backup, page by page).
BACKUP_STEP_BYTES = 4 << 20

# What a new graph's file holds: its tables, and the rows that are ours (the schema's version).
_NEW_GRAPH_TABLES = {"entities", "triples", "fl_meta", "fl_schema", TABLE}
_FILLED_BY_ANYONE = ("entities", "triples", "fl_meta", TABLE)


def discard_new_graph(path: str) -> None:
    """Remove the graph file a command created at ``path`` moments ago and then wrote nothing
    into (or took back all it wrote), with its side files, only while it holds exactly what
    the command created: nothing but the new graph's empty tables, and no other program has
    it open (MemPalace may have opened it meanwhile, and would go on writing a file no longer
    there). Otherwise it is left as it is: it is someone else's graph now."""
    try:
        conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    except sqlite3.Error:
        return
    try:
        # In WAL mode the exclusive lock is refused while any other connection has the file.
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        tables = {
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if not tables <= _NEW_GRAPH_TABLES or any(
            conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]
            for table in _FILLED_BY_ANYONE
            if table in tables
        ):
            return
        # Removed while the lock is held: nobody opens the file between the look and the removal.
        for side in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{path}{side}")
    except sqlite3.Error:
        return
    finally:
        conn.close()


class SQLiteStore(EngineStore[Connection]):
    """A :class:`~factlines.core.store.protocol.GraphStore` over one SQLite file."""

    def __init__(
        self,
        path: str,
        *,
        read_only: bool = False,
        initialize_empty: bool = False,
        write_wait: float = WRITE_WAIT,
        scanning: bool = False,
    ):
        self.location = path
        self.engine = engine_version()
        self._db = Connection(
            path,
            read_only=read_only,
            initialize_empty=initialize_empty,
            write_wait=write_wait,
            scanning=scanning,
        )
        self.entities = SQLiteEntities(self._db)
        self.facts = SQLiteFacts(self._db)
        self.history = SQLiteHistory(self._db)
        self.predicates = SQLitePredicates(self._db)
        self.bulk = SQLiteBulk(self._db)
        self.edit_log = SQLiteEditLog(self._db)
        self._seen_data_version = self._version()
        self._compat: MemPalaceConnection | None = None
        self._db.listeners.append(self._forget_search_index)

    # ── Lifecycle ─────────────────────────────────────────────────────────

    def mempalace_connection(self) -> MemPalaceConnection:
        """The connection as MemPalace's own code uses it (``kg._conn()``): see :mod:`.compat`."""
        with self._db.lock:
            if self._compat is None:
                self._compat = MemPalaceConnection(self._db, self.close)
            return self._compat

    @property
    def read_only_reason(self) -> str | None:
        """Why the graph is read-only, in words (None when it is not)."""
        return self._db.access.reason

    @property
    def private_copy(self) -> bool:
        """Read through a private copy of the file (another user's, or a locked folder)."""
        return self._db.private_copy

    # ── Writes, undo and change notes ─────────────────────────────────────

    def _version(self) -> tuple[int, int]:
        return self._db.epoch, self._db.data_version()

    def changed_externally(self) -> Touched:
        """What another connection changed since we last looked (SQLite cannot say which
        rows, so anything changed is everything); empty when nothing did. Cheap to poll;
        a private copy is taken again here when its original changed."""
        self._db.refresh()
        version = self._version()
        changed = version != self._seen_data_version
        self._seen_data_version = version
        if changed:
            self.entities.forget_index()
        return Touched.all_rows() if changed else Touched()

    # ── Replication: rows in rowid order, replaced by id ──────────────────

    def rows_after(
        self, table: str, columns: tuple[str, ...], after: object, limit: int
    ) -> list[tuple[int, tuple[Any, ...]]]:
        """(rowid, values of ``columns``) of ``table``'s rows after rowid ``after``, in rowid
        order: the rowid is this engine's position (MemPalace's replication pages by it)."""
        names = bulk_columns(table, columns)
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT rowid, {names} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?",
                # A rowid this engine gave, passed back by MemPalace's code (an int or like one).
                (int(cast("SupportsInt | str", after)), int(limit)),
            ).fetchall()
        return [(row[0], row[1:]) for row in rows]

    def replace_row(self, table: str, values: dict[str, Any]) -> None:
        """Insert the row, or replace the row with its id (it moves to the end of rowid order)."""
        names = bulk_columns(table, tuple(values))
        with self._db.transaction() as conn:
            self._db.touch(conn, table, values["id"])
            conn.execute(
                f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})",
                list(values.values()),
            )

    # ── Our indexes (see .indexes): each build or removal on its own connection ──

    def missing_indexes(self) -> list[str]:
        """The default indexes this file lacks; none on a read-only graph (nothing is built)."""
        if self.read_only:
            return []
        with self._db.read() as conn:
            return indexes.missing_defaults(conn)

    def build_indexes(self, progress: indexes.Progress | None = None) -> list[str]:
        self.refuse_writes()
        with self._db.read() as conn:
            names = indexes.missing_defaults(conn)
        return indexes.build(self.location, names, progress)

    def speed_indexes(self) -> list[str]:
        """The speed indexes the file has."""
        with self._db.snapshot() as conn:
            have = indexes.present(conn)
            return [name for name in indexes.speed(conn) if name in have]

    def speed_index_cost(self) -> int:
        """About how many bytes the missing speed indexes would add."""
        with self._db.snapshot() as conn:
            return indexes.estimated_bytes(conn, indexes.missing_speed(conn))

    def add_speed_indexes(self, progress: indexes.Progress | None = None) -> list[str]:
        self.refuse_writes()
        with self._db.read() as conn:
            names = indexes.missing_speed(conn)
        return indexes.build(self.location, names, progress)

    def remove_speed_indexes(self, progress: indexes.Progress | None = None) -> list[str]:
        self.refuse_writes()
        return indexes.drop(self.location, self.speed_indexes(), progress)

    # ── The app's own settings of this graph ──────────────────────────────

    def get_meta(self, key: str) -> str | None:
        with self._db.read() as conn:
            if self.read_only and not _has_table(conn, "fl_meta"):
                return None  # a file Factlines never set up, read without setting it up
            row = conn.execute("SELECT value FROM fl_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def meta_items(self) -> list[tuple[str, str]]:
        with self._db.read() as conn:
            if not _has_table(conn, "fl_meta"):
                return []  # a file Factlines never set up, read without setting it up
            return conn.execute("SELECT key, value FROM fl_meta ORDER BY key").fetchall()

    def set_meta(self, key: str, value: str | None) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "fl_meta", key)
            if value is None:
                conn.execute("DELETE FROM fl_meta WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO fl_meta (key, value) VALUES (?, ?)", (key, value)
                )

    # ── A copy of the file ────────────────────────────────────────────────

    def backup_to(self, target: str, progress: Progress | None = None) -> None:
        """Copy the graph into a new file at ``target`` with SQLite's online backup, a few
        megabytes a step, telling ``progress`` the megabytes done of the total.

        The copy reads through a connection of its own, in one read transaction: every step
        copies the same committed state (a write by another program between steps would
        otherwise start the copy over), another program's writes go on meanwhile (in WAL mode
        a reader never blocks a writer), and this graph's connection stays free, so the copy
        may run on another thread while the graph is used. A graph read through a private copy
        is copied from that copy, on its connection. Written under a temporary name first, so
        ``target`` never holds half a copy; cancelled, nothing is left."""
        partial = f"{target}.partial"
        try:
            with contextlib.ExitStack() as stack:
                if self._db.private_copy:
                    stack.enter_context(self._db.lock)
                    source = self._db.raw()
                else:
                    source = connect_read_only(self.location, query_only=True)
                    stack.callback(source.close)
                copy = sqlite3.connect(partial)
                stack.callback(copy.close)
                source.execute("BEGIN")
                stack.callback(source.execute, "COMMIT")
                source.execute("SELECT 1 FROM sqlite_master LIMIT 1")  # the read begins here
                page = source.execute("PRAGMA page_size").fetchone()[0]
                source.backup(
                    copy,
                    pages=max(1, BACKUP_STEP_BYTES // page),
                    progress=lambda _status, remaining, total: report(
                        progress, (total - remaining) * page // 1_000_000, total * page // 1_000_000
                    ),
                )
            os.replace(partial, target)
        except (sqlite3.Error, OSError, Cancelled) as exc:
            for leftover in (partial, partial + "-journal"):
                with contextlib.suppress(OSError):
                    os.remove(leftover)
            if isinstance(exc, Cancelled):
                raise
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise Unavailable(f"{self.location} could not be copied to {target}: {why}") from None

    # ── What the file holds ───────────────────────────────────────────────

    def own_objects(self) -> list[tuple[str, str]]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index') "
                "AND substr(name, 1, 3) = 'fl_' ORDER BY type DESC, name"
            ).fetchall()
        return [(kind, name) for kind, name in rows]

    def columns(self, table: str) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
        return [name for (name,) in rows]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return found.fetchone() is not None


def engine_version() -> str:
    """The engine and the version of its library, e.g. ``SQLite 3.40.1``."""
    return f"SQLite {sqlite3.sqlite_version}"


__all__ = ["DEFAULT_INDEXES", "SPEED_INDEXES", "SQLiteStore", "engine_version"]
