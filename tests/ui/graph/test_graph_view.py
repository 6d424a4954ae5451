"""The neighbourhood graph in the window: depth, clicking a node, drawing only when shown, a
layout that stays put while as_of moves, "N of M shown", the diff, labels that can be read."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from factlines import KnowledgeGraph
from factlines.core.errors import Unavailable
from factlines.ui import MainWindow
from factlines.ui.graph import look
from factlines.ui.graph.view import MAX_NEIGHBOURS, MORE_NEIGHBOURS
from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, find_fact


def settle(qtbot) -> None:
    qtbot.wait(5)
    QApplication.processEvents()


def node_point(graph, entity_id: str):
    item = graph._scene.nodes[entity_id]
    return graph.mapFromScene(item.scenePos())


def bfs(path, centre: str, depth: int) -> set[str]:
    """Every entity within ``depth`` facts of ``centre``, whenever the facts held."""
    conn = sqlite3.connect(str(path))
    rows = conn.execute("SELECT subject, object FROM triples").fetchall()
    conn.close()
    seen, frontier = {centre}, {centre}
    for _ in range(depth):
        frontier = {o for s, o in rows if s in frontier} | {s for s, o in rows if o in frontier}
        frontier -= seen
        seen |= frontier
    return seen - {centre}


def test_clicking_the_other_entity_and_a_graph_neighbour_selects_it(window, qtbot):
    window.select_entity("Kai Moreno")
    orion = find_fact(window.kg, "Kai Moreno", "works_on", "Orion")
    index = cell(window, orion["id"], "other_name")
    view = window.facts_table.view
    view.scrollTo(index)  # the facts dock is short: the chart has most of the height
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    assert window.state.entity == "orion"
    graph = window.graph_view
    ids = {n["id"] for n in graph.drawn_neighbours()}
    assert "kai_moreno" in ids
    qtbot.mouseClick(
        graph.viewport(), Qt.MouseButton.LeftButton, pos=node_point(graph, "kai_moreno")
    )
    assert window.state.entity == "kai_moreno"


def test_a_hidden_graph_is_drawn_when_shown_not_on_every_selection(window, qtbot):
    window.select_entity("Kai Moreno")
    graph_dock = window.graph_view.parentWidget()
    graph_dock.hide()
    builds = []
    original = window.graph_view._read_and_build
    window.graph_view._read_and_build = lambda *args: builds.append(args) or original(*args)
    window.select_entity("Orion")
    window.set_as_of("2026-04-01")
    assert builds == []  # nothing drawn while hidden
    graph_dock.show()
    qtbot.waitUntil(lambda: bool(builds), timeout=2000)
    neighbours = {n["id"]: n for n in window.graph_view.drawn_neighbours()}
    assert "kai_moreno" in neighbours  # Orion's, not Kai's
    assert "lisbon" not in neighbours
    assert neighbours["kai_moreno"]["valid_at_as_of"] is False  # restyled at the new as_of


@pytest.mark.parametrize("entity", ["kai_moreno", "lumen_labs", "biscuit"])
def test_each_depth_draws_the_entities_a_walk_over_every_fact_reaches(window, demo, entity):
    window.state.select_entity(entity)
    graph = window.graph_view
    for depth in (1, 2, 3, 1):
        graph.set_depth(depth)
        drawn = graph.drawn_neighbours()
        expected = bfs(demo.db_path, entity, depth)
        assert len(expected) <= MAX_NEIGHBOURS  # the demo is small: nothing is capped
        assert {n["id"] for n in drawn} == expected
        rings = bfs(demo.db_path, entity, depth - 1) if depth > 1 else set()
        assert all((n["ring"] < depth) == (n["id"] in rings) for n in drawn)
        assert not graph.shown_button.isVisible()
        assert graph.depth_buttons.checkedId() == depth
        # Every edge joins nodes one ring apart and each fact on it links its two nodes.
        ring = {n["id"]: n["ring"] for n in drawn} | {entity: 0}
        for edge in graph.drawn_edges():
            assert ring[edge["outer"]] == ring[edge["inner"]] + 1
            for tid in edge["facts"]:
                fact = demo.get_fact(tid)
                assert {fact["subject"], fact["object"]} == {edge["inner"], edge["outer"]}


def at_depth_two(window, qtbot, entity: str, as_of: str):
    window.select_entity(entity)
    graph = window.graph_view
    graph.set_depth(2)
    window.set_as_of(as_of)
    settle(qtbot)
    return graph


def test_nodes_stay_put_while_as_of_moves_and_only_their_style_follows(window, qtbot):
    graph = at_depth_two(window, qtbot, "Lumen Labs", "2019-06-01")

    def places():
        return {
            n["id"]: (graph.mapFromScene(QPointF(n["x"], n["y"])), n["x"], n["y"])
            for n in graph.drawn_neighbours()
        }

    before, styles = places(), set()
    for _ in range(40):  # forty steps a day apart, then a year at a time
        window.time_control.step(days=1)
        settle(qtbot)
        assert places() == before
    for _ in range(8):
        window.time_control.step(years=1)
        settle(qtbot)
        assert places() == before
        styles.add(tuple(e["style"] for e in graph.drawn_edges()))
        styles.add(tuple(n["valid_at_as_of"] for n in graph.drawn_neighbours()))
    assert len(styles) > 2  # edges appeared and ended meanwhile: restyled, not moved


def test_types_have_shapes_and_colours_named_in_the_legend(window):
    window.select_entity("Lumen Labs")
    graph = window.graph_view
    graph.set_depth(2)
    by_id = {n["id"]: n for n in graph.drawn_neighbours()}
    person = look.Look(*look.LOOKS[look.KNOWN["person"]])
    assert by_id["kai_moreno"]["shape"] == person.shape
    assert by_id["kai_moreno"]["color"] == person.color().name()
    assert by_id["berlin"]["shape"] != person.shape
    types = [e.text for e in graph.legend_entries() if e.kind == "type"]
    assert {"person", "place", "project", "tool"} <= set(types)
    predicates = [e.text for e in graph.legend_entries() if e.kind == "predicate"]
    assert set(predicates) == {e["predicate"] for e in graph.drawn_edges()}


@pytest.fixture
def hub_graph(tmp_path, qtbot, isolated_settings):
    path = tmp_path / "hub.sqlite3"
    kg = KnowledgeGraph(path)
    with kg.transaction():
        conn = kg._conn()
        conn.execute("INSERT INTO entities (id, name, type) VALUES ('hub', 'Hub', 'org')")
        conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, 'person')",
            [(f"e{i:03d}", f"E{i:03d}") for i in range(300)],
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES (?, ?, 'knows', ?, '2020-01-01')",
            [(f"t{i:03d}", "hub", f"e{i:03d}") for i in range(300)]
            + [(f"u{i:03d}", "hub", f"e{i:03d}") for i in range(0, 300, 7)],  # linked twice
        )
    window = MainWindow(kg, settings=str(isolated_settings))
    qtbot.addWidget(window)
    window.resize(1500, 950)
    window.show()
    qtbot.waitExposed(window)
    window.select_entity("Hub")
    yield window
    window.close()
    kg.close()


def test_a_capped_ring_says_n_of_m_and_shows_more_on_request(hub_graph, qtbot):
    graph = hub_graph.graph_view
    button = graph.shown_button
    assert button.isVisible()
    assert button.text().startswith(f"{MAX_NEIGHBOURS} of 300 neighbours shown")
    drawn = [n["id"] for n in graph.drawn_neighbours()]
    linked_twice = [f"e{i:03d}" for i in range(0, 300, 7)]
    assert sorted(drawn) == linked_twice[:MAX_NEIGHBOURS]  # the most linked, then by id
    assert "E001" in button.toolTip() and f"{300 - MAX_NEIGHBOURS - 25:,} more" in button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert len(graph.drawn_neighbours()) == MORE_NEIGHBOURS
    assert button.text().startswith(f"{MORE_NEIGHBOURS} of 300") and "fewer" in button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert sorted(n["id"] for n in graph.drawn_neighbours()) == sorted(drawn)


def test_the_depth_is_kept_for_each_file(hub_graph, qtbot, isolated_settings):
    hub_graph.graph_view.depth_buttons.button(2).click()
    assert hub_graph.graph_view.depth == 2
    path = hub_graph.kg.db_path
    hub_graph.close()
    again = MainWindow(KnowledgeGraph(path), settings=str(isolated_settings))
    qtbot.addWidget(again)
    assert again.graph_view.depth == 2
    again.kg.close()


def test_the_graph_shows_the_changes_panels_diff_and_drops_it_with_it(window, qtbot):
    window.select_entity("Kai Moreno")
    panels = window.panels
    panels.show_dock(panels.changes_dock)
    panels.changes.set_instants("2025-01-01", "2026-06-01")
    settle(qtbot)
    graph = window.graph_view
    started, ended = set(panels.chart_diff.started), set(panels.chart_diff.ended)
    assert started and ended
    styles = {}
    for edge in graph.drawn_edges():
        facts = set(edge["facts"])
        expected = "started" if facts & started else "ended" if facts & ended else None
        styles[edge["style"]] = styles.get(edge["style"], 0) + 1
        if expected:
            assert edge["style"] == expected
        else:
            assert edge["style"].startswith("unchanged")
    assert styles.get("started") and styles.get("ended")
    assert any(e.line == "started" for e in graph.legend_entries())
    panels.changes.on_chart.setChecked(False)
    settle(qtbot)
    assert {e["style"] for e in graph.drawn_edges()} <= {"valid", "not valid"}
    assert not any(e.line == "started" for e in graph.legend_entries())


@pytest.mark.parametrize("size", [(1024, 700), (1500, 950)])
def test_labels_can_be_read_at_small_and_default_sizes(window, qtbot, size):
    window.resize(*size)
    window.select_entity("Kai Moreno")
    settle(qtbot)
    graph = window.graph_view
    app_font = QApplication.font()
    shown = []
    for eid, item in graph._scene.nodes.items():
        assert item.label.font().pointSizeF() >= app_font.pointSizeF()
        if item.label.isVisible():
            shown.append(item.label_rect(QPointF(node_point(graph, eid))))
    assert len(shown) >= 6
    room = QRectF(graph.viewport().rect())
    for i, rect in enumerate(shown):
        assert room.contains(rect)
        assert not any(rect.intersects(other) for other in shown[i + 1 :])
    # The wheel zooms about the pointer (nodes and labels keep their size); a double click on
    # the background fits again.
    graph.set_depth(2)
    settle(qtbot)
    first, second = (n["id"] for n in graph.drawn_neighbours()[:2])
    fitted = {eid: node_point(graph, eid) for eid in (first, second)}
    centre = QPointF(graph.viewport().rect().center())
    for _ in range(3):
        event = QWheelEvent(
            centre,
            QPointF(graph.viewport().mapToGlobal(centre.toPoint())),
            QPoint(0, 0),
            QPoint(0, 120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(graph.viewport(), event)
    apart = (fitted[first] - fitted[second]).manhattanLength()
    zoomed = (node_point(graph, first) - node_point(graph, second)).manhattanLength()
    assert zoomed == pytest.approx(apart * 1.2**3, rel=0.05)
    corner = QPoint(graph.viewport().width() - 3, graph.viewport().height() // 2)
    assert graph.neighbour_at(corner) is None
    qtbot.mouseDClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=corner)
    assert {eid: node_point(graph, eid) for eid in fitted} == fitted


def test_a_write_restyles_what_it_retimed_and_lays_out_what_it_linked(window, qtbot):
    graph = at_depth_two(window, qtbot, "Kai Moreno", "2026-04-01")
    builds = []
    original = graph._read_and_build
    graph._read_and_build = lambda *args: builds.append(args) or original(*args)
    before = graph.drawn_neighbours()
    nova = find_fact(window.kg, "Kai Moreno", "works_on", "Nova")
    edge = next(e for e in graph.drawn_edges() if nova["id"] in e["facts"])
    assert edge["style"] == "valid"
    assert window.end_fact(nova["id"], "2026-03-20")  # before as_of: no longer valid
    settle(qtbot)
    edge = next(e for e in graph.drawn_edges() if nova["id"] in e["facts"])
    assert edge["style"] == "not valid"
    assert builds == []  # restyled, not laid out again
    after = {n["id"]: n for n in graph.drawn_neighbours()}
    assert [(n["x"], n["y"]) for n in before] == [
        (after[n["id"]]["x"], after[n["id"]]["y"]) for n in before
    ]
    assert not after["nova"]["valid_at_as_of"]
    # A new entity two facts away: laid out again, and there.
    window.kg.add_triple("Nova", "uses", "Zig", valid_from="2026-01-01")
    window.state.notify_data_changed(None)
    qtbot.waitUntil(lambda: "zig" in {n["id"] for n in graph.drawn_neighbours()}, timeout=2000)
    assert {n["id"]: n["ring"] for n in graph.drawn_neighbours()}["zig"] == 2
    window.undo_stack.undo()  # the end of Nova's fact
    settle(qtbot)
    edge = next(e for e in graph.drawn_edges() if nova["id"] in e["facts"])
    assert edge["style"] == "valid"


def test_pointing_at_a_node_whose_label_crowding_hid_shows_it(window, qtbot):
    window.resize(1024, 700)
    graph = at_depth_two(window, qtbot, "Lumen Labs", "2024-01-01")
    hidden = [n["id"] for n in graph.drawn_neighbours() if not n["label_shown"]]
    assert hidden  # a small view at depth 2 is crowded
    hidden = [eid for eid in hidden if graph.neighbour_at(node_point(graph, eid)) == eid]
    corner = QPoint(2, graph.viewport().height() // 2)
    qtbot.mouseClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=corner)  # no button held
    qtbot.mouseMove(graph.viewport(), node_point(graph, hidden[0]))
    assert graph._scene.nodes[hidden[0]].label.isVisible()
    qtbot.mouseMove(graph.viewport(), corner)
    assert not graph._scene.nodes[hidden[0]].label.isVisible()


def test_an_entity_linked_to_no_other_says_so_under_itself(window, qtbot):
    window.kg.add_triple("Selfie", "knows", "Selfie")  # a self-loop links nothing
    window.state.notify_data_changed(None)
    window.select_entity("Selfie")
    graph = window.graph_view
    for depth in (1, 3):
        graph.set_depth(depth)
        assert graph.drawn_neighbours() == [] and graph.drawn_edges() == []
        assert graph.note == "No fact links Selfie to another entity"
    window.select_entity("Kai Moreno")
    assert graph.note == ""


def test_a_file_that_cannot_be_read_is_said_in_the_graph(window, qtbot, monkeypatch):
    def locked(*_args, **_kwargs):
        raise Unavailable("database is locked")

    monkeypatch.setattr(window.kg, "neighbourhood", locked)
    window.select_entity("Kai Moreno")
    graph = window.graph_view
    assert graph.note.startswith("Not shown: database is locked") and "try again" in graph.note
    assert graph.drawn_neighbours() == []
    monkeypatch.undo()
    graph.set_depth(2)
    assert graph.note == "" and graph.drawn_neighbours()
