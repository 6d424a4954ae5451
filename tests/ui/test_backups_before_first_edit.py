"""A backup before the first edit of a file Factlines did not create: a copy of the
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
from factlines.ui.jobs.backups import backup_name
from factlines.ui.jobs.backups import backups_folder as real_backups_folder
from factlines.ui.session import settings as app_settings
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


# ── Backups that cost nobody: off the window's thread, bounded, leaving room ──


def test_the_copy_is_made_on_a_worker_thread_while_the_edit_waits(
    window, demo, isolated_backups, monkeypatch
):
    import threading

    copied_on = []
    backup_to = KnowledgeGraph.backup_to

    def watched(kg, path, progress=None):
        copied_on.append(threading.current_thread())
        return backup_to(kg, path, progress)

    monkeypatch.setattr(KnowledgeGraph, "backup_to", watched)
    before = dump(demo.db_path)
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    assert window.end_fact(nova["id"], "2026-06-30")
    assert len(copied_on) == 1 and copied_on[0] is not threading.main_thread()
    (backup,) = _kept(isolated_backups)
    assert dump(backup) == before
    assert window.backups.job is None


def _old_backup(folder: Path, stem: str, when: str, megabytes: float = 0.01) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    place = folder / f"{stem}-{when}.sqlite3"
    place.write_bytes(b"\0" * int(megabytes * 1e6))
    return place


def test_older_backups_beyond_the_newest_few_of_a_file_and_the_total_cap_are_removed(
    window, demo, isolated_backups
):
    stem = Path(demo.db_path).stem
    app_settings.BACKUPS_PER_FILE.set(window.settings, 2)
    app_settings.BACKUPS_TOTAL_MB.set(window.settings, 3)
    oldest = _old_backup(isolated_backups, stem, "2026-01-01-100000")
    older = _old_backup(isolated_backups, stem, "2026-01-02-100000")
    newest_old = _old_backup(isolated_backups, stem, "2026-01-03-100000")
    other_file_old = _old_backup(isolated_backups, "other", "2025-12-01-100000", 2.5)
    other_file_new = _old_backup(isolated_backups, "other", "2026-02-01-100000", 1)
    unrelated = isolated_backups / "notes.txt"
    unrelated.write_text("not a backup")
    said = messages_of(window)
    assert window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    new = window.backups.kept()
    assert new is not None and new.exists()
    # The newest two of this file (the new one and the newest before it), the other file's
    # newer one within the 3 MB cap, and what is not a backup.
    assert set(isolated_backups.iterdir()) == {new, newest_old, other_file_new, unrelated}
    assert not any(p.exists() for p in (oldest, older, other_file_old))
    assert said[-1] == (
        f"Kept a backup of {Path(demo.db_path).name} before the first edit: {new}; removed 3 "
        "older backups (3 MB) to keep the newest 2 of each file and at most 3 MB"
    )


def test_a_backup_that_would_leave_little_room_is_taken_only_if_the_person_says(
    window, demo, isolated_backups, monkeypatch
):
    from factlines.ui.jobs import backups

    monkeypatch.setattr(backups, "free_megabytes", lambda folder: 400.0)
    before = dump(demo.db_path)
    said = messages_of(window)
    asked = []
    monkeypatch.setattr(window.backups, "_ask", lambda title, q: asked.append(q) or False)
    assert not window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    assert "would leave" in asked[-1] and str(isolated_backups) in asked[-1]
    assert f"only {400 - backups._megabytes(demo.db_path):,.0f} MB would be left" in said[-1]
    assert "MemPalace needs room" in said[-1] and f"turn off {backups.TURN_OFF}" in said[-1]
    assert dump(demo.db_path) == before and _kept(isolated_backups) == []

    monkeypatch.setattr(window.backups, "_ask", lambda title, q: True)  # edit without one
    assert window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    assert _kept(isolated_backups) == [] and window.backups.kept() is None
    assert any("No backup of" in s and "as you chose" in s for s in said)
    assert window.fact_actions.add_fact("Kai Moreno", "knows", "Bo")  # asked once per file


def test_the_backups_folder_names_factlines_once():
    from PySide6.QtCore import QCoreApplication, QStandardPaths

    app = QCoreApplication.instance()
    names = app.organizationName(), app.applicationName()
    app.setOrganizationName("Factlines")
    app.setApplicationName("Factlines")
    try:
        folder = real_backups_folder()  # not the test's
    finally:
        app.setOrganizationName(names[0])
        app.setApplicationName(names[1])
    data = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    assert folder == Path(data) / "Factlines" / "backups"


def test_cancelling_the_backup_stops_the_edit_and_leaves_nothing(
    window, demo, isolated_backups, monkeypatch
):
    backup_to = KnowledgeGraph.backup_to

    def cancelled_at_once(kg, path, progress=None):
        window.backups.job.cancel()  # as the dialog's Cancel does
        return backup_to(kg, path, progress)

    monkeypatch.setattr(KnowledgeGraph, "backup_to", cancelled_at_once)
    before = dump(demo.db_path)
    said = messages_of(window)
    assert not window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")
    assert "the backup was cancelled" in said[-1] and "turn off" in said[-1]
    assert dump(demo.db_path) == before and window.undo_stack.count() == 0
    assert _kept(isolated_backups) == []
    monkeypatch.setattr(KnowledgeGraph, "backup_to", backup_to)
    assert window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe")  # asked again: kept
    assert len(_kept(isolated_backups)) == 1


def test_closing_the_window_during_the_backup_cancels_it_and_the_edit(
    window, demo, isolated_backups, monkeypatch
):
    """The person quits while the backup before the first edit is copied: the copy stops and
    leaves nothing, the edit is not written, and no thread is left running."""
    import threading
    import time

    from PySide6.QtCore import QTimer

    backup_to = KnowledgeGraph.backup_to
    copying = threading.Event()

    def until_cancelled(kg, path, progress=None):
        copying.set()
        deadline = time.monotonic() + 10
        while not window.backups.job.cancel_requested and time.monotonic() < deadline:
            time.sleep(0.01)
        return backup_to(kg, path, progress)

    monkeypatch.setattr(KnowledgeGraph, "backup_to", until_cancelled)
    closer = QTimer()
    closer.timeout.connect(lambda: copying.is_set() and (closer.stop(), window.close()))
    closer.start(10)
    before = dump(demo.db_path)
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")

    assert not window.end_fact(nova["id"], "2026-06-30")
    assert not window.isVisible() and dump(demo.db_path) == before
    assert _kept(isolated_backups) == []
