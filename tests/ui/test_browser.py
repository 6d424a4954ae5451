"""The entity browser in the window: search as you type, filters, rename and merge, painting."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import (
    PaintCounter,
    dump,
    entity_rows_read,
    file_query,
    shown_window,
    triple_rows,
)


def test_the_search_index_is_ready_before_the_first_keystroke(window, qtbot, monkeypatch):
    # Built off the UI thread once the window is idle after opening, and again on focus
    # after a write; the window's store keeps it.
    built_on = []
    read = KnowledgeGraph.read_search_index
    monkeypatch.setattr(
        KnowledgeGraph,
        "read_search_index",
        lambda kg: built_on.append(threading.current_thread()) or read(kg),
    )
    qtbot.waitUntil(lambda: window.kg._store.entities._search_index is not None, timeout=5000)
    stale = window.kg._store.entities._search_index
    window.browser.view.setFocus()
    qtbot.waitUntil(lambda: window.browser.view.hasFocus(), timeout=2000)
    window.kg.add_entity("Zora Quill", "person")
    window.focus_search()
    qtbot.waitUntil(lambda: window.browser.search_field.hasFocus(), timeout=2000)
    qtbot.waitUntil(lambda: window.kg._store.entities._search_index is not None, timeout=5000)
    assert window.kg._store.entities._search_index is not stale
    assert window.kg.count_entities("zora") == 1
    assert window.kg._store.entities._search_index is not stale  # not built again
    assert built_on and threading.main_thread() not in built_on


def test_search_as_you_type_and_enter_selects(window, qtbot):
    browser = window.browser
    view = window.findChild(QAbstractItemView, "entityBrowser")
    window.focus_search()
    qtbot.keyClicks(browser.search_field, "MOR")
    qtbot.waitUntil(lambda: view.model().rowCount() == 1, timeout=2000)
    assert view.model().index(0, 0).data() == "Kai Moreno"
    qtbot.keyClick(browser.search_field, Qt.Key.Key_Return)
    assert window.state.entity == "kai_moreno"
    assert len(triple_rows(window)) == len(window.kg.intervals("Kai Moreno"))
    # Typing in the list goes to the search; arrows move; Enter selects.
    browser.set_search("")
    view.setFocus()
    qtbot.keyClicks(view, "lisb")
    qtbot.waitUntil(lambda: view.model().rowCount() == 1, timeout=2000)
    assert browser.search_field.text() == "lisb"
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert window.state.entity == "lisbon"


def test_arrows_from_the_search_field_move_in_the_list(window, qtbot):
    browser = window.browser
    view = window.findChild(QAbstractItemView, "entityBrowser")
    window.focus_search()
    qtbot.keyClicks(browser.search_field, "a")
    qtbot.waitUntil(lambda: browser.model.search == "a", timeout=2000)
    assert view.model().rowCount() > 3
    qtbot.keyClick(browser.search_field, Qt.Key.Key_Down)
    assert view.hasFocus() and view.currentIndex().isValid()
    first = view.currentIndex().row()
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().row() == first + 1
    qtbot.keyClick(view, Qt.Key.Key_Return)
    name = view.model().index(first + 1, 0).data()
    assert window.state.entity == window.kg.get_entity(name)["id"]


def test_only_entities_valid_at_as_of(window, qtbot):
    browser = window.browser
    everyone = browser.model.total
    window.set_as_of("2016-01-01")
    browser.valid_only.setChecked(True)
    qtbot.waitUntil(lambda: not browser.model.reading, timeout=5000)  # read off the UI thread
    assert 0 < browser.model.total < everyone
    window.set_as_of("2026-01-01")
    qtbot.waitUntil(lambda: browser.model.valid_at == "2026-01-01", timeout=2000)
    browser.type_filter.setCurrentIndex(browser.type_filter.findData("project"))
    qtbot.waitUntil(lambda: not browser.model.reading, timeout=5000)
    names = {browser.model.entity_at(r)["name"] for r in range(browser.model.rowCount())}
    assert "Orion" in names and "Kai Moreno" not in names


def test_rename_and_merge_from_the_browser(window, demo, answer_dialogs):
    before = dump(demo.db_path)
    answer_dialogs.append(lambda d: d.name.setText("Kai M. Moreno"))
    assert window.fact_actions.rename_entity_dialog("kai_moreno")
    assert file_query(demo.db_path, "SELECT name FROM entities WHERE id = 'kai_moreno'") == [
        ("Kai M. Moreno",)
    ]
    assert window.browser.model.entity_at(window.browser.model.row_of("kai_moreno"))["name"] == (
        "Kai M. Moreno"
    )
    window.action_undo.trigger()
    assert dump(demo.db_path) == before

    helios_facts = file_query(
        demo.db_path, "SELECT COUNT(*) FROM triples WHERE subject = 'helios' OR object = 'helios'"
    )[0][0]
    answer_dialogs.append(lambda d: d.name.setText("Orion"))
    window.select_entity("Helios")
    assert window.fact_actions.merge_entity_dialog("helios")
    assert file_query(demo.db_path, "SELECT 1 FROM entities WHERE id = 'helios'") == []
    assert helios_facts > 0
    assert file_query(
        demo.db_path, "SELECT COUNT(*) FROM triples WHERE subject = 'helios' OR object = 'helios'"
    ) == [(0,)]
    assert window.state.entity == "orion"
    window.action_undo.trigger()
    assert dump(demo.db_path) == before
    # Refused by the store: said in the form, which stays open with the name typed.
    answer_dialogs.append(lambda d: d.name.setText("Nobody At All"))
    assert not window.fact_actions.merge_entity_dialog("helios")
    dialog = answer_dialogs.seen[-1]
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "not in the graph" in dialog.error.text() and dialog.name.text() == "Nobody At All"
    assert dump(demo.db_path) == before


def test_the_browser_context_menu_renames_and_merges(window, demo, answer_dialogs):
    browser = window.browser
    kai = browser.model.entity_at(browser.model.row_of("kai_moreno"))
    menu = browser.context_menu(kai)
    actions = {a.text(): a for a in menu.actions()}
    assert {"Rename…", "Merge into…", "Add fact…", "Copy id"} <= set(actions)
    answer_dialogs.append(lambda d: d.name.setText("Kai Moreno-Silva"))
    actions["Rename…"].trigger()
    assert file_query(demo.db_path, "SELECT name FROM entities WHERE id = 'kai_moreno'") == [
        ("Kai Moreno-Silva",)
    ]


def test_a_keystroke_paints_the_entity_list_once_and_its_counts_once(window, qtbot):
    """The rows at once (no second layout for the scroll bar), their counts read elsewhere and
    painted when in: two paints, not more."""
    # Short enough that all 31 demo entities need a scroll bar, and one match does not.
    window.resize(1500, 600)
    window.browser.set_search("kai")
    qtbot.wait(50)
    counter = PaintCounter({"list": window.browser.view.viewport()})
    window.browser.set_search("")
    model = window.browser.model
    qtbot.waitUntil(lambda: counter.counts["list"] > 0, timeout=2000)
    qtbot.waitUntil(lambda: entity_rows_read(model)[0]["current"] is not None, timeout=2000)
    qtbot.wait(50)
    assert model.rowCount() == 31
    assert counter.counts == {"list": 2}
    counts = {(r["id"], r["current"], r["ended"]) for r in entity_rows_read(model).values()}
    assert counts == {(e["id"], e["current"], e["ended"]) for e in window.kg.list_entities()}


def test_right_click_shows_the_entity_then_offers_its_menu(window, qtbot):
    """A right-click highlights a row: it must also show that entity (as a click does), and
    then open the row's menu."""
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    opened = []

    def close_the_menu():
        menu = QApplication.activePopupWidget()
        opened.append([a.text() for a in menu.actions()] if menu is not None else None)
        if menu is not None:
            menu.close()

    browser = window.browser
    window.state.select_entity("kai_moreno")
    row = browser.model.row_of("lumen_labs")
    view = browser.view
    center = view.visualRect(browser.model.index(row, 0)).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.RightButton, pos=center)
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, center, view.viewport().mapToGlobal(center)
    )
    QTimer.singleShot(50, close_the_menu)
    QApplication.sendEvent(view.viewport(), event)
    assert window.state.entity == "lumen_labs"
    assert "based_in → Berlin" in window.gantt.lane_labels()  # the chart shows Lumen Labs
    assert view.selectionModel().isRowSelected(row)
    assert len(opened) == 1 and opened[0] is not None and "Rename…" in opened[0]


def test_an_entity_further_down_than_one_found_before_is_found_too(kg, qtbot, isolated_settings):
    """The list goes on from the rows it has already read."""
    with kg.transaction():
        for n in range(2_400):
            kg.add_entity(f"Entity {n:04d}", "thing")
    window = shown_window(qtbot, kg, isolated_settings)
    browser = window.browser
    for name in ("Entity 1500", "Entity 2300"):
        window.select_entity(name)
        qtbot.waitUntil(lambda: not browser.finding.running, timeout=10_000)
        selected = browser.view.selectionModel().selectedRows()
        assert [browser.entity_at(index)["name"] for index in selected] == [name]


def test_merging_a_big_entity_is_written_off_the_ui_thread_as_one_undo_step(
    window, demo, answer_dialogs, qtbot, monkeypatch
):
    from factlines.ui.forms import fact_forms

    monkeypatch.setattr(fact_forms, "LONG_MERGE_FACTS", 1)  # Helios counts as big
    before = dump(demo.db_path)
    answer_dialogs.append(lambda d: d.name.setText("Orion"))
    window.select_entity("Helios")
    assert window.fact_actions.merge_entity_dialog("helios")
    job = window.transfer.job  # on a worker, with a store of its own
    assert job is not None
    qtbot.waitUntil(lambda: not job.running and window.state.entity == "orion", timeout=20000)
    assert file_query(demo.db_path, "SELECT 1 FROM entities WHERE id = 'helios'") == []
    assert window.kg.edit_log(1)[0]["what"] == "Merge Helios into Orion"
    assert window.document.undo_stack.undoText() == "Merge Helios into Orion"
    window.action_undo.trigger()
    assert dump(demo.db_path) == before
    # Refused by the store on the worker: said (as a failed import is), and nothing written.
    window.quiet = True
    answer_dialogs.append(lambda d: d.name.setText("Nobody At All"))
    assert window.fact_actions.merge_entity_dialog("helios")
    qtbot.waitUntil(lambda: not window.transfer.job.running, timeout=20000)
    assert window.errors[-1] == "target 'Nobody At All' is not in the graph"
    assert dump(demo.db_path) == before


def test_a_graph_opened_while_an_index_is_built_gets_its_own(window, qtbot, tmp_path, monkeypatch):
    other = tmp_path / "other" / "kg.sqlite3"
    other.parent.mkdir()
    with KnowledgeGraph(other) as kg:
        kg.add_triple("Quentin Zed", "knows", "Ada")
    gate = threading.Event()
    read = KnowledgeGraph.read_search_index
    monkeypatch.setattr(KnowledgeGraph, "read_search_index", lambda kg: gate.wait(10) and read(kg))
    builder = window.browser.index_builder
    window.kg._store.entities.forget_index()
    builder.build(window.kg)  # the demo's, held on its worker
    window.document.open(other)
    qtbot.wait(100)  # the new graph's index is asked for while the demo's is built
    gate.set()
    qtbot.waitUntil(lambda: not builder.busy, timeout=10000)
    assert window.kg.search_index_stamp() is None  # built off the UI thread, and kept
    assert window.kg.count_entities("zed") == 1


def test_an_entity_far_down_the_list_is_found_with_the_counts_of_the_rows_shown_alone(
    kg, qtbot, isolated_settings, monkeypatch
):
    # Each row's counts cost four index walks (~0.3 ms a row at a million facts): the list
    # read 1,600 rows with them to look for an entity, then gave up. Now it reads the rows
    # without counts, as far as the entity is, and counts the rows it shows.
    with kg.transaction():
        for n in range(5_000):
            kg.add_entity(f"Entity {n:04d}", "thing")
        kg.add_triple("Entity 4900", "knows", "Entity 0001")
        kg.add_triple("Entity 4900", "uses", "Entity 0002", valid_to="2020-01-01")
    window = shown_window(qtbot, kg, isolated_settings)
    browser = window.browser
    counted: list[int] = []
    listed = KnowledgeGraph.entity_list_rows
    # Counted wherever they are: on a worker, or here when a row is asked for before they are in.
    monkeypatch.setattr(
        KnowledgeGraph,
        "entity_list_rows",
        lambda kg, ids: counted.append(len(ids)) or listed(kg, ids),
    )
    window.select_entity("Entity 4900")
    qtbot.waitUntil(lambda: not browser.finding.running, timeout=10_000)
    [index] = browser.view.selectionModel().selectedRows()
    assert browser.entity_at(index)["name"] == "Entity 4900"
    assert browser.model.rowCount() > 4_900
    model = browser.model
    assert [model.index(index.row(), column).data() for column in (2, 3)] == [1, 1]
    assert 0 < sum(counted) <= 3 * model.PAGE  # the rows around it, not the 4,900 read


def test_another_programs_write_keeps_the_list_where_it_was(kg, qtbot, isolated_settings):
    """MemPalace writes while the person looks far down the list: the list stays there, the
    selected entity still selected (it went back to its first page, nothing selected). The
    pages read are read again, the others when shown."""
    with kg.transaction():
        for n in range(3_000):
            kg.add_entity(f"Entity {n:04d}", "thing")
        kg.add_triple("Entity 2900", "knows", "Entity 0001")
    window = shown_window(qtbot, kg, isolated_settings)
    browser, model = window.browser, window.browser.model
    window.select_entity("Entity 2900")
    qtbot.waitUntil(lambda: not browser.finding.running, timeout=10_000)
    view = browser.view
    top = view.indexAt(view.viewport().rect().topLeft()).row()
    assert top > 2_000
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    other = KnowledgeGraph(kg.db_path)
    try:
        other.add_triple("Entity 2950", "uses", "Newcomer tool", valid_from="2026-01-01")
    finally:
        other.close()
    assert window.check_external_changes()
    qtbot.waitUntil(lambda: bool(resets), timeout=5_000)  # it read the list again
    qtbot.waitUntil(lambda: not browser.finding.running, timeout=10_000)
    [index] = view.selectionModel().selectedRows()
    assert browser.entity_at(index)["id"] == "entity_2900"
    assert view.indexAt(view.viewport().rect().topLeft()).row() == top
