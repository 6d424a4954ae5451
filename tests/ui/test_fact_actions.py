"""One set of fact actions: the Edit menu, the facts table's buttons and context menu, and the
chart's context menu show the same QActions, each with one rule and one wording; an action
that cannot work is disabled and says why."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from factlines.core import temporal
from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, dump, file_fact, find_fact

NAMES = {
    "action_add_fact": "actionAddFact",
    "action_edit_fact": "actionEditFact",
    "action_end_fact": "actionEndFact",
    "action_end_fact_at": "actionEndFactAt",
    "action_replace_fact": "actionReplaceFact",
    "action_delete_fact": "actionDeleteFact",
    "action_rename": "actionRenameEntity",
    "action_merge": "actionMergeEntity",
}


def edit_menu(window) -> QMenu:
    return next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Edit")


def test_the_menu_the_buttons_and_the_table_menu_share_one_set(window):
    shared = window.fact_actions.commands
    in_menu = set(edit_menu(window).actions())
    for attribute, name in NAMES.items():
        action = getattr(window, attribute)
        assert action.objectName() == name and action in in_menu
        assert window.findChild(QAction, name) is action and action.parent() is window
    for key, action in (
        ("add", shared.add),
        ("edit", shared.edit),
        ("end", shared.end),
        ("replace", shared.replace),
        ("delete", shared.delete),
    ):
        assert window.facts_table.buttons[key].defaultAction() is action
    # The table's context menu offers the same actions, for the row's fact.
    window.select_entity("Kai Moreno")
    orion = find_fact(window.kg, "Kai Moreno", "works_on", "Orion")
    view = window.facts_table.view
    pos = view.visualRect(cell(window, orion["id"], "predicate")).center()
    menu = window.facts_table.context_menu(pos)
    assert window.state.fact == orion["id"]
    assert menu.actions()[:5] == shared.fact_actions()


def test_end_is_offered_only_when_it_can_work_and_says_why_not(window, demo, monkeypatch):
    end, end_at, replace = (
        window.action_end_fact,
        window.action_end_fact_at,
        window.action_replace_fact,
    )
    window.select_entity("Kai Moreno")
    assert not end.isEnabled() and "select a fact first" in end.toolTip()
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")  # from 2026-03-15, open
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")  # ended 2026-03-01
    window.state.select_fact(nova["id"])
    window.set_as_of("2026-01-01")
    assert end.text().replace("&", "") == "End fact at 2026-01-01"
    assert not end.isEnabled()
    assert end.toolTip() == (
        "Cannot end “Kai Moreno works_on Nova” at 2026-01-01: it starts on 2026-03-15, "
        "after as_of (2026-01-01)"
    )
    assert end_at.isEnabled() and replace.isEnabled()  # another time can be chosen there
    button = window.facts_table.buttons["end"]
    assert not button.isEnabled() and button.toolTip() == end.toolTip()
    assert button.text() == "End at as_of"

    # Moving as_of re-applies the rule from what is held: no store read.
    calls = []
    for name in ("get_fact", "interval_table", "get_entity"):
        original = getattr(demo, name)
        monkeypatch.setattr(
            demo, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    window.set_as_of("2026-06-30")
    assert calls == []
    assert end.isEnabled() and "at as_of (2026-06-30)" in end.toolTip()
    window.set_as_of(None)
    today = temporal.today()
    assert end.text().replace("&", "") == f"End fact today ({today})"

    window.state.select_fact(orion["id"])
    for action in (end, end_at, replace):
        assert not action.isEnabled()
        assert action.toolTip().endswith("it already ended on 2026-03-01")
    assert window.action_edit_fact.isEnabled() and window.action_delete_fact.isEnabled()


def test_ending_through_the_action_updates_its_rule(window, demo):
    window.select_entity("Kai Moreno")
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    window.state.select_fact(nova["id"])
    window.set_as_of("2026-06-30")
    window.action_end_fact.trigger()
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-06-30"
    assert not window.action_end_fact.isEnabled()
    window.action_undo.trigger()
    assert window.action_end_fact.isEnabled()


def test_entity_actions_need_an_entity(window):
    for action in (window.action_rename, window.action_merge):
        assert not action.isEnabled() and "select an entity first" in action.toolTip()
    window.select_entity("Kai Moreno")
    assert window.action_rename.isEnabled() and window.action_merge.isEnabled()
    assert window.action_add_fact.isEnabled()


def test_a_read_only_graph_offers_no_edit(window, demo):
    before = dump(demo.db_path)
    assert window.open_path(demo.db_path, read_only=True, remember=False)
    window.select_entity("Kai Moreno")
    nova = find_fact(window.kg, "Kai Moreno", "works_on", "Nova")
    window.state.select_fact(nova["id"])
    for attribute in NAMES:
        action = getattr(window, attribute)
        assert not action.isEnabled(), attribute
        assert "the graph is open read-only (opened read-only, as asked)" in action.toolTip()
    window.action_end_fact.trigger()  # disabled: nothing happens
    assert dump(demo.db_path) == before


@pytest.mark.parametrize("as_of", ["2026-01-01", "2026-06-30"])
def test_the_charts_menu_selects_the_bar_then_mirrors_the_shared_actions(window, demo, as_of):
    chart = window.gantt
    window.select_entity("Kai Moreno")
    window.set_as_of(as_of)
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    menu = chart.bar_menu(chart.bars.layout.index_of(nova["id"]), temporal.to_posix("2026-09-01"))
    assert window.state.fact == nova["id"]
    entries = {a.objectName(): a for a in menu.actions()}
    shared = window.fact_actions.commands
    for name, action in (
        ("ganttEndAtAsOf", shared.end),
        ("ganttReplace", shared.replace),
        ("ganttEdit", shared.edit),
        ("ganttDelete", shared.delete),
    ):
        entry = entries[name]
        assert (entry.text(), entry.isEnabled(), entry.toolTip()) == (
            action.text(),
            action.isEnabled(),
            action.toolTip(),
        )
    # Ending where the mouse is follows the same rule, for the day clicked.
    assert entries["ganttEndHere"].isEnabled()
    before_start = chart.bar_menu(
        chart.bars.layout.index_of(nova["id"]), temporal.to_posix("2026-02-01")
    )
    here = next(a for a in before_start.actions() if a.objectName() == "ganttEndHere")
    assert not here.isEnabled() and "it starts on 2026-03-15, after" in here.toolTip()
