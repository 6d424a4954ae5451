"""Figures over the whole file, kept until the file changes.

Without indexes of our own over the facts, a few answers read every fact (the ends of the time
span, the open/ended counts per entity). They are computed once and kept under the
connection's version of the file (:meth:`Connection.version`), which changes whenever the file
may have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factlines.core.store.sqlite.connection import Connection


class Kept:
    def __init__(self, db: Connection):
        self._db = db
        self._values: dict[str, tuple[tuple[int, int, int], Any]] = {}

    def fresh(self, name: str) -> tuple[Any, tuple[int, int, int]] | None:
        """(value, key) when ``name`` is kept and the file has not changed since; else None."""
        kept = self._values.get(name)
        if kept is None:
            return None
        with self._db.read() as conn:
            if conn.in_transaction or self._db.version(conn) != kept[0]:
                return None
        return kept[1], kept[0]

    def get(self, name: str, compute: Callable[[Any], Any]) -> Any:
        """``compute(conn)`` in one read snapshot, or the value kept since the file last changed.

        The key is read before the snapshot starts, so a value is never older than its key.
        Inside a write of ours nothing is kept: it may yet be rolled back.
        """
        return self.get_with_key(name, compute)[0]

    def get_with_key(
        self, name: str, compute: Callable[[Any], Any]
    ) -> tuple[Any, tuple[int, int, int] | None]:
        """:meth:`get`, and the key the value was kept under (None when it was not kept)."""
        with self._db.read() as conn:
            if conn.in_transaction:
                return compute(conn), None
            key = self._db.version(conn)
            kept = self._values.get(name)
            if kept is not None and kept[0] == key:
                return kept[1], key
        with self._db.snapshot() as conn:
            value = compute(conn)
        self._values[name] = (key, value)
        return value, key

    def clear(self) -> None:
        """Nothing kept any more (the store closes)."""
        self._values.clear()
