"""The keyboard moves between the panes: F6 / Shift+F6 from pane to pane, Tab out of a table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from factlines.ui.app import select_richest
from ui_fixtures import *  # noqa: F403


def focused():
    return QApplication.focusWidget()


def press(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(focused(), key, modifier)
    QApplication.processEvents()


def test_tab_leaves_the_entity_table_and_the_facts_table(window, qtbot):
    select_richest(window)
    window.activateWindow()
    for table in (window.browser.view, window.facts_table.view):
        table.setFocus()
        qtbot.waitUntil(lambda t=table: focused() is t, timeout=2000)
        press(qtbot, Qt.Key.Key_Tab)
        assert focused() is not table, f"Tab stayed in {table.objectName()}"
        table.setFocus()
        press(qtbot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        assert focused() is not table, f"Shift+Tab stayed in {table.objectName()}"


def test_f6_goes_round_the_panes_and_shift_f6_back(window, qtbot):
    select_richest(window)
    window.activateWindow()
    window.browser.view.setFocus()
    qtbot.waitUntil(lambda: focused() is window.browser.view, timeout=2000)
    visited = []
    for _ in range(4):
        press(qtbot, Qt.Key.Key_F6)
        visited.append(focused())
    assert visited == [
        window.gantt.canvas,
        window.facts_table.view,
        window.graph_view,
        window.browser.view,
    ]
    press(qtbot, Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    assert focused() is window.graph_view
    window.panels.show_dock(window.panels.conflicts_dock)  # another tab in front
    QApplication.processEvents()
    press(qtbot, Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    assert window.panels.conflicts.isAncestorOf(focused())
