"""Read-only in the window: asked for (``--read-only``, File → Open read-only…) or
because the file may not be written. A banner above the chart says so and why; everything can
be browsed, searched, scrubbed and exported; every edit is disabled with the reason in its
tooltip, the table's cells are not edited in place, the chart's bar ends are not dragged, and
nothing is written to the file.

The case of a file the user may not write runs as another user: when the suite runs as root
(as CI does), a child process builds the window as root, gives up root for ``nobody`` for
good, then opens root's graph. Run as an ordinary user, that case is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QStyleOptionViewItem, QToolTip

from factlines import KnowledgeGraph
from factlines.ui import MainWindow
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, dump, messages_of

APP = Path(__file__).resolve().parents[2] / "app"

# Every editing action of the window, by attribute.
EDITS = (
    "action_add_fact",
    "action_edit_fact",
    "action_end_fact",
    "action_end_fact_at",
    "action_replace_fact",
    "action_delete_fact",
    "action_rename",
    "action_merge",
    "action_single_valued",
    "action_import",
)
ASKED = "the graph is open read-only (opened read-only, as asked)"


def _graph(path: Path) -> Path:
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
        kg.add_triple("Ann", "knows", "Kai", valid_from="2024-03-01")
    return path


def _untouched(path: Path):
    """What must not change: the main file's bytes and time, and every row."""
    return path.read_bytes(), path.stat().st_mtime_ns, dump(path)


@pytest.fixture
def shown(qtbot, isolated_settings):
    """A window with no graph yet, shown; ``shown(path, read_only=...)`` opens one in it."""
    window = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_opened_read_only_on_request_the_window_browses_and_never_edits(
    shown, tmp_path, monkeypatch
):
    window = shown
    path = _graph(tmp_path / "kg.sqlite3")
    before = _untouched(path)
    said = messages_of(window)
    assert window.open_path(path, read_only=True)
    assert window.kg.read_only and window.document.read_only
    assert said[-1] == f"Opened {path.resolve()} read-only: opened read-only, as asked"
    assert window.windowTitle().startswith("kg.sqlite3 (read-only) — ")

    banner = window.findChild(type(window.read_only_banner), "readOnlyBanner")
    assert banner is window.read_only_banner and banner.isVisible()
    assert window.centralWidget().isAncestorOf(banner) and banner.y() < window.gantt.y()
    assert "Read-only:</b> you asked to open it read-only. Browse" in banner.label.text()
    assert banner.reopen_button.isVisible()

    # Browse, search, scrub, export.
    assert window.select_entity("Kai")
    window.browser.set_search("ann")
    model = window.browser.model
    assert [model.entity_at(r)["id"] for r in range(model.rowCount())] == ["ann"]
    window.set_as_of("2025-03-01")
    orion = next(f for f in window.kg.intervals("Kai") if f["object"] == "orion")
    window.state.select_fact(orion["id"])
    exported = window.gantt.export(tmp_path / "chart.png")
    assert exported.read_bytes()[:4] == b"\x89PNG"

    # Every edit disabled, saying why; undo and redo too.
    for name in EDITS:
        action = getattr(window, name)
        assert not action.isEnabled(), name
        assert ASKED in action.toolTip(), (name, action.toolTip())
    for name, verb in (("action_undo", "undo"), ("action_redo", "redo")):
        action = getattr(window, name)
        assert not action.isEnabled() and action.toolTip() == f"Cannot {verb}: {ASKED}"
    for key, button in window.facts_table.buttons.items():
        assert not button.isEnabled(), key
    assert window.action_export.isEnabled()  # export only reads

    # The table's cells are not edited in place, and say why when pointed at.
    view = window.facts_table.view
    assert view.editTriggers() == QAbstractItemView.EditTrigger.NoEditTriggers
    index = cell(window, orion["id"], "valid_to")
    for trigger in ("DoubleClicked", "EditKeyPressed", "AnyKeyPressed", "SelectedClicked"):
        assert not view.edit(index, getattr(QAbstractItemView.EditTrigger, trigger), None)
    tips = []
    delegate = view.itemDelegate()
    rect = view.visualRect(index)
    event = QHelpEvent(QEvent.Type.ToolTip, rect.center(), view.mapToGlobal(rect.center()))
    monkeypatch.setattr(QToolTip, "showText", lambda _pos, text, *_a: tips.append(text))
    assert delegate.helpEvent(event, view, QStyleOptionViewItem(), index)
    assert tips and tips[-1].endswith(f"Cannot edit here: {ASKED}")
    view.doubleClicked.emit(index)
    assert said[-1] == f"Cannot edit in place: {ASKED}"

    # The forms other views open directly say why and open nothing (a form would fail here).
    assert window.fact_actions.add_fact_dialog() is None
    assert said[-1] == f"Cannot add a fact: {ASKED}"
    assert not window.fact_actions.rename_entity_dialog("kai")
    assert not window.fact_actions.delete_fact(orion["id"])
    assert said[-1] == f"Cannot delete: {ASKED}"

    # The chart offers no end to drag; its tooltip says why.
    i = window.gantt.bars.layout.index_of(orion["id"])
    assert f"Cannot change it: {ASKED}" in window.gantt.tooltip(i)

    # A write past the disabled actions is refused by the store, in words.
    assert not window.fact_actions.end_fact(orion["id"], "2025-05-01")
    assert "read-only" in said[-1] and window.undo_stack.count() == 0
    window.close()
    assert _untouched(path) == before


def test_open_for_editing_from_the_banner(shown, tmp_path):
    window = shown
    path = _graph(tmp_path / "kg.sqlite3")
    assert window.open_path(path, read_only=True)
    window.read_only_banner.reopen_button.click()
    assert not window.document.read_only and not window.read_only_banner.isVisible()
    window.select_entity("Kai")
    assert window.action_add_fact.isEnabled() and window.action_single_valued.isEnabled()
    view = window.facts_table.view
    assert view.editTriggers() != QAbstractItemView.EditTrigger.NoEditTriggers
    assert window.action_undo.toolTip() == "Undo"


def test_file_open_read_only_asks_for_a_file_then_opens_it_read_only(shown, tmp_path, monkeypatch):
    path = _graph(tmp_path / "kg.sqlite3")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    menu_entry = shown.findChild(type(shown.action_open), "actionOpenReadOnly")
    assert menu_entry is shown.file_actions.action_open_read_only
    menu_entry.trigger()
    assert shown.path() == str(path.resolve()) and shown.document.asked_read_only


def test_the_command_line_opens_read_only_and_writes_nothing(tmp_path):
    path = _graph(tmp_path / "kg.sqlite3")
    before = _untouched(path)
    shot = tmp_path / "shot.png"
    env = {
        **os.environ,
        "PYTHONPATH": str(APP),
        "FACTLINES_SETTINGS": str(tmp_path / "settings.ini"),
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    env.pop("QT_QPA_PLATFORM", None)
    command = ["--read-only", str(path), "--entity", "Kai", "--screenshot", str(shot)]
    result = subprocess.run(
        [sys.executable, "-m", "factlines", *command],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    # Nothing left beside it (looked at first: reading it below could tidy up).
    assert sorted(p.name for p in tmp_path.glob("kg.sqlite3*")) == ["kg.sqlite3"]
    assert shot.read_bytes()[:4] == b"\x89PNG"
    assert _untouched(path) == before
    assert not (tmp_path / "data").exists()  # no backup, nothing kept for a read-only file


# ── A file the user may not write: as ``nobody`` ──────────────────────────

_AS_ANOTHER_USER = r"""
import json, os, sys
uid, gid, path, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
# Everything the window will need is loaded while root may still read Python's own files.
import sqlite3, tempfile, shutil, html, glob
import factlines.core.store.sqlite
import factlines.ui.forms.dialogs
from PySide6.QtWidgets import QApplication
from factlines.ui.window.main_window import MainWindow
app = QApplication([])
window = MainWindow(settings=os.path.join(out, "settings.ini"), quiet=True)
window.resize(1400, 900)
window.show()
for _ in range(5):
    app.processEvents()
os.setgroups([])
os.setgid(gid)
os.setuid(uid)  # for good
os.environ.pop("TMPDIR", None)
tempfile.tempdir = None
seen = {"opened": window.open_path(path), "errors": window.errors}
seen["selected"] = window.select_entity("Kai")
window.set_as_of("2025-03-01")
for _ in range(5):
    app.processEvents()
kg = window.kg
orion = next(f for f in kg.intervals("Kai") if f["object"] == "orion")
window.state.select_fact(orion["id"])
banner = window.read_only_banner
seen.update(
    read_only=kg.read_only,
    reason=kg.read_only_reason,
    banner_visible=banner.isVisible(),
    banner_text=banner.label.text(),
    reopen_offered=banner.reopen_button.isVisible(),
    actions={
        name: [getattr(window, name).isEnabled(), getattr(window, name).toolTip()]
        for name in json.loads(sys.argv[5])
    },
    undo=window.action_undo.toolTip(),
    edit_triggers=int(window.facts_table.view.editTriggers().value),
    rows=window.facts_table.model.rowCount(),
    chart_tip=window.gantt.tooltip(window.gantt.bars.layout.index_of(orion["id"])),
    missing_indexes=kg.missing_indexes(),
    shot=window.grab().save(os.path.join(out, "as-nobody.png"), "PNG"),
)
window.close()
print(json.dumps(seen))
"""


def _nobody() -> pwd.struct_passwd:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs root to run the window as another user (CI runs as root)")
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody to read as")


def _listing(folder: Path) -> dict:
    return {
        p.name: (p.stat().st_uid, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
    }


def test_a_file_the_user_may_not_write_is_browsed_read_only_with_the_reason(tmp_path):
    account = _nobody()
    base = Path(tempfile.mkdtemp(prefix="fl-ui-read-only-", dir="/tmp"))
    try:
        base.chmod(0o755)
        folder = base / "palace"  # root's, 0755: nobody may read but not write here
        folder.mkdir(mode=0o755)
        path = folder / "knowledge_graph.sqlite3"
        mp = mempalace_class()(str(path))  # MemPalace's file, never opened by Factlines
        mp.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
        mp.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
        mp.add_triple("Ann", "knows", "Kai")
        mp.close()
        folder.chmod(0o755)  # MemPalace keeps its folder to itself (0700)
        out = base / "out"
        out.mkdir()
        os.chown(out, account.pw_uid, account.pw_gid)
        before, content = _listing(folder), path.read_bytes()
        env = {**os.environ, "PYTHONPATH": str(APP), "QT_QPA_PLATFORM": "offscreen"}
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                _AS_ANOTHER_USER,
                str(account.pw_uid),
                str(account.pw_gid),
                str(path),
                str(out),
                json.dumps(EDITS),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=str(out),
        )
        assert result.returncode == 0, result.stderr
        seen = json.loads(result.stdout.strip().splitlines()[-1])
        assert (_listing(folder), path.read_bytes()) == (before, content)
        shot = out / "as-nobody.png"
        if os.environ.get("FACTLINES_SHOTS"):
            shutil.copy(shot, Path(os.environ["FACTLINES_SHOTS"]) / shot.name)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert seen["opened"] and not seen["errors"] and seen["selected"]
    assert seen["read_only"] and seen["reason"] == "you may not write this file"
    assert seen["banner_visible"] and not seen["reopen_offered"]
    assert "Read-only:</b> you may not write this file." in seen["banner_text"]
    why = "the graph is open read-only (you may not write this file)"
    for name, (enabled, tip) in seen["actions"].items():
        assert not enabled and why in tip, name
    assert seen["undo"] == f"Cannot undo: {why}"
    assert seen["edit_triggers"] == 0 and seen["rows"] == 3
    assert f"Cannot change it: {why}" in seen["chart_tip"]
    assert seen["missing_indexes"] == [] and seen["shot"]


# ── The last file, in a folder the user may no longer open ────────────────

_START_AS_ANOTHER_USER = r"""
import json, os, sys
from argparse import Namespace
uid, gid, path, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
import sqlite3, tempfile, shutil, html, glob, stat
import factlines.core.store.sqlite, factlines.core.store.places, factlines.core.mempalace_paths
import factlines.ui.forms.dialogs
from PySide6.QtWidgets import QApplication
from factlines.ui import app as app_module
from factlines.ui.session import settings as app_settings
from factlines.ui.window.main_window import MainWindow
app = QApplication([])
window = MainWindow(settings=os.path.join(out, "settings.ini"), quiet=True)
app_settings.LAST_FILE.set(window.settings, path)
window.show()
for _ in range(5):
    app.processEvents()
os.setgroups([])
os.setgid(gid)
os.setuid(uid)  # for good
os.environ.pop("TMPDIR", None)
tempfile.tempdir = None
opened = app_module._open_requested(window, Namespace(path=None, demo=False, read_only=False))
for _ in range(5):
    app.processEvents()
seen = {
    "opened": opened,
    "graph": window.kg is not None,
    "errors": window.errors,
    "shown": window.isVisible(),
}
window.close()
print(json.dumps(seen))
"""


def test_start_up_with_the_last_file_in_a_closed_folder_shows_an_empty_window_saying_why(
    tmp_path,
):
    account = _nobody()
    base = Path(tempfile.mkdtemp(prefix="fl-ui-closed-", dir="/tmp"))
    try:
        base.chmod(0o755)
        folder = base / "palace"
        folder.mkdir()
        path = folder / "knowledge_graph.sqlite3"
        mp = mempalace_class()(str(path))
        mp.add_triple("Kai", "works_on", "Orion")
        mp.close()
        folder.chmod(0o700)  # MemPalace keeps its folder to itself
        out = base / "out"
        out.mkdir()
        os.chown(out, account.pw_uid, account.pw_gid)
        env = {**os.environ, "PYTHONPATH": str(APP), "QT_QPA_PLATFORM": "offscreen"}
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                _START_AS_ANOTHER_USER,
                str(account.pw_uid),
                str(account.pw_gid),
                str(path),
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=str(out),
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["opened"] is False and seen["graph"] is False and seen["shown"]
    said = f"unavailable: you may not open the folder {folder}, where {path.name} is"
    assert len(seen["errors"]) == 1 and said in seen["errors"][0]


def test_read_only_is_remembered_with_the_file(qtbot, isolated_settings, tmp_path):
    """``factlines --read-only kg.sqlite3``, then ``factlines`` alone: the same file, read-only
    again, with its banner; opened for editing, it is remembered writable."""
    from argparse import Namespace

    from factlines.ui.app import _open_requested

    path = _graph(tmp_path / "kg.sqlite3")
    alone = Namespace(demo=False, read_only=False, path=None)

    def start(args) -> MainWindow:
        window = MainWindow(settings=str(isolated_settings))
        qtbot.addWidget(window)
        window.show()
        assert _open_requested(window, args)
        return window

    first = start(Namespace(demo=False, read_only=True, path=str(path)))
    first.close()
    second = start(alone)
    assert second.path() == str(path)
    assert second.document.read_only and second.read_only_banner.isVisible()
    recent = second.recent_menu.actions()[0]
    assert recent.text() == str(path)
    recent.trigger()  # the recent file, read-only as it was left
    assert second.document.read_only
    second.read_only_banner.reopen_button.click()  # open it for editing
    assert not second.document.read_only
    second.close()
    third = start(alone)
    assert not third.document.read_only and not third.read_only_banner.isVisible()
    third.close()
