"""``factlines export`` and ``factlines import`` (issue 11): the whole command, in a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from factlines import KnowledgeGraph
from factlines.cli import build_parser
from store_helpers import dump

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
