"""Palaces built by MemPalace 3.11 itself, once per backend per session, and a graph whose facts
name their drawers."""

from __future__ import annotations

import pytest
from palace_helpers import BACKENDS, build, mempalace_home

from factlines import KnowledgeGraph


@pytest.fixture(scope="session", params=BACKENDS)
def built(request, tmp_path_factory) -> dict:
    return build(request.param, tmp_path_factory.mktemp(request.param))


@pytest.fixture
def mempalace_env(built, monkeypatch) -> dict:
    for name in ("MEMPALACE_PALACE_PATH", "MEMPALACE_PALACE", "MEMPAL_PALACE_PATH"):
        monkeypatch.delenv(name, raising=False)
    for name in ("MEMPALACE_BACKEND", "MEMPALACE_BACKEND_EXPLICIT", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in mempalace_home(built["folder"]).items():
        monkeypatch.setenv(name, value)
    return built


@pytest.fixture
def sourced(mempalace_env, tmp_path) -> dict:
    """A graph (outside the palace) whose facts name the palace's drawers in every way, and the
    ids of those facts, by what each names."""
    filed = mempalace_env
    source_file = filed["source_file"]
    mined, split = filed["mined"], filed["split"]
    (tmp_path / "graph").mkdir()
    kg = KnowledgeGraph(tmp_path / "graph" / "knowledge_graph.sqlite3")
    facts = {
        "mined": (
            ("Kai", "works_on", "Orion"),
            dict(
                source_drawer_id=mined[0],
                source_file=source_file,
                source_closet=filed["closets"][0],
            ),
        ),
        "same_drawer": (("Kai", "works_with", "Ada"), dict(source_drawer_id=mined[0])),
        "other_drawer": (("Ada", "leads", "Nova"), dict(source_drawer_id=mined[1])),
        "file_only": (("Nova", "ships_in", "spring"), dict(source_file=source_file)),
        "mcp": (("Ada", "chose", "Postgres"), dict(source_drawer_id=filed["mcp"])),
        "split": (("Kai", "reviewed", "Orion"), dict(source_drawer_id=split["group"])),
        "chunk": (("Kai", "reviews", "Orion part 29"), dict(source_drawer_id=split["chunks"][2])),
        "dangling": (
            ("Kai", "met", "Lena"),
            dict(source_drawer_id="drawer_work_team_000000000000000000000000"),
        ),
        "free_text": (("Kai", "likes", "Mondays"), dict(source_drawer_id="what Kai said")),
        "none": (("Ada", "knows", "Kai"), {}),
    }
    ids = {
        name: kg.add_triple(*triple, valid_from=f"2025-0{n % 9 + 1}-01", **source)
        for n, (name, (triple, source)) in enumerate(facts.items())
    }
    yield {**filed, "kg": kg, "ids": ids}
    kg.close()
