"""The predicates panel: the vocabulary with its figures and audit signals,
sortable; rename and merge from it through the history question, one undo step each that puts
back identical rows; single-valued marked with one click."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QPushButton

from factlines import KnowledgeGraph
from factlines.ui.forms.predicate_form import RenamePredicateDialog
from factlines.ui.look import style
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, file_query, messages_of

GRAPH_TABLES = ("entities", "triples", "fl_meta")


def shown_panel(window, qtbot):
    window.panels.show_dock(window.panels.predicates_dock)
    panel = window.panels.predicates
    qtbot.waitUntil(lambda: bool(panel.model.rows), timeout=3000)
    return panel


def graph_rows(path) -> dict:
    rows = dump(path)
    return {table: rows.get(table) for table in GRAPH_TABLES}


def cells(view, predicate: str) -> list[str]:
    model = view.model()
    for number in range(model.rowCount()):
        if model.index(number, 0).data() == predicate:
            return [model.index(number, c).data() for c in range(model.columnCount())]
    raise AssertionError(f"{predicate} is not listed")


def test_every_predicate_listed_with_its_figures_and_signals(window, qtbot, qtmodeltester):
    kg = window.kg
    kg.add_triple("Kai Moreno", "working_on", "Orion", valid_from="2026-02-01")
    panel = shown_panel(window, qtbot)
    qtbot.waitUntil(lambda: panel.row("working_on") is not None, timeout=3000)
    view = window.findChild(QAbstractItemView, "predicatesPanel")
    assert view.model() is panel.proxy
    assert [row["predicate"] for row in panel.model.rows] == kg.predicates()
    works_on = panel.row("works_on")
    assert cells(view, "works_on") == [
        "works_on",
        f"{works_on['current']:,}",
        f"{works_on['ended']:,}",
        f"{works_on['subjects']:,}",
        f"{works_on['objects']:,}",
        ", ".join(works_on["signals"]),
    ]
    assert cells(view, "working_on")[-1] == "one-off, near-duplicate of works_on"
    assert panel.summary.text().startswith(f"{len(kg.predicates())} predicates: ")
    qtmodeltester.check(panel.model)

    view.sortByColumn(2, Qt.SortOrder.DescendingOrder)  # by Ended, as numbers
    ended = [view.model().index(n, 0).data(panel.proxy.sortRole()) for n in range(3)]
    most = sorted((row["ended"] for row in panel.model.rows), reverse=True)[:3]
    assert [panel.row(p)["ended"] for p in ended] == most
    panel.filter.setText("WORK")
    assert view.model().rowCount() == sum("work" in p for p in kg.predicates())

    chosen = view.model().index(0, 3)
    view.activated.emit(chosen)  # a row chosen: its facts, found
    find = window.panels.find_facts
    assert (find.field.text(), find.predicate_only.isChecked()) == (panel.predicate(chosen), True)
    assert window.panels.find_dock.isVisible()


def test_rename_from_the_panel_keeps_history_and_undo_puts_back_identical_rows(
    window, qtbot, answer_dialogs
):
    path, kg = window.path(), window.kg
    panel = shown_panel(window, qtbot)
    open_before = file_query(
        path, "SELECT id FROM triples WHERE predicate = 'works_at' AND valid_to IS NULL"
    )
    assert open_before
    before = graph_rows(path)
    said = messages_of(window)
    assert panel.select("works_at")

    def fill(dialog: RenamePredicateDialog):
        assert dialog.keep_history  # the default
        assert "ends now" in dialog.keep_words.text()
        dialog.target.setText("Employed At")
        assert dialog.note.text().startswith("Stored as employed_at")

    answer_dialogs.append(fill)
    steps = window.undo_stack.count()
    window.findChild(QPushButton, "predicate_rename").click()
    assert window.undo_stack.count() == steps + 1
    assert window.undo_stack.undoText() == "Rename predicate works_at to employed_at"
    marks = ", ".join("?" * len(open_before))
    ends = file_query(
        path,
        f"SELECT DISTINCT valid_to FROM triples WHERE id IN ({marks})",
        [row[0] for row in open_before],
    )
    starts = file_query(
        path, "SELECT DISTINCT valid_from FROM triples WHERE predicate = 'employed_at'"
    )
    assert len(ends) == 1 and ends == starts  # one instant
    assert len(file_query(path, "SELECT id FROM triples WHERE predicate = 'employed_at'")) == len(
        open_before
    )
    qtbot.waitUntil(lambda: panel.predicate() == "employed_at", timeout=3000)
    assert kg.predicate_colours() == {"employed_at": "works_at"}
    assert style.palette_index("employed_at") == style.palette_index("works_at")  # same colour
    assert f"{len(open_before)} facts ended and continued as employed_at from" in said[-1]
    assert kg.edit_log()[0]["what"] == "Rename predicate works_at to employed_at"

    window.undo_stack.undo()
    assert graph_rows(path) == before
    qtbot.waitUntil(lambda: panel.row("employed_at") is None, timeout=3000)
    assert kg.predicate_colours() == {}


def test_merge_in_place_into_the_look_alike(window, qtbot, answer_dialogs):
    path, kg = window.path(), window.kg
    kg.add_triple("Kai Moreno", "working_on", "Orion", valid_from="2026-02-01")
    panel = shown_panel(window, qtbot)
    qtbot.waitUntil(lambda: panel.row("working_on") is not None, timeout=3000)
    before = graph_rows(path)
    assert panel.select("working_on")

    def fill(dialog: RenamePredicateDialog):
        assert dialog.new_name() == "works_on"  # the near-duplicate, offered first
        assert dialog.merges()
        dialog.in_place.setChecked(True)

    answer_dialogs.append(fill)
    assert panel.run("merge")
    assert file_query(path, "SELECT COUNT(*) FROM triples WHERE predicate = 'working_on'") == [(0,)]
    assert window.undo_stack.undoText() == (
        "Merge predicate working_on into works_on (rewritten in place)"
    )
    qtbot.waitUntil(lambda: panel.predicate() == "works_on", timeout=3000)
    assert panel.row("working_on") is None
    window.undo_stack.undo()
    assert graph_rows(path) == before


def test_a_refused_name_keeps_the_dialog_open_and_writes_nothing(window, qtbot, answer_dialogs):
    path = window.path()
    panel = shown_panel(window, qtbot)
    before = graph_rows(path)
    assert panel.select("works_at")
    answer_dialogs.append(lambda dialog: dialog.target.setText("  "))
    assert not panel.run("rename")
    dialog = answer_dialogs.seen[-1]
    assert dialog.error.text() == "A name is required"
    assert graph_rows(path) == before


def test_mark_single_valued_is_one_undo_step(window, qtbot):
    kg = window.kg
    panel = shown_panel(window, qtbot)
    assert "uses" not in kg.single_valued_predicates()
    assert panel.select("uses")
    button = window.findChild(QPushButton, "predicate_single")
    assert button.text() == "Mark single-valued"
    button.click()
    assert "uses" in kg.single_valued_predicates()
    qtbot.waitUntil(lambda: button.text() == "Unmark single-valued", timeout=3000)
    assert "single-valued" in panel.row("uses")["signals"]
    window.undo_stack.undo()
    assert "uses" not in kg.single_valued_predicates()


def test_read_only_disables_the_edits_and_says_why(window, qtbot):
    assert window.open_path(window.path(), read_only=True)
    panel = shown_panel(window, qtbot)
    assert panel.select("works_at")
    for name in ("rename", "merge", "single"):
        button = window.findChild(QPushButton, f"predicate_{name}")
        assert not button.isEnabled()
        assert "read-only" in button.toolTip()
    assert window.findChild(QPushButton, "predicate_facts").isEnabled()


def test_the_figures_are_read_off_the_ui_thread(window, qtbot, monkeypatch):
    panel = shown_panel(window, qtbot)
    threads = []
    read = KnowledgeGraph.predicate_stats

    def recorded(kg):
        threads.append(threading.current_thread())
        return read(kg)

    monkeypatch.setattr(KnowledgeGraph, "predicate_stats", recorded)
    assert panel.row("advises") is None
    window.kg.add_triple("Kai Moreno", "advises", "Ana Ruiz")
    qtbot.waitUntil(lambda: panel.row("advises") is not None, timeout=10000)
    assert threads and threading.main_thread() not in threads
    assert panel.summary.text().startswith(f"{len(window.kg.predicates())} predicates")


def test_out_of_sight_the_panel_reads_nothing_until_shown(window, qtbot):
    panel = shown_panel(window, qtbot)
    window.panels.predicates_dock.hide()
    assert not panel.isVisible()
    window.kg.add_triple("Kai Moreno", "advises", "Ana Ruiz")
    qtbot.wait(500)
    assert panel.row("advises") is None
    window.panels.show_dock(window.panels.predicates_dock)
    qtbot.waitUntil(lambda: panel.row("advises") is not None, timeout=3000)


@pytest.mark.slow
def test_ten_thousand_facts_renamed_from_the_panel_undo_to_identical_rows(
    kg, kg_path, qtbot, isolated_settings, answer_dialogs
):
    from factlines.ui import MainWindow

    kg.insert_rows("entities", [{"id": f"e{i}", "name": f"E {i}"} for i in range(1_000)])
    kg.insert_rows(
        "triples",
        [
            {
                "id": f"t_{i}",
                "subject": f"e{i % 1_000}",
                "predicate": "works_on",
                "object": f"e{(i * 7) % 1_000}",
                "valid_from": f"20{10 + i % 15}-0{1 + i % 9}-01",
                "valid_to": None if i % 3 else "2025-12-31",
            }
            for i in range(10_000)
        ],
    )
    window = MainWindow(kg, settings=str(isolated_settings))
    qtbot.addWidget(window)
    window.show()
    panel = shown_panel(window, qtbot)
    before = graph_rows(kg_path)
    assert panel.select("works_on")
    answer_dialogs.append(lambda dialog: dialog.target.setText("works_for"))
    assert panel.run("rename")
    assert graph_rows(kg_path) != before
    window.undo_stack.undo()  # of 10,000 facts: on a worker
    qtbot.waitUntil(lambda: not window.replays.job.running, timeout=60_000)
    assert graph_rows(kg_path) == before
