"""The "recorded by" field beside as_of and the As recorded tab: the selected entity as the
graph had recorded it by an instant, each fact beside what it says now."""

from __future__ import annotations

import sqlite3

from PySide6.QtWidgets import QLineEdit, QTreeWidget

from factlines import KnowledgeGraph
from factlines.core import temporal
from ui_fixtures import *  # noqa: F403
from ui_fixtures import shown_window


def test_the_entity_as_recorded_by_an_instant(qtbot, tmp_path, isolated_settings, monkeypatch):
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "config"))
    path = tmp_path / "graph" / "knowledge_graph.sqlite3"
    path.parent.mkdir()
    kg = KnowledgeGraph(path)
    works = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    lives = kg.add_triple("Kai", "lives_in", "Lisbon", valid_from="2024-01-01")
    later = kg.add_triple("Kai", "knows", "Rosa")
    with sqlite3.connect(path) as conn:
        for tid, stamp in ((works, "03-01"), (lives, "03-01"), (later, "03-10")):
            conn.execute(
                "UPDATE triples SET extracted_at = ? WHERE id = ?", (f"2026-{stamp} 10:00:00", tid)
            )
    conn.close()
    kg.end_fact(lives, "2025-12-31")  # no log says when this end was recorded
    monkeypatch.setattr(temporal, "now_instant", lambda: "2026-03-05T09:00:00Z")
    with kg.logged("End Kai works_on Orion"):
        kg.end_fact(works, "2026-03-04")
    monkeypatch.undo()
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "config"))

    window = shown_window(qtbot, kg, isolated_settings)
    panels = window.panels
    window.select_entity("Kai")
    field = window.findChild(QLineEdit, "recordedAsOf")
    assert field is not None and field.parent() is panels.recorded_field
    panels.recorded_field.set_value("2026-03-03")
    view = window.findChild(QTreeWidget, "asRecordedPanel")
    qtbot.waitUntil(lambda: not panels.as_recorded.busy and view.topLevelItemCount() == 2)
    rows = sorted(
        tuple(view.topLevelItem(i).text(c) for c in range(5))
        for i in range(view.topLevelItemCount())
    )
    assert rows == [
        (
            "Kai lives_in Lisbon",
            "2024-01-01",
            "2025-12-31",
            "ended, recorded when unknown",
            "the same",
        ),
        ("Kai works_on Orion", "2025-01-01", "open", "", "ended 2026-03-04"),
    ]
    assert panels.as_recorded.summary.text() == (
        "Kai as recorded by 2026-03-03: 2 facts; 1 ended since"
    )
    assert panels.as_recorded_dock.isVisible()

    panels.recorded_field.set_value("2026-03-06")
    qtbot.waitUntil(
        lambda: not panels.as_recorded.busy and "2026-03-06" in panels.as_recorded.summary.text()
    )
    said = {view.topLevelItem(i).text(0): view.topLevelItem(i).text(3) for i in range(2)}
    assert said["Kai works_on Orion"] == "2026-03-05T09:00:00Z"
    kg.close()
