"""Navigating: the entity list follows a selection made elsewhere; Back and Forward."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QAction, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication

from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, find_fact


def selected_name(window) -> str | None:
    browser = window.browser
    rows = browser.view.selectionModel().selectedRows()
    return browser.entity_at(rows[0])["name"] if rows else None


def test_a_link_followed_clears_the_list_filter_and_selects_the_row(window, qtbot):
    window.browser.set_search("Kai")
    window.select_entity("Kai Moreno")
    assert selected_name(window) == "Kai Moreno"
    orion = find_fact(window.kg, "Kai Moreno", "works_on", "Orion")
    index = cell(window, orion["id"], "other_name")
    view = window.facts_table.view
    view.scrollTo(index)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    assert window.state.entity == "orion"
    assert window.browser.search_field.text() == ""
    assert selected_name(window) == "Orion"


def test_a_selection_within_the_filter_keeps_the_filter(window):
    window.browser.set_search("a")
    window.select_entity("Kai Moreno")
    assert window.browser.search_field.text() == "a"
    assert selected_name(window) == "Kai Moreno"


def test_a_type_filter_that_hides_the_entity_is_reset(window):
    browser = window.browser
    browser.type_filter.setCurrentIndex(browser.type_filter.findText("tool"))
    window.select_entity("Kai Moreno")
    assert browser.type_filter.currentIndex() == 0
    assert selected_name(window) == "Kai Moreno"


def test_back_and_forward_go_through_the_entities_selected(window):
    back = window.findChild(QAction, "actionBack")
    forward = window.findChild(QAction, "actionForward")
    assert back.shortcut() == QKeySequence("Ctrl+[")
    assert forward.shortcut() == QKeySequence("Ctrl+]")
    view_menu = next(
        action.menu() for action in window.menuBar().actions() if action.text() == "&View"
    )
    assert back in view_menu.actions() and forward in view_menu.actions()
    for name in ("Kai Moreno", "Orion", "Lumen Labs"):
        window.select_entity(name)
    assert back.isEnabled() and not forward.isEnabled()
    back.trigger()
    assert window.state.entity == "orion"
    assert selected_name(window) == "Orion"
    back.trigger()
    assert window.state.entity == "kai_moreno"
    assert forward.isEnabled()
    forward.trigger()
    assert window.state.entity == "orion"
    window.select_entity("Berlin")  # a new selection drops what lay ahead
    assert not forward.isEnabled()
    back.trigger()
    assert window.state.entity == "orion"


def press(widget, button) -> None:
    event = QMouseEvent(
        QEvent.Type.MouseButtonPress,
        QPointF(5, 5),
        widget.mapToGlobal(QPointF(5, 5)),
        button,
        button,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def test_the_mouse_back_and_forward_buttons(window):
    window.select_entity("Kai Moreno")
    window.select_entity("Orion")
    press(window.gantt, Qt.MouseButton.BackButton)
    assert window.state.entity == "kai_moreno"
    press(window.browser.view.viewport(), Qt.MouseButton.ForwardButton)
    assert window.state.entity == "orion"


def test_another_graph_starts_a_new_history(window):
    window.select_entity("Kai Moreno")
    window.select_entity("Orion")
    window.state.set_kg(window.kg)
    assert not window.findChild(QAction, "actionBack").isEnabled()
