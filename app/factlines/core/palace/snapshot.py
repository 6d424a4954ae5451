"""One short read of a palace's SQLite file that leaves the palace exactly as it was.

MemPalace's own ways in are not read-only: chromadb's client inserts a row when it opens, its
``get_collection(read_only=True)`` writes marker files, and a plain ``mode=ro`` connection to a
WAL file with no side files creates ``-wal`` and ``-shm``. So:

- a file in rollback-journal mode (chroma) or in WAL mode with its side files present is read
  through ``mode=ro``: SQLite's shared lock for the one read, nothing created;
- a WAL file (sqlite_exact) with no side files is read ``mode=ro&immutable=1``, which
  creates nothing and takes no lock: no other program has it open then (the last one to close
  removes the side files). Should a writer open it during the read, its side files appear and
  the read is made again through ``mode=ro``.

Every read opens, reads in one transaction and closes: no lock is held between reads. The
busy wait is short: a person is waiting, and MemPalace's write ends soon ("being written").
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
# How long a read waits for a writer's lock: MemPalace's writes of a drawer take milliseconds.
BUSY_MS = 100
_WAL_HEADER_BYTE = 18  # the file format's write version: 2 in WAL mode


class Busy(Exception):
    """A writer held the file for longer than a short read waits."""


def read(path: str, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work(conn)`` inside one read transaction of the SQLite file at ``path``, touching
    nothing. Raises :class:`Busy` when a writer held it too long, ``sqlite3.Error`` or
    ``OSError`` when it cannot be read."""
    for _attempt in range(2):
        untouched = _wal_without_side_files(path)
        result = _read_once(path, untouched, work)
        if not untouched or not os.path.exists(path + "-wal"):
            return result
    return _read_once(path, False, work)


def _read_once(path: str, immutable: bool, work: Callable[[sqlite3.Connection], T]) -> T:
    mode = "mode=ro&immutable=1" if immutable else "mode=ro"
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?{mode}"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000, isolation_level=None)
    try:
        conn.execute("BEGIN")
        try:
            return work(conn)
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        # Locked, or a hot journal only a writer may roll back: MemPalace is writing.
        if "locked" in str(exc) or "busy" in str(exc) or os.path.exists(path + "-journal"):
            raise Busy(str(exc)) from exc
        raise
    finally:
        conn.close()


def _wal_without_side_files(path: str) -> bool:
    if os.path.exists(path + "-wal") or os.path.exists(path + "-shm"):
        return False
    with open(path, "rb") as file:
        header = file.read(_WAL_HEADER_BYTE + 1)
    return len(header) > _WAL_HEADER_BYTE and header[_WAL_HEADER_BYTE] == 2
