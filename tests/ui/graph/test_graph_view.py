"""The neighbourhood graph in the window: clicking a neighbour, drawing only when shown."""

from __future__ import annotations

from PySide6.QtCore import Qt

from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, find_fact


def test_clicking_the_other_entity_and_a_graph_neighbour_selects_it(window, qtbot):
    window.select_entity("Kai Moreno")
    orion = find_fact(window.kg, "Kai Moreno", "works_on", "Orion")
    index = cell(window, orion["id"], "other_name")
    view = window.triple_editor.view
    view.scrollTo(index)  # the facts dock is short: the chart has most of the height
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    assert window.state.entity == "orion"
    graph = window.graph_view
    ids = {n["id"] for n in graph.drawn_neighbours()}
    assert "kai_moreno" in ids
    node = next(item for item, _l, _s in graph._nodes if item.data(0) == "kai_moreno")
    pos = graph.mapFromScene(node.scenePos())
    qtbot.mouseClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert window.state.entity == "kai_moreno"


def test_a_hidden_graph_is_drawn_when_shown_not_on_every_selection(window, qtbot):
    window.select_entity("Kai Moreno")
    graph_dock = window.graph_view.parentWidget()
    graph_dock.hide()
    builds = []
    original = window.graph_view._node
    window.graph_view._node = lambda *args: builds.append(args) or original(*args)
    window.select_entity("Orion")
    window.set_as_of("2026-04-01")
    assert builds == []  # nothing drawn while hidden
    graph_dock.show()
    qtbot.waitUntil(lambda: bool(builds), timeout=2000)
    neighbours = {n["id"]: n for n in window.graph_view.drawn_neighbours()}
    assert "kai_moreno" in neighbours  # Orion's, not Kai's
    assert "lisbon" not in neighbours
    assert neighbours["kai_moreno"]["valid_at_as_of"] is False  # restyled at the new as_of
