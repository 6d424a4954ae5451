"""File → Open MemPalace's graph lists the graphs MemPalace itself would open, and says when
its default file and the palace's both exist."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import messages_of


@pytest.fixture
def two_graphs(tmp_path, monkeypatch):
    home = tmp_path / "home"
    palace = tmp_path / "palace"
    (home / ".mempalace").mkdir(parents=True)
    palace.mkdir()
    for folder, who in ((home / ".mempalace", "Default"), (palace, "Palace")):
        with KnowledgeGraph(folder / "knowledge_graph.sqlite3") as kg:
            kg.add_triple(who, "lives_in", "here")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMPALACE_PALACE_PATH", str(palace))
    for name in ("MEMPALACE_PALACE", "MEMPAL_PALACE_PATH", "MEMPALACE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home / ".mempalace" / "knowledge_graph.sqlite3", palace / "knowledge_graph.sqlite3"


def test_both_of_mempalaces_graphs_are_listed_and_either_opens(window, two_graphs):
    default, in_palace = two_graphs
    actions = window.file_actions
    actions.update_mempalace_action()
    entries = actions.mempalace_menu.actions()
    assert [a.text() for a in entries] == [f"Default: {default}", f"Palace: {in_palace}"]
    assert all(a.isEnabled() for a in entries)
    assert "both exist" in window.action_open_mempalace.statusTip()
    entries[1].trigger()
    assert window.path() == str(in_palace.resolve())
    assert window.kg.get_entity("Palace") is not None


def test_opening_mempalaces_graph_says_when_there_are_two(window, two_graphs):
    default, _ = two_graphs
    said = messages_of(window)
    assert window.open_mempalace()
    assert window.path() == str(default.resolve())
    assert any("both exist" in m for m in said)


def test_no_mempalace_graph_is_said_in_words(window, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEMPALACE_PALACE_PATH", str(tmp_path / "nowhere"))
    window.file_actions.update_mempalace_action()
    assert not window.action_open_mempalace.isEnabled()
    assert [a.isEnabled() for a in window.file_actions.mempalace_menu.actions()] == [False, False]
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    assert not window.open_mempalace()
    assert len(warnings) == 1 and "No MemPalace graph at" in warnings[0]
