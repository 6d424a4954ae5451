"""Opening a file: refuse what is not a knowledge graph untouched, create or upgrade what is.

MemPalace owns ``entities`` and ``triples``; we only add the two columns MemPalace 3.x adds
itself, and our own ``fl_``-prefixed indexes and table, versioned with ``PRAGMA user_version``.
"""

from __future__ import annotations

import os
import sqlite3

from factlines.core.errors import NotAKnowledgeGraph

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 10_000
SCHEMA_VERSION = 1
# A page cache large enough for a 100k-fact graph's hot pages (SQLite allocates it on demand).
CACHE_KIB = 65_536

MEMPALACE_SCHEMA = """
CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT DEFAULT 'unknown',
    properties TEXT DEFAULT '{}',
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS triples (
    id TEXT PRIMARY KEY,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    valid_from TEXT,
    valid_to TEXT,
    confidence REAL DEFAULT 1.0,
    source_closet TEXT,
    source_file TEXT,
    source_drawer_id TEXT,
    adapter_name TEXT,
    extracted_at TEXT DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (subject) REFERENCES entities(id),
    FOREIGN KEY (object) REFERENCES entities(id)
);
CREATE INDEX IF NOT EXISTS idx_triples_subject ON triples(subject);
CREATE INDEX IF NOT EXISTS idx_triples_object ON triples(object);
CREATE INDEX IF NOT EXISTS idx_triples_predicate ON triples(predicate);
CREATE INDEX IF NOT EXISTS idx_triples_valid ON triples(valid_from, valid_to);
"""

# Ours, which MemPalace ignores:
# - entities listed and searched in name order from the index alone;
# - an entity's facts from the index alone: open/ended counts, and an entity's timeline page
#   chosen before any row is read;
# - the chronological timeline walked in order; ended facts counted without reading rows;
# - a relationship's facts filtered by time from the index alone;
# - a home for the app's own settings of a graph.
# The covering indexes roughly double a MemPalace file's size; that is the price of answering
# MemPalace's own queries in half its time and of the app's per-entity views.
FACTLINES_SCHEMA = """
CREATE INDEX IF NOT EXISTS fl_triples_subject_cover
    ON triples(subject, valid_to, valid_from, id, object);
CREATE INDEX IF NOT EXISTS fl_triples_object_cover
    ON triples(object, valid_to, valid_from, id, subject);
CREATE INDEX IF NOT EXISTS fl_triples_from_id ON triples(valid_from, id);
CREATE INDEX IF NOT EXISTS fl_entities_name_cover ON entities(name COLLATE NOCASE, id, type);
CREATE INDEX IF NOT EXISTS fl_triples_to ON triples(valid_to);
CREATE INDEX IF NOT EXISTS fl_triples_predicate_cover
    ON triples(predicate, valid_from, valid_to, subject, object, id);
CREATE TABLE IF NOT EXISTS fl_meta (key TEXT PRIMARY KEY, value TEXT);
"""

REQUIRED_COLUMNS = {
    "entities": {"id", "name"},
    "triples": {"id", "subject", "predicate", "object", "valid_from", "valid_to"},
}
NEWER_TRIPLE_COLUMNS = ("source_drawer_id", "adapter_name")


def inspect(path: str) -> bool:
    """Check, without writing, that ``path`` can be opened as a knowledge graph.

    Returns True when the file exists and already holds the graph's tables, False when it is
    absent or empty (it will be created). Raises NotAKnowledgeGraph naming what is wrong.
    """
    if os.path.isdir(path):
        raise NotAKnowledgeGraph(f"{path} is a folder, not a knowledge graph file")
    if not os.path.exists(path):
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise NotAKnowledgeGraph(f"cannot create {path}: the folder {parent} does not exist")
        return False
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise NotAKnowledgeGraph(f"cannot read {path}: {exc.strerror or exc}") from None
    if header == b"":
        return False
    if header != SQLITE_MAGIC:
        raise NotAKnowledgeGraph(f"{path} is not a SQLite database, so it is not a knowledge graph")
    try:
        probe = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        raise NotAKnowledgeGraph(f"cannot open {path}: {exc}") from None
    try:
        tables = {
            name: {col[1] for col in probe.execute(f"PRAGMA table_info({name})")}
            for (name,) in probe.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        }
    except sqlite3.DatabaseError as exc:
        raise NotAKnowledgeGraph(f"{path} is a damaged or encrypted SQLite file ({exc})") from None
    finally:
        probe.close()
    if not tables:
        return False
    missing = [
        f"{table} ({', '.join(sorted(cols - tables.get(table, set())))})"
        if table in tables
        else table
        for table, cols in REQUIRED_COLUMNS.items()
        if table not in tables or not cols <= tables[table]
    ]
    if missing:
        raise NotAKnowledgeGraph(
            f"{path} is a SQLite database of another application, not a knowledge graph "
            f"(missing: {'; '.join(missing)}); it was left untouched"
        )
    return True


def _uri_path(path: str) -> str:
    return os.path.abspath(path).replace("?", "%3f").replace("#", "%23")


def open_connection(path: str) -> sqlite3.Connection:
    """The one long-lived connection: WAL, a busy timeout, schema created or upgraded.

    SQLite's own errors propagate for the caller to sort into unavailable and bugs."""
    inspect(path)
    # Autocommit mode: the store issues BEGIN IMMEDIATE / COMMIT itself, one per write.
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        columns = {row[1] for row in conn.execute("PRAGMA table_info(triples)")}
        needs_work = (
            version < SCHEMA_VERSION
            or not columns
            or any(col not in columns for col in NEWER_TRIPLE_COLUMNS)
        )
        if needs_work:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _statements(MEMPALACE_SCHEMA + FACTLINES_SCHEMA):
                    conn.execute(statement)
                columns = {row[1] for row in conn.execute("PRAGMA table_info(triples)")}
                for col in NEWER_TRIPLE_COLUMNS:
                    if col not in columns:
                        conn.execute(f"ALTER TABLE triples ADD COLUMN {col} TEXT")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
    except sqlite3.Error as exc:
        conn.close()
        raise NotAKnowledgeGraph(f"cannot open {path} as a knowledge graph: {exc}") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
