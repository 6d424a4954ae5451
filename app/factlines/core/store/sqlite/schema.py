"""Opening a file: refuse what is not a knowledge graph untouched, create or upgrade what is.

MemPalace owns ``entities`` and ``triples`` and their indexes; of those we only ever add the
columns MemPalace 3.x adds itself. What is ours is prefixed ``fl_``: the ``fl_meta`` table (the
app's settings of a graph), ``fl_schema`` (our schema version) and a few indexes.
``PRAGMA user_version`` belongs to whoever else uses the file: never read as ours, never set.
Opening an existing file builds no index (see :mod:`.indexes`): a new file gets its indexes at
creation, when its tables are empty.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from factlines.core.columns import BY_NAME, NEWER_TRIPLE_COLUMNS, STORED, TRIPLE_COLUMNS
from factlines.core.errors import EmptyFile, NotAKnowledgeGraph
from factlines.core.store.rows import ENTITY_COLUMNS
from factlines.core.store.sqlite import held
from factlines.core.store.sqlite.errors import environmental

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 10_000
# Setting a file up (our tables, the newer columns MemPalace adds) waits this long for a writer
# that holds the file, then gives up as "locked, try again": never a frozen window.
SETUP_WAIT_MS = 1_500
# 1: the version in PRAGMA user_version and six covering indexes built on open.
# 2: the version in fl_schema; only the small default indexes, built apart from opening.
SCHEMA_VERSION = 2
# A page cache large enough for a 100k-fact graph's hot pages (SQLite allocates it on demand).
CACHE_KIB = 65_536

MEMPALACE_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT DEFAULT 'unknown',
    properties TEXT DEFAULT '{}',
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS triples (
"""
    + "".join(f"    {column.name} {column.sqlite},\n" for column in STORED)
    + """    FOREIGN KEY (subject) REFERENCES entities(id),
    FOREIGN KEY (object) REFERENCES entities(id)
);
CREATE INDEX IF NOT EXISTS idx_triples_subject ON triples(subject);
CREATE INDEX IF NOT EXISTS idx_triples_object ON triples(object);
CREATE INDEX IF NOT EXISTS idx_triples_predicate ON triples(predicate);
CREATE INDEX IF NOT EXISTS idx_triples_valid ON triples(valid_from, valid_to);
"""
)

FL_META = "CREATE TABLE IF NOT EXISTS fl_meta (key TEXT PRIMARY KEY, value TEXT)"
FL_SCHEMA = "CREATE TABLE IF NOT EXISTS fl_schema (version INTEGER NOT NULL)"

# Our indexes, name -> (table, indexed terms, columns read for a size estimate); see .indexes
# for why these and when they are built.
NAME_INDEX = "fl_entities_name_cover"
NAMES_BY_ID = "fl_entities_id_name"
DEFAULT_INDEXES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # The entity list in name order, and the search index loaded in that order, from the index.
    "fl_entities_name_cover": ("entities", "name COLLATE NOCASE, id, type", ("name", "id", "type")),
    # The latest and earliest ends, and how many facts ended, read off the index's ends.
    "fl_triples_to": ("triples", "valid_to", ("valid_to",)),
}
SPEED_INDEXES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # An entity's facts, open/ended counts and timeline page chosen from the index alone.
    "fl_triples_subject_cover": (
        "triples",
        "subject, valid_to, valid_from, id, object",
        ("subject", "valid_to", "valid_from", "id", "object"),
    ),
    "fl_triples_object_cover": (
        "triples",
        "object, valid_to, valid_from, id, subject",
        ("object", "valid_to", "valid_from", "id", "subject"),
    ),
    # The chronological timeline walked in order.
    "fl_triples_from_id": ("triples", "valid_from, id", ("valid_from", "id")),
    # A relationship's facts filtered by time from the index alone.
    "fl_triples_predicate_cover": (
        "triples",
        "predicate, valid_from, valid_to, subject, object, id",
        ("predicate", "valid_from", "valid_to", "subject", "object", "id"),
    ),
    # What was recorded since an instant (the review inbox): the week's rows, not every row.
    "fl_triples_recorded": ("triples", "extracted_at", ("extracted_at",)),
    # And those rows' names off this index alone: through MemPalace's index of ids a name is
    # two searches, this one's and its row's (at 1M facts ~2.3 µs a name, here ~1.3 µs).
    NAMES_BY_ID: ("entities", "id, name", ("id", "name")),
}


def create_statement(name: str) -> str:
    table, terms, _ = {**DEFAULT_INDEXES, **SPEED_INDEXES}[name]
    return f"CREATE INDEX IF NOT EXISTS {name} ON {table}({terms})"


# What makes a database a knowledge graph at all: without these it is another application's.
KEY_COLUMNS: dict[str, set[str]] = {
    "entities": {"id", "name"},
    "triples": {"id", "subject", "predicate", "object", "valid_from", "valid_to"},
}
# What the app reads: every column of MemPalace's tables but the newer ones MemPalace 3.x adds
# itself (and so do we, as it does, or a view does on a read-only open).
REQUIRED_COLUMNS: dict[str, set[str]] = {
    "entities": set(ENTITY_COLUMNS),
    "triples": set(TRIPLE_COLUMNS) - set(NEWER_TRIPLE_COLUMNS),
}


EMPTY = "empty"
ABSENT = "absent"
GRAPH = "graph"
DAMAGED = object()


@dataclass(frozen=True)
class Found:
    """What :func:`inspect` found: ``kind`` (absent, empty or graph), the tables' columns and
    our schema version (0: never opened by Factlines; 1: opened by its first releases; None:
    unreadable, the file is damaged)."""

    kind: str
    columns: dict[str, set[str]] = field(default_factory=dict[str, set[str]])
    version: int | None = 0


def inspect(path: str, label: str | None = None) -> Found:
    """Check, without writing, that ``path`` can be opened as a knowledge graph.

    ``label`` names the file in messages (the original when ``path`` is a private copy).
    Raises NotAKnowledgeGraph naming what is wrong: not SQLite, another application's
    database, or a graph of a newer Factlines.
    """
    label = label or path
    if os.path.isdir(path):
        raise NotAKnowledgeGraph(f"{label} is a folder, not a knowledge graph file")
    if not os.path.exists(path):
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise NotAKnowledgeGraph(f"cannot create {label}: the folder {parent} does not exist")
        return Found(ABSENT)
    try:
        header = held.head(path, len(SQLITE_MAGIC))
        if header is None:  # a connection of ours has it open
            header = SQLITE_MAGIC
    except OSError as exc:
        raise NotAKnowledgeGraph(f"cannot read {label}: {exc.strerror or exc}") from None
    if header == b"":
        return Found(EMPTY)
    if header != SQLITE_MAGIC:
        raise NotAKnowledgeGraph(
            f"{label} is not a SQLite database, so it is not a knowledge graph"
        )
    try:
        probe = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        raise NotAKnowledgeGraph(f"cannot open {label}: {exc}") from None
    try:
        tables = {
            name: {col[1] for col in probe.execute(f"PRAGMA table_info({name})")}
            for (name,) in probe.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        }
        stored = _stored_version(probe, tables)
    except sqlite3.DatabaseError as exc:
        raise NotAKnowledgeGraph(f"{label} is a damaged or encrypted SQLite file ({exc})") from None
    finally:
        probe.close()
    if not tables:
        return Found(EMPTY)
    missing = _missing(tables, KEY_COLUMNS)
    if missing:
        raise NotAKnowledgeGraph(
            f"{label} is a SQLite database of another application, not a knowledge graph "
            f"(missing: {missing}); it was left untouched"
        )
    missing = _missing(tables, REQUIRED_COLUMNS)
    if missing:
        raise NotAKnowledgeGraph(
            f"{label} has a knowledge graph's tables without all of MemPalace's columns "
            f"(missing: {missing}), so Factlines cannot read it; it was left untouched"
        )
    version = _version(stored, label)
    return Found(GRAPH, tables, version)


def _missing(tables: dict[str, set[str]], wanted: dict[str, set[str]]) -> str:
    """The tables, or columns of a table, of ``wanted`` that ``tables`` lack, in words."""
    return "; ".join(
        f"{table} ({', '.join(sorted(cols - tables[table]))})" if table in tables else table
        for table, cols in wanted.items()
        if table not in tables or not cols <= tables[table]
    )


def _stored_version(probe: sqlite3.Connection, tables: dict[str, set[str]]) -> object:
    """Our version as fl_schema stores it; 1 for a file with fl_meta but no fl_schema (the first
    releases kept it in user_version), None for a file Factlines never opened; ``DAMAGED`` when
    fl_schema cannot be read: reads will say so, and nothing is written to it."""
    if "fl_schema" not in tables:
        return 1 if "fl_meta" in tables else None
    try:
        row = probe.execute("SELECT MAX(version) FROM fl_schema").fetchone()
    except sqlite3.DatabaseError:
        return DAMAGED
    return row[0] if row and row[0] is not None else 1


def _version(stored: Any, label: str) -> int | None:
    """Our schema version as stored; a newer one than this app knows is refused."""
    if stored is None:
        return 0
    if stored is DAMAGED:
        return None
    try:
        version = int(stored)
    except (TypeError, ValueError):
        version = None
    if version is None or version > SCHEMA_VERSION:
        raise NotAKnowledgeGraph(
            f"{label} was last set up by a newer Factlines (its schema version is {stored!r}; "
            f"this Factlines knows versions up to {SCHEMA_VERSION}). Open it with a newer "
            "Factlines; it was left untouched"
        )
    return version


def _uri_path(path: str) -> str:
    return os.path.abspath(path).replace("?", "%3f").replace("#", "%23")


def open_connection(
    path: str,
    *,
    read_only: bool = False,
    initialize_empty: bool = False,
    source: str | None = None,
    tidy: bool = False,
) -> sqlite3.Connection:
    """The one long-lived connection to the graph at ``path`` (or to ``source``, a private copy
    of it): WAL, a busy timeout; in read-write mode the schema created or upgraded.

    A file that does not exist is created (not in read-only mode). An existing empty file is
    made a graph only with ``initialize_empty``: it may be anything a person picked by mistake.
    Read-only writes nothing at all (``tidy``: on a read-write connection that may not write,
    see :mod:`.access`). SQLite's own errors propagate for the caller to sort into unavailable
    and bugs."""
    target = source or path
    found = inspect(target, label=path)
    if found.kind == ABSENT and read_only:
        raise NotAKnowledgeGraph(f"{path} does not exist, so there is nothing to read")
    if found.kind == EMPTY and (read_only or not initialize_empty):
        raise EmptyFile(
            f"{path} is an empty file, not a knowledge graph; it was left untouched"
            + ("" if read_only else " (it becomes a new, empty graph only when asked to)")
        )
    if read_only:
        return _open_read_only(target, path, found, tidy)
    # Autocommit mode: the store issues BEGIN IMMEDIATE / COMMIT itself, one per write.
    conn = sqlite3.connect(
        target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {SETUP_WAIT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        if found.kind == GRAPH:
            _upgrade(conn, found)
        else:
            _create(conn)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.Error as exc:
        conn.close()
        if environmental(exc):
            raise  # locked by MemPalace, disk full ...: the caller says "try again"
        raise NotAKnowledgeGraph(f"cannot open {path} as a knowledge graph: {exc}") from None
    except BaseException:
        conn.close()
        raise
    return conn


def connect_read_only(
    target: str, query_only: bool = False, tidy: bool = False
) -> sqlite3.Connection:
    """A read-only connection to ``target`` (a graph file, or the private copy of one), for
    any thread: the one a read-only graph reads through, or a second one beside any graph's
    for a read on another thread. Without ``query_only`` the caller sets it, once it has made
    what it needs in its temp schema. ``tidy``: opened read-write (query_only keeps it from
    writing), so that SQLite may remove the side files when the last connection closes."""
    conn = sqlite3.connect(
        f"file:{_uri_path(target)}?mode={'rw' if tidy else 'ro'}",
        uri=True,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        if query_only:
            conn.execute("PRAGMA query_only = 1")
    except BaseException:
        conn.close()
        raise
    return conn


def _open_read_only(target: str, path: str, found: Found, tidy: bool) -> sqlite3.Connection:
    conn = connect_read_only(target, tidy=tidy)
    try:
        missing = [c for c in NEWER_TRIPLE_COLUMNS if c not in found.columns["triples"]]
        if missing:
            # An older MemPalace file, which we may not upgrade: read it through a view (in
            # this connection's private temp schema, which comes first in name lookups) that
            # adds the newer columns as empty.
            columns = [c for c in TRIPLE_COLUMNS if c not in missing]
            conn.execute(
                "CREATE TEMP VIEW triples AS SELECT rowid AS rowid, "
                + ", ".join(columns + [f"NULL AS {c}" for c in missing])
                + " FROM main.triples"
            )
        conn.execute("PRAGMA query_only = 1")
    except sqlite3.Error as exc:
        conn.close()
        raise NotAKnowledgeGraph(f"cannot read {path} as a knowledge graph: {exc}") from None
    return conn


def _create(conn: sqlite3.Connection) -> None:
    """A new graph: MemPalace's tables and indexes, ours, and our version, in one write."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _statements(MEMPALACE_SCHEMA):
            conn.execute(statement)
        conn.execute(FL_META)
        conn.execute(FL_SCHEMA)
        for name in DEFAULT_INDEXES:  # the tables are empty: instant
            conn.execute(create_statement(name))
        _set_version(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _upgrade(conn: sqlite3.Connection, found: Found) -> None:
    """An existing graph: the newer columns MemPalace 3.x adds, our table and our version.
    One short write, and only when something is missing; no index is built here."""
    columns = found.columns["triples"]
    if found.version is None:
        return  # damaged: reads report it; writing could only make it worse
    if (
        found.version >= SCHEMA_VERSION
        and "fl_meta" in found.columns
        and "fl_schema" in found.columns
        and all(col in columns for col in NEWER_TRIPLE_COLUMNS)
    ):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(triples)")}
        for col in NEWER_TRIPLE_COLUMNS:
            if col not in columns:
                conn.execute(f"ALTER TABLE triples ADD COLUMN {col} {BY_NAME[col].sqlite}")
        conn.execute(FL_META)
        conn.execute(FL_SCHEMA)
        _set_version(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _set_version(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM fl_schema")
    conn.execute("INSERT INTO fl_schema (version) VALUES (?)", (SCHEMA_VERSION,))


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
