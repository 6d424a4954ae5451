"""The one long-lived SQLite connection: transactions, recording for undo, and errors.

SQLite's errors are split here, once: what the environment causes (locked, read-only, disk
full, gone, damaged) becomes :class:`Unavailable`; anything else (a wrong column, a bad
statement) is a bug and propagates as it is. Every write is one ``BEGIN IMMEDIATE``
transaction; writes inside it join it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from factlines.core.errors import ReadOnlyGraph, Refused, Unavailable
from factlines.core.store.changes import RowImage
from factlines.core.store.protocol import WRITE_WAIT
from factlines.core.store.row_writes import KEY_COLUMN, RowWrites
from factlines.core.store.sqlite import held
from factlines.core.store.sqlite.access import Snapshot, access_for
from factlines.core.store.sqlite.errors import unavailable
from factlines.core.store.sqlite.schema import open_connection

# The page cache of a store opened for reads of the whole graph (``scanning``).
SCAN_CACHE_KIB = 8_192

# Ids per ``IN (…)`` list: far below SQLite's limit of parameters (999 before 3.32).
_IDS_PER_STATEMENT = 300
# An end of this many facts is searched by the other end when that one has fewer.
_MANY_FACTS = 32


class Connection(RowWrites):
    """The connection, its lock, the open transaction's depth and the active recordings.

    Read-only (asked for, or the file, its folder or its side files not writable): every write
    is refused before anything happens, and where SQLite's side files would not be the owner's
    the connection reads a private :class:`Snapshot`, taken again when the original changes.
    """

    def __init__(
        self,
        path: str,
        *,
        read_only: bool = False,
        initialize_empty: bool = False,
        write_wait: float = WRITE_WAIT,
        scanning: bool = False,
    ):
        super().__init__()
        self.path = path
        self._scanning = scanning
        self.lock = threading.RLock()
        self.write_wait = write_wait
        self._busy_ms: int | None = None
        self._initialize_empty = initialize_empty
        # Counts the connections opened on this graph: a new one restarts data_version.
        self.epoch = 0
        self._closed = False
        self._snapshot: Snapshot | None = None
        self._reads = 0  # reads open (nested): a private copy is taken again only outside them
        self._snapshots = 0  # read transactions of ours open (see :attr:`uncommitted`)
        self._held: tuple[int, int] | None = None  # the file open, for held.head
        self._conn: sqlite3.Connection | None = None
        self.access = access_for(path, read_only)
        try:
            if self.access.private_copy:
                self._snapshot = Snapshot(path)
            self._conn = self._open()
        except sqlite3.Error as exc:
            self.close()
            raise unavailable(path, exc, "opened") or exc from None
        except BaseException:
            self.close()
            raise
        self._wait(self._conn, write_wait)

    def _open(self) -> sqlite3.Connection:
        self._busy_ms = None  # a new connection starts with the schema's timeout
        source = self._snapshot.path if self._snapshot is not None else None
        conn = open_connection(
            self.path,
            read_only=self.access.read_only,
            initialize_empty=self._initialize_empty,
            source=source,
            tidy=self.access.tidy,
        )
        held.release(self._held)
        self._held = held.hold(source or self.path)
        if self._scanning:
            # Reads that go through the whole graph read each page once: the page cache a
            # window's store keeps warm would only hold their memory (the suggestions at a
            # million facts: 104 MB over their start with it, 29 with this; faster too).
            conn.execute(f"PRAGMA cache_size = -{SCAN_CACHE_KIB}")
        return conn

    def close(self) -> None:
        with self.lock:
            self._closed = True
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            held.release(self._held)
            self._held = None
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None

    @property
    def closed(self) -> bool:
        return self._closed

    def raw(self) -> sqlite3.Connection:
        if self._closed:
            raise Refused(f"the knowledge graph {self.path} is closed")
        if self._conn is None:  # a private copy could not be taken again
            self.refresh()
            if self._conn is None:
                raise Unavailable(f"{self.path} could not be read; try again")
        return self._conn

    # ── Read-only ─────────────────────────────────────────────────────────

    @property
    def read_only(self) -> bool:
        return self.access.read_only

    def refuse_writes(self) -> None:
        """Raise :class:`ReadOnlyGraph` when the graph is read-only (before anything happens)."""
        if self.access.read_only:
            raise ReadOnlyGraph(
                f"{self.path} is open read-only ({self.access.reason}); nothing can be changed"
            )

    @property
    def private_copy(self) -> bool:
        return self._snapshot is not None

    def refresh(self) -> bool:
        """Reading a private copy: take it again if the original changed. True when it did."""
        snapshot = self._snapshot
        if snapshot is None or self._closed:
            return False
        with self.lock:
            if self._conn is not None and not snapshot.changed():
                return False
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            snapshot.refresh()
            try:
                self._conn = self._open()
                self._wait(self._conn, self.write_wait)
            except sqlite3.Error as exc:
                raise unavailable(self.path, exc, "read") or exc from None
            self.epoch += 1
            return True

    # ── Reading ───────────────────────────────────────────────────────────

    @contextmanager
    def read(self) -> Generator[sqlite3.Connection, None, None]:
        """The connection for a read, under the lock; environment errors become Unavailable.

        Reading a private copy, the outermost read first takes it again if the original
        changed: every answer comes from the owner's latest commit, as it would in place."""
        with self.lock:
            if self._reads == 0:
                self.refresh()
            conn = self.raw()
            self._reads += 1
            try:
                yield conn
            except sqlite3.Error as exc:
                raise unavailable(self.path, exc, "read") or exc from None
            finally:
                self._reads -= 1

    @contextmanager
    def snapshot(self) -> Generator[sqlite3.Connection, None, None]:
        """Several reads in one read transaction (inside a write, the write's own)."""
        with self.read() as conn:
            if conn.in_transaction:
                yield conn
                return
            conn.execute("BEGIN")
            self._snapshots += 1
            try:
                yield conn
            finally:
                self._snapshots -= 1
                conn.execute("COMMIT")

    @property
    def uncommitted(self) -> bool:
        """A write not committed yet is open: the store's own, or one MemPalace's code began
        on the raw connection (``kg._conn()``). What is read now may yet be rolled back."""
        conn = self._conn
        return self.writing or (conn is not None and conn.in_transaction and self._snapshots == 0)

    def data_version(self) -> int:
        with self.read() as conn:
            return conn.execute("PRAGMA data_version").fetchone()[0]

    def version(self, conn: sqlite3.Connection) -> tuple[int, int, int]:
        """The file as this connection sees it: every figure kept from it is kept under this,
        and is good while it is unchanged. It moves when a private copy is taken again
        (``epoch``), another connection commits (``data_version``) or this one writes a row,
        through the store or the raw connection MemPalace's code may use (``total_changes``).
        Read inside a snapshot, after its first read, it equals a figure's only if nothing
        changed since the figure was read."""
        data_version = conn.execute("PRAGMA data_version").fetchone()[0]
        return self.epoch, data_version, conn.total_changes

    # ── Writing ───────────────────────────────────────────────────────────

    def settle(self) -> None:
        """Checkpoint the write-ahead log into the file now, without waiting for readers or
        writers (PASSIVE): else the commit that takes the log past SQLite's threshold does
        it, and that may be MemPalace's, waiting on the pages a long write left there. And give
        back this connection's page cache (read again as needed): a long import's memory stays
        that of one transaction, not the cache's 64 MB."""
        with self.read() as conn:
            if not conn.in_transaction:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                conn.execute("PRAGMA shrink_memory")

    def _wait(self, conn: sqlite3.Connection, seconds: float) -> None:
        """Let SQLite wait up to ``seconds`` for another program's lock (cheap when unchanged)."""
        ms = max(0, round(seconds * 1000))
        if ms != self._busy_ms and conn is self._conn:
            conn.execute(f"PRAGMA busy_timeout = {ms}")
            self._busy_ms = ms

    @contextmanager
    def transaction(self, wait: float | None = None) -> Generator[sqlite3.Connection, None, None]:
        """One write transaction; writes inside it join it: all or nothing.

        The outermost one waits up to ``wait`` seconds (default :attr:`write_wait`) for another
        program's write to end, then fails as :class:`Unavailable`. A read-only graph refuses
        before anything happens.
        """
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
            try:
                self._wait(conn, self.write_wait if wait is None else wait)
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                self._wait(conn, self.write_wait)
                raise unavailable(self.path, exc, "written") or exc from None
            self._depth = 1
            try:
                yield conn
                self._fill_after_images(conn)
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                self._forget_uncommitted()
                if isinstance(exc, sqlite3.Error):
                    raise unavailable(self.path, exc, "written") or exc from None
                raise
            finally:
                self._depth = 0
                self._wait(conn, self.write_wait)
            touched = self._take_touched()
        if touched:
            self._tell(touched)

    def write_mark(self, conn: sqlite3.Connection) -> object:
        # data_version moves when another connection commits, never for this one's commits.
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        return self.epoch, version, self.unknown_writes

    def written_since(self, conn: sqlite3.Connection, mark: object) -> bool:
        return self.write_mark(conn) != mark

    def open_ids(
        self, conn: sqlite3.Connection, sid: str, pred: str, oid: str
    ) -> list[tuple[Any, ...]]:
        """(id, valid_from) of the open facts (subject, predicate, object), searched through
        the index of the end with fewer facts: a hub's entries (20,000 facts) read for each of
        its facts made merging into a hub, and undoing that, quadratic (37 s, 31 s)."""
        # ``+``: without statistics SQLite takes the predicate's index (a good share of the
        # graph: undoing a rename of 10k facts took half a minute through it) or the subject's.
        if _many(conn, "subject", sid) and not _many(conn, "object", oid):
            where = "+subject = ? AND +predicate = ? AND object = ?"
        else:
            where = "subject = ? AND +predicate = ? AND +object = ?"
        return conn.execute(
            f"SELECT id, valid_from FROM triples WHERE {where} AND valid_to IS NULL",
            (sid, pred, oid),
        ).fetchall()

    def row_image(self, conn: sqlite3.Connection, table: str, row_id: str) -> RowImage | None:
        cursor = conn.execute(
            f"SELECT rowid, * FROM {table} WHERE {KEY_COLUMN[table]} = ?", (row_id,)
        )
        row = cursor.fetchone()
        if row is None:
            return None
        names = [d[0] for d in cursor.description[1:]]
        return RowImage(dict(zip(names, row[1:])), position=row[0])

    def _row_images(
        self, conn: sqlite3.Connection, table: str, row_ids: list[str]
    ) -> dict[str, RowImage]:
        key = KEY_COLUMN[table]
        images: dict[str, RowImage] = {}
        for start in range(0, len(row_ids), _IDS_PER_STATEMENT):
            chunk = row_ids[start : start + _IDS_PER_STATEMENT]
            cursor = conn.execute(
                f"SELECT rowid, * FROM {table} WHERE {key} IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            names = [d[0] for d in cursor.description[1:]]
            for row in cursor:
                values: dict[str, Any] = dict(zip(names, row[1:]))
                images[values[key]] = RowImage(values, position=row[0])
        return images

    def put_row(
        self, conn: sqlite3.Connection, table: str, row_id: str, image: RowImage | None
    ) -> None:
        conn.execute(f"DELETE FROM {table} WHERE {KEY_COLUMN[table]} = ?", (row_id,))
        if image is None:
            return
        columns: list[str] = list(image.values)
        values: list[Any] = list(image.values.values())

        # Back at its old rowid when that is free, so rowid order (MemPalace pages its
        # replication by it) is as it was.
        taken = conn.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (image.position,))
        if image.position is not None and taken.fetchone() is None:
            columns, values = ["rowid", *columns], [image.position, *values]
        conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            values,
        )


def _many(conn: sqlite3.Connection, end: str, eid: str) -> bool:
    """Whether ``eid`` is the ``end`` of many facts (a look at a few index entries)."""
    found = conn.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM triples WHERE {end} = ? LIMIT ?)",
        (eid, _MANY_FACTS),
    )
    return found.fetchone()[0] >= _MANY_FACTS
