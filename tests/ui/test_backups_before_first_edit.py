"""A backup before the first edit of a file Factlines did not create (issue 9): a copy of the
whole graph in the app's data folder, once per file per session, before anything is written;
not for new graphs, the demo or read-only files; a setting turns it off; File → Show backups
folder says where."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox

from factlines import KnowledgeGraph
from factlines.ui import settings as app_settings
from factlines.ui.backups import backup_name
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, find_fact, messages_of

NAME = re.compile(r"^knowledge_graph-\d{4}-\d\d-\d\d-\d{6}(-\d+)?\.sqlite3$")


def _graph(path: Path) -> Path:
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
    return path


def _kept(folder: Path) -> list[Path]:
    return sorted(folder.iterdir()) if folder.exists() else []


def test_the_first_edit_is_preceded_by_a_backup_of_the_file_as_it_was(
    window, demo, isolated_backups
):
    before = dump(demo.db_path)
    said = messages_of(window)
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    assert window.end_fact(nova["id"], "2026-06-30")
    (backup,) = _kept(isolated_backups)
    stem = re.escape(Path(demo.db_path).stem)
    assert re.match(rf"^{stem}-\d{{4}}-\d\d-\d\d-\d{{6}}\.sqlite3$", backup.name)
    assert dump(backup) == before  # the file as it was before the edit
    assert window.backups.kept() == backup
    assert any(f"Kept a backup of {Path(demo.db_path).name}" in s for s in said)

    # Once per file per session: later edits, undo and redo keep no more.
    assert window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    window.undo_stack.undo()
    window.undo_stack.undo()
    window.undo_stack.redo()
    assert _kept(isolated_backups) == [backup]


def test_reopened_in_the_same_session_no_second_backup_another_file_its_own(
    window, tmp_path, isolated_backups
):
    one = _graph(tmp_path / "knowledge_graph.sqlite3")
    (tmp_path / "other").mkdir()
    two = _graph(tmp_path / "other" / "knowledge_graph.sqlite3")
    for path in (one, two, one):
        assert window.open_path(path)
        assert window.fact_actions.add_fact("Ann", "knows", f"Bo{len(_kept(isolated_backups))}")
    kept = _kept(isolated_backups)
    assert len(kept) == 2 and all(NAME.match(p.name) for p in kept)
    assert kept[0].name != kept[1].name  # two files of one name within a second


def test_no_backup_of_a_graph_made_here_the_demo_or_a_read_only_file(
    window, tmp_path, isolated_backups, monkeypatch
):
    assert window.new_graph(tmp_path / "new.sqlite3")
    assert window.fact_actions.add_fact("Ann", "knows", "Bo")
    assert window.open_demo()
    assert window.fact_actions.add_fact("Ann", "knows", "Bo")
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert window.open_path(notes)
    assert window.fact_actions.add_fact("Ann", "knows", "Bo")
    path = _graph(tmp_path / "knowledge_graph.sqlite3")
    assert window.open_path(path, read_only=True)
    assert not window.fact_actions.add_fact("Ann", "knows", "Bo")  # refused: read-only
    assert _kept(isolated_backups) == []


def test_the_setting_turns_it_off_and_the_menu_entry_keeps_the_choice(
    window, tmp_path, isolated_backups, isolated_settings
):
    keep = window.action_keep_backups
    assert keep.isCheckable() and keep.isChecked()
    assert app_settings.BACKUPS_ENABLED.get(window.settings) is True
    keep.trigger()
    assert app_settings.BACKUPS_ENABLED.get(window.settings) is False
    path = _graph(tmp_path / "knowledge_graph.sqlite3")
    assert window.open_path(path)
    assert window.fact_actions.add_fact("Ann", "knows", "Bo")
    assert _kept(isolated_backups) == []
    window.settings.sync()
    assert "enabled=false" in isolated_settings.read_text()


def test_a_backup_that_cannot_be_kept_stops_the_edit_and_says_how_to_go_on(
    window, demo, isolated_backups
):
    isolated_backups.parent.mkdir(parents=True, exist_ok=True)
    isolated_backups.write_text("a file where the folder should be")
    before = dump(demo.db_path)
    said = messages_of(window)
    assert not window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    assert "no backup of" in said[-1] and "turn off File → Keep a backup" in said[-1]
    assert dump(demo.db_path) == before and window.undo_stack.count() == 0
    window.backups.set_enabled(False, remember=False)  # this session only
    assert window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    assert app_settings.BACKUPS_ENABLED.get(window.settings) is True


def test_show_backups_folder_says_where_and_opens_it(window, isolated_backups, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    action = window.action_show_backups
    assert str(isolated_backups) in action.toolTip()
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert action in file_menu.actions() and window.action_keep_backups in file_menu.actions()
    action.trigger()
    assert [url.toLocalFile() for url in opened] == [str(isolated_backups)]
    assert isolated_backups.is_dir()


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/home/ann/.mempalace/knowledge_graph.sqlite3", "knowledge_graph-2026-03-01-142509"),
        ("notes.txt", "notes-2026-03-01-142509"),
    ],
)
def test_backup_names(path, expected):
    from datetime import datetime

    assert backup_name(path, datetime(2026, 3, 1, 14, 25, 9)) == f"{expected}.sqlite3"
