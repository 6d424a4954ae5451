"""Export: a lossless JSON copy that imports back to identical rows, CSV with the
documented header, GraphML a standard reader parses with the intervals intact; --as-of and
--entity selections; a cancelled export leaves nothing; exporting never writes the graph."""

from __future__ import annotations

import csv
import json
import sqlite3

import pytest

from factlines import KnowledgeGraph, Refused, open_graph
from factlines.core.transfer import CSV_HEADER, Cancelled, export_graph, import_file
from store_helpers import dump

# Rows MemPalace, older tools or hand edits leave, which the time rules would refuse.
ODD_TRIPLES = [
    # id, subject, predicate, object, valid_from, valid_to, confidence, closet, file, drawer,
    # adapter, extracted_at
    (
        "t_odd_1",
        "kai",
        "works_on",
        "orion",
        "2026",
        "2026-13-01",
        "high",
        None,
        None,
        None,
        None,
        "2020-01-01 00:00:00",
    ),
    ("t_odd_2", "kai", "mentors", "zoe", "2025-05-01", "", None, "c", "f.md", "d1", "miner", None),
    (
        "t_odd_3",
        "ghost",
        "knows",
        "kai",
        "2025-06-01T10:00:00",
        None,
        0.25,
        None,
        None,
        None,
        None,
        "2025-06-01 10:00:00",
    ),
    (
        "t_odd_4",
        "kai",
        "likes",
        "zoe",
        "2025-01-05",
        "2025-01-01",
        1,
        None,
        'a\nb,"c',
        None,
        None,
        "x",
    ),
]


@pytest.fixture
def full(tmp_path):
    """A graph with sound facts, odd ones, a factless entity and a fact whose entity is missing."""
    path = tmp_path / "full.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple(
            "Kai",
            "works_on",
            "Orion",
            valid_from="2025-01-01",
            valid_to="2025-06-30",
            source_closet="closet_1",
            source_file="notes.md",
            adapter_name="miner",
        )
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01", confidence=0.8)
        kg.add_triple("Zoë Ünal", "knows", "Kai", valid_from="2024-03-01T10:00:00Z")
        kg.add_entity("Lonely", "project", {"note": "no facts", "ü": [1, 2]})
    with sqlite3.connect(str(path)) as conn:
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, "
            "confidence, source_closet, source_file, source_drawer_id, adapter_name, "
            "extracted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ODD_TRIPLES,
        )
        conn.execute(
            "INSERT INTO entities (id, name, type, properties, created_at) "
            "VALUES ('zoe', 'Zoe', NULL, NULL, NULL)"
        )
        conn.execute("INSERT INTO entities (id, name) VALUES ('blobby', ?)", (b"\x00\xff",))
    return path


def _rows(path) -> dict:
    """Both tables' rows without rowid, in a stable order."""
    out = dump(path)
    return {
        table: sorted(
            ({k: v for k, v in row.items() if k != "_rowid"} for row in rows),
            key=lambda row: (isinstance(row["id"], bytes), row["id"]),  # text ids, then BLOBs
        )
        for table, rows in out.items()
    }


def test_json_export_imports_back_to_identical_rows(full, tmp_path):
    out = tmp_path / "copy.json"
    with open_graph(full, read_only=True) as kg:
        summary = export_graph(kg, out)
    assert (summary.facts, summary.entities) == (7, 7)
    with KnowledgeGraph(tmp_path / "empty.sqlite3") as target:
        report = import_file(target, out)
    assert report.written and not report.rejected and not report.skipped
    assert (report.facts_added, report.entities_added) == (7, 7)
    assert _rows(tmp_path / "empty.sqlite3") == _rows(full)


def test_json_export_with_blob_ids_imports_back_to_identical_rows(full, tmp_path):
    with sqlite3.connect(str(full)) as conn:
        conn.execute("INSERT INTO entities (id, name) VALUES (?, 'Blob id')", (b"\x01\x02",))
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object) VALUES (?, ?, 'knows', 'kai')",
            (b"\x09", b"\x01\x02"),
        )
    with open_graph(full, read_only=True) as kg:
        export_graph(kg, tmp_path / "copy.json")
    with KnowledgeGraph(tmp_path / "empty.sqlite3") as target:
        report = import_file(target, tmp_path / "copy.json")
    assert report.written and not report.rejected
    assert _rows(tmp_path / "empty.sqlite3") == _rows(full)


def test_json_rows_keep_values_as_stored(full, tmp_path):
    with open_graph(full, read_only=True) as kg:
        export_graph(kg, tmp_path / "copy.json")
    text = (tmp_path / "copy.json").read_text(encoding="utf-8")
    document = json.loads(text)
    assert document["format"] == "factlines-graph" and document["version"] == 1
    assert document["columns"]["triples"][0] == "id"
    odd = {row["id"]: row for row in document["triples"]}
    assert odd["t_odd_1"]["valid_from"] == "2026" and odd["t_odd_1"]["confidence"] == "high"
    assert odd["t_odd_2"]["valid_to"] == ""
    assert odd["t_odd_4"]["confidence"] == 1.0
    blob = next(row for row in document["entities"] if row["id"] == "blobby")
    assert blob["name"] == {"$blob": "AP8="}
    # One row per line: an import report can name the line of a bad row.
    assert sum(1 for line in text.splitlines() if line.startswith('{"id": "t_')) == 7


def test_exporting_never_writes_the_graph(full, tmp_path):
    # The database and its write-ahead log; the -shm index holds readers' marks, not data.
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.endswith("-shm")}
    with open_graph(full, read_only=True) as kg:
        for name in ("a.json", "a.csv", "a.graphml"):
            export_graph(kg, tmp_path / name)
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before}
    assert after == before


def test_csv_has_the_documented_header_and_one_row_per_fact(full, tmp_path):
    with open_graph(full, read_only=True) as kg:
        export_graph(kg, tmp_path / "facts.csv")
    with open(tmp_path / "facts.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert ",".join(rows[0]) == (
        "id,subject_id,subject,predicate,object_id,object,valid_from,valid_to,confidence,"
        "source_closet,source_file,source_drawer_id,adapter_name,extracted_at,"
        "subject_type,subject_properties,subject_created_at,"
        "object_type,object_properties,object_created_at"
    )
    assert tuple(rows[0]) == CSV_HEADER
    by_id = {row[0]: dict(zip(CSV_HEADER, row)) for row in rows[1:]}
    assert len(by_id) == 7
    orion = next(r for r in by_id.values() if r["object_id"] == "orion" and r["valid_to"])
    assert (orion["subject"], orion["subject_id"], orion["object"]) == ("Kai", "kai", "Orion")
    assert (orion["valid_from"], orion["valid_to"]) == ("2025-01-01", "2025-06-30")
    assert orion["source_file"] == "notes.md" and orion["adapter_name"] == "miner"
    assert by_id["t_odd_4"]["source_file"] == 'a\nb,"c'
    assert by_id["t_odd_3"]["subject"] == "ghost"  # no entity row: the id stands in


def test_csv_of_sound_facts_imports_back_with_ids_and_dates(tmp_path):
    source = tmp_path / "source.sqlite3"
    with KnowledgeGraph(source) as kg:
        kg.add_triple(
            "Kai",
            "works_on",
            "Orion",
            valid_from="2025-01-01",
            valid_to="2025-06-30",
            source_file="notes.md",
            confidence=0.5,
        )
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01T09:00:00Z")
        export_graph(kg, tmp_path / "facts.csv")
    target = tmp_path / "target.sqlite3"
    with KnowledgeGraph(target) as kg:
        report = import_file(kg, tmp_path / "facts.csv")
    assert report.written and report.facts_added == 2 and report.entities_added == 3
    assert _rows(target)["triples"] == _rows(source)["triples"]
    names = {row["id"]: row["name"] for row in _rows(target)["entities"]}
    assert names == {"kai": "Kai", "orion": "Orion", "nova": "Nova"}


def test_graphml_parses_with_networkx_with_intervals_intact(full, tmp_path):
    nx = pytest.importorskip("networkx")
    with open_graph(full, read_only=True) as kg:
        export_graph(kg, tmp_path / "graph.graphml")
        facts = {row["id"]: row for row in _rows(full)["triples"]}
    graph = nx.read_graphml(tmp_path / "graph.graphml")
    edges = {key: (u, v, data) for u, v, key, data in graph.edges(keys=True, data=True)}
    assert set(edges) == set(facts)
    for tid, (u, v, data) in edges.items():
        fact = facts[tid]
        assert (u, v) == (fact["subject"], fact["object"])
        assert data["predicate"] == data["label"] == fact["predicate"]
        assert data.get("valid_from") == (fact["valid_from"] or None) or fact["valid_from"] == ""
        assert data.get("valid_to") == fact["valid_to"] or (
            fact["valid_to"] == "" and "valid_to" not in data
        )
    orion = next(d for u, v, d in edges.values() if v == "orion" and d.get("valid_to"))
    assert (orion["start"], orion["end"]) == ("2025-01-01T00:00:00Z", "2025-06-30T23:59:59Z")
    assert orion["interval"] == "<[2025-01-01T00:00:00Z, 2025-06-30T23:59:59Z]>"
    assert orion["confidence"] == 1.0 and orion["source_file"] == "notes.md"
    nova = next(d for u, v, d in edges.values() if v == "nova")
    assert "end" not in nova and nova["interval"] == "<[2025-07-01T00:00:00Z, Infinity]>"
    assert edges["t_odd_1"][2]["confidence_text"] == "high"
    assert "interval" not in edges["t_odd_1"][2]  # 2026 / 2026-13-01 are not time values
    assert "interval" not in edges["t_odd_4"][2]  # inverted: valid nowhere
    assert graph.nodes["kai"]["label"] == "Kai" and graph.nodes["lonely"]["type"] == "project"
    assert "ghost" in graph.nodes  # an entity row the file lacks still gets its node


def test_as_of_keeps_the_facts_valid_then_and_their_entities(full, tmp_path):
    with open_graph(full, read_only=True) as kg:
        summary = export_graph(kg, tmp_path / "snap.json", as_of="2025-03-01")
    document = json.loads((tmp_path / "snap.json").read_text(encoding="utf-8"))
    facts = {(r["subject"], r["predicate"], r["object"]) for r in document["triples"]}
    assert facts == {("kai", "works_on", "orion"), ("zoë_ünal", "knows", "kai")}
    assert {r["id"] for r in document["entities"]} == {"kai", "orion", "zoë_ünal"}
    assert document["as_of"] == "2025-03-01"
    assert (summary.facts, summary.entities) == (2, 3)


def test_entity_keeps_its_facts_in_either_direction(full, tmp_path):
    with open_graph(full, read_only=True) as kg:
        export_graph(kg, tmp_path / "kai.csv", entity="Kai", as_of="2025-08-01")
        export_graph(kg, tmp_path / "lonely.json", entity="Lonely")
        with pytest.raises(Refused, match="not in the graph"):
            export_graph(kg, tmp_path / "nobody.json", entity="Nobody")
        with pytest.raises(Refused, match="as_of"):
            export_graph(kg, tmp_path / "bad.json", as_of="2025-02-30")
        with pytest.raises(Refused, match=r"\.json"):
            export_graph(kg, tmp_path / "facts.txt")
    with open(tmp_path / "kai.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["subject_id"], r["object_id"]) for r in rows} == {
        ("kai", "nova"),
        ("zoë_ünal", "kai"),
        ("ghost", "kai"),  # from 2025-06-01T10:00:00 (no zone): compared as stored text
    }
    lonely = json.loads((tmp_path / "lonely.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in lonely["entities"]] == ["lonely"] and lonely["triples"] == []
    assert not (tmp_path / "nobody.json").exists() and not (tmp_path / "bad.json").exists()


def test_progress_counts_rows_and_a_cancel_leaves_no_file(full, tmp_path):
    seen = []
    with open_graph(full, read_only=True) as kg:
        export_graph(
            kg, tmp_path / "a.json", progress=lambda done, total: seen.append((done, total))
        )
        assert seen[0] == (0, 14) and seen[-1] == (14, 14)
        with pytest.raises(Cancelled):
            export_graph(kg, tmp_path / "b.graphml", progress=lambda done, total: done == 0)

        def stop(done, total):
            raise Cancelled()

        with pytest.raises(Cancelled):
            export_graph(kg, tmp_path / "a.json", progress=stop)
    assert sorted(p.name for p in tmp_path.iterdir() if "full" not in p.name) == ["a.json"]
    assert json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["format"]
