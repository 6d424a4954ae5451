"""The one long-lived SQLite connection: transactions, recording for undo, and errors.

SQLite's errors are split here, once: what the environment causes (locked, read-only, disk
full, gone, damaged) becomes :class:`Unavailable`; anything else (a wrong column, a bad
statement) is a bug and propagates as it is. Every write is one ``BEGIN IMMEDIATE``
transaction; writes inside it join it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from factlines.core.errors import ReadOnlyGraph, Refused, Unavailable
from factlines.core.store.changes import Change, RowImage, Touched
from factlines.core.store.protocol import WRITE_WAIT
from factlines.core.store.sqlite.access import Snapshot, access_for
from factlines.core.store.sqlite.errors import unavailable
from factlines.core.store.sqlite.schema import open_connection

_KEY_COLUMN = {"entities": "id", "triples": "id", "fl_meta": "key"}
_ROW_LABEL = {"entities": "the entity", "triples": "the fact", "fl_meta": "the setting"}
# Facts first: whether an entity the step would remove is still referred to depends on them.
_REPLAY_ORDER = {"triples": 0, "entities": 1, "fl_meta": 2}


class Connection:
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
    ):
        self.path = path
        self.lock = threading.RLock()
        self.write_wait = write_wait
        self._busy_ms: int | None = None
        self._depth = 0
        self._recorders: list[Change] = []
        self._touched = Touched()
        self.listeners: list[Callable[[Touched], None]] = []
        self._initialize_empty = initialize_empty
        # Counts the connections opened on this graph: a new one restarts data_version.
        self.epoch = 0
        self._closed = False
        self._snapshot: Snapshot | None = None
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
        return open_connection(
            self.path,
            read_only=self.access.read_only,
            initialize_empty=self._initialize_empty,
            source=self._snapshot.path if self._snapshot is not None else None,
        )

    def close(self) -> None:
        with self.lock:
            self._closed = True
            if self._conn is not None:
                self._conn.close()
                self._conn = None
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
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection for a read, under the lock; environment errors become Unavailable."""
        with self.lock:
            conn = self.raw()
            try:
                yield conn
            except sqlite3.Error as exc:
                raise unavailable(self.path, exc, "read") or exc from None

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Several reads in one read transaction (inside a write, the write's own)."""
        with self.read() as conn:
            if conn.in_transaction:
                yield conn
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    def data_version(self) -> int:
        with self.read() as conn:
            return conn.execute("PRAGMA data_version").fetchone()[0]

    # ── Writing ───────────────────────────────────────────────────────────

    def _wait(self, conn: sqlite3.Connection, seconds: float) -> None:
        """Let SQLite wait up to ``seconds`` for another program's lock (cheap when unchanged)."""
        ms = max(0, round(seconds * 1000))
        if ms != self._busy_ms and conn is self._conn:
            conn.execute(f"PRAGMA busy_timeout = {ms}")
            self._busy_ms = ms

    @contextmanager
    def transaction(self, wait: float | None = None) -> Iterator[sqlite3.Connection]:
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
                for change in self._recorders:
                    self._fill_after_images(conn, change)
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                self._forget_uncommitted()
                self._touched = Touched()
                if isinstance(exc, sqlite3.Error):
                    raise unavailable(self.path, exc, "written") or exc from None
                raise
            finally:
                self._depth = 0
                self._wait(conn, self.write_wait)
            touched, self._touched = self._touched, Touched()
        if touched:
            for listener in list(self.listeners):
                listener(touched)

    @property
    def writing(self) -> bool:
        """Whether a write transaction of this connection is open."""
        return self._depth > 0

    def note_unknown_write(self) -> None:
        """Rows were written past the store (raw SQL): tell listeners that anything may have
        changed, at the end of the write it joined or now."""
        if self._depth:
            self._touched.everything = True
            return
        for listener in list(self.listeners):
            listener(Touched.all_rows())

    def touch(self, conn: sqlite3.Connection, table: str, row_id: str) -> None:
        """Note a row about to be written: its id for the listeners, its image for recordings."""
        self._touched.add(table, row_id)
        image = None
        for change in self._recorders:
            if (table, row_id) not in change.rows:
                if image is None:
                    image = [self._row_image(conn, table, row_id)]
                change.rows[(table, row_id)] = [image[0], None, True]

    @contextmanager
    def recording(self) -> Iterator[Change]:
        """Record the row images of every write inside the block, for :meth:`replay`."""
        change = Change()
        with self.lock:
            self._recorders.append(change)
            try:
                yield change
            finally:
                self._recorders.remove(change)

    def _forget_uncommitted(self) -> None:
        for change in self._recorders:
            for key in [k for k, v in change.rows.items() if len(v) == 3]:
                del change.rows[key]

    def _fill_after_images(self, conn: sqlite3.Connection, change: Change) -> None:
        for (table, row_id), images in change.rows.items():
            if len(images) == 3:
                change.rows[(table, row_id)] = [images[0], self._row_image(conn, table, row_id)]

    @staticmethod
    def _row_image(conn: sqlite3.Connection, table: str, row_id: str) -> RowImage | None:
        cursor = conn.execute(
            f"SELECT rowid, * FROM {table} WHERE {_KEY_COLUMN[table]} = ?", (row_id,)
        )
        row = cursor.fetchone()
        if row is None:
            return None
        names = [d[0] for d in cursor.description[1:]]
        return RowImage(dict(zip(names, row[1:])), position=row[0])

    def replay(self, change: Change, to_before: bool, conflict: type[Refused]) -> None:
        """Put back the rows' images from before (undo) or after (redo) the change, in one write.

        Another program may have written the file since (MemPalace keeps writing it), so:

        - a row already as wanted is left alone;
        - a fact or setting no longer as the change left it refuses the whole step
          (``conflict``): writing over it would throw away what the other program wrote;
        - an entity the step would remove, but which a fact outside the step now refers to (or
          which someone else rewrote), is kept and the rest of the step is carried out. The
          person undoing "Ann mentors Zoe" wants that fact gone; the entity ``zoe`` was only
          made on the way, and since MemPalace added "Zoe works_on Nova" it is MemPalace's too:
          deleting it would hide MemPalace's fact from MemPalace's own queries (they join on
          entities), while refusing would leave the person no way to take back their fact.
          Keeping an entity harms nobody: MemPalace itself never deletes one. Likewise an entity
          the step would create that exists again is taken as it is, not overwritten;
        - a fact the step would open while another writer has meanwhile opened the identical
          fact refuses the whole step: two identical open facts are what MemPalace itself never
          writes.

        Any failure (a refusal, a lock, a full disk) rolls the whole write back; ``change`` is
        never modified, so the same step can be replayed later.
        """
        rows = sorted(change.rows.items(), key=lambda item: _REPLAY_ORDER[item[0][0]])
        with self.transaction() as conn:
            opened: list[tuple[str, dict]] = []
            for (table, row_id), (before, after) in rows:
                expected, wanted = (after, before) if to_before else (before, after)
                current = self._row_image(conn, table, row_id)
                if current == wanted or self._keeps_entity(
                    conn, table, row_id, current, expected, wanted
                ):
                    continue
                if current != expected:
                    raise conflict(self._changed_since(conn, table, row_id, current or expected))
                self.touch(conn, table, row_id)
                self._put_row(conn, table, row_id, wanted)
                if table == "triples" and _opens(current, wanted):
                    opened.append((row_id, wanted.values))
            ours = {row_id for (table, row_id) in change.rows if table == "triples"}
            for row_id, values in opened:
                self._refuse_a_twin(conn, row_id, values, ours, conflict, to_before)

    @staticmethod
    def _keeps_entity(conn, table: str, row_id: str, current, expected, wanted) -> bool:
        """Whether an entity row stays as it is although the step would remove or create it:
        removed, when a fact still refers to it or someone else rewrote it; created, when it
        exists again."""
        if table != "entities" or current is None:
            return False
        if wanted is not None:
            return expected is None
        if current != expected:
            return True
        used = conn.execute(
            "SELECT 1 FROM triples WHERE subject = ?1 UNION ALL "
            "SELECT 1 FROM triples WHERE object = ?1 LIMIT 1",
            (row_id,),
        ).fetchone()
        return used is not None

    def _refuse_a_twin(self, conn, row_id, values, ours, conflict, to_before) -> None:
        # ``+predicate``: by the subject's index; a predicate's index holds a share of the graph
        # (undoing a rename of 10k facts took half a minute through it).
        twins = conn.execute(
            "SELECT id FROM triples WHERE subject = ? AND +predicate = ? AND object = ? "
            "AND valid_to IS NULL AND id != ?",
            (values["subject"], values["predicate"], values["object"], row_id),
        ).fetchall()
        if any(twin not in ours for (twin,) in twins):
            verb = "undoing" if to_before else "redoing"
            raise conflict(
                f"“{_in_words(conn, values)}” is already an open fact again (another program "
                f"added it since); {verb} this step would make it twice, so nothing was changed"
            )

    @staticmethod
    def _changed_since(conn, table: str, row_id: str, image: RowImage | None) -> str:
        if table == "triples" and image is not None:
            what = f"the fact “{_in_words(conn, image.values)}”"
        elif table == "entities" and image is not None:
            what = f"the entity “{image.values.get('name') or row_id}”"
        else:
            what = f"{_ROW_LABEL[table]} {row_id!r}"
        return (
            f"{what} was changed by another program since this step; nothing was changed, so "
            "as not to overwrite their edit (reload to see the file as it is)"
        )

    @staticmethod
    def _put_row(conn: sqlite3.Connection, table: str, row_id: str, image: RowImage | None):
        conn.execute(f"DELETE FROM {table} WHERE {_KEY_COLUMN[table]} = ?", (row_id,))
        if image is None:
            return
        columns, values = list(image.values), list(image.values.values())
        # Back at its old rowid when that is free, so rowid order (MemPalace pages its
        # replication by it) is as it was.
        taken = conn.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (image.position,))
        if image.position is not None and taken.fetchone() is None:
            columns, values = ["rowid", *columns], [image.position, *values]
        conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            values,
        )


def _opens(current: RowImage | None, wanted: RowImage | None) -> bool:
    """Whether writing ``wanted`` over ``current`` opens a fact (subject, predicate, object)
    that was not open as this row before."""
    if wanted is None or wanted.values.get("valid_to") is not None:
        return False
    if current is None or current.values.get("valid_to") is not None:
        return True
    keys = ("subject", "predicate", "object")
    return any(current.values.get(k) != wanted.values.get(k) for k in keys)


def _in_words(conn: sqlite3.Connection, values: dict) -> str:
    """A fact row as a person reads it: its entities' names and the predicate."""

    def name(eid):
        row = conn.execute("SELECT name FROM entities WHERE id = ?", (eid,)).fetchone()
        return row[0] if row and row[0] else eid

    return f"{name(values.get('subject'))} {values.get('predicate')} {name(values.get('object'))}"
