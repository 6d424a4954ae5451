"""Shared helpers of the store's tests: file dumps, a plain time oracle, MemPalace access.

The oracle here deliberately does not use ``factlines.core.temporal``: it reads every value
with :mod:`datetime`, so a test comparing the two compares two independent implementations.
"""

from __future__ import annotations

import importlib.util
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Optional

import pytest

from factlines import KnowledgeGraph, open_graph

MEMPALACE_TABLES = ("entities", "triples")

# MemPalace 3.0's triples table, before source_drawer_id / adapter_name were added.
OLD_MEMPALACE_SCHEMA = """
CREATE TABLE entities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT DEFAULT 'unknown',
    properties TEXT DEFAULT '{}',
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE triples (
    id TEXT PRIMARY KEY,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    valid_from TEXT,
    valid_to TEXT,
    confidence REAL DEFAULT 1.0,
    source_closet TEXT,
    source_file TEXT,
    extracted_at TEXT DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (subject) REFERENCES entities(id),
    FOREIGN KEY (object) REFERENCES entities(id)
);
"""


def dump(path, tables=MEMPALACE_TABLES) -> dict:
    """Every row of ``tables`` (with rowid, every column by name), read by a fresh connection;
    of a PostgreSQL graph (``path`` its URL) in id order, the id standing for the rowid."""
    if str(path).startswith("postgresql://"):
        return _dump_postgres(str(path), tables)
    conn = sqlite3.connect(str(path))
    try:
        out = {}
        for table in tables:
            cursor = conn.execute(f"SELECT rowid AS _rowid, * FROM {table} ORDER BY rowid")
            names = [d[0] for d in cursor.description]
            out[table] = [dict(zip(names, row)) for row in cursor.fetchall()]
        return out
    finally:
        conn.close()


def graph_state(location: str) -> dict:
    """What a copy must carry, read through the façade (any engine): every row of both tables
    in the engine's order with every column as stored, the graph's settings, its edit log."""
    with open_graph(location, read_only=True) as kg:
        tables = {}
        for table in ("entities", "triples"):
            rows, after = [], 0
            while page := kg.dump_rows(table, after_rowid=after, limit=1000):
                after = page[-1]["_rowid"]
                rows += [
                    {k: v for k, v in row.items() if k not in ("rowid", "_rowid")} for row in page
                ]
            tables[table] = rows
        log = [{k: v for k, v in entry.items() if k != "id"} for entry in kg.edit_log(10_000)]
        return {**tables, "settings": kg.graph_settings(), "log": log}


def by_id(state: dict) -> dict:
    """``graph_state`` as two engines can compare it: rows by id (each engine keeps its own
    row order) and the log without who wrote it (PostgreSQL names the role, SQLite nobody)."""
    log = [{k: v for k, v in entry.items() if k != "who"} for entry in state["log"]]
    tables = {t: sorted(state[t], key=lambda row: str(row["id"])) for t in ("entities", "triples")}
    return {**state, **tables, "log": log}


def raw_sql(location, sql: str, params=()) -> list[tuple]:
    """Run one statement on the graph at ``location`` (a file, or a PostgreSQL URL) as another
    program would, past the store, committed; its rows. ``?`` marks parameters on both."""
    if str(location).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(location), autocommit=True) as conn:
            cursor = conn.execute(sql.replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []
    conn = sqlite3.connect(str(location))
    try:
        with conn:
            return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _dump_postgres(url: str, tables) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        out = {}
        for table in tables:
            key = "key" if table == "fl_meta" else "id"
            cursor = conn.execute(
                f'SELECT {key} AS _rowid, * FROM {table} ORDER BY {key} COLLATE "C"'
            )
            names = [d.name for d in cursor.description]
            out[table] = [dict(zip(names, row)) for row in cursor.fetchall()]
        return out


def without_ids(rows: list[dict]) -> list[dict]:
    """Result rows without our extra ``id`` key, for comparing with MemPalace."""
    return [{k: v for k, v in row.items() if k != "id"} for row in rows]


def canonical(rows: list[dict]) -> list[tuple]:
    """An order-free form of result rows (MemPalace promises no order for most queries)."""
    return sorted((tuple(sorted(row.items())) for row in rows), key=repr)


def mempalace_class():
    """MemPalace 3.11's KnowledgeGraph, or a skip saying why it is missing."""
    try:
        from mempalace.knowledge_graph import KnowledgeGraph as MemPalaceKG
    except ImportError as exc:  # pragma: no cover - CI installs it
        pytest.skip(f"mempalace is not importable ({exc}); pip install --no-deps mempalace==3.11.0")
    return MemPalaceKG


def mempalace_tools(graph_path, wal_file, monkeypatch) -> dict:
    """MemPalace 3.11's own MCP knowledge-graph tools (``mcp_server/tools_kg.py``), run on
    MemPalace's KnowledgeGraph with its real write-log code, without the server (whose import
    needs chromadb): the fragment is executed into a namespace holding what it uses."""
    wal = pytest.importorskip("mempalace.wal", reason="mempalace 3.11 is not installed")
    config = pytest.importorskip("mempalace.config")
    monkeypatch.setattr(wal, "_WAL_FILE", wal_file)
    mempalace_kg = mempalace_class()(str(graph_path))
    source = (
        Path(importlib.util.find_spec("mempalace").origin).parent / "mcp_server" / "tools_kg.py"
    )
    namespace = {
        "__name__": "mempalace.mcp_server",
        "_wal_log": wal._wal_log,
        "_wal_result": wal._wal_result,
        "sanitize_kg_value": config.sanitize_kg_value,
        "sanitize_name": config.sanitize_name,
        "sanitize_iso_temporal": config.sanitize_iso_temporal,
        "_call_kg": lambda op: op(mempalace_kg),
        "_MAX_RESULTS": 100,
        "Optional": Optional,
        "date": date,
        "datetime": datetime,
        "timezone": timezone,
    }
    exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)
    namespace["close"] = mempalace_kg.close
    return namespace


# ── A plain oracle of the time rules ──────────────────────────────────────


def _read(value: str) -> tuple[datetime, bool]:
    """(datetime, is_date) of a stored value, read with datetime alone."""
    if len(value) == 10:
        return datetime.combine(date.fromisoformat(value), datetime.min.time(), timezone.utc), True
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc), False


def oracle_start(value: str) -> datetime:
    return _read(value)[0]


def oracle_end(value: str) -> datetime:
    moment, is_day = _read(value)
    return moment + timedelta(days=1, seconds=-1) if is_day else moment


def oracle_valid(valid_from: str | None, valid_to: str | None, as_of: str) -> bool:
    t = oracle_start(as_of)
    return (valid_from is None or oracle_start(valid_from) <= t) and (
        valid_to is None or oracle_end(valid_to) > t
    )


def instant(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def boundary_instants(values) -> list[str]:
    """The query instants that matter for ``values``: each value as written, the instant(s) it
    stands for (start and end of a day), and one second either side of those."""
    out: set[str] = set()
    for value in values:
        if value is None:
            continue
        out.add(value)
        for moment in {oracle_start(value), oracle_end(value)}:
            for delta in (-1, 0, 1):
                out.add(instant(moment + timedelta(seconds=delta)))
    return sorted(out)


def make_old_mempalace_file(path: Path, rows: int = 3) -> None:
    """A file as MemPalace 3.0 left it: no source_drawer_id / adapter_name, a few rows."""
    conn = sqlite3.connect(str(path))
    conn.executescript(OLD_MEMPALACE_SCHEMA)
    for i in range(rows):
        conn.execute(
            "INSERT INTO entities (id, name, type, properties) VALUES (?, ?, 'person', '{}')",
            (f"p{i}", f"P{i}"),
        )
    for i in range(rows):
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, "
            "source_closet) VALUES (?, ?, 'knows', ?, ?, ?, ?)",
            (f"t_{i}", f"p{i}", f"p{(i + 1) % rows}", f"2026-0{i + 1}-01", None, f"closet{i}"),
        )
    conn.commit()
    conn.close()


@contextmanager
def raw_rows_graph(rows, valid_to_index: bool = True) -> Iterator[Path]:
    """A fresh graph file holding entities ann, bob and cy, and ``rows`` (subject, object,
    valid_from, valid_to) as raw rows t000, t001, … of predicate p, past the store (they may
    hold what it refuses to write); without ``valid_to_index``, no index on valid_to."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kg.sqlite3"
        KnowledgeGraph(path).close()
        conn = sqlite3.connect(str(path))
        with conn:
            conn.executemany(
                "INSERT INTO entities (id, name) VALUES (?, ?)",
                [(e, e.title()) for e in ("ann", "bob", "cy")],
            )
            conn.executemany(
                "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
                "VALUES (?, ?, 'p', ?, ?, ?)",
                [(f"t{i:03d}", s, o, vf, vt) for i, (s, o, vf, vt) in enumerate(rows)],
            )
            if not valid_to_index:
                for (name,) in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%valid_to)'"
                ).fetchall():
                    conn.execute(f"DROP INDEX {name}")
        conn.close()
        yield path
