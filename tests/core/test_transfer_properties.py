"""Property: ``export → import`` into an empty graph gives back the same rows, column for
column (each value with its storage class), for any rows MemPalace's schema and a newer
MemPalace's extra columns can hold: JSON always; CSV for what it promises (contract §8.1:
NULL or non-empty text, finite numbers in ``confidence``; the entities the facts refer to)."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factlines import open_graph
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS
from factlines.core.transfer import export_graph, import_file

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
# A newer MemPalace's columns: two declared TEXT, one declared without a type (any value).
EXTRA = {"entities": (("aliases", "TEXT"),), "triples": (("created_by", "TEXT"), ("note", ""))}


def _text(csv: bool, min_size: int = 0):
    banned = ("Cs",)  # an unpaired surrogate is no text SQLite or JSON can hold
    alphabet = st.characters(
        blacklist_categories=banned, blacklist_characters="\x00" if csv else ""
    )
    return st.text(alphabet, min_size=min_size, max_size=12)


def _any_value(csv: bool):
    """What a column of SQLite may hold (its affinity may turn it into text or a number)."""
    if csv:
        return st.one_of(st.none(), _text(True, 1))
    return st.one_of(
        st.none(),
        _text(False),
        st.integers(-(2**63), 2**63 - 1),
        st.floats(allow_nan=False),
        st.binary(max_size=8),
    )


def _confidence(csv: bool):
    if csv:
        finite = st.floats(allow_nan=False, allow_infinity=False)
        return st.one_of(st.none(), finite, _text(True, 1))
    return _any_value(False)


@st.composite
def graphs(draw, csv: bool) -> dict:
    """Rows of both tables: unique non-empty ids, the NOT NULL columns filled, facts between
    the entities (and, for JSON, to entities no row names)."""
    ids = st.one_of(_text(csv, 1), st.binary(min_size=1, max_size=6)) if not csv else _text(True, 1)
    entity_ids = draw(st.lists(ids, min_size=1, max_size=5, unique=True))
    if csv:  # an id of spaces only reads as no id
        entity_ids = [eid for eid in entity_ids if eid.strip()] or ["e"]
    value = _any_value(csv)
    name = _text(True, 1) if csv else st.one_of(_text(False), st.integers(-(2**63), 2**63 - 1))
    entities = [
        (eid, draw(name), *(draw(value) for _ in range(3)),
         *(draw(value) for _ in EXTRA["entities"]))
        for eid in entity_ids
    ]  # fmt: skip
    targets = st.sampled_from(entity_ids) if csv else st.one_of(st.sampled_from(entity_ids), ids)
    triples = []
    for tid in draw(st.lists(ids, max_size=6, unique=True)):
        if csv and not tid.strip():
            continue
        extra = [draw(_text(True, 1) if csv else value), draw(value if not csv else _text(True, 1))]
        triples.append(
            (tid, draw(targets), draw(_text(csv, 1)), draw(targets), draw(value), draw(value),
             draw(_confidence(csv)), *(draw(value) for _ in range(5)), *extra)
        )  # fmt: skip
    return {"entities": entities, "triples": triples}


def _write(path: Path, rows: dict) -> None:
    open_graph(path).close()
    conn = sqlite3.connect(path)
    with conn:
        for table, extras in EXTRA.items():
            for name, declared in extras:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declared}")
        for table, columns in (("entities", ENTITY_COLUMNS), ("triples", TRIPLE_COLUMNS)):
            names = [*columns, *(name for name, _ in EXTRA[table])]
            conn.executemany(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                rows[table],
            )
    conn.close()


def _stored(path: Path) -> dict:
    """Every row of both tables, each value with its storage class, in a stable order."""
    conn = sqlite3.connect(path)
    try:
        out = {}
        for table in ("entities", "triples"):
            cursor = conn.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            out[table] = sorted(
                (tuple((n, type(v).__name__, v) for n, v in zip(names, row)) for row in cursor),
                key=repr,
            )
        return out
    finally:
        conn.close()


def _round_trip(rows: dict, suffix: str) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "source.sqlite3", Path(folder) / "target.sqlite3"
        _write(source, rows)
        with open_graph(source, read_only=True) as kg:
            export_graph(kg, Path(folder) / f"export.{suffix}")
        with open_graph(target) as kg:
            report = import_file(kg, Path(folder) / f"export.{suffix}")
        assert report.written and not report.rejected and not report.skipped, report.lines()
        return _stored(source), _stored(target)


@SETTINGS
@given(graphs(csv=False))
def test_a_json_export_imports_back_to_the_same_rows(rows):
    before, after = _round_trip(rows, "json")
    assert after == before


@SETTINGS
@given(graphs(csv=True))
def test_a_csv_export_imports_back_to_the_same_facts_and_their_entities(rows):
    before, after = _round_trip(rows, "csv")
    referred = {fact[1] for fact in rows["triples"]} | {fact[3] for fact in rows["triples"]}
    before["entities"] = [row for row in before["entities"] if row[0][2] in referred]
    assert after == before
