"""Drawers read straight from a palace's SQLite file, in one snapshot, as MemPalace stores them.

- **chroma** (``chroma.sqlite3``): the collection's METADATA segment holds one ``embeddings``
  row per drawer (``embedding_id`` is the drawer id); ``embedding_metadata`` holds its
  document (key ``chroma:document``) and metadata, one value column per type. A write lands in
  ``embeddings_queue`` first and in the segment once the segment has consumed it
  (``max_seq_id``): a drawer still queued is "being written". As MemPalace's
  ``chroma.sqlite_drawer_rows`` reads it.
- **sqlite_exact** (``sqlite_exact.sqlite3``): ``documents(collection_id, id, document,
  metadata_json, …)``.

A drawer filed through MemPalace's MCP tool above its chunk size is split into
``<id>_chunk_NNNNNN`` rows carrying ``parent_drawer_id`` (a diary entry's,
``parent_entry_id``); the id handed out is the group's, which has no row of its own.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, cast

PARENT_KEYS = ("parent_drawer_id", "parent_entry_id")
CHUNK_MARK = "_chunk_"


@dataclass
class Drawer:
    """One row: the drawer's id, its text (None when it has none) and its metadata."""

    id: str
    text: str | None
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def parent(self) -> str | None:
        return next((self.metadata[k] for k in PARENT_KEYS if self.metadata.get(k)), None)


def in_order(chunks: list[Drawer]) -> list[Drawer]:
    """A group's chunks in MemPalace's order: by chunk_index, then id."""

    def key(drawer: Drawer) -> tuple[int, str]:
        index = drawer.metadata.get("chunk_index")
        return (index if isinstance(index, int) else 0, drawer.id)

    return sorted(chunks, key=key)


class ChromaDrawers:
    """The drawers of one collection of a chroma palace, read in the caller's snapshot."""

    def __init__(self, conn: sqlite3.Connection, collection: str):
        self._conn = conn
        row = conn.execute(
            "SELECT c.id, s.id FROM collections c JOIN segments s ON s.collection = c.id "
            "AND s.scope = 'METADATA' WHERE c.name = ?",
            (collection,),
        ).fetchall()
        self.exists = len(row) == 1
        self._collection, self._segment = row[0] if self.exists else (None, None)

    def find(self, drawer_id: str) -> list[Drawer]:
        """The drawer with this id, else the chunks of the group with this id; [] for none."""
        if not self.exists:
            return []
        rows = self._conn.execute(
            "SELECT id, embedding_id FROM embeddings WHERE segment_id = ? AND embedding_id = ?",
            (self._segment, drawer_id),
        ).fetchall()
        if not rows:
            rows = self._conn.execute(
                "SELECT DISTINCT e.id, e.embedding_id FROM embedding_metadata p "
                "CROSS JOIN embeddings e ON e.id = p.id "
                "WHERE p.key IN (?, ?) AND p.string_value = ? AND e.segment_id = ?",
                (*PARENT_KEYS, drawer_id, self._segment),
            ).fetchall()
        return in_order(self._hydrate(rows))

    def of_file(self, source_file: str) -> list[Drawer]:
        """Every drawer whose metadata names ``source_file`` (their metadata, no text)."""
        if not self.exists:
            return []
        rows = self._conn.execute(
            "SELECT e.id, e.embedding_id FROM embedding_metadata m "
            "CROSS JOIN embeddings e ON e.id = m.id "
            "WHERE m.key = 'source_file' AND m.string_value = ? AND e.segment_id = ?",
            (source_file, self._segment),
        ).fetchall()
        return self._hydrate(rows, text=False)

    def queued(self, drawer_id: str) -> bool:
        """Whether a write of this drawer (or of a chunk of it) waits in chroma's queue, not
        yet consumed by the segment the text is read from."""
        if not self.exists:
            return False
        consumed = self._conn.execute(
            "SELECT seq_id FROM max_seq_id WHERE segment_id = ?", (self._segment,)
        ).fetchone()
        consumed = consumed[0] if consumed is not None else 0
        if isinstance(consumed, bytes):  # older chroma: a big-endian 8-byte offset
            consumed = int.from_bytes(consumed, "big") if len(consumed) == 8 else 0
        suffix = f"/{self._collection}"
        prefix = drawer_id + CHUNK_MARK
        return (
            self._conn.execute(
                "SELECT 1 FROM embeddings_queue WHERE seq_id > ? "
                "AND substr(topic, -length(?)) = ? AND (id = ? OR substr(id, 1, ?) = ?) LIMIT 1",
                (consumed, suffix, suffix, drawer_id, len(prefix), prefix),
            ).fetchone()
            is not None
        )

    def _hydrate(self, rows: list[tuple[Any, ...]], text: bool = True) -> list[Drawer]:
        drawers: dict[Any, Drawer] = {row_id: Drawer(drawer_id, None) for row_id, drawer_id in rows}
        ids = list(drawers)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            skip = "" if text else " AND key != 'chroma:document'"
            for row_id, key, *values in self._conn.execute(
                "SELECT id, key, string_value, int_value, float_value, bool_value "
                f"FROM embedding_metadata WHERE id IN ({','.join('?' * len(part))}){skip}",
                part,
            ):
                value = _cell(*values)
                if key == "chroma:document":
                    # Text, but a hand-edited file may hold it in another column.
                    drawers[row_id].text = None if value is None else str(value)
                elif key is not None and not key.startswith("chroma:") and value is not None:
                    drawers[row_id].metadata[key] = value
        return list(drawers.values())


def _cell(string: object, integer: object, real: object, boolean: object) -> object:
    """The stored value, as chroma's get returns it (the first column that holds one)."""
    for value in (string, integer, real):
        if value is not None:
            return value
    return bool(boolean) if boolean is not None else None


class ExactDrawers:
    """The drawers of one collection of a sqlite_exact palace, read in the caller's snapshot."""

    def __init__(self, conn: sqlite3.Connection, collection: str):
        self._conn = conn
        row = conn.execute("SELECT id FROM collections WHERE name = ?", (collection,)).fetchone()
        self.exists = row is not None
        self._collection = row[0] if row is not None else None

    def find(self, drawer_id: str) -> list[Drawer]:
        """As :meth:`ChromaDrawers.find`. A group's chunks are found by their ids
        (``<id>_chunk_…``, a range of the primary key) and kept when they name the group."""
        if not self.exists:
            return []
        rows = self._conn.execute(
            "SELECT id, document, metadata_json FROM documents WHERE collection_id = ? AND id = ?",
            (self._collection, drawer_id),
        ).fetchall()
        if rows:
            return [_exact(row) for row in rows]
        prefix = drawer_id + CHUNK_MARK
        after = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        rows = self._conn.execute(
            "SELECT id, document, metadata_json FROM documents "
            "WHERE collection_id = ? AND id >= ? AND id < ?",
            (self._collection, prefix, after),
        ).fetchall()
        return in_order([d for d in map(_exact, rows) if d.parent == drawer_id])

    def of_file(self, source_file: str) -> list[Drawer]:
        if not self.exists:
            return []
        # Written as MemPalace's index on the source file is, so that SQLite uses it.
        rows = self._conn.execute(
            "SELECT id, NULL, metadata_json FROM documents WHERE collection_id = ? "
            "AND json_extract(metadata_json, '$.source_file') = ?",
            (self._collection, source_file),
        ).fetchall()
        return [_exact(row) for row in rows]

    def queued(self, drawer_id: str) -> bool:
        return False  # one write, one transaction: a drawer is there or not


def _exact(row: tuple[Any, ...]) -> Drawer:
    drawer_id, text, metadata = row
    try:
        loaded: object = json.loads(metadata) if metadata else {}
    except ValueError:
        loaded = {}
    # A JSON object's keys are text.
    return Drawer(
        drawer_id, text, cast("dict[str, Any]", loaded) if isinstance(loaded, dict) else {}
    )
