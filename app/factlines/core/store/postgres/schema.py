"""Opening a PostgreSQL database: refuse what is not a knowledge graph untouched, create or
upgrade what is (the SQLite engine's rules, :mod:`factlines.core.store.sqlite.schema`).

One graph per database, in the connection's current schema. MemPalace's ``entities`` and
``triples`` keep MemPalace's columns and meaning: every value is text as given but
``confidence``, a double (SQLite's REAL); the timestamps MemPalace's defaults stamp are UTC
text as SQLite's ``CURRENT_TIMESTAMP`` writes it. The text columns of tables made here are
``COLLATE "C"`` (bytes, SQLite's BINARY), and every comparison the engine writes says so too.
No foreign keys: SQLite does not enforce MemPalace's either, and a graph may hold a fact whose
entity row is gone. What is ours is prefixed ``fl_``.
"""

from __future__ import annotations

from typing import Any

from factlines.core.columns import NEWER_TRIPLE_COLUMNS, STORED
from factlines.core.columns import POSTGRES_NOW as _NOW
from factlines.core.columns import POSTGRES_TEXT as _TEXT
from factlines.core.errors import NotAKnowledgeGraph
from factlines.core.store.postgres.timesql import C, end_key, nocase, start_key
from factlines.core.store.sqlite.schema import (
    KEY_COLUMNS,
    REQUIRED_COLUMNS,
    SCHEMA_VERSION,
)

# The advisory lock every write holds: writes take turns, as SQLite's BEGIN IMMEDIATE makes them.
WRITE_LOCK = 0x466C_6E73  # "Flns"
MEMPALACE_SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS entities (
    id {_TEXT} PRIMARY KEY,
    name {_TEXT} NOT NULL,
    type {_TEXT} DEFAULT 'unknown',
    properties {_TEXT} DEFAULT '{{}}',
    created_at {_TEXT} DEFAULT {_NOW}
)""",
    "CREATE TABLE IF NOT EXISTS triples (\n"
    + ",\n".join(f"    {column.name} {column.postgres}" for column in STORED)
    + "\n)",
    "CREATE INDEX IF NOT EXISTS idx_triples_subject ON triples(subject)",
    "CREATE INDEX IF NOT EXISTS idx_triples_object ON triples(object)",
    "CREATE INDEX IF NOT EXISTS idx_triples_predicate ON triples(predicate)",
    "CREATE INDEX IF NOT EXISTS idx_triples_valid ON triples(valid_from, valid_to)",
)
FL_TABLES = (
    f"CREATE TABLE IF NOT EXISTS fl_meta (key {_TEXT} PRIMARY KEY, value TEXT)",
    "CREATE TABLE IF NOT EXISTS fl_schema (version INTEGER NOT NULL)",
    # Counts the writes of every client (SQLite's data_version, which PostgreSQL lacks): an
    # undo learns from it whether anyone else wrote since its step.
    "CREATE TABLE IF NOT EXISTS fl_writes (n BIGINT NOT NULL)",
    "INSERT INTO fl_writes (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM fl_writes)",
)
# Our indexes, name -> indexed terms: the entity list in SQLite's NOCASE name order, the
# comparison keys of starts and ends (the events in order, counts of keys), and when facts
# were recorded (the review's span, compared byte by byte).
DEFAULT_INDEXES = {
    "fl_entities_name": ("entities", f"({nocase('name')}), id {C}"),
    "fl_triples_start_key": ("triples", f"({start_key('valid_from')})"),
    "fl_triples_end_key": ("triples", f"({end_key('valid_to')})"),
    "fl_triples_valid_to": ("triples", f"valid_to {C}"),
    "fl_triples_recorded": ("triples", f"extracted_at {C}"),
}


def create_statement(name: str) -> str:
    table, terms = DEFAULT_INDEXES[name]
    return f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({terms})"


def tables(conn: Any) -> dict[str, list[str]]:
    """The tables of the current schema and their columns, in order."""
    found: dict[str, list[str]] = {}
    for table, column in conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    ):
        found.setdefault(table, []).append(column)
    return found


def indexes(conn: Any) -> set[str]:
    """The names of the indexes in the current schema."""
    return {
        name
        for (name,) in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        )
    }


def prepare(conn: Any, label: str, read_only: bool) -> None:
    """Check the database is a knowledge graph (or empty), and in read-write mode create or
    upgrade it in one transaction. Raises NotAKnowledgeGraph naming what is wrong."""
    found = tables(conn)
    if not found:
        if read_only:
            raise NotAKnowledgeGraph(f"{label} is an empty database, so there is nothing to read")
        return _write(
            conn, [*MEMPALACE_SCHEMA, *FL_TABLES, *map(create_statement, DEFAULT_INDEXES)]
        )
    columns = {table: set(cols) for table, cols in found.items()}
    for wanted, words in (
        (KEY_COLUMNS, "is a database of another application, not a knowledge graph"),
        (REQUIRED_COLUMNS, "has a knowledge graph's tables without all of MemPalace's columns"),
    ):
        missing = "; ".join(
            f"{t} ({', '.join(sorted(cols - columns[t]))})" if t in columns else t
            for t, cols in wanted.items()
            if t not in columns or not cols <= columns[t]
        )
        if missing:
            raise NotAKnowledgeGraph(f"{label} {words} (missing: {missing}); it was left untouched")
    version = 0
    if "fl_schema" in columns:
        version = conn.execute("SELECT MAX(version) FROM fl_schema").fetchone()[0] or 0
    if version > SCHEMA_VERSION:
        raise NotAKnowledgeGraph(
            f"{label} was last set up by a newer Factlines (schema version {version}; this "
            f"Factlines knows versions up to {SCHEMA_VERSION}); it was left untouched"
        )
    newer = [c for c in NEWER_TRIPLE_COLUMNS if c not in columns["triples"]]
    ours = "fl_meta" in columns and "fl_writes" in columns
    if read_only or (version == SCHEMA_VERSION and not newer and ours):
        return
    added = [f"ALTER TABLE triples ADD COLUMN {c} {_TEXT}" for c in newer]  # bytes, as the rest
    _write(conn, added + list(FL_TABLES))


def _write(conn: Any, statements: list[str]) -> None:
    conn.execute("BEGIN")
    try:
        # Two clients setting up one database at once take turns (as writes do).
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        for statement in statements:
            conn.execute(statement)
        conn.execute("DELETE FROM fl_schema")
        conn.execute("INSERT INTO fl_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
