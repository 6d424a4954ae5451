"""Who and why in the window: a reason typed when ending, replacing or deleting a
fact is logged with the edit, offered again for the next one, and told in the fact's History
section and tooltips; the edit history panel lists Factlines' edits and MemPalace's logged
writes, and choosing one shows its fact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, dump, file_fact, find_fact


@pytest.fixture
def write_log(tmp_path, monkeypatch):
    """MemPalace's write log where MemPalace would keep it for this test (its config folder)."""
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "mempalace"))
    path = tmp_path / "mempalace" / "wal" / "write_log.jsonl"
    path.parent.mkdir(parents=True)
    return path


def _logged(path, stamp: str, operation: str, params=None, result=None) -> None:
    """One line as MemPalace 3.11's ``wal._wal_log`` / ``_wal_result`` write it."""
    line = {"timestamp": stamp, "operation": operation}
    if params is not None:
        line["params"] = params
    line["result"] = result
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def _settle(qtbot) -> None:
    qtbot.wait(10)
    QApplication.processEvents()


def _end_with(reason: str | None, ended: str):
    def fill(dialog):
        dialog.ended.edit.setText(ended)
        if reason is not None:
            dialog.reason.setText(reason)

    return fill


def test_a_reason_typed_on_end_is_logged_and_told_in_the_history_and_tooltips(
    window, demo, answer_dialogs, write_log, qtbot
):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    window.select_entity("Kai Moreno")
    window.state.select_fact(nova["id"])
    answer_dialogs.append(_end_with("moved to the Nova team", "2026-06-30"))
    assert window.fact_actions.end_fact_dialog(nova["id"])
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-06-30"
    [entry] = demo.edit_log()
    assert entry["reason"] == "moved to the Nova team" and entry["facts"] == [nova["id"]]
    assert entry["what"].startswith("End Kai Moreno works_on Nova")

    window.state.select_fact(nova["id"])
    _settle(qtbot)
    history = window.facts_table.history
    assert [e["did"] for e in history.events][-1] == "ended"
    shown = history.text.toPlainText()
    assert "Ended in Factlines" in shown and "moved to the Nova team" in shown
    assert "valid_to: open → 2026-06-30" in shown

    tip = cell(window, nova["id"], "predicate").data(Qt.ItemDataRole.ToolTipRole)
    assert "History:" in tip and "why: “moved to the Nova team”" in tip
    bar = window.gantt.bars.layout.index_of(nova["id"])
    assert "moved to the Nova team" in window.gantt.tooltip(bar)

    # Undo is an edit of its own in the log; the reason stays with the edit it was given for.
    window.action_undo.trigger()
    assert file_fact(demo.db_path, nova["id"])["valid_to"] is None
    undo, end = demo.edit_log()
    assert undo["what"] == f"Undo {end['what']}" and undo["reason"] is None


def test_the_last_reason_is_offered_again_until_the_app_closes(window, demo, answer_dialogs):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    lumen = find_fact(demo, "Kai Moreno", "works_at", "Lumen Labs")
    answer_dialogs.append(_end_with("reorganisation", "2026-06-30"))
    assert window.fact_actions.end_fact_dialog(nova["id"])
    replaced = []

    def replace(dialog):  # keeps the reason offered
        replaced.append(dialog.reason.text())
        dialog.new_object.setText("Helios Labs")

    answer_dialogs.append(replace)
    window.state.select_entity("kai_moreno")
    assert window.fact_actions.replace_fact_dialog(lumen["id"])
    assert replaced == ["reorganisation"]
    assert [e["reason"] for e in demo.edit_log()] == ["reorganisation"] * 2
    assert window.document.reasons.last == "reorganisation"
    window.settings.sync()
    assert "reorganisation" not in Path(window.settings.fileName()).read_text(encoding="utf-8")

    # An emptied reason is remembered as none, and an edit without one logs none.
    ada = find_fact(demo, "Ada Park", "founded", "Lumen Labs")
    answer_dialogs.append(lambda dialog: dialog.reason.clear())
    assert window.fact_actions.delete_fact(ada["id"])
    assert demo.edit_log()[0]["reason"] is None and window.document.reasons.last == ""


def test_delete_asks_why_and_cancel_writes_nothing(window, demo, answer_dialogs):
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)

    def cancel(dialog):
        dialog.reason.setText("a typo")
        return False

    answer_dialogs.append(cancel)
    assert not window.fact_actions.delete_fact(orion["id"])
    assert dump(demo.db_path) == before and demo.edit_log() == []
    answer_dialogs.append(lambda dialog: dialog.reason.setText("entered twice by mistake"))
    assert window.fact_actions.delete_fact(orion["id"])
    assert file_fact(demo.db_path, orion["id"]) is None
    [entry] = demo.edit_log()
    assert entry["reason"] == "entered twice by mistake"
    story = demo.fact_history(orion["id"])
    assert (story[-1]["did"], story[-1]["reason"]) == ("deleted", "entered twice by mistake")


def test_the_edit_history_lists_mempalaces_writes_and_factlines_edits(
    window, demo, write_log, answer_dialogs, qtbot
):
    # MemPalace's agent added a fact (intent, then outcome) and ended another.
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    stamp = nova["extracted_at"].replace(" ", "T") + ".250000"
    params = {"subject": "Kai Moreno", "predicate": "works_on", "object": "Nova"}
    _logged(write_log, stamp, "kg_add", {**params, "valid_from": nova["valid_from"]})
    _logged(write_log, stamp, "kg_add", result={"success": True, "triple_id": nova["id"]})
    _logged(write_log, "2020-01-01T09:00:00", "kg_invalidate", {**params, "ended": "2020-01-01"})
    _logged(write_log, stamp, "add_drawer", {"content": "not a graph write"})
    lumen = find_fact(demo, "Kai Moreno", "works_at", "Lumen Labs")
    answer_dialogs.append(_end_with("left for Helios", "2026-01-31"))
    assert window.fact_actions.end_fact_dialog(lumen["id"])

    panels = window.panels
    panels.show_dock(panels.edit_history_dock)
    _settle(qtbot)
    panel = window.findChild(type(panels.edit_history), "editHistoryPanel")
    assert panel is panels.edit_history
    model = panel.view.model()
    rows = [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]
    # Newest first: the edit made now, MemPalace's add, then its older invalidate.
    assert [row[1] for row in rows] == [
        "Factlines",
        "MemPalace · kg_add",
        "MemPalace · kg_invalidate",
    ]
    assert rows[0][2].startswith("End Kai Moreno works_at Lumen Labs") and rows[0][3] == (
        "left for Helios"
    )
    assert rows[1][2] == (f"Add Kai Moreno works_on Nova from {nova['valid_from']} — done")
    assert "MemPalace's (2 graph writes in its write log)" in panel.summary.text()

    # Choosing MemPalace's add selects its fact and moves as_of to the start it wrote.
    window.select_entity("Ada Park")
    panel.view.clicked.emit(model.index(1, 2))
    assert (window.selected_entity(), window.selected_fact()) == ("kai_moreno", nova["id"])
    assert window.as_of() == nova["valid_from"]
    story = demo.fact_history(nova["id"])
    assert ("MemPalace", "added") in [(e["tool"], e["did"]) for e in story]
    # Choosing Factlines' end: its fact, at the end it wrote.
    panel.view.clicked.emit(model.index(0, 0))
    assert window.selected_fact() == lumen["id"] and window.as_of() == "2026-01-31"
    # A new edit shows up at the top.
    window.action_undo.trigger()
    qtbot.waitUntil(lambda: model.index(0, 2).data().startswith("Undo End"), timeout=3000)


def test_the_edit_history_is_read_a_page_at_a_time(window, demo, write_log, qtbot, monkeypatch):
    from factlines.ui.panels.edit_history import EditHistoryModel

    monkeypatch.setattr(EditHistoryModel, "PAGE", 3)
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    for n in range(8):  # edits made earlier, by another Factlines
        with demo.logged(f"Edit {n}"):
            demo.update_fact(nova["id"], source_file=f"notes {n}.md")
    kept = [entry["what"] for entry in demo.edit_log(limit=100)]  # the log keeps its share
    assert len(kept) > 3
    window.panels.show_dock(window.panels.edit_history_dock)
    _settle(qtbot)
    model = window.panels.edit_history.model
    model.reload()  # one page; the view asks for more as it shows them
    assert model.rowCount() == 3 and model.canFetchMore()
    while model.canFetchMore():
        model.fetchMore()
    assert [model.index(r, 2).data() for r in range(model.rowCount())] == kept
