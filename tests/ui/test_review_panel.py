"""The review inbox in the window: what was recorded since the person last looked, grouped by
entity, newest first; keep, end, show on the chart, mark all reviewed, kept in the file; the
count in the status bar and a note on opening."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from PySide6.QtWidgets import QLabel, QTreeWidget

from factlines import KnowledgeGraph
from factlines.ui.menus.edits import FactActions
from factlines.ui.panels.review import ITEM_ROLE
from ui_fixtures import *  # noqa: F403
from ui_fixtures import shown_window


def _ago(**delta) -> str:
    return (datetime.now(timezone.utc) - timedelta(**delta)).strftime("%Y-%m-%d %H:%M:%S")


@pytest.fixture
def recorded(tmp_path, monkeypatch) -> tuple:
    """A graph of three facts recorded 2 h, 1 h and 10 days ago; MemPalace's config (and its
    write log) in a folder of the test's."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = tmp_path / "graph" / "knowledge_graph.sqlite3"
    path.parent.mkdir()
    with KnowledgeGraph(path) as kg:
        ids = [
            kg.add_triple("Kai", "works_on", "Orion", valid_from="2026-01-01"),
            kg.add_triple("Rosa", "lives_in", "Lisbon"),
            kg.add_triple("Kai", "knows", "Rosa"),
        ]
    with sqlite3.connect(path) as conn:
        for tid, stamp in zip(ids, (_ago(hours=2), _ago(hours=1), _ago(days=10))):
            conn.execute("UPDATE triples SET extracted_at = ? WHERE id = ?", (stamp, tid))
    conn.close()
    return path, ids


def _open(qtbot, path, settings):
    kg = KnowledgeGraph(path)
    window = shown_window(qtbot, kg, settings)
    panel = window.panels.review
    window.panels.show_dock(window.panels.review_dock)  # the tree is built when in sight
    qtbot.waitUntil(lambda: not panel.inbox.busy and panel._inbox is not None)
    return kg, window, panel


def _rows(panel) -> list[tuple]:
    view = panel.findChild(QTreeWidget, "reviewPanel")
    return [
        (view.topLevelItem(i).text(0), view.topLevelItem(i).child(j).text(1))
        for i in range(view.topLevelItemCount())
        for j in range(view.topLevelItem(i).childCount())
    ]


def _select(panel, tid: str) -> None:
    view = panel.view
    for i in range(view.topLevelItemCount()):
        group = view.topLevelItem(i)
        for j in range(group.childCount()):
            item = group.child(j).data(0, ITEM_ROLE)
            if item["fact"]["id"] == tid:
                view.setCurrentItem(group.child(j))
                return
    raise AssertionError(f"{tid} is not listed")


def test_the_inbox_lists_what_was_recorded_this_week_by_entity_newest_first(
    qtbot, recorded, isolated_settings
):
    path, (kai, rosa, _old) = recorded
    kg, window, panel = _open(qtbot, path, isolated_settings)
    assert _rows(panel) == [("Rosa", "Added"), ("Kai", "Added")]
    assert [i["fact"]["id"] for i in panel.items] == [rosa, kai]
    assert window.findChild(QLabel, "reviewCountLabel").text() == "2 to review"
    assert "never reviewed" in panel.summary.text()
    assert window.statusBar().currentMessage() == (
        "2 recorded since you last reviewed: see the Review panel"
    )
    _select(panel, kai)
    panel.buttons["show"].click()
    assert (window.selected_entity(), window.selected_fact()) == ("kai", kai)
    kg.close()


def test_keep_end_and_mark_all_reviewed_are_kept_in_the_file(
    qtbot, recorded, isolated_settings, monkeypatch
):
    path, (kai, rosa, _old) = recorded
    kg, window, panel = _open(qtbot, path, isolated_settings)
    _select(panel, kai)
    panel.buttons["keep"].click()
    qtbot.waitUntil(lambda: not panel.inbox.busy and len(panel.items) == 1)
    assert _rows(panel) == [("Rosa", "Added")]

    monkeypatch.setattr(FactActions, "_exec", lambda self, dialog: True)  # the form's default
    _select(panel, rosa)
    panel.buttons["end"].click()
    assert kg.get_fact(rosa)["valid_to"] is not None
    qtbot.waitUntil(lambda: not panel.inbox.busy and len(panel.items) == 2, timeout=5000)
    assert [(i["kind"], i["by"]) for i in panel.items] == [("ended", "Factlines"), ("added", None)]

    panel.buttons["all"].click()
    qtbot.waitUntil(lambda: not panel.inbox.busy and panel.items == [])
    assert window.findChild(QLabel, "reviewCountLabel").text() == ""
    with sqlite3.connect(path) as conn:
        keys = dict(conn.execute("SELECT key, value FROM fl_meta").fetchall())
    conn.close()
    assert keys["reviewed_up_to"] >= datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M")[:13]
    window.close()
    kg.close()

    kg, window, panel = _open(qtbot, path, isolated_settings)  # opened again: nothing waits
    assert panel.items == [] and "since you last reviewed" in panel.summary.text()
    assert "recorded since" not in window.statusBar().currentMessage()
    kg.close()


def test_a_read_only_graph_lists_but_keeps_no_mark(qtbot, recorded, isolated_settings):
    path, _ids = recorded
    kg = KnowledgeGraph(path, read_only=True)
    window = shown_window(qtbot, kg, isolated_settings)
    panel = window.panels.review
    qtbot.waitUntil(lambda: not panel.inbox.busy and panel._inbox is not None)
    assert len(panel.items) == 2
    assert not panel.buttons["all"].isEnabled() and not panel.buttons["keep"].isEnabled()
    assert "Not kept" in panel.buttons["all"].toolTip()
    kg.close()


# ── Likely duplicates, under the inbox ────────────────────────────────────


def test_duplicates_are_merged_in_one_undo_step_or_kept_apart(qtbot, recorded, isolated_settings):
    path, _ids = recorded
    with KnowledgeGraph(path) as kg:
        kg.add_entity("Kái-Moreno", "person")
        kg.add_triple("Kái-Moreno", "works_on", "Nova")
        kg.add_entity("Kai Moreno", "person")
        kg.add_entity("Rosa Diaz")
    kg, window, panel = _open(qtbot, path, isolated_settings)
    section = panel.duplicates
    qtbot.waitUntil(lambda: not section.finder.busy and len(section.groups) == 2)
    view = window.findChild(QTreeWidget, "reviewDuplicates")
    said = [tuple(view.topLevelItem(i).text(c) for c in range(2)) for i in range(2)]
    assert said == [("Surely", "Kai Moreno, Kái-Moreno"), ("Likely", "Rosa, Rosa Diaz")]

    section.select(0)
    titles = [action.text() for action in section.merge_menu.actions()]
    assert titles == ["Merge into “Kai Moreno”", "Merge into “Kái-Moreno”"]
    section.merge_menu.actions()[0].trigger()
    assert kg.get_entity("Kai Moreno")["properties"] == {"aliases": ["Kái-Moreno"]}
    assert [f["object"] for f in kg.query_entity("Kai Moreno")] == ["Nova"]
    assert window.undo_stack.undoText() == "Merge Kái-Moreno into Kai Moreno"
    window.undo_stack.undo()
    assert kg.get_entity("Kái-Moreno") is not None
    assert kg.get_entity("Kai Moreno")["properties"] == {}

    qtbot.waitUntil(lambda: not section.finder.busy and len(section.groups) == 2)
    section.select(1)
    assert section.not_the_same()
    qtbot.waitUntil(lambda: not section.finder.busy and len(section.groups) == 1)
    assert kg.not_duplicates() == {frozenset({"rosa", "rosa_diaz"})}
    kg.close()


def test_behind_another_tab_the_inbox_builds_no_rows_until_it_is_shown(
    qtbot, recorded, isolated_settings
):
    path, _ids = recorded
    kg = KnowledgeGraph(path)
    window = shown_window(qtbot, kg, isolated_settings)
    panel = window.panels.review
    window.panels.show_dock(window.facts_dock)  # the Facts tab in front, as at start
    qtbot.waitUntil(lambda: not panel.inbox.busy and panel._inbox is not None)
    assert panel.visibleRegion().isEmpty() and panel.view.topLevelItemCount() == 0
    assert panel.count_label.text() == "2 to review"  # the count is there all the same
    # An edit while it is out of sight is not read after (a big week held the window up):
    # the inbox is read again when the panel comes to the front.
    assert window.fact_actions.add_fact("Kai", "knows", "Zoe")
    qtbot.waitUntil(lambda: panel.inbox.stale, timeout=5000)
    assert not panel.inbox.busy and panel.count_label.text() == "2 to review"
    window.panels.show_dock(window.panels.review_dock)
    qtbot.waitUntil(lambda: panel.count_label.text() == "3 to review", timeout=5000)
    assert len(_rows(panel)) == 3
    kg.close()


def test_behind_another_tab_likely_duplicates_are_looked_for_only_once_it_is_shown(
    qtbot, recorded, isolated_settings, monkeypatch
):
    # Looking for them reads every entity (1.7-1.9 s of a worker at 300,000 facts), and the
    # list shows nowhere else: not at open, nor after writes, while the panel is behind a tab.
    path, _ids = recorded
    with KnowledgeGraph(path) as kg:
        kg.add_entity("Rosa Diaz")
    asked = []
    find = KnowledgeGraph.duplicate_entities
    monkeypatch.setattr(
        KnowledgeGraph, "duplicate_entities", lambda kg, **k: asked.append(1) or find(kg, **k)
    )
    kg = KnowledgeGraph(path)
    window = shown_window(qtbot, kg, isolated_settings)
    panel = window.panels.review
    window.panels.show_dock(window.facts_dock)  # the Facts tab in front, as at start
    assert window.fact_actions.add_fact("Kai", "knows", "Zoe")
    qtbot.waitUntil(lambda: panel.duplicates.finder.stale, timeout=5000)
    qtbot.wait(500)  # past the refresh after writes
    assert asked == [] and not panel.duplicates.finder.busy
    window.panels.show_dock(window.panels.review_dock)
    section = panel.duplicates
    qtbot.waitUntil(lambda: not section.finder.busy and len(section.groups) == 1, timeout=5000)
    assert asked == [1]
    kg.close()
