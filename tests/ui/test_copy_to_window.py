"""File → Copy to…: the open graph copied whole on a worker thread with a
progress dialog that can cancel; the target asked in a dialog; refusals said in words; the
open graph never written; cancel, or closing the window, leaves the target as it was."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel

from factlines import open_graph
from factlines.ui.menus import copy_to as copy_module
from factlines.ui.menus.copy_to import CopyTargetDialog, free_copy_name
from store_helpers import by_id, graph_state
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, messages_of


@pytest.fixture
def gate(monkeypatch):
    """The copy stops after its first batch until ``gate.set()``, then asks again whether to go
    on: a copy that lasts as long as the test needs, cancellable at that point."""
    gate = threading.Event()
    real = copy_module.copy_graph

    def gated(source, target, progress):
        def held(done, total):
            if done > 0 and not gate.is_set():
                assert gate.wait(10), "the test never let the copy go on"
            return progress(done, total)

        return real(source, target, progress=held)

    monkeypatch.setattr(copy_module, "copy_graph", gated)
    return gate


def _copying(window):
    return window.file_actions.copying


def _wait_for_the_end(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not _copying(window).busy, timeout=10_000)


def test_copy_to_through_the_menu_copies_everything_and_says_so(
    window, demo, qtbot, graph_places, monkeypatch
):
    demo.set_single_valued("works_at")
    source = str(demo.db_path)
    before, rows = graph_state(source), dump(source)
    target = graph_places.new("copy")

    def fill(dialog: CopyTargetDialog) -> int:
        name = Path(source).name
        assert any(f"Copy <b>{name}</b>" in label.text() for label in dialog.findChildren(QLabel))
        assert dialog.location().endswith("-copy.sqlite3")  # a new file beside it, suggested
        dialog.target.clear()
        assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
        dialog.target.setText(target)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(CopyTargetDialog, "exec", fill)
    said = messages_of(window)
    window.action_copy_to.trigger()
    assert _copying(window).busy
    _wait_for_the_end(qtbot, window)
    assert by_id(graph_state(target)) == by_id(before)
    assert dump(source) == rows  # the open graph is only read
    assert any("78 facts and 31 entities (and 1 setting) copied" in m for m in said), said
    assert window.action_copy_to.isEnabled() and not window.errors


def test_a_cancelled_dialog_copies_nothing(window, monkeypatch, tmp_path):
    asked = []

    def cancel(dialog):
        asked.append(dialog.location())
        return QDialog.DialogCode.Rejected

    files = sorted(tmp_path.rglob("*"))
    monkeypatch.setattr(CopyTargetDialog, "exec", cancel)
    window.action_copy_to.trigger()
    assert asked and not _copying(window).busy and _copying(window).dialog is None
    assert sorted(tmp_path.rglob("*")) == files


def test_cancel_in_the_progress_dialog_writes_nothing_and_the_window_answers(
    window, qtbot, graph_places, gate
):
    target = graph_places.new("cancelled")
    said = messages_of(window)
    window.file_actions.copying.copy_to(target)
    dialog = _copying(window).dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    # The window answers meanwhile: the copy runs off the UI thread; a second copy must wait.
    assert not window.action_copy_to.isEnabled()
    assert "a copy is under way" in window.action_copy_to.toolTip()
    window.select_entity("Kai Moreno")
    assert window.state.entity is not None
    button = dialog.buttons.button(dialog.buttons.StandardButton.Cancel)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert "Cancelling" in dialog.label.text()
    gate.set()
    _wait_for_the_end(qtbot, window)
    assert not graph_places.exists(target)
    assert f"Copy cancelled: nothing was written to {target}" in said
    assert not window.errors


def test_a_target_that_holds_a_graph_is_refused_in_words(window, qtbot, graph_places):
    target = graph_places.new("taken")
    with open_graph(target) as kg:
        kg.add_triple("Ann", "knows", "Bo")
    before = graph_state(target)
    window.quiet = True
    window.file_actions.copying.copy_to(target)
    _wait_for_the_end(qtbot, window)
    [said] = window.errors
    assert "already holds a graph (1 facts, 2 entities)" in said
    assert graph_state(target) == before


def test_closing_the_window_mid_copy_cancels_it(window, qtbot, graph_places, gate):
    target = graph_places.new("closing")
    window.file_actions.copying.copy_to(target)
    qtbot.waitUntil(lambda: _copying(window).dialog.isVisible(), timeout=5000)
    threading.Timer(0.2, gate.set).start()  # the copy goes on only once the close has cancelled
    window.close()
    assert not graph_places.exists(target)


def test_a_graph_open_read_only_is_copied_too(window, demo, qtbot, graph_places):
    source = str(demo.db_path)
    before = graph_state(source)
    assert window.open_path(source, read_only=True) and window.document.read_only
    assert window.action_copy_to.isEnabled()
    target = graph_places.new("from-read-only")
    window.file_actions.copying.copy_to(target)
    _wait_for_the_end(qtbot, window)
    assert by_id(graph_state(target)) == by_id(before) and not window.errors


def test_the_suggested_target_is_a_new_file_beside_the_graph(tmp_path):
    source = tmp_path / "kg.sqlite3"
    assert free_copy_name(str(source)) == tmp_path / "kg-copy.sqlite3"
    (tmp_path / "kg-copy.sqlite3").touch()
    (tmp_path / "kg-copy-2.sqlite3").touch()
    assert free_copy_name(str(source)) == tmp_path / "kg-copy-3.sqlite3"
