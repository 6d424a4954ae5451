"""The facts table and the fact forms: each edit checked in the file, then undone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from factlines.ui.models.fact_models import FACT_ID_ROLE
from ui_fixtures import *  # noqa: F403
from ui_fixtures import PaintCounter, cell, dump, file_fact, file_query, find_fact, messages_of


def test_typing_in_a_cell_validates_and_writes_through_undo(window, demo, qtbot):
    window.select_entity("Kai Moreno")
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)
    said = messages_of(window)
    view = window.facts_table.view
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


def test_a_duplicate_open_fact_is_reported_not_added(window, demo, answer_dialogs):
    window.select_entity("Kai Moreno")
    before = dump(demo.db_path)

    def fill(dialog):
        dialog.predicate.setCurrentText("works_at")
        dialog.object.setText("Lumen Labs")

    answer_dialogs.append(fill)
    assert window.fact_actions.add_fact_dialog() is None
    # Said in the form, which stays open with what was typed (as a bad date is).
    dialog = answer_dialogs.seen[-1]
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "already an open fact" in dialog.error.text() and dialog.error.isVisibleTo(dialog)
    assert (dialog.predicate.currentText(), dialog.object.text()) == ("works_at", "Lumen Labs")
    assert dump(demo.db_path) == before
    assert window.undo_stack.count() == 0
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
    # In the form's words, not the store's field names.
    assert dialog.error.text() == (
        "Valid to (2026-03-01) is before Valid from (2026-03-10): "
        "a fact cannot end before it starts."
    )
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
        dialog.provenance["source_drawer_id"].setText("drawer_7")

    answer_dialogs.append(fill)
    assert window.fact_actions.replace_fact_dialog(nova["id"])
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-05-01T00:00:00Z"
    rows = file_query(
        demo.db_path,
        "SELECT id, subject, valid_from, source_file, source_drawer_id FROM triples "
        "WHERE predicate = 'works_on' "
        "AND object = 'helios' AND valid_to IS NULL AND subject IN ('kai_moreno', 'kai_m.')",
    )
    # one open successor, of the same subject, from the same instant, with no borrowed source
    assert [r[1:] for r in rows] == [("kai_moreno", "2026-05-01T00:00:00Z", None, "drawer_7")]
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


def test_hiding_rows_at_a_step_paints_the_table_once(window, qtbot):
    # Short enough that Kai's 14 facts need a scroll bar and the 6 valid ones do not.
    window.resizeDocks([window.facts_dock], [285], Qt.Orientation.Vertical)
    window.select_entity("Kai Moreno")
    window.facts_table.hide_invalid.setChecked(True)
    window.set_as_of(None)
    qtbot.wait(50)
    table = window.facts_table.view
    assert table.model().rowCount() == 14
    assert table.verticalScrollBar().isVisible()
    counter = PaintCounter({"table": table.viewport()})
    window.set_as_of("2025-12-01")
    qtbot.waitUntil(lambda: counter.counts["table"] > 0, timeout=2000)
    qtbot.wait(50)
    assert table.model().rowCount() == 6
    assert not table.verticalScrollBar().isVisible()
    assert counter.counts == {"table": 1}


def test_an_end_that_hides_the_fact_keeps_it_selected_and_says_where_it_went(window, demo, qtbot):
    """With the not-valid facts hidden, ending the selected fact removed its row: the next row
    was selected, its History shown, and a second end would have ended that one."""
    window.select_entity("Kai Moreno")
    window.facts_table.hide_invalid.setChecked(True)
    window.set_as_of("2025-12-01")
    job = find_fact(demo, "Kai Moreno", "works_at", "Lumen Labs")
    view = window.facts_table.view
    index = cell(window, job["id"], "predicate")
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    assert window.selected_fact() == job["id"]
    said = messages_of(window)
    assert window.end_fact(job["id"], "2025-01-01")
    qtbot.wait(20)
    assert window.selected_fact() == job["id"]
    assert not view.selectionModel().hasSelection()  # its row is hidden, no other row taken
    assert any("hidden" in m and "Lumen Labs" in m for m in said), said
    window.action_undo.trigger()
    qtbot.wait(20)
    assert window.selected_fact() == job["id"]
    assert view.currentIndex().data(FACT_ID_ROLE) == job["id"]
