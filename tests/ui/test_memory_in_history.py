"""What the History section says of a fact's memory when the palace cannot be read from here,
and of a fact that names no source (the palaces MemPalace builds are in tests/palace)."""

from __future__ import annotations

import pytest

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import shown_window


@pytest.fixture
def server_palace(tmp_path, monkeypatch):
    palace = tmp_path / "palace"
    palace.mkdir()
    (palace / "qdrant_backend.json").write_text("{}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "home" / "cfg"))
    monkeypatch.setenv("MEMPALACE_PALACE_PATH", str(palace))
    monkeypatch.delenv("MEMPALACE_BACKEND", raising=False)
    return palace


def test_a_palace_on_a_server_is_said_in_words(qtbot, tmp_path, server_palace, isolated_settings):
    (tmp_path / "graph").mkdir()
    kg = KnowledgeGraph(tmp_path / "graph" / "kg.sqlite3")
    sourced = kg.add_triple("Kai", "works_on", "Orion", source_drawer_id="drawer_work_1")
    plain = kg.add_triple("Kai", "knows", "Ada")
    win = shown_window(qtbot, kg, isolated_settings)
    win.state.select_entity(kg.get_fact(sourced)["subject"])
    history = win.facts_table.history
    win.state.select_fact(sourced)
    qtbot.waitUntil(lambda: history.memory is not None)
    shown = history.text.toPlainText()
    assert "keeps its memories on a server (qdrant)" in shown and "drawer drawer_work_1" in shown
    win.state.select_fact(plain)
    qtbot.waitUntil(lambda: history.memory is None)
    assert "Memory" not in history.text.toPlainText()
    kg.close()
