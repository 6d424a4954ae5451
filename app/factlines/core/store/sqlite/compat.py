"""The connection MemPalace's own code reaches for: ``kg._conn()`` and ``kg._connection``.

MemPalace's ``KnowledgeGraph`` hands out its sqlite3 connection, and its code reads rows from it
by column name (``kg normalize`` selects its facts through ``kg._conn()``). This is the store's
one connection seen that way:

- rows come back as :class:`sqlite3.Row` (by name and by position), for this view only;
- a statement runs under the store's lock, so it never lands inside another thread's write;
  inside :meth:`Connection.transaction` it joins that write. Its rows are read whole before
  the lock is let go (:class:`Rows`): a half-read statement would hold a read open on the
  connection, and another thread's write on it would then fail at once as "locked" instead
  of waiting;
- ``with conn:`` is one write of the store (all or nothing), waiting for a lock as MemPalace
  does; ``commit()`` inside the store's write is left to that write;
- rows it changes are not known one by one, so listeners hear "everything changed";
- ``close()`` closes the graph, as closing MemPalace's connection ends its graph; once the graph
  is closed, using this raises :class:`sqlite3.ProgrammingError`, as MemPalace's does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any

from factlines.core.store.protocol import MEMPALACE_WAIT
from factlines.core.store.sqlite.connection import Connection


class MemPalaceConnection:
    def __init__(self, db: Connection, close: Callable[[], None]):
        self._db = db
        self._raw = db.raw()
        self._close = close
        self._writes: list[AbstractContextManager[sqlite3.Connection]] = []

    def cursor(self) -> sqlite3.Cursor:
        """A cursor of the connection itself, reading rows by name: hold ``kg._lock`` while
        using it from more than one thread."""
        cursor = self._raw.cursor()
        cursor.row_factory = sqlite3.Row
        return cursor

    def execute(self, sql: str, parameters: Any = ()) -> Rows:
        return self._run(lambda cursor: cursor.execute(sql, parameters))

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any]) -> Rows:
        return self._run(lambda cursor: cursor.executemany(sql, seq_of_parameters))

    def executescript(self, script: str) -> Rows:
        if self._db.writing:
            # sqlite3 commits before a script: it would cut the store's write in two.
            raise sqlite3.ProgrammingError("executescript inside the store's write")
        return self._run(lambda cursor: cursor.executescript(script))

    def _run(self, call: Callable[[sqlite3.Cursor], object]) -> Rows:
        with self._db.lock:
            cursor = self.cursor()
            changes = self._raw.total_changes
            try:
                call(cursor)
                return Rows(cursor)
            finally:
                cursor.close()
                if self._raw.total_changes != changes:
                    self._db.note_unknown_write()

    def commit(self) -> None:
        if not self._db.writing:
            self._raw.commit()

    def rollback(self) -> None:
        if self._db.writing:
            raise sqlite3.ProgrammingError(
                "cannot roll back part of the store's write; raise to abandon all of it"
            )
        self._raw.rollback()

    def close(self) -> None:
        self._close()

    def __enter__(self) -> MemPalaceConnection:
        write = self._db.transaction(MEMPALACE_WAIT)
        write.__enter__()
        self._writes.append(write)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        return bool(self._writes.pop().__exit__(exc_type, exc, tb))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class Rows:
    """A statement's result, read whole: the part of :class:`sqlite3.Cursor` that reads it."""

    def __init__(self, cursor: sqlite3.Cursor):
        self.description = cursor.description
        self.lastrowid = cursor.lastrowid
        self.rowcount = cursor.rowcount
        self.arraysize = 1
        self._rows: list[Any] = cursor.fetchall() if cursor.description else []
        self._next = 0

    def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchmany(self, size: int | None = None) -> list[Any]:
        end = self._next + (self.arraysize if size is None else size)
        rows, self._next = self._rows[self._next : end], min(end, len(self._rows))
        return rows

    def fetchall(self) -> list[Any]:
        rows, self._next = self._rows[self._next :], len(self._rows)
        return rows

    def __iter__(self) -> Rows:
        return self

    def __next__(self) -> Any:

        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def close(self) -> None:
        self._rows, self._next = [], 0
