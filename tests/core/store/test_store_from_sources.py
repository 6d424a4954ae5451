"""The facts naming one memory, or one source file (what ``facts_from_source`` asks the engine),
on both engines; with no palace to read, the graph's own provenance still answers."""

from __future__ import annotations

import pytest


@pytest.fixture
def graph(kg, tmp_path, monkeypatch):
    # No palace anywhere: MemPalace's configuration points into an empty folder.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "home" / "cfg"))
    for name in ("MEMPALACE_PALACE_PATH", "MEMPALACE_PALACE", "MEMPAL_PALACE_PATH"):
        monkeypatch.delenv(name, raising=False)
    ids = {
        "a": kg.add_triple(
            "Kai",
            "works_on",
            "Orion",
            valid_from="2025-06-01",
            source_drawer_id="drawer_1",
            source_file="notes/team.md",
        ),
        "b": kg.add_triple(
            "Kai", "knows", "Ada", valid_from="2025-01-01", source_drawer_id="drawer_1"
        ),
        "c": kg.add_triple("Ada", "leads", "Nova", source_file="notes/team.md"),
        "d": kg.add_triple("Ada", "leads", "Orion", source_file="notes/other.md"),
        "e": kg.add_triple("Ada", "chose", "Postgres", source_drawer_id="drawer_2"),
        "f": kg.add_triple("Bob", "uses", "Vim"),
    }
    return kg, ids


def test_the_engine_finds_facts_by_drawer_and_by_file(graph):
    kg, ids = graph
    found = kg._store.facts.from_sources(["drawer_1", "drawer_2", "drawer_9"], "notes/team.md")
    assert {f["id"] for f in found} == {ids[k] for k in "abce"}
    assert kg._store.facts.from_sources([], None) == []
    many = [f"drawer_{i}" for i in range(1_200)]  # more than one statement's worth
    assert {f["id"] for f in kg._store.facts.from_sources(many, None)} == {ids[k] for k in "abe"}


def test_with_no_palace_the_graph_still_lists_the_facts_from_one_memory(graph):
    kg, ids = graph
    memory = kg.source_memory(ids["a"])
    assert memory["status"] == "no palace" and memory["text"] is None
    related = kg.facts_from_source(ids["a"])
    assert [f["id"] for f in related["memory"]] == [ids["b"]]
    assert [f["id"] for f in related["file"]] == [ids["c"]]
    assert kg.source_memory(ids["f"]) is None
