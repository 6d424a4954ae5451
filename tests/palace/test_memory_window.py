"""The memory behind the selected fact in the window: the History section shows it, its links
list and select the other facts from it, and the facts table narrows to it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QUrl

from factlines.ui.look import fact_memory
from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, shown_window

pytestmark = pytest.mark.interop


@pytest.fixture
def memory_window(qtbot, sourced, isolated_settings):
    win = shown_window(qtbot, sourced["kg"], isolated_settings)
    kg = sourced["kg"]
    win.state.select_entity(kg.get_fact(sourced["ids"]["mined"])["subject"])
    win.state.select_fact(sourced["ids"]["mined"])
    history = win.facts_table.history
    qtbot.waitUntil(lambda: history.memory is not None)
    return win


def test_the_history_shows_the_memory_with_the_fact_marked(memory_window, sourced):
    history = memory_window.facts_table.history
    shown = history.text.toPlainText()
    assert "Kai joined Orion in June 2025" in shown
    assert "work / team · team.md · 20" in shown  # wing / room · file · the date it was filed
    assert "Other facts from this memory · from this file" in shown
    marked = fact_memory.marked(history.memory["text"], ["Kai", "Orion"])
    assert marked.count("<b style=") == sourced["stored"][sourced["mined"][0]]["text"].count(
        "Kai"
    ) + sourced["stored"][sourced["mined"][0]]["text"].count("Orion")


def test_the_links_list_the_other_facts_and_select_one(memory_window, sourced, qtbot):
    history, ids = memory_window.facts_table.history, sourced["ids"]
    history.text.anchorClicked.emit(QUrl(fact_memory.SAME_MEMORY))
    assert "Other facts from this memory (1)" in history.text.toPlainText()
    assert "Kai works_with Ada" in history.text.toPlainText()
    history.text.anchorClicked.emit(QUrl(fact_memory.SAME_FILE))
    assert "Other facts from this file (2)" in history.text.toPlainText()
    assert "Ada leads Nova" in history.text.toPlainText()
    history.text.anchorClicked.emit(QUrl(fact_memory.FACT_LINK + ids["other_drawer"]))
    kg = sourced["kg"]
    assert memory_window.state.entity == kg.get_fact(ids["other_drawer"])["subject"]
    assert memory_window.state.fact == ids["other_drawer"]
    qtbot.waitUntil(lambda: "Ada leads Nova since 2024" in history.text.toPlainText())


def test_the_table_narrows_to_the_facts_from_one_memory(memory_window, sourced):
    editor, ids = memory_window.facts_table, sourced["ids"]
    everything = editor.memory_filter.shown()
    editor.history.text.anchorClicked.emit(QUrl(fact_memory.ONLY_THIS_MEMORY))
    assert editor.memory_filter.shown() == 2 < everything
    assert not editor.view.isRowHidden(cell(memory_window, ids["same_drawer"], "predicate").row())
    assert editor.view.isRowHidden(cell(memory_window, ids["split"], "predicate").row())
    assert editor.memory_filter.bar.isVisible()
    assert "Only the facts from the memory work / team" in editor.memory_filter.note.text()
    memory_window.findChild(object, "memoryFilterShowAll").click()
    assert editor.memory_filter.shown() == everything and not editor.memory_filter.bar.isVisible()


def test_the_facts_tooltip_tells_the_memory(memory_window, sourced):
    index = cell(memory_window, sourced["ids"]["mined"], "predicate")
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert "Memory (work / team · team.md" in tip and "Kai joined Orion" in tip
