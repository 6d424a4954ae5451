"""The main window driven as a user would, each step checked in the file (second connection)."""

from __future__ import annotations

from datetime import date

import pytest
from PySide6.QtCore import QEvent, QMimeData, QObject, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QDropEvent, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QAbstractSlider, QMessageBox

from factlines import KnowledgeGraph
from factlines.ui import MainWindow
from factlines.ui.gantt import GanttChart
from factlines.ui.models import COLUMN, FACT_ID_ROLE, VALID_ROLE
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, file_fact, file_query, find_fact, messages_of


def triple_rows(window) -> list[str]:
    view = window.triple_editor.view
    model = view.model()
    return [model.index(r, 0).data(FACT_ID_ROLE) for r in range(model.rowCount())]


def cell(window, triple_id: str, column: str):
    view = window.triple_editor.view
    model = view.model()
    for r in range(model.rowCount()):
        if model.index(r, 0).data(FACT_ID_ROLE) == triple_id:
            return model.index(r, COLUMN[column])
    raise AssertionError(f"{triple_id} is not shown")


# ── The automation surface ─────────────────────────────────────────────────


def test_automation_surface(window, demo):
    assert isinstance(window.findChild(QAbstractItemView, "entityBrowser"), QAbstractItemView)
    assert isinstance(window.findChild(QAbstractItemView, "tripleTable"), QAbstractItemView)
    assert isinstance(window.findChild(QAbstractSlider, "asOfSlider"), QAbstractSlider)
    gantt = window.findChild(GanttChart, "ganttPlot")
    assert gantt is not None and window.centralWidget() is gantt
    assert window.findChild(object, "graphView") is window.graph_view
    from PySide6.QtGui import QAction

    actions = {a.objectName(): a for a in window.findChildren(QAction)}
    for name in ("actionEndFact", "actionUndo", "actionRedo"):
        assert name in actions and actions[name].parent() is window
    assert actions["actionUndo"].shortcut() == QKeySequence(QKeySequence.StandardKey.Undo)
    assert actions["actionRedo"].shortcut() == QKeySequence(QKeySequence.StandardKey.Redo)
    assert window.as_of() is None
    assert window.select_entity("Kai Moreno")
    assert window.state.entity == "kai_moreno"


def test_empty_start_is_usable(qtbot, isolated_settings):
    win = MainWindow(kg=None, settings=str(isolated_settings))
    qtbot.addWidget(win)
    win.show()
    said = messages_of(win)
    assert win.findChild(QAbstractItemView, "entityBrowser").model().rowCount() == 0
    assert not win.select_entity("anyone")
    win.action_end_fact.trigger()
    assert any("select a fact" in m for m in said)
    win.set_as_of("2020-01-01")
    assert win.as_of() == "2020-01-01"


def test_slider_and_as_of_follow_each_other(window):
    slider = window.findChild(QAbstractSlider, "asOfSlider")
    slider.setValue(date(2025, 12, 1).toordinal())
    assert window.as_of() == "2025-12-01"
    window.set_as_of("2026-04-01")
    assert slider.value() == date(2026, 4, 1).toordinal()
    window.set_as_of("2026-04-01T12:30:00+00:00")
    assert window.as_of() == "2026-04-01T12:30:00Z"
    assert slider.value() == date(2026, 4, 1).toordinal()
    assert window.time_control.field.text() == "2026-04-01T12:30:00Z"
    slider.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepAdd)
    assert window.as_of() == "2026-04-02"
    window.set_as_of(None)
    assert window.as_of() is None
    said = messages_of(window)
    with pytest.raises(ValueError):
        window.set_as_of("2026-02-30")
    assert window.as_of() is None and "no such calendar day" in said[-1]


def test_time_field_steps_now_and_all_time(window, qtbot):
    control = window.time_control
    control.field.setText("2026-01-31")
    qtbot.keyClick(control.field, Qt.Key.Key_Return)
    assert window.as_of() == "2026-01-31"
    control.actions_by_name["forwardMonth"].trigger()
    assert window.as_of() == "2026-02-28"
    control.actions_by_name["forwardYear"].trigger()
    assert window.as_of() == "2027-02-28"
    control.actions_by_name["backDay"].trigger()
    assert window.as_of() == "2027-02-27"
    control.actions_by_name["backYear"].trigger()
    control.actions_by_name["backMonth"].trigger()
    assert window.as_of() == "2026-01-27"
    said = messages_of(window)
    control.field.setText("2026-13-01")
    qtbot.keyClick(control.field, Qt.Key.Key_Return)
    assert window.as_of() == "2026-01-27" and "as_of not changed" in said[-1]
    control.actions_by_name["now"].trigger()
    assert window.as_of().endswith("Z") and window.as_of()[:10] == date.today().isoformat()
    control.actions_by_name["allTime"].trigger()
    assert window.as_of() is None
    shortcuts = {a.shortcut().toString() for a in control.actions_by_name.values()}
    assert {"Alt+Left", "Alt+Right", "Alt+P"} <= shortcuts


def test_play_animates_as_of_and_pauses(window, qtbot):
    control = window.time_control
    window.set_as_of("2020-01-01")
    control.speed.setCurrentIndex(control.speed.count() - 1)  # the fastest
    control.play()
    qtbot.waitUntil(lambda: window.as_of() > "2020-06-01", timeout=3000)
    control.pause()
    stopped = window.as_of()
    qtbot.wait(150)
    assert window.as_of() == stopped and not control.playing


def test_all_time_chosen_anywhere_stops_play(window, qtbot):
    control = window.time_control
    window.set_as_of("2020-01-01")
    control.play()
    window.state.set_as_of(None)  # e.g. the chart's "All time" or an emptied date field
    qtbot.wait(300)
    assert window.as_of() is None and not control.playing


def test_a_forever_date_does_not_break_the_time_control(window, demo, qtbot):
    demo.add_triple("Kai Moreno", "is", "mortal", valid_from="0001-01-01", valid_to="9999-12-31")
    window.state.notify_data_changed()  # raised OverflowError past the slider's range before
    slider = window.findChild(QAbstractSlider, "asOfSlider")
    assert slider.minimum() == date.min.toordinal()
    assert slider.maximum() == date.max.toordinal()
    window.set_as_of("9999-12-31")
    assert slider.value() == date.max.toordinal()


# ── Browsing ───────────────────────────────────────────────────────────────


def test_the_search_index_is_ready_before_the_first_keystroke(window, qtbot):
    # Built once the window is idle after opening, and again on focus after a write.
    qtbot.waitUntil(lambda: window.kg._store.entities._search_index is not None, timeout=2000)
    stale = window.kg._store.entities._search_index
    window.kg.add_entity("Zora Quill", "person")
    window.focus_search()
    qtbot.waitUntil(lambda: window.browser.search_field.hasFocus(), timeout=2000)
    assert window.kg._store.entities._search_index is not stale


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


def test_only_entities_valid_at_as_of(window, qtbot):
    browser = window.browser
    everyone = browser.model.total
    window.set_as_of("2016-01-01")
    browser.valid_only.setChecked(True)
    assert browser.model.total < everyone
    window.set_as_of("2026-01-01")
    qtbot.waitUntil(lambda: browser.model.valid_at == "2026-01-01", timeout=2000)
    browser.type_filter.setCurrentIndex(browser.type_filter.findData("project"))
    names = {browser.model.entity_at(r)["name"] for r in range(browser.model.rowCount())}
    assert "Orion" in names and "Kai Moreno" not in names


def test_clicking_the_other_entity_and_a_graph_neighbour_selects_it(window, qtbot):
    window.select_entity("Kai Moreno")
    orion = find_fact(window.kg, "Kai Moreno", "works_on", "Orion")
    index = cell(window, orion["id"], "other_name")
    view = window.triple_editor.view
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


def test_scrubbing_restyles_every_view_and_writes_nothing(window, demo):
    window.select_entity("Kai Moreno")
    before = dump(demo.db_path)
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    window.set_as_of("2025-12-01")
    assert cell(window, orion["id"], "predicate").data(VALID_ROLE) is True
    assert cell(window, nova["id"], "predicate").data(VALID_ROLE) is False
    solid_before = sum(e["solid"] for e in window.graph_view.drawn_edges())
    window.set_as_of("2026-04-01")
    assert cell(window, orion["id"], "predicate").data(VALID_ROLE) is False
    assert cell(window, nova["id"], "predicate").data(VALID_ROLE) is True
    valid_neighbours = {
        n["id"] for n in window.graph_view.drawn_neighbours() if n["valid_at_as_of"]
    }
    assert "nova" in valid_neighbours and "orion" not in valid_neighbours
    window.set_as_of(None)
    assert all(e["solid"] for e in window.graph_view.drawn_edges())
    assert solid_before < len(window.graph_view.drawn_edges())
    window.triple_editor.hide_invalid.setChecked(True)
    window.set_as_of("2026-04-01")
    shown = triple_rows(window)
    assert nova["id"] in shown and orion["id"] not in shown
    assert dump(demo.db_path) == before


# ── Edits, in the file, undone exactly ────────────────────────────────────


def test_add_end_undo_redo(window, demo, answer_dialogs):
    path = demo.db_path
    window.select_entity("Kai Moreno")
    before = dump(path)

    def fill(dialog):
        assert dialog.subject.text() == "Kai Moreno"
        dialog.predicate.setCurrentText("uses")
        dialog.object.setText("Zig")
        dialog.valid_from.setText("2026-02-01T09:00:00Z")
        dialog.confidence.setValue(0.8)
        dialog.provenance["source_file"].setText("notes/zig.md")

    answer_dialogs.append(fill)
    new_id = window.fact_actions.add_fact_dialog()
    row = file_fact(path, new_id)
    assert row["subject"] == "kai_moreno" and row["object"] == "zig"
    assert row["valid_from"] == "2026-02-01T09:00:00Z" and row["valid_to"] is None
    assert row["confidence"] == pytest.approx(0.8) and row["source_file"] == "notes/zig.md"
    assert new_id in triple_rows(window) and window.state.fact == new_id
    after_add = dump(path)

    assert window.end_fact(new_id, "2026-03-01")
    assert file_fact(path, new_id)["valid_to"] == "2026-03-01"
    window.action_undo.trigger()
    assert dump(path) == after_add
    window.action_undo.trigger()
    assert dump(path) == before
    assert new_id not in triple_rows(window)
    window.action_redo.trigger()
    window.action_redo.trigger()
    assert file_fact(path, new_id)["valid_to"] == "2026-03-01"
    assert window.isWindowModified() is not window.undo_stack.isClean()


def test_a_duplicate_open_fact_is_reported_not_added(window, demo, answer_dialogs):
    window.select_entity("Kai Moreno")
    before = dump(demo.db_path)
    said = messages_of(window)

    def fill(dialog):
        dialog.predicate.setCurrentText("works_at")
        dialog.object.setText("Lumen Labs")

    answer_dialogs.append(fill)
    assert window.fact_actions.add_fact_dialog() is None
    assert "already an open fact" in said[-1]
    assert dump(demo.db_path) == before
    existing = find_fact(demo, "Kai Moreno", "works_at", "Lumen Labs")
    assert window.state.fact == existing["id"]


def test_add_fact_form_refuses_bad_dates(window, demo, answer_dialogs):
    window.select_entity("Kai Moreno")
    before = dump(demo.db_path)

    def fill(dialog):
        dialog.predicate.setCurrentText("uses")
        dialog.object.setText("Zig")
        dialog.valid_from.setText("2026-03-10")
        dialog.valid_to.setText("2026-03-01")

    answer_dialogs.append(fill)
    assert window.fact_actions.add_fact_dialog() is None
    dialog = answer_dialogs.seen[-1]
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "before valid_from" in dialog.error.text()
    assert dump(demo.db_path) == before


def test_end_fact_action_ends_the_selected_fact_at_as_of(window, demo):
    window.select_entity("Kai Moreno")
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    before = dump(demo.db_path)
    window.state.select_fact(nova["id"])
    window.set_as_of("2026-06-30")
    window.findChild(type(window.action_end_fact), "actionEndFact").trigger()
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-06-30"
    said = messages_of(window)
    window.action_end_fact.trigger()  # already ended: refused, said, nothing written
    assert "already ended" in said[-1]
    window.action_undo.trigger()
    assert dump(demo.db_path) == before


def test_end_before_the_start_is_refused(window, demo):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    before = dump(demo.db_path)
    said = messages_of(window)
    assert not window.end_fact(nova["id"], "2026-01-01")
    assert "before" in said[-1]
    assert dump(demo.db_path) == before
    assert window.undo_stack.count() == 0


@pytest.mark.parametrize("renamed_first", [False, True])
def test_replace_with_supersedes_at_one_instant(window, demo, answer_dialogs, renamed_first):
    window.select_entity("Kai Moreno")
    if renamed_first:  # the display name no longer leads to the id by MemPalace's rule
        answer_dialogs.append(lambda d: d.name.setText("Kai M."))
        assert window.fact_actions.rename_entity_dialog("kai_moreno")
    nova = find_fact(demo, "Kai M." if renamed_first else "Kai Moreno", "works_on", "Nova")
    before = dump(demo.db_path)

    def fill(dialog):
        dialog.new_object.setText("Helios")
        dialog.at.setText("2026-05-01")

    answer_dialogs.append(fill)
    assert window.fact_actions.replace_fact_dialog(nova["id"])
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-05-01T00:00:00Z"
    rows = file_query(
        demo.db_path,
        "SELECT id, subject, valid_from, source_file FROM triples WHERE predicate = 'works_on' "
        "AND object = 'helios' AND valid_to IS NULL AND subject IN ('kai_moreno', 'kai_m.')",
    )
    # one open successor, of the same subject, from the same instant, with no borrowed source
    assert [r[1:] for r in rows] == [("kai_moreno", "2026-05-01T00:00:00Z", None)]
    assert file_query(demo.db_path, "SELECT 1 FROM entities WHERE id = 'kai_m.'") == []
    assert window.state.fact == rows[0][0]
    window.action_undo.trigger()
    assert dump(demo.db_path) == before
    window.action_redo.trigger()
    assert file_fact(demo.db_path, rows[0][0])["valid_from"] == "2026-05-01T00:00:00Z"


def test_edit_fact_dialog_changes_only_what_changed(window, demo, answer_dialogs):
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)

    def fill(dialog):
        dialog.valid_to.setText("2026-02-15")
        dialog.provenance["adapter_name"].setText("hand")

    answer_dialogs.append(fill)
    assert window.fact_actions.edit_fact_dialog(orion["id"])
    row = file_fact(demo.db_path, orion["id"])
    assert row["valid_to"] == "2026-02-15" and row["adapter_name"] == "hand"
    assert row["valid_from"] == orion["valid_from"]
    window.action_undo.trigger()
    assert dump(demo.db_path) == before


def test_typing_in_a_cell_validates_and_writes_through_undo(window, demo, qtbot):
    window.select_entity("Kai Moreno")
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)
    said = messages_of(window)
    view = window.triple_editor.view
    index = cell(window, orion["id"], "valid_to")
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.indexWidget(index) or view.focusWidget()
    editor.selectAll()
    qtbot.keyClicks(editor, "2026-02-30")
    assert "no such calendar day" in editor.toolTip()
    # What Enter does in the cell: the delegate commits the editor's text to the model.
    view.itemDelegate().commitData.emit(editor)
    assert any("no such calendar day" in m for m in said)
    assert dump(demo.db_path) == before
    # A good value goes in, through the undo stack.
    index = cell(window, orion["id"], "valid_to")
    assert view.model().setData(index, "2026-02-20")
    assert file_fact(demo.db_path, orion["id"])["valid_to"] == "2026-02-20"
    assert cell(window, orion["id"], "valid_to").data() == "2026-02-20"
    window.action_undo.trigger()
    assert dump(demo.db_path) == before


def test_delete_is_confirmed_and_undoable(window, demo, monkeypatch):
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: answers.pop(0))
    window.select_entity("Kai Moreno")
    window.state.select_fact(orion["id"])
    window.action_delete_fact.trigger()
    assert dump(demo.db_path) == before
    window.action_delete_fact.trigger()
    assert file_fact(demo.db_path, orion["id"]) is None
    assert orion["id"] not in triple_rows(window)
    window.action_undo.trigger()
    assert dump(demo.db_path) == before  # rowid and all


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
    said = messages_of(window)
    answer_dialogs.append(lambda d: d.name.setText("Nobody At All"))
    assert not window.fact_actions.merge_entity_dialog("helios")
    assert "not in the graph" in said[-1]


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


# ── Files, settings, other processes ──────────────────────────────────────


def test_external_writes_are_noticed(window, demo):
    window.select_entity("Kai Moreno")
    shown = len(triple_rows(window))
    other = KnowledgeGraph(demo.db_path)
    try:
        other.add_triple("Kai Moreno", "uses", "Emacs", valid_from="2026-01-01")
    finally:
        other.close()
    assert window.check_external_changes()
    assert len(triple_rows(window)) == shown + 1
    assert not window.check_external_changes()


def test_bad_files_get_a_dialog_and_the_window_stays_usable(window, demo, tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    not_kg = tmp_path / "notes.sqlite3"
    not_kg.write_text("this is not a database")
    assert not window.open_path(not_kg)
    assert not window.open_path(tmp_path / "missing.sqlite3")
    assert not window.open_path(tmp_path)
    assert len(warnings) == 3 and "does not exist" in warnings[1]
    assert not_kg.read_text() == "this is not a database"
    assert window.kg is demo and window.select_entity("Kai Moreno")


def test_window_state_as_of_and_recent_files_persist(qtbot, tmp_path, isolated_settings):
    path = tmp_path / "graph.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Ada", "knows", "Bo", valid_from="2020-01-01")
    first = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(first)
    first.show()
    assert first.open_path(path)
    first.set_as_of("2021-06-01")
    first.graph_dock.hide()
    first.triple_editor.hide_invalid.setChecked(True)
    first.time_control.speed.setCurrentIndex(0)
    first.close()
    assert isolated_settings.exists() and isolated_settings.stat().st_size > 0

    second = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(second)
    second.show()
    from factlines.ui import settings as app_settings

    assert app_settings.last_file(second.settings) == str(path.resolve())
    assert [a.text() for a in second.recent_menu.actions()] == [str(path.resolve())]
    assert second.graph_dock.isHidden()
    assert second.triple_editor.hide_invalid.isChecked()
    assert second.time_control.speed.currentIndex() == 0
    second.recent_menu.actions()[0].trigger()
    assert second.as_of() == "2021-06-01"
    assert str(path.name) in second.windowTitle()
    second.close()


def test_drop_a_file_to_open_it(window, tmp_path):
    path = tmp_path / "dropped.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Ada", "knows", "Bo")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.path() == str(path.resolve())
    assert window.select_entity("Ada")


def test_new_graph_and_stats(window, tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    target = tmp_path / "new" / "kg.sqlite3"
    assert window.new_graph(target)
    assert target.exists() and window.browser.model.total == 0
    assert "0 entities" in window.stats_label.text()
    assert not window.new_graph(target)  # exists already: refused, said
    assert "already exists" in warnings[-1]


def test_moving_as_of_queries_nothing(window, demo, monkeypatch):
    """Views restyle what they hold; the store is asked again only on selection or data change."""
    window.select_entity("Kai Moreno")
    calls = []
    for name in (
        "intervals",
        "conflicts_touching",
        "get_entity",
        "get_fact",
        "list_entities",
        "count_entities",
        "query_entity",
        "time_span",
        "stats",
    ):
        original = getattr(demo, name)
        monkeypatch.setattr(
            demo, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    for value in ("2019-01-01", "2023-07-01", "2025-12-01", "2026-04-01T08:00:00Z", None):
        window.set_as_of(value)
    window.time_control.step(months=1)
    window.repaint()
    assert calls == []
    window.select_entity("Orion")  # a selection does query
    assert "intervals" in calls


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


def _tick(names: set[str]):
    """A dialog filler: tick exactly ``names`` in the single-valued list."""

    def fill(dialog):
        for row in range(dialog.list.count()):
            item = dialog.list.item(row)
            item.setCheckState(
                Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked
            )

    return fill


def test_marking_a_predicate_single_valued_shows_its_conflicts(window, demo, answer_dialogs):
    window.select_entity("Kai Moreno")
    marked = set(demo.single_valued_predicates())
    assert {"lives_in", "led_by"} <= marked
    before = dump(demo.db_path)
    answer_dialogs.append(_tick(marked - {"lives_in", "led_by"}))
    action = window.findChild(QAction, "actionSingleValued")
    assert action.isEnabled()
    action.trigger()
    stored = file_query(demo.db_path, "SELECT value FROM fl_meta")[0][0]
    assert "lives_in" not in stored and "works_on" in stored
    assert window.triple_editor.model.conflict_count == 0
    assert window.gantt.bars.layout.conflict_row.size == 0
    window.action_undo.trigger()
    assert dump(demo.db_path) == before
    assert window.triple_editor.model.conflict_count == 2
    assert window.gantt.bars.layout.conflict_row.size > 0


class PaintCounter(QObject):
    """Counts paint events of the widgets it watches."""

    def __init__(self, widgets):
        super().__init__()
        self.counts = {name: 0 for name in widgets}
        self._names = {widget: name for name, widget in widgets.items()}
        for widget in widgets.values():
            widget.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and watched in self._names:
            self.counts[self._names[watched]] += 1
        return False


def test_a_selection_paints_each_view_once(window, qtbot):
    window.select_entity("Kai Moreno")
    qtbot.wait(50)
    counter = PaintCounter(
        {
            "chart": window.gantt._glw.viewport(),
            "graph": window.graph_view.viewport(),
            "table": window.triple_editor.view.viewport(),
        }
    )
    window.select_entity("Mira Chen")
    qtbot.waitUntil(lambda: all(counter.counts.values()), timeout=2000)
    qtbot.wait(50)
    assert counter.counts == {"chart": 1, "graph": 1, "table": 1}


def test_a_keystroke_paints_the_entity_list_once(window, qtbot):
    # Short enough that all 31 demo entities need a scroll bar, and one match does not.
    window.resize(1500, 600)
    window.browser.set_search("kai")
    qtbot.wait(50)
    counter = PaintCounter({"list": window.browser.view.viewport()})
    window.browser.set_search("")
    qtbot.waitUntil(lambda: counter.counts["list"] > 0, timeout=2000)
    qtbot.wait(50)
    assert window.browser.model.rowCount() == 31
    assert counter.counts == {"list": 1}


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


def test_hiding_rows_at_a_step_paints_the_table_once(window, qtbot):
    # Short enough that Kai's 14 facts need a scroll bar and the 6 valid ones do not.
    window.resizeDocks([window.facts_dock], [260], Qt.Orientation.Vertical)
    window.select_entity("Kai Moreno")
    window.triple_editor.hide_invalid.setChecked(True)
    window.set_as_of(None)
    qtbot.wait(50)
    table = window.triple_editor.view
    assert table.model().rowCount() == 14
    assert table.verticalScrollBar().isVisible()
    counter = PaintCounter({"table": table.viewport()})
    window.set_as_of("2025-12-01")
    qtbot.waitUntil(lambda: counter.counts["table"] > 0, timeout=2000)
    qtbot.wait(50)
    assert table.model().rowCount() == 6
    assert not table.verticalScrollBar().isVisible()
    assert counter.counts == {"table": 1}


def test_a_selection_reads_the_entity_once_for_every_view(window, demo, monkeypatch):
    calls = []
    for name in ("get_entity", "intervals", "conflicts_touching"):
        original = getattr(demo, name)
        monkeypatch.setattr(
            demo, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    window.select_entity("Orion")
    window.repaint()
    # The name is resolved once; the chart, the table and the graph share one record,
    # one intervals read and one conflicts read.
    assert sorted(calls) == ["conflicts_touching", "get_entity", "get_entity", "intervals"]
