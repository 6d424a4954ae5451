"""Contradictions resolved in the window: from the conflicts panel and from the review inbox,
"Keep the newer", "Keep the older", "Both were true: split the time", each one undo step with
the choice kept as the edit's reason."""

from __future__ import annotations

import sqlite3

from PySide6.QtWidgets import QPushButton

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import file_fact, shown_window


def test_keep_the_newer_from_the_conflicts_panel(window, qtbot):
    panel = window.panels.conflicts
    row = next(
        n
        for n, r in enumerate(panel.model.rows)
        if (r["subject"], r["predicate"], r["kind"]) == ("kai_moreno", "lives_in", "overlap")
    )
    conflict = panel.model.rows[row]  # Berlin (2018-09-01 – 2023-08-31), Lisbon (2023-06-01 –)
    panel.view.setCurrentIndex(panel.model.index(row, 0))
    button = window.findChild(QPushButton, "resolveContradiction")
    assert button.isEnabled() and button.parent() is panel
    newer = button.menu().actions()[0]
    assert (newer.objectName(), newer.text()) == ("resolve_newer", "Keep the newer")
    before = window.undo_stack.count()
    newer.trigger()
    assert window.undo_stack.count() == before + 1
    # Recorded together: the later start is the newer; Berlin ends where Lisbon begins.
    assert file_fact(window.path(), conflict["a"])["valid_to"] == "2023-06-01T00:00:00Z"
    entry = window.kg.edit_log(1)[0]
    assert entry["reason"] == "Keep the newer"
    assert entry["what"] == window.undo_stack.undoText()
    qtbot.waitUntil(lambda: conflict["a"] not in {r["a"] for r in panel.model.rows}, timeout=5000)
    window.undo_stack.undo()
    assert file_fact(window.path(), conflict["a"])["valid_to"] == "2023-08-31"


def test_split_the_time_from_the_review_inbox(qtbot, tmp_path, isolated_settings, monkeypatch):
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "config"))
    path = tmp_path / "graph" / "knowledge_graph.sqlite3"
    path.parent.mkdir()
    kg = KnowledgeGraph(path)
    kg.set_single_valued("works_at")
    old = kg.add_triple("Kai", "works_at", "Lumen", valid_from="2020-01-01")
    new = kg.add_triple(
        "Kai", "works_at", "Northwind", valid_from="2024-01-01", valid_to="2025-01-01"
    )
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE triples SET extracted_at = datetime('now', '-2 hours')")
    conn.close()
    window = shown_window(qtbot, kg, isolated_settings)
    panel = window.panels.review
    window.panels.show_dock(window.panels.review_dock)  # the tree is built when in sight
    qtbot.waitUntil(lambda: not panel.inbox.busy and len(panel.items) == 2)
    view = panel.view
    group = view.topLevelItem(0)
    view.setCurrentItem(
        next(group.child(i) for i in range(2) if group.child(i).text(0).find("Northwind") >= 0)
    )
    assert panel.resolve.isEnabled()
    panel.resolve.choices["split"].trigger()
    facts = sorted((f["object"], f["valid_from"], f["valid_to"]) for f in kg.query_entity("Kai"))
    assert facts == [
        ("Lumen", "2020-01-01", "2024-01-01T00:00:00Z"),
        ("Lumen", "2025-01-01T23:59:59Z", None),
        ("Northwind", "2024-01-01", "2025-01-01"),
    ]
    assert kg.edit_log(1)[0]["reason"] == "Both were true: split the time"
    window.undo_stack.undo()
    assert [(f["id"], f["valid_to"]) for f in kg.query_entity("Kai") if f["object"] == "Lumen"] == [
        (old, None)
    ]
    assert kg.get_fact(new)["valid_to"] == "2025-01-01"
    kg.close()
