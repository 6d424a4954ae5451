"""``factlines export``, ``import`` and ``copy``: the whole command, in a
process."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from factlines import KnowledgeGraph
from factlines.cli import build_parser
from store_helpers import by_id, dump, graph_state

APP = Path(__file__).resolve().parents[1] / "app"


def run(*args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(APP)  # this checkout's package, not an installed one
    env["HOME"] = str(cwd / "home")
    return subprocess.run(
        [sys.executable, "-m", "factlines", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


@pytest.fixture
def graph(tmp_path):
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
        kg.add_triple("Ann", "knows", "Bo", valid_from="2024-01-01")
    return path


def test_the_app_options_still_parse_beside_the_commands():
    args = build_parser().parse_args(["kg.sqlite3", "--entity", "Kai", "--as-of", "2026-01-01"])
    assert (args.path, args.entity, args.as_of) == ("kg.sqlite3", "Kai", "2026-01-01")


@pytest.mark.slow
def test_export_each_format_and_import_the_copy(graph, tmp_path):
    before = dump(graph)
    for name in ("all.json", "all.csv", "all.graphml"):
        result = run("export", graph, tmp_path / name, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "3 facts and 5 entities written" in result.stdout
    assert dump(graph) == before
    copy = tmp_path / "copy.sqlite3"
    result = run("import", copy, tmp_path / "all.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "3 facts and 5 entities imported" in result.stdout
    assert [row for row in dump(copy)["triples"]] == [row for row in before["triples"]]


@pytest.mark.slow
def test_export_a_snapshot_of_one_entity(graph, tmp_path):
    out = tmp_path / "kai.json"
    result = run("export", graph, out, "--as-of", "2025-08-01", "--entity", "Kai", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert [(r["subject"], r["object"]) for r in document["triples"]] == [("kai", "nova")]
    assert {r["id"] for r in document["entities"]} == {"kai", "nova"}
    for args, says in (
        (("export", graph, tmp_path / "x.json", "--entity", "Nobody"), "not in the graph"),
        (("export", graph, tmp_path / "x.json", "--as-of", "2025-02-30"), "no such calendar day"),
        (("export", graph, tmp_path / "x.txt"), ".graphml"),
        (("export", tmp_path / "missing.sqlite3", tmp_path / "x.json"), "does not exist"),
    ):
        result = run(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert says in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "missing.sqlite3").exists()


@pytest.mark.slow
def test_import_with_rejected_rows_exits_1_with_the_report(graph, tmp_path):
    csv_file = tmp_path / "in.csv"
    csv_file.write_text(
        "subject,predicate,object,valid_from\n"
        "Kai,works_on,Vega,2025-09-01\n"
        "Kai,works_on,Lyra,2025-09-31\n"
        "Kai,works_on,Nova,\n",
        encoding="utf-8",
    )
    new = tmp_path / "new.sqlite3"
    result = run("import", new, csv_file, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].startswith("line 3: valid_from='2025-09-31'")
    assert "nothing was written" in result.stderr and "--good-rows" in result.stderr
    assert not new.exists()  # the graph it would have created is not left behind
    before = dump(graph)
    result = run("import", graph, csv_file, cwd=tmp_path)
    assert result.returncode == 1 and dump(graph) == before
    result = run("import", graph, csv_file, "--good-rows", cwd=tmp_path)
    assert result.returncode == 1  # something was rejected, even though the rest went in
    assert "line 4: kai works_on nova is already an open fact" in result.stderr
    assert "1 facts and 1 entities imported" in result.stdout
    with KnowledgeGraph(graph) as kg:
        assert kg.find_open_fact("Kai", "works_on", "Vega")["valid_from"] == "2025-09-01"


@pytest.mark.slow
def test_import_refusals_exit_2(graph, tmp_path):
    not_json = tmp_path / "notes.json"
    not_json.write_text("[1, 2]", encoding="utf-8")
    result = run("import", graph, not_json, cwd=tmp_path)
    assert result.returncode == 2 and "neither a Factlines export" in result.stderr
    result = run("import", graph, tmp_path / "absent.csv", cwd=tmp_path)
    assert result.returncode == 2 and "cannot read" in result.stderr
    assert "Traceback" not in result.stderr


# ── factlines copy ────────────────────────────────────────────────────────


@pytest.mark.slow
def test_copy_a_graph_to_a_new_place_and_back(graph, graph_places, tmp_path):
    with KnowledgeGraph(graph) as kg:
        kg.set_single_valued("works_on")
    before = graph_state(str(graph))
    target = graph_places.new("team")
    result = run("copy", graph, target, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("3 facts and 5 entities (and 1 setting) copied from")
    assert result.stderr == ""  # not a terminal: no progress lines in a script's log
    assert by_id(graph_state(target)) == by_id(before)
    back = tmp_path / "back.sqlite3"
    assert run("copy", target, back, cwd=tmp_path).returncode == 0
    assert by_id(graph_state(str(back))) == by_id(before)
    if graph_places.engine == "sqlite":  # through PostgreSQL rows come back in id order (§10.4)
        assert dump(back) == dump(graph)


@pytest.mark.slow
def test_copy_refusals_exit_2_and_leave_both_sides_as_they_were(graph, graph_places, tmp_path):
    taken = graph_places.new("taken")
    assert run("copy", graph, taken, cwd=tmp_path).returncode == 0
    before = graph_state(taken)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a graph\n", encoding="utf-8")
    absent = graph_places.new("absent")
    for args, says in (
        (("copy", graph, taken), "already holds a graph (3 facts, 5 entities)"),
        (("copy", notes, absent), "not a knowledge graph"),
        (("copy", tmp_path / "missing.sqlite3", absent), "does not exist"),
        (("copy", graph, graph), "is the graph being copied"),
    ):
        result = run(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert says in result.stderr and "Traceback" not in result.stderr
    assert graph_state(taken) == before
    assert notes.read_text(encoding="utf-8") == "not a graph\n"
    assert not graph_places.exists(absent)


def test_a_terminal_is_shown_how_far_the_work_is_and_the_line_is_cleared(monkeypatch):
    from factlines.cli_transfer import TerminalProgress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(TerminalProgress, "EVERY_S", 0.0)
    with TerminalProgress("copying") as shown:
        shown(0, 0)
        shown(42_000, 112_345)
    said = terminal.getvalue()
    assert "copying…" in said and "copying: 42,000 of 112,345 rows" in said
    assert said.endswith("\r") and said.rstrip("\r").split("\r")[-1].strip() == ""


@pytest.mark.slow
def test_export_never_replaces_the_graph_it_reads_nor_any_database(tmp_path):
    graph = tmp_path / "kg.json"  # a graph whose name ends in .json, as a person may call it
    with KnowledgeGraph(graph) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    other = tmp_path / "other.json"  # another graph, named as an export might be
    KnowledgeGraph(other).close()
    before = {path: path.read_bytes() for path in (graph, other)}
    for target in (graph, other):
        result = run("export", graph, target, cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert "never replaces" in result.stderr
    assert {path: path.read_bytes() for path in before} == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


@pytest.mark.slow
def test_export_into_a_missing_folder_is_said_in_words(graph, tmp_path):
    result = run("export", graph, tmp_path / "missing" / "x.json", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"the folder {tmp_path / 'missing'} does not exist" in result.stderr


def test_export_keeps_the_mode_of_the_file_it_replaces(graph, tmp_path):
    from factlines import open_graph
    from factlines.core.transfer import export_graph

    kept, new = tmp_path / "kept.csv", tmp_path / "new.csv"
    kept.write_text("old")
    kept.chmod(0o644)
    umask = os.umask(0o022)
    try:
        with open_graph(graph, read_only=True) as kg:
            export_graph(kg, kept)
            export_graph(kg, new)
    finally:
        os.umask(umask)
    assert kept.stat().st_mode & 0o777 == 0o644 and kept.read_text() != "old"
    assert new.stat().st_mode & 0o777 == 0o644  # 0666 less the umask, not mkstemp's 0600


@pytest.mark.slow
def test_the_app_s_own_csv_imports_back_as_mempalace_stored_it(tmp_path):
    """A text confidence, entity types and properties, a predicate spelled with a space and a
    newer MemPalace's columns come back from the CSV export exactly as stored."""
    from store_helpers import mempalace_class

    source = tmp_path / "mp" / "kg.sqlite3"
    source.parent.mkdir()
    mempalace = mempalace_class()(str(source))
    mempalace.add_entity("Kai", "person", {"role": "lead"})
    mempalace.add_entity("Orion", "project")
    mempalace.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", confidence="high")
    mempalace.add_triple("Kai", "lives_in", "Lisbon", valid_from="2024-03-01", source_file="a.md")
    mempalace.add_triple("Orion", "depends_on", "Nova", confidence=0.25)
    mempalace.close()
    conn = sqlite3.connect(source)
    with conn:
        conn.execute("UPDATE triples SET predicate = 'works on' WHERE predicate = 'works_on'")
        conn.execute("ALTER TABLE triples ADD COLUMN created_by TEXT")
        conn.execute("ALTER TABLE entities ADD COLUMN aliases TEXT")
        conn.execute("UPDATE triples SET created_by = 'mcp:kg_add' WHERE object = 'lisbon'")
        conn.execute("UPDATE entities SET aliases = '[\"K\"]' WHERE id = 'kai'")
    conn.close()
    exported = run("export", source, tmp_path / "export.csv", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    new = tmp_path / "new.sqlite3"
    imported = run("import", new, tmp_path / "export.csv", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr

    def rows(path):
        return {
            table: sorted(
                ({k: v for k, v in row.items() if k != "_rowid"} for row in found),
                key=lambda row: row["id"],
            )
            for table, found in dump(path).items()
        }

    assert rows(new) == rows(source)
    kai_works = next(row for row in rows(new)["triples"] if row["object"] == "orion")
    assert (kai_works["predicate"], kai_works["confidence"]) == ("works on", "high")
