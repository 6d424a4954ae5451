"""Fuzz: files holding whatever MemPalace's tables can hold, opened in the window in a child
process that uses everything (``values_fuzz_child``: the entity list, chart, facts table and
every history panel), which must neither crash, raise nor warn, and must leave every byte of
MemPalace's tables as it was, the columns a newer MemPalace adds included.

Each file is written through the real MemPalace where it accepts the value (text confidences,
huge and odd strings) and with raw SQL where it does not (time values the rules refuse, BLOBs,
NULL ids, facts whose entity row is missing). Seeded, so a failure replays.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from store_helpers import MEMPALACE_TABLES, mempalace_class

pytestmark = [pytest.mark.slow, pytest.mark.interop]

CHILD = Path(__file__).resolve().parent.parent / "values_fuzz_child.py"
SEEDS = (1, 2, 3)

ODD_TIMES = [
    "",
    " ",
    "2025",
    "2025-06",
    "2025-06-01 10:00",
    "2025-06-01T10:00:00+02:00",
    "2025-06-01T10:00:00",
    "2025-06-01T24:00:00Z",
    "0000-00-00",
    "2025-13-45",
    "2025-02-30",
    " 2025-06-01",
    "never",
    "unknown",
    "n/a",
    "9999-12-31T23:59:60Z",
    "२०२५-०६-०१",
    "2025-06-01\x00",
]
GOOD_TIMES = [
    None,
    "2023-05-01",
    "2024-01-01",
    "2024-02-29",
    "2025-06-01T10:00:00Z",
    "2026-12-31",
    "1850-01-01",
    "2199-12-31T23:59:59Z",
]
ODD_TEXT = [
    "",
    " ",
    "x" * 5_000,
    "مرحبا بالعالم",
    "e\u0301\u0301\u0301",
    "😀👩‍👩‍👧",
    "<b>bold</b> & <i>",
    "line\nbreak\ttab",
    "nul\x00inside",
    "\u202eevil",
]
CONFIDENCES = [1.0, 0.0, 0.5, None, "high", "low", "", "0.9 ", 7, -2.5, 1e308 * 10]


def _name(rng: random.Random, i: int) -> str:
    return rng.choice([f"Entity {i}", f"Ånne {i}", f"{rng.choice(ODD_TEXT)} {i}"])


def write_file(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    names = [_name(rng, i) for i in range(8)]
    predicates = ["works_on", "knows", "lives_in", *rng.sample(ODD_TEXT, 3)]
    if seed == SEEDS[0]:
        predicates.append("p" * 1_000_000)
    mempalace = mempalace_class()(str(path))
    for _ in range(30):
        subject, obj = rng.choice(names), rng.choice(names)
        mempalace.add_triple(
            subject,
            rng.choice(predicates),
            obj,
            valid_from=rng.choice(GOOD_TIMES),
            confidence=rng.choice(CONFIDENCES),
            source_file=rng.choice([None, *ODD_TEXT]),
        )
    mempalace.close()
    conn = sqlite3.connect(str(path))
    try:
        ids = [row[0] for row in conn.execute("SELECT id FROM triples")]
        for tid in ids:
            for column in ("valid_from", "valid_to"):
                if rng.random() < 0.45:
                    value = rng.choice(ODD_TIMES + GOOD_TIMES + [b"\x01\x02"])
                    conn.execute(f"UPDATE triples SET {column} = ? WHERE id = ?", (value, tid))
            if rng.random() < 0.2:
                value = rng.choice([b"\xff", "very", "", 3, -1e-9])
                conn.execute("UPDATE triples SET confidence = ? WHERE id = ?", (value, tid))
        # BLOBs where MemPalace only ever writes text.
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))
        conn.execute("UPDATE entities SET name = ? WHERE rowid = 2", (blob,))
        conn.execute("UPDATE entities SET type = ? WHERE rowid = 3", (blob,))
        conn.execute("UPDATE triples SET predicate = ? WHERE rowid = 4", (blob,))
        conn.execute("UPDATE triples SET source_closet = ? WHERE rowid = 5", (blob,))
        conn.execute("INSERT INTO entities (id, name) VALUES (NULL, ?)", (rng.choice(ODD_TEXT),))
        conn.execute("INSERT INTO entities (id, name, type) VALUES (NULL, 'Ghost', NULL)")
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES ('t_dangling', 'entity_0', 'knows', 'nobody_here', '2025-06', NULL)"
        )
        conn.execute(
            "INSERT INTO entities (id, name, type, properties) VALUES (?, ?, ?, ?)",
            ("typed", "Typed", rng.choice(ODD_TEXT), "{not json"),
        )
        # Ids MemPalace never writes but its tables can hold: a fact with no id, an entity
        # whose id is a BLOB (with a fact of its own).
        first = conn.execute("SELECT id FROM entities WHERE typeof(id) = 'text'").fetchone()[0]
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES (NULL, ?, 'knows', 'typed', '2024-01-01')",
            (first,),
        )
        conn.execute("INSERT INTO entities (id, name) VALUES (?, 'Blob id')", (b"\x01\xfe",))
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES ('t_blob_subject', ?, 'knows', ?, '2023-01-01', '2025-01-01')",
            (b"\x01\xfe", first),
        )
        # Columns a newer MemPalace adds (who asserted and ended a fact; an entity's aliases).
        conn.execute("ALTER TABLE triples ADD COLUMN created_by TEXT")
        conn.execute("ALTER TABLE triples ADD COLUMN ended_by TEXT")
        conn.execute("ALTER TABLE entities ADD COLUMN aliases TEXT")
        conn.execute("UPDATE triples SET created_by = 'mcp:kg_add' WHERE rowid % 2 = 0")
        conn.execute("UPDATE entities SET aliases = ? WHERE rowid % 3 = 0", (rng.choice(ODD_TEXT),))
        conn.commit()
    finally:
        conn.close()


def mempalace_bytes(path: Path) -> dict:
    """Every value of MemPalace's tables exactly: SQLite's own literal of each (type and bytes)."""
    conn = sqlite3.connect(str(path))
    try:
        out = {}
        for table in MEMPALACE_TABLES:
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            quoted = ", ".join(f"quote({column})" for column in columns)
            out[table] = (
                columns,
                conn.execute(f"SELECT rowid, {quoted} FROM {table} ORDER BY rowid").fetchall(),
            )
        return out
    finally:
        conn.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_window_survives_whatever_the_file_holds(tmp_path, seed):
    path = tmp_path / f"fuzz{seed}.sqlite3"
    write_file(path, seed)
    before = mempalace_bytes(path)
    child = subprocess.run(
        [sys.executable, str(CHILD), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = f"seed {seed}, exit {child.returncode}\n{child.stdout}\n{child.stderr}"
    assert child.returncode == 0, report  # a signal is negative
    assert "problems" in child.stdout, report
    assert "Traceback" not in child.stderr, report
    # A value a view hands Qt that Qt cannot hold (a BLOB as a cell's text) is only said here.
    assert "Cannot copy-convert" not in child.stderr, report
    assert mempalace_bytes(path) == before
