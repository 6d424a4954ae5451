"""The SQL each engine sets a graph up with, pinned to the byte: MemPalace reads these tables,
so deriving the text from the column registry must not change one character of it."""

from __future__ import annotations

import sqlite3

from factlines.core.store.postgres import schema as postgres_schema
from factlines.core.store.sqlite.schema import open_connection
from store_helpers import make_old_mempalace_file

_TEXT = 'TEXT COLLATE "C"'
_NOW = "(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))"

SQLITE_TRIPLES = """CREATE TABLE triples (
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
)"""
SQLITE_ENTITIES = """CREATE TABLE entities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT DEFAULT 'unknown',
    properties TEXT DEFAULT '{}',
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
)"""
POSTGRES_CREATE = [
    f"""CREATE TABLE IF NOT EXISTS entities (
    id {_TEXT} PRIMARY KEY,
    name {_TEXT} NOT NULL,
    type {_TEXT} DEFAULT 'unknown',
    properties {_TEXT} DEFAULT '{{}}',
    created_at {_TEXT} DEFAULT {_NOW}
)""",
    f"""CREATE TABLE IF NOT EXISTS triples (
    id {_TEXT} PRIMARY KEY,
    subject {_TEXT} NOT NULL,
    predicate {_TEXT} NOT NULL,
    object {_TEXT} NOT NULL,
    valid_from {_TEXT},
    valid_to {_TEXT},
    confidence DOUBLE PRECISION DEFAULT 1.0,
    source_closet {_TEXT},
    source_file {_TEXT},
    source_drawer_id {_TEXT},
    adapter_name {_TEXT},
    extracted_at {_TEXT} DEFAULT {_NOW}
)""",
    "CREATE INDEX IF NOT EXISTS idx_triples_subject ON triples(subject)",
    "CREATE INDEX IF NOT EXISTS idx_triples_object ON triples(object)",
    "CREATE INDEX IF NOT EXISTS idx_triples_predicate ON triples(predicate)",
    "CREATE INDEX IF NOT EXISTS idx_triples_valid ON triples(valid_from, valid_to)",
]
POSTGRES_ADD_COLUMNS = [  # compared byte by byte, as every text column made here
    'ALTER TABLE triples ADD COLUMN source_drawer_id TEXT COLLATE "C"',
    'ALTER TABLE triples ADD COLUMN adapter_name TEXT COLLATE "C"',
]


def _schema(conn: sqlite3.Connection, table: str = "sqlite_master") -> dict[str, str]:
    return dict(conn.execute(f"SELECT name, sql FROM {table} WHERE sql IS NOT NULL"))


def test_a_new_sqlite_file_gets_mempalaces_tables_as_mempalace_writes_them(tmp_path):
    conn = open_connection(str(tmp_path / "new.sqlite3"))
    schema = _schema(conn)
    conn.close()
    assert schema["entities"] == SQLITE_ENTITIES
    assert schema["triples"] == SQLITE_TRIPLES
    assert schema["idx_triples_valid"] == (
        "CREATE INDEX idx_triples_valid ON triples(valid_from, valid_to)"
    )


def test_an_older_sqlite_file_gains_the_newer_columns_as_mempalace_adds_them(tmp_path):
    path = tmp_path / "old.sqlite3"
    make_old_mempalace_file(path)
    with sqlite3.connect(path) as conn:
        old = _schema(conn)["triples"]
    conn = open_connection(str(path))
    upgraded = _schema(conn)["triples"]
    conn.close()
    assert upgraded == old.replace(
        "CURRENT_TIMESTAMP,", "CURRENT_TIMESTAMP, source_drawer_id TEXT, adapter_name TEXT,"
    )


def test_an_older_sqlite_file_read_only_is_read_through_a_view_of_every_column(tmp_path):
    path = tmp_path / "old.sqlite3"
    make_old_mempalace_file(path)
    conn = open_connection(str(path), read_only=True)
    view = _schema(conn, "sqlite_temp_master")["triples"]
    conn.close()
    assert view == (
        "CREATE VIEW triples AS SELECT rowid AS rowid, id, subject, predicate, object, "
        "valid_from, valid_to, confidence, source_closet, source_file, extracted_at, "
        "NULL AS source_drawer_id, NULL AS adapter_name FROM main.triples"
    )


class _Recorder:
    """A PostgreSQL connection as ``prepare`` sees it: the tables given, every statement kept."""

    def __init__(self, tables: dict[str, list[str]], version: int = 0):
        self.rows = [(t, c) for t, columns in tables.items() for c in columns]
        self.version = version
        self.statements: list[str] = []

    def execute(self, sql: str, params=None):
        self.statements.append(sql)
        if "information_schema.columns" in sql:
            return iter(self.rows)
        return self

    def fetchone(self):
        return (self.version,)


def _written(conn: _Recorder) -> list[str]:
    start = conn.statements.index("SELECT pg_advisory_xact_lock(%s)") + 1
    return conn.statements[start : conn.statements.index("DELETE FROM fl_schema")]


def test_a_new_postgres_database_gets_mempalaces_tables_in_its_types():
    conn = _Recorder({})
    postgres_schema.prepare(conn, "db", read_only=False)
    assert _written(conn)[: len(POSTGRES_CREATE)] == POSTGRES_CREATE


def test_an_older_postgres_database_gains_the_newer_columns_as_mempalace_adds_them():
    old = [
        "id", "subject", "predicate", "object", "valid_from", "valid_to", "confidence",
        "source_closet", "source_file", "extracted_at",
    ]  # fmt: skip
    conn = _Recorder(
        {"entities": ["id", "name", "type", "properties", "created_at"], "triples": old}
    )
    postgres_schema.prepare(conn, "db", read_only=False)
    assert _written(conn)[:2] == POSTGRES_ADD_COLUMNS
    assert not any(s.startswith("ALTER") for s in _written(conn)[2:])


def _key(column: str, suffix: str) -> str:
    return (
        f"((CASE WHEN length({column}) = 10 AND substr({column}, 5, 1) = '-' AND "
        f"substr({column}, 8, 1) = '-' THEN {column} || '{suffix}' ELSE {column} END) "
        'COLLATE "C")'
    )


def test_postgres_indexes_the_time_keys_by_the_expressions_its_queries_use():
    # An index on an expression serves only queries that write it the same way: a database
    # indexed by an earlier Factlines must keep being served.
    conn = _Recorder({})
    postgres_schema.prepare(conn, "db", read_only=False)
    written = _written(conn)
    assert (
        "CREATE INDEX IF NOT EXISTS fl_triples_start_key ON triples "
        f"({_key('valid_from', 'T00:00:00Z')})"
    ) in written
    assert (
        "CREATE INDEX IF NOT EXISTS fl_triples_end_key ON triples "
        f"({_key('valid_to', 'T23:59:59Z')})"
    ) in written
