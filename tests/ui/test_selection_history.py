"""Navigating: the entity list follows a selection made elsewhere; Back and Forward."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDockWidget

from factlines.ui.menus.back_forward import SelectionHistory
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
    """The mouse's ``button`` pressed over ``widget``, as the system delivers it: to the native
    window it is shown in, which hands it to the widget under the pointer."""
    surface = widget.window().windowHandle()
    at = widget.mapTo(widget.window(), QPoint(5, 5))
    QTest.mousePress(surface, button, Qt.KeyboardModifier.NoModifier, at)
    QTest.mouseRelease(surface, button, Qt.KeyboardModifier.NoModifier, at)


def test_the_mouse_back_and_forward_buttons(window):
    window.select_entity("Kai Moreno")
    window.select_entity("Orion")
    press(window.gantt, Qt.MouseButton.BackButton)
    assert window.state.entity == "kai_moreno"
    press(window.browser.view.viewport(), Qt.MouseButton.ForwardButton)
    assert window.state.entity == "orion"


def test_the_mouse_back_button_over_a_floating_dock(window, qtbot):
    window.select_entity("Kai Moreno")
    window.select_entity("Orion")
    dock = next(d for d in window.findChildren(QDockWidget) if d.isVisible())
    dock.setFloating(True)
    qtbot.waitUntil(lambda: dock.windowHandle() is not None and dock.isVisible(), timeout=2000)
    qtbot.wait(50)  # its native window is watched a turn after it floats
    press(dock.widget(), Qt.MouseButton.BackButton)
    assert window.state.entity == "kai_moreno"


def test_the_window_does_not_watch_every_event_of_the_application(window):
    """A Python filter on the application is called for every event of every widget: 2,500 in
    the second after start-up at a million facts, each waiting for the interpreter's lock
    while a worker reads. The mouse's buttons are watched on the window's surfaces."""
    history = window.findChild(SelectionHistory)
    seen: list = []
    history.eventFilter = lambda watched, event: seen.append(watched) or False
    QApplication.sendEvent(window.gantt, QEvent(QEvent.Type.User))
    window.gantt.repaint()
    assert window.gantt not in seen


def test_another_graph_starts_a_new_history(window):
    window.select_entity("Kai Moreno")
    window.select_entity("Orion")
    window.state.set_kg(window.kg)
    assert not window.findChild(QAction, "actionBack").isEnabled()
