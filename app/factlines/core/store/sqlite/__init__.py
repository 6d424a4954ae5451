"""The SQLite engine: MemPalace's own file, read and written in place.

Everything SQLite-specific lives in this package: the SQL (the time rules' SQL included), the
schema and its upgrade, WAL and the busy timeout, rowid, ``data_version``, and the split of
SQLite's errors into refusals, unavailability and bugs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from factlines.core.errors import ConflictError
from factlines.core.store.changes import Change, Touched
from factlines.core.store.sqlite.connection import Connection
from factlines.core.store.sqlite.entities import SQLiteEntities
from factlines.core.store.sqlite.facts import SQLiteFacts
from factlines.core.store.sqlite.history import SQLiteHistory


class SQLiteStore:
    """A :class:`~factlines.core.store.protocol.GraphStore` over one SQLite file."""

    def __init__(self, path: str):
        self.location = path
        self._db = Connection(path)
        self.entities = SQLiteEntities(self._db)
        self.facts = SQLiteFacts(self._db)
        self.history = SQLiteHistory(self._db)
        self._seen_data_version = self._db.data_version()
        self._db.listeners.append(self._forget_search_index)

    # ── Lifecycle ─────────────────────────────────────────────────────────

    def close(self) -> None:
        self._db.close()

    @property
    def closed(self) -> bool:
        return self._db.closed

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for MemPalace's own code that reaches for it (``kg._conn()``)."""
        return self._db.raw()

    @property
    def lock(self):
        return self._db.lock

    # ── Writes, undo and change notes ─────────────────────────────────────

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._db.transaction():
            yield

    @contextmanager
    def recording(self) -> Iterator[Change]:
        with self._db.recording() as change:
            yield change

    def revert(self, change: Change) -> None:
        self._db.replay(change, to_before=True, conflict=ConflictError)

    def reapply(self, change: Change) -> None:
        self._db.replay(change, to_before=False, conflict=ConflictError)

    def add_listener(self, listener: Callable[[Touched], None]) -> None:
        """Call ``listener(touched)`` after every write this store commits."""
        self._db.listeners.append(listener)

    def remove_listener(self, listener: Callable[[Touched], None]) -> None:
        self._db.listeners.remove(listener)

    def _forget_search_index(self, touched: Touched) -> None:
        if touched.entities:
            self.entities.forget_index()

    def changed_externally(self) -> Touched:
        """What another connection changed since we last looked (SQLite cannot say which
        rows, so anything changed is everything); empty when nothing did. Cheap to poll."""
        version = self._db.data_version()
        changed = version != self._seen_data_version
        self._seen_data_version = version
        return Touched.all_rows() if changed else Touched()

    # ── The app's own settings of this graph ──────────────────────────────

    def get_meta(self, key: str) -> str | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT value FROM fl_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "fl_meta", key)
            if value is None:
                conn.execute("DELETE FROM fl_meta WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO fl_meta (key, value) VALUES (?, ?)", (key, value)
                )


__all__ = ["SQLiteStore"]
