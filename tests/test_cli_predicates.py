"""``factlines predicates`` and ``factlines rename-predicate``: the whole command,
in a process."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import KnowledgeGraph
from store_helpers import dump
from test_cli_transfer import run

# Kai worked on Orion, works on Nova; Ann's look-alike predicate says the same relation.
FACTS = (
    ("Kai", "works_on", "Orion", "2025-01-01", "2025-06-30"),
    ("Kai", "works_on", "Nova", "2025-07-01", None),
    ("Ann", "working_on", "Nova", "2025-08-01", None),
)


@pytest.fixture
def vocabulary(tmp_path):
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        for subject, predicate, obj, start, end in FACTS:
            kg.add_triple(subject, predicate, obj, valid_from=start, valid_to=end)
    return path


@pytest.mark.slow
def test_predicates_lists_figures_and_signals_reading_only(vocabulary, tmp_path):
    before = dump(vocabulary)
    done = run("predicates", vocabulary, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "predicate",
        "valid",
        "now",
        "ended",
        "subjects",
        "objects",
        "signals",
    ]
    assert lines[1].split() == [
        "working_on",
        "1",
        "0",
        "1",
        "1",
        "one-off,",
        "near-duplicate",
        "of",
        "works_on",
    ]
    assert lines[2].split() == [
        "works_on",
        "1",
        "1",
        "1",
        "2",
        "near-duplicate",
        "of",
        "working_on",
    ]
    assert dump(vocabulary) == before


@pytest.mark.slow
def test_rename_predicate_merges_keeping_history_and_refuses_in_words(vocabulary, tmp_path):
    graph = vocabulary
    done = run("rename-predicate", graph, "working_on", "works on", "--at", "2026-01-01",
               "--reason", "one relation", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "working_on merged into works_on: 1 fact ended and continued as works_on from "
        "2026-01-01T00:00:00Z"
    )
    with sqlite3.connect(str(graph)) as conn:
        rows = conn.execute(
            "SELECT subject, predicate, object, valid_from, valid_to FROM triples "
            "WHERE subject = 'ann' ORDER BY rowid"
        ).fetchall()
        assert rows == [
            ("ann", "working_on", "nova", "2025-08-01", "2026-01-01T00:00:00Z"),
            ("ann", "works_on", "nova", "2026-01-01T00:00:00Z", None),
        ]
        assert conn.execute("SELECT what, reason FROM fl_edit_log").fetchall() == [
            ("Merge predicate working_on into works_on", "one relation")
        ]
    before = dump(graph)
    refused = run("rename-predicate", graph, "working_on", "x", cwd=tmp_path)
    assert refused.returncode == 2
    assert "no fact of 'working_on' is open" in refused.stderr
    refused = run("rename-predicate", tmp_path / "none.sqlite3", "a", "b", cwd=tmp_path)
    assert refused.returncode == 2 and "does not exist" in refused.stderr
    assert dump(graph) == before
