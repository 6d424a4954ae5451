"""Factlines' own indexes on MemPalace's tables: a small default set, and opt-in speed indexes.

``CREATE INDEX`` holds the database's write lock for the whole build, and a MemPalace writer
waits meanwhile. Measured on a MemPalace file of 1M facts / 100k entities (319 MB, 2 shared
cores): the entity name index takes 130 to 450 ms and adds 4 MB; any index over the facts
takes 0.4 to 3 s and adds 11 to 110 MB. So:

- the default set is the name index (deep pages of the entity list, every name for
  completion) and the index of the facts' ends (``fl_triples_to``: the time span and the
  counts of ended facts read off it, ~5 % of the file), each built only while its table is
  small enough for the build to stay well under 200 ms (``DEFAULT_BUILD_ROWS``); SQLite keeps
  it as the graph grows. Past that size it is offered as a speed index;
- without them, the span of time, the counts and the entities ranked by counts are read off
  MemPalace's own indexes (one pass over its ``(valid_from, valid_to)`` index at 1M facts:
  ~0.2-0.3 s) and kept until the file changes (``facts.py``, ``entities.py``, ``kept.py``);
- the covering indexes over the facts are speed indexes: built only when the person asks,
  after being told their cost.

Every build or removal runs on its own connection, one index per transaction, so it can run on
a worker thread while the app reads on its own connection; between two, it pauses for a
MemPalace write waiting meanwhile to go in (:mod:`factlines.core.store.giving_way`): MemPalace
waits for one build at most, not for all of them.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable

from factlines.core.store.giving_way import PAUSE_S
from factlines.core.store.sqlite.schema import (
    BUSY_TIMEOUT_MS,
    DEFAULT_INDEXES,
    SPEED_INDEXES,
    create_statement,
)

Progress = Callable[[int, int, str], None]


def present(conn: sqlite3.Connection) -> set[str]:
    """The names of the indexes the file has."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


# A default index is built only over at most this many rows: about 2 µs a row when measured
# on shared cores, so ~100 ms with the write lock held.
DEFAULT_BUILD_ROWS = 50_000


def _quick_to_build(conn: sqlite3.Connection, name: str) -> bool:
    table = DEFAULT_INDEXES[name][0]
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] <= DEFAULT_BUILD_ROWS


def missing_defaults(conn: sqlite3.Connection) -> list[str]:
    """The default indexes the file lacks and that build quickly enough to be built unasked."""
    have = present(conn)
    return [n for n in DEFAULT_INDEXES if n not in have and _quick_to_build(conn, n)]


def speed(conn: sqlite3.Connection) -> list[str]:
    """The speed indexes of this file: the covering ones over the facts, and a default index
    too slow to build unasked (the table outgrew ``DEFAULT_BUILD_ROWS``)."""
    return [n for n in DEFAULT_INDEXES if not _quick_to_build(conn, n)] + list(SPEED_INDEXES)


def missing_speed(conn: sqlite3.Connection) -> list[str]:
    have = present(conn)
    return [name for name in speed(conn) if name not in have]


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _one_by_one(
    path: str, names: list[str], statement: Callable[[str], str], progress: Progress | None
) -> list[str]:
    """Run ``statement(name)`` for each name in its own short write transaction."""
    done: list[str] = []
    conn = _connect(path)
    try:
        for number, name in enumerate(names):
            if progress is not None:
                progress(number, len(names), name)
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(statement(name))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            done.append(name)
            if number + 1 < len(names):
                time.sleep(PAUSE_S)  # a MemPalace write waiting meanwhile goes in between
        if progress is not None and names:
            progress(len(names), len(names), "")
    finally:
        conn.close()
    return done


def build(path: str, names: list[str], progress: Progress | None = None) -> list[str]:
    """Create the indexes ``names`` (known ones only) in the file at ``path``, each in its own
    transaction on a connection of its own. ``progress(done, total, name)`` is called before
    each and once at the end. Returns the names built."""
    unknown = [n for n in names if n not in DEFAULT_INDEXES and n not in SPEED_INDEXES]
    if unknown:
        raise ValueError(f"not indexes of Factlines: {unknown}")
    return _one_by_one(path, names, create_statement, progress)


def drop(path: str, names: list[str], progress: Progress | None = None) -> list[str]:
    """Drop our indexes ``names`` (the file does not shrink: SQLite reuses the pages)."""
    unknown = [n for n in names if n not in DEFAULT_INDEXES and n not in SPEED_INDEXES]
    if unknown:
        raise ValueError(f"not indexes of Factlines: {unknown}")
    return _one_by_one(path, names, lambda name: f"DROP INDEX IF EXISTS {name}", progress)


# ── What an index would cost ──────────────────────────────────────────────

# Per entry beyond the indexed values: the rowid, the record header, the cell pointer and size.
_ENTRY_OVERHEAD = 9
# B-tree pages built in key order are nearly full; interior pages add a little.
_PAGE_FACTOR = 1.08
_SAMPLES, _SAMPLE_ROWS = 16, 64


def _average_bytes(conn: sqlite3.Connection, table: str, columns: tuple[str, ...]) -> float:
    """The average stored size of ``columns`` over a sample of rows spread over the table."""
    low, high = conn.execute(f"SELECT MIN(rowid), MAX(rowid) FROM {table}").fetchone()
    if low is None:
        return 0.0
    width = " + ".join(f"COALESCE(length(CAST({c} AS BLOB)), 0) + 1" for c in columns)
    rng = random.Random(0)
    total = count = 0
    for _ in range(_SAMPLES):
        start = rng.randint(low, high)
        sizes = conn.execute(
            f"SELECT {width} FROM {table} WHERE rowid >= ? ORDER BY rowid LIMIT ?",
            (start, _SAMPLE_ROWS),
        ).fetchall()
        total += sum(s[0] for s in sizes)
        count += len(sizes)
    return total / count if count else 0.0


def estimated_bytes(conn: sqlite3.Connection, names: list[str]) -> int:
    """An estimate of the bytes the indexes ``names`` would add to the file."""
    catalogue = {**DEFAULT_INDEXES, **SPEED_INDEXES}
    total = 0.0
    rows: dict[str, int] = {}
    for name in names:
        table, _, columns = catalogue[name]
        if table not in rows:
            rows[table] = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        entry = _average_bytes(conn, table, columns) + _ENTRY_OVERHEAD
        total += rows[table] * entry * _PAGE_FACTOR
    return int(total)
