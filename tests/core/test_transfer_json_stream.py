"""A JSON import reads its file a piece at a time: a row cut by the end of what was read so
far reads the same, rows all on one line are told apart, and the import holds neither the
file's text nor its rows (the figures for big files: tests/bench/bench_import_memory.py)."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from factlines import open_graph
from factlines.core.transfer import export_graph, import_file, json_reader, repeats
from store_helpers import dump


def _rows(path) -> dict:
    return {
        table: sorted(
            ({k: v for k, v in row.items() if k != "_rowid"} for row in rows),
            key=lambda row: (isinstance(row["id"], bytes), row["id"]),
        )
        for table, rows in dump(path).items()
    }


@pytest.fixture
def exported(tmp_path):
    """A graph of odd values (a blob, text beyond ASCII, a time the rules refuse) and its
    JSON export."""
    source = tmp_path / "source.sqlite3"
    with open_graph(source) as kg:
        kg.add_triple("Zoë Ünal", "knows", "Kai", valid_from="2024-03-01T10:00:00Z")
        kg.add_entity("Lonely", "project", {"note": "no facts", "ü": [1, 2]})
        kg.apply_row("triples", {"id": "t_odd", "subject": "kai", "predicate": "p",
                                 "object": "kai", "valid_from": "2025-06", "confidence": 12345,
                                 "source_file": b"\x00\xff"})  # fmt: skip
        export_graph(kg, tmp_path / "copy.json")
    return source, tmp_path / "copy.json"


def test_rows_cut_where_the_reading_stops_read_the_same(exported, tmp_path, monkeypatch):
    source, path = exported
    text = path.read_text(encoding="utf-8")
    # A row no graph can store, after the last one: reported by its line either way.
    assert text.endswith("}]}\n")
    text = text[: -len("]}\n")] + (
        ',\n{"id": "t_big", "subject": "a", "predicate": "p", "object": "b", '
        '"confidence": 123456789012345678901234567890}]}\n'
    )
    path.write_text(text, encoding="utf-8")
    reports = []
    for window in (1 << 20, 7, 1):
        monkeypatch.setattr(json_reader, "_WINDOW", window)
        target = tmp_path / f"target-{window}.sqlite3"
        with open_graph(target) as kg:
            report = import_file(kg, path, good_rows=True)
        reports.append(report.lines())
        assert _rows(target) == _rows(source)
    assert reports[0] == reports[1] == reports[2]
    assert reports[0][0].startswith(f"line {text.count(chr(10))}: the number")


def test_rows_on_one_line_are_told_apart(exported, tmp_path):
    source, path = exported
    export = json.loads(path.read_text(encoding="utf-8"))
    export["triples"].append(dict(export["triples"][0], valid_to="2026-01-01"))  # its id again
    path.write_text(json.dumps(export), encoding="utf-8")  # one line
    target = tmp_path / "target.sqlite3"
    with open_graph(target) as kg:
        report = import_file(kg, path, good_rows=True)
    assert len(report.rejected) == 1 and "was already given on line 1" in report.lines()[0]
    assert _rows(target) == _rows(source)


FACTS = 40_000


@pytest.mark.slow
def test_an_import_holds_neither_the_file_nor_its_rows(tmp_path):
    source = tmp_path / "source.sqlite3"
    with open_graph(source) as kg:
        kg.insert_rows("entities", [(f"e{n}", f"E {n}") for n in range(1000)], ("id", "name"))
        # 40,000 rows: the import's working set (its batches of rows, the reader's buffer)
        # is ~15-20 MB whatever the file's size, 2.6-2.9 times a file of 20,000.
        kg.insert_rows(
            "triples",
            [(f"t_{n:06d}", f"e{n % 1000}", "knows", f"e{n * 7 % 1000}", "2025-01-01",
              "notes/a file with a long name.md") for n in range(FACTS)],
            ("id", "subject", "predicate", "object", "valid_from", "source_file"),
        )  # fmt: skip
        export_graph(kg, tmp_path / "copy.json")
    size = (tmp_path / "copy.json").stat().st_size
    with open_graph(tmp_path / "target.sqlite3") as kg:
        tracemalloc.start()
        try:
            report = import_file(kg, tmp_path / "copy.json")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert report.facts_added == FACTS
    # Before, the text and every row were held at once: 12 times the file's size.
    assert peak < 2.5 * size, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB file"


def test_ids_that_may_repeat_are_checked_exactly(tmp_path, monkeypatch):
    # A filter of a few bits for the whole file: nearly every id may repeat, each is checked.
    monkeypatch.setattr(repeats, "_SMALLEST", 1)
    monkeypatch.setattr(repeats, "_BYTES_PER_BIT", 10**9)
    rows = [
        {"id": f"t{n}", "subject": "kai", "predicate": f"p{n}", "object": "kai"} for n in range(300)
    ]
    rows.append({**rows[7], "valid_to": "2026-01-01"})  # line 305: t7 again
    path = tmp_path / "in.json"
    path.write_text(
        '{"format": "factlines-graph", "version": 1,\n "entities": [\n'
        '{"id": "kai", "name": "Kai"}],\n "triples": [\n'
        + ",\n".join(json.dumps(row) for row in rows)
        + "]}\n",
        encoding="utf-8",
    )
    with open_graph(tmp_path / "target.sqlite3") as kg:
        report = import_file(kg, path, good_rows=True)
    assert report.lines() == ["line 305: a fact id 't7' was already given on line 12"]
    assert report.facts_added == 300
