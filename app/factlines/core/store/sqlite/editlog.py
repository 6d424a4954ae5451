"""Factlines' own edit log in SQLite: ``fl_edit_log``, a table MemPalace never reads.

One row per edit made through Factlines, written in the edit's own transaction: when (a UTC
instant), what (the words of the undo step), why (optional), the tool, the ids of the facts and
entities it wrote, and the rows' images before and after, as JSON. The table is created by the
first logged edit, so a file never edited in Factlines (or open read-only) never has one.

It stays small (contract §1.5): an edit of many rows keeps the images of its first
:data:`MAX_IMAGES` rows and the ids of its first :data:`MAX_IDS` (with the count of the rest),
and the oldest entries are dropped once the log holds more than :data:`SHARE` of the file's
size in bytes (the newest entry always stays, shortened to its words when it alone is larger):
with SQLite's page overhead the file stays within the 15 % rule, and a graph of 100k facts
keeps a few thousand edits, one of 500 facts a dozen.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any, Protocol

from factlines.core.store.changes import Change, RowImage
from factlines.core.store.engine_connection import EngineConnection, SQLConnection

TABLE = "fl_edit_log"
MAX_IMAGES = 200
MAX_IDS = 1000
SHARE = 0.08
_LOGGED_TABLES = ("triples", "entities", "fl_meta")

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} ("
    "id INTEGER PRIMARY KEY, at TEXT NOT NULL, what TEXT NOT NULL, reason TEXT, "
    "tool TEXT NOT NULL DEFAULT 'factlines', facts TEXT NOT NULL, entities TEXT NOT NULL, "
    "rows_total INTEGER NOT NULL, before TEXT NOT NULL, after TEXT NOT NULL)"
)
# The bytes of an entry's text (its share of the file, near enough): length() of a text counts
# its characters, of a blob its bytes (UTF-8, as stored).
_LENGTH = " + ".join(
    f"COALESCE(length(CAST({column} AS BLOB)), 0)"
    for column in ("what", "facts", "entities", "before", "after", "reason")
)
LOGGED_COLUMNS = (
    "at",
    "what",
    "reason",
    "tool",
    "facts",
    "entities",
    "rows_total",
    "before",
    "after",
)
_SELECT = (
    f"SELECT id, at, what, reason, tool, facts, entities, rows_total, before, after FROM {TABLE}"
)


def json_value(value: object) -> dict[str, str]:
    """A stored value that JSON cannot hold as it is (a blob), as a tagged object."""
    if isinstance(value, bytes):
        return {"$blob": base64.b64encode(value).decode("ascii")}
    raise TypeError(f"cannot log a {type(value).__name__}")


def dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=json_value)


# A row as it is now, by table and id (None: no such row).
RowImageOf = Callable[[str, str], RowImage | None]


class LoggedConnection(EngineConnection, Protocol):
    """An engine's connection as its log uses it: it also reads a row as it is now."""

    def row_image(self, conn: Any, table: str, row_id: str) -> RowImage | None: ...


class EditLogWrites:
    """Writing the log, whatever the engine: ``CREATE`` and ``INSERT`` (of
    :data:`LOGGED_COLUMNS`) are its SQL, ``LENGTH`` an entry's bytes, and
    ``_size_and_budget(conn)`` the log's bytes and the most it may hold."""

    CREATE: str
    INSERT: str
    LENGTH: str

    def __init__(self, db: LoggedConnection):
        self._db = db

    def _size_and_budget(self, conn: SQLConnection) -> tuple[int, int]:
        raise NotImplementedError

    def write(self, entry: dict[str, Any], change: Change) -> bool:
        """Log the rows ``change`` recorded in the open write (their images before, and as they
        are now), with ``entry``'s at, what, reason and tool. False (nothing logged) when the
        rows are as they were."""
        with self._db.transaction() as conn:
            # The rows as the connection's recordings read them.
            row_image = self._db.row_image
            values = logged_values(entry, change, lambda t, i: row_image(conn, t, i))
            if values is None:
                return False
            conn.execute(self.CREATE)
            conn.execute(self.INSERT, within(values, self._size_and_budget(conn)[1]))
            self._prune(conn)
        return True

    def committed(self, entry: dict[str, Any], change: Change) -> dict[str, Any] | None:
        """The entry :meth:`write` would log for ``change`` once all its writes are committed
        (each row as its write left it), in ``read``'s form, for :meth:`append`: made without
        the write lock (a long write's log holds many rows). None when nothing changed."""
        return logged_entry(entry, change, None)

    def append(self, entries: list[dict[str, Any]]) -> None:
        """Add another log's entries (``read``'s form, oldest first) after this one's, as they
        were written there; then keep the log within its share of the graph."""
        if not entries:
            return
        with self._db.transaction() as conn:
            conn.execute(self.CREATE)
            for entry in entries:
                conn.execute(self.INSERT, stored_values(entry))
            self._prune(conn)

    def _prune(self, conn: SQLConnection) -> None:
        """Drop the oldest entries while the log holds more than its share of the graph."""
        size, budget = self._size_and_budget(conn)
        if size <= budget:
            return
        # The newest first, until the budget is spent; the newest entry always stays.
        kept, running = None, 0
        lengths = conn.execute(f"SELECT id, {self.LENGTH} FROM {TABLE} ORDER BY id DESC")
        for entry_id, length in lengths.fetchall():
            running += length
            if running > budget and kept is not None:
                break
            kept = entry_id
        conn.execute(f"DELETE FROM {TABLE} WHERE id < {self._db.MARK}", (kept,))


class SQLiteEditLog(EditLogWrites):
    CREATE = _CREATE
    INSERT = (
        f"INSERT INTO {TABLE} ({', '.join(LOGGED_COLUMNS)}) "
        f"VALUES ({', '.join('?' * len(LOGGED_COLUMNS))})"
    )
    LENGTH = _LENGTH

    def _exists(self, conn: SQLConnection) -> bool:
        return (
            conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
            ).fetchone()
            is not None
        )

    def _size_and_budget(self, conn: SQLConnection) -> tuple[int, int]:
        pages, page_size = (
            conn.execute("PRAGMA page_count").fetchone()[0],
            conn.execute("PRAGMA page_size").fetchone()[0],
        )
        size = conn.execute(f"SELECT COALESCE(SUM({_LENGTH}), 0) FROM {TABLE}").fetchone()[0]
        # A share of the rest of the file: the log's own pages must not raise its budget.
        return size, int(SHARE * max(0, pages * page_size - size))

    def read(self, fact_id: str | None, limit: int, offset: int) -> list[dict[str, Any]]:
        """Entries newest first (of one fact's when ``fact_id`` is given); none when the file
        has no log."""
        with self._db.read() as conn:
            if not self._exists(conn):
                return []
            if fact_id is None:
                rows = conn.execute(
                    f"{_SELECT} ORDER BY id DESC LIMIT ? OFFSET ?", (limit, offset)
                ).fetchall()
            else:
                rows = conn.execute(
                    f"{_SELECT} WHERE instr(facts, ?) ORDER BY id DESC LIMIT ? OFFSET ?",
                    (dumps(fact_id), limit, offset),
                ).fetchall()
        return [entry_dict(row) for row in rows]


def logged_values(
    entry: dict[str, Any], change: Change, row_image: RowImageOf
) -> tuple[Any, ...] | None:
    """The values of :data:`LOGGED_COLUMNS` for ``entry`` and the rows ``change`` recorded,
    ``row_image(table, id)`` reading each as it is now; None when they are as they were."""
    logged = logged_entry(entry, change, row_image)
    return None if logged is None else stored_values(logged)


def logged_entry(
    entry: dict[str, Any], change: Change, row_image: RowImageOf | None
) -> dict[str, Any] | None:
    """``entry`` with the rows ``change`` recorded, in ``read``'s form (no id), ``row_image``
    giving each row the open write is writing as it is now (None: the change is committed);
    None when they are as they were. Only what is kept is held: a long write's rows are
    read from its file once, and the last write of a big undo makes this entry while it holds
    the write lock (a list of 165,000 rows took 0.7 s there, mostly the collector's)."""
    total = 0
    kept: list[tuple[str, str, RowImage | None, RowImage | None]] = []
    ids: dict[str, list[str]] = {"triples": [], "entities": [], "fl_meta": []}
    for (table, row_id), (before, after) in change.items():
        if table not in _LOGGED_TABLES:
            continue
        # A row an earlier transaction of the change wrote is as that one left it.
        if row_image is not None and (table, row_id) in change.pending:
            after = row_image(table, row_id)
        if before == after:
            continue
        total += 1
        if len(kept) < MAX_IMAGES:
            kept.append((table, row_id, before, after))
        if len(ids[table]) < MAX_IDS:
            ids[table].append(row_id)
    if not total:
        return None
    return {
        **entry,
        "facts": ids["triples"],
        "entities": ids["entities"],
        "rows_total": total,
        "before": [logged_image(table, row_id, image) for table, row_id, image, _ in kept],
        "after": [logged_image(table, row_id, image) for table, row_id, _, image in kept],
    }


def within(values: tuple[Any, ...], budget: int) -> tuple[Any, ...]:
    """An entry (:data:`LOGGED_COLUMNS`' values) no larger than ``budget`` bytes where it can be:
    the rows' images left out first, then the ids; what, when, who, why and how many rows are
    always kept."""
    at, what, reason, tool, facts, entities, total, before, after = values
    if _bytes(what, reason, facts, entities, before, after) <= budget:
        return values
    if _bytes(what, reason, facts, entities) <= budget:
        return (at, what, reason, tool, facts, entities, total, "[]", "[]")
    return (at, what, reason, tool, "[]", "[]", total, "[]", "[]")


def _bytes(*texts: str | None) -> int:
    return sum(len(text.encode("utf-8", "surrogatepass")) for text in texts if text)


def stored_values(entry: dict[str, Any]) -> tuple[Any, ...]:
    """An entry in ``read``'s form (its id left out) as the values of :data:`LOGGED_COLUMNS`."""
    return (
        entry["at"],
        entry["what"],
        entry.get("reason"),
        entry.get("tool") or "factlines",
        dumps(entry.get("facts") or []),
        dumps(entry.get("entities") or []),
        entry.get("rows_total") or 0,
        dumps(entry.get("before") or []),
        dumps(entry.get("after") or []),
    )


def logged_image(table: str, row_id: str, image: RowImage | None) -> dict[str, Any]:
    return {"table": table, "id": row_id, "row": None if image is None else image.values}


def entry_dict(row: tuple[Any, ...]) -> dict[str, Any]:

    entry_id, at, what, reason, tool, facts, entities, total, before, after = row
    return {
        "id": entry_id,
        "at": at,
        "what": what,
        "reason": reason,
        "tool": tool,
        "facts": json.loads(facts),
        "entities": json.loads(entities),
        "rows_total": total,
        "before": json.loads(before),
        "after": json.loads(after),
    }
