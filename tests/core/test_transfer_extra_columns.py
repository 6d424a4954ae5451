"""A newer MemPalace's columns (``created_by`` / ``ended_by`` on ``triples``, ``aliases`` on
``entities``) are kept by every path: export, import and copy make them again in a new graph
of either engine, undo and redo keep them; PostgreSQL refuses by name a value its types
cannot hold."""

from __future__ import annotations

import csv
import json
import sqlite3

import pytest

import postgres_server
from factlines import Refused, open_graph
from factlines.core.transfer import CSV_HEADER, copy_graph, export_graph, import_file
from store_helpers import dump


@pytest.fixture
def newer(tmp_path) -> str:
    """A MemPalace file with the columns a newer MemPalace adds, some of them filled."""
    path = tmp_path / "newer" / "kg.sqlite3"
    path.parent.mkdir()
    with open_graph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
        kg.add_entity("Lonely", "project")
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("ALTER TABLE triples ADD COLUMN created_by TEXT")
        conn.execute("ALTER TABLE triples ADD COLUMN ended_by TEXT")
        conn.execute("ALTER TABLE triples ADD COLUMN votes INTEGER")
        conn.execute("ALTER TABLE entities ADD COLUMN aliases TEXT")
        conn.execute("UPDATE triples SET created_by = 'mcp:kg_add', votes = 3")
        conn.execute("UPDATE triples SET ended_by = 'factlines' WHERE valid_to IS NOT NULL")
        conn.execute("UPDATE entities SET aliases = '[\"K.\", \"Kai M\"]' WHERE id = 'kai'")
    conn.close()
    return str(path)


def rows(location) -> dict:
    """Both tables, every column the graph has, rows by id (each engine keeps its own order)."""
    return {
        table: sorted(
            ({k: v for k, v in row.items() if k != "_rowid"} for row in found),
            key=lambda row: row["id"],
        )
        for table, found in dump(location).items()
    }


def test_json_export_writes_the_columns_and_imports_them_into_a_new_graph(
    newer, graph_places, tmp_path
):
    with open_graph(newer, read_only=True) as kg:
        export_graph(kg, tmp_path / "copy.json")
    written = json.loads((tmp_path / "copy.json").read_text(encoding="utf-8"))
    assert written["extra_columns"] == {
        "entities": [["aliases", "TEXT"]],
        "triples": [["created_by", "TEXT"], ["ended_by", "TEXT"], ["votes", "INTEGER"]],
    }
    kai = next(row for row in written["entities"] if row["id"] == "kai")
    assert kai["aliases"] == '["K.", "Kai M"]'
    assert {row["created_by"] for row in written["triples"]} == {"mcp:kg_add"}
    target = graph_places.new("target")
    with open_graph(target) as kg:
        report = import_file(kg, tmp_path / "copy.json")
    assert report.written and report.facts_added == 2, report.lines()
    assert rows(target) == rows(newer)


def test_json_import_fills_the_columns_a_graph_has(newer, tmp_path):
    with open_graph(newer, read_only=True) as kg:
        export_graph(kg, tmp_path / "copy.json")
    target = tmp_path / "target.sqlite3"
    open_graph(target).close()
    conn = sqlite3.connect(target)
    with conn:
        conn.execute("ALTER TABLE triples ADD COLUMN created_by TEXT")
    conn.close()
    with open_graph(target) as kg:
        import_file(kg, tmp_path / "copy.json")
    assert rows(target) == rows(newer)


def test_a_copy_makes_the_columns_in_either_engine_and_copies_back_identically(
    newer, graph_places, tmp_path
):
    target = graph_places.new("target")
    copy_graph(newer, target)
    assert rows(target) == rows(newer)
    back = str(tmp_path / "back.sqlite3")
    copy_graph(target, back)
    assert rows(back) == rows(newer)


def test_undo_and_redo_keep_the_columns(newer, graph_places):
    place = graph_places.new("place")
    copy_graph(newer, place)
    before = rows(place)
    with open_graph(place) as kg:
        nova = next(r["id"] for r in kg.dump_rows("triples") if r["object"] == "nova")
        with kg.recording() as change:
            kg.end_fact(nova, "2026-01-31")
        ended = rows(place)
        kg.revert(change)
        assert rows(place) == before
        kg.reapply(change)
    assert rows(place) == ended
    assert {row["created_by"] for row in ended["triples"]} == {"mcp:kg_add"}


def test_postgresql_refuses_by_name_what_its_column_cannot_hold(newer, postgres_admin):
    conn = sqlite3.connect(newer)
    with conn:
        conn.execute("ALTER TABLE triples ADD COLUMN note")  # no type: SQLite keeps any value
        conn.execute("UPDATE triples SET note = 42 WHERE object = 'nova'")
    conn.close()
    refusal = (
        r"fact 't_kai_works_on_nova_.*its note is 42, where PostgreSQL keeps only text in "
        r"note.*nothing was written"
    )
    with (
        postgres_server.fresh_database(postgres_admin) as target,
        pytest.raises(Refused, match=refusal),
    ):
        copy_graph(newer, target)


def test_csv_export_writes_the_columns_and_imports_them_into_a_new_graph(
    newer, graph_places, tmp_path
):
    with open_graph(newer, read_only=True) as kg:
        export_graph(kg, tmp_path / "facts.csv")
    with open(tmp_path / "facts.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header[len(CSV_HEADER) :] == [
        "created_by", "ended_by", "votes", "subject_aliases", "object_aliases",
    ]  # fmt: skip
    target = graph_places.new("target")
    with open_graph(target) as kg:
        report = import_file(kg, tmp_path / "facts.csv")
    assert report.written and report.facts_added == 2, report.lines()
    # A CSV holds text: the whole number comes back as its text; the factless entity stays out.
    expected = rows(newer)
    expected["entities"] = [row for row in expected["entities"] if row["id"] != "lonely"]
    expected["triples"] = [{**row, "votes": str(row["votes"])} for row in expected["triples"]]
    assert rows(target) == expected


def test_a_csv_that_is_not_an_export_still_reports_an_unknown_column(tmp_path):
    target = tmp_path / "target.sqlite3"
    (tmp_path / "in.csv").write_text("subject,predicate,object,created_by\nA,b,C,me\n")
    with open_graph(target) as kg:
        report = import_file(kg, tmp_path / "in.csv")
        assert not report.written
        assert report.lines()[0].startswith("line 1: unknown column 'created_by'")
        assert kg.extra_columns("triples") == []


def test_graphml_export_writes_the_columns_as_data_of_their_own_keys(newer, tmp_path):
    nx = pytest.importorskip("networkx")
    with open_graph(newer, read_only=True) as kg:
        export_graph(kg, tmp_path / "graph.graphml")
    graph = nx.read_graphml(tmp_path / "graph.graphml")
    edges = [data for _, _, data in graph.edges(data=True)]
    assert {data["created_by"] for data in edges} == {"mcp:kg_add"}
    assert sorted(data.get("ended_by", "") for data in edges) == ["", "factlines"]
    assert {data["votes"] for data in edges} == {"3"}
    assert graph.nodes["kai"]["aliases"] == '["K.", "Kai M"]'
    assert "aliases" not in graph.nodes["orion"]
