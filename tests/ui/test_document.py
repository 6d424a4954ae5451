"""The open document: files opened, created, dropped or refused; other programs' writes;
where as_of was left in each file. First through the window, then the document alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent, QUndoCommand
from PySide6.QtWidgets import QMessageBox

from factlines import KnowledgeGraph
from factlines.core.errors import Refused, Unavailable
from factlines.ui.session import document as document_module
from factlines.ui.session import settings as app_settings
from factlines.ui.session.document import Document
from factlines.ui.session.state import AppState
from ui_fixtures import *  # noqa: F403
from ui_fixtures import triple_rows


def _graph(path: Path) -> Path:
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Ada", "knows", "Bo", valid_from="2020-01-01")
    return path


def test_external_writes_are_noticed_and_reloaded_once_queued(window, demo, qtbot):
    window.select_entity("Kai Moreno")
    shown = len(triple_rows(window))
    resets = []
    window.facts_table.model.modelReset.connect(lambda: resets.append(1))
    other = KnowledgeGraph(demo.db_path)
    try:
        other.add_triple("Kai Moreno", "uses", "Emacs", valid_from="2026-01-01")
    finally:
        other.close()
    assert window.check_external_changes()
    assert window.check_external_changes() is False
    window.state.reload_soon()  # asked again before the loop ran: still one reload
    qtbot.waitUntil(lambda: len(triple_rows(window)) == shown + 1, timeout=2000)
    qtbot.wait(50)
    assert resets == [1]


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


def test_the_window_reaches_the_graph_through_its_document(window, demo):
    assert window.kg is demo and window.document.kg is demo and window.state.kg is demo
    assert window.undo_stack is window.document.undo_stack
    assert window.path() == window.document.path == str(Path(demo.db_path).resolve())
    assert window.document.read_only is False
    window.close()
    assert not demo.closed  # handed to the window, so not the window's to close


def test_a_file_unavailable_now_stays_in_recent_files_a_refused_one_leaves(
    window, tmp_path, monkeypatch
):
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[2]))
    busy, other = _graph(tmp_path / "busy.sqlite3"), _graph(tmp_path / "other.sqlite3")
    assert window.open_path(busy) and window.open_path(other)

    def locked(location, **_options):
        raise Unavailable(f"{location} is locked by another program")

    with monkeypatch.context() as patched:
        patched.setattr(document_module, "open_graph", locked)
        assert not window.open_path(busy)
    assert "locked" in warnings[-1] and "try again" in warnings[-1]
    assert window.path() == str(other.resolve())
    assert str(busy.resolve()) in app_settings.recent_files(window.settings)
    busy.unlink()
    assert not window.open_path(busy)
    assert "does not exist" in warnings[-1]
    assert str(busy.resolve()) not in app_settings.recent_files(window.settings)


# ── The document alone ─────────────────────────────────────────────────────


@pytest.fixture
def doc(qtbot, tmp_path):
    state = AppState()
    settings = QSettings(str(tmp_path / "doc.ini"), QSettings.Format.IniFormat)
    document = Document(state, settings)
    yield document
    document.close()


def test_opening_another_file_closes_the_one_it_opened_and_clears_undo(doc, tmp_path):
    doc.open(_graph(tmp_path / "one.sqlite3"))
    first = doc.kg
    assert doc.owned and doc.state.kg is first
    assert doc.path == str((tmp_path / "one.sqlite3").resolve())
    assert doc.title() == f"one.sqlite3 — {tmp_path.resolve()} — Factlines"
    assert "1 facts" in doc.stats_text()
    doc.undo_stack.push(QUndoCommand("a step"))
    doc.open(_graph(tmp_path / "two.sqlite3"))
    assert first.closed and not doc.kg.closed
    assert doc.undo_stack.count() == 0 and doc.undo_stack.isClean()
    doc.close()
    assert doc.kg.closed


def test_a_refused_open_changes_nothing(doc, tmp_path):
    doc.open(_graph(tmp_path / "one.sqlite3"))
    kept = doc.kg
    with pytest.raises(Refused, match="does not exist"):
        doc.open(tmp_path / "missing.sqlite3")
    with pytest.raises(Refused):
        doc.open(tmp_path)  # a folder
    assert doc.kg is kept and not kept.closed
    assert not (tmp_path / "missing.sqlite3").exists()


def test_create_makes_the_folder_and_never_opens_an_existing_file(doc, tmp_path):
    target = tmp_path / "deep" / "er" / "kg.sqlite3"
    doc.create(target)
    assert target.exists() and doc.kg.stats()["triples"] == 0
    with pytest.raises(Refused, match="already exists"):
        doc.create(target)
    (tmp_path / "blocked").write_text("a file where a folder should be")
    with pytest.raises(Unavailable, match="cannot create the folder"):
        doc.create(tmp_path / "blocked" / "kg.sqlite3")
    assert doc.path == str(target.resolve())


def test_as_of_is_kept_per_file_once_it_stops_moving(doc, qtbot, tmp_path):
    one, two = _graph(tmp_path / "one.sqlite3"), _graph(tmp_path / "two.sqlite3")
    kept = app_settings.AS_OF_BY_FILE
    doc.open(one)
    doc.state.set_as_of("2021-06-01")
    assert kept.of(one).get(doc.settings) is None  # not on every step of the slider
    qtbot.waitUntil(lambda: kept.of(one).get(doc.settings) == "2021-06-01", timeout=3000)
    doc.state.set_as_of("2022-01-01")
    doc.open(two)  # leaving a file keeps where it was at once
    assert kept.of(one).get(doc.settings) == "2022-01-01"
    assert doc.state.as_of is None  # two has none kept: all time
    doc.open(one)
    assert doc.state.as_of == "2022-01-01"


def test_a_saved_as_of_no_longer_accepted_opens_at_all_time(doc, tmp_path):
    one = _graph(tmp_path / "one.sqlite3")
    doc.settings.setValue(app_settings.AS_OF_BY_FILE.of(one).key, "last tuesday")
    doc.open(one)
    assert doc.state.as_of is None


def test_the_demo_is_a_temporary_copy_whose_as_of_is_not_kept(doc, tmp_path):
    doc.open_demo()
    assert doc.owned and doc.kg.get_entity("Kai Moreno") is not None
    doc.state.set_as_of("2025-12-01")
    doc.save_as_of()
    assert not doc.settings.contains(app_settings.AS_OF_BY_FILE.of(doc.path).key)
    doc.close()


def test_the_demos_copy_is_removed_with_it(doc, tmp_path):
    """Each "Open the demo graph" makes a temporary file: gone once another graph is open,
    or the window closed; a graph of the person's is never removed."""
    doc.open_demo()
    first = doc.path
    doc.open_demo()
    second = doc.path
    assert not Path(first).exists() and Path(second).exists()
    one = _graph(tmp_path / "one.sqlite3")
    doc.open(one)
    assert not Path(second).exists()
    assert not [p for p in Path(second).parent.iterdir() if p.name.startswith(Path(second).name)]
    doc.open_demo()
    third = doc.path
    doc.close()
    assert not Path(third).exists() and Path(one).exists()


def test_an_unreadable_file_is_said_once_while_it_lasts(doc, tmp_path, monkeypatch):
    doc.open(_graph(tmp_path / "one.sqlite3"))
    said = []
    doc.state.message.connect(said.append)

    def gone():
        raise Unavailable("the file is gone")

    with monkeypatch.context() as patched:
        patched.setattr(doc.kg, "external_changes", gone)
        assert not doc.check_external_changes()
        assert not doc.check_external_changes()
    assert len(said) == 1 and "the file is gone" in said[0]
    assert not doc.check_external_changes()  # readable again: nothing changed, nothing said
    assert len(said) == 1


@pytest.mark.parametrize(
    ("label", "database", "where"),
    [
        ("postgresql://kai@127.0.0.1:5433/team", "team", "kai@127.0.0.1:5433"),
        ("postgresql://kai@db.example.org/team", "team", "kai@db.example.org"),
        ("postgresql://kai@:5433/team?host=/run/postgresql", "team", "kai@/run/postgresql:5433"),
        ("postgresql:///team?host=/tmp/pg", "team", "/tmp/pg"),
    ],
)
def test_a_postgres_title_names_the_server_or_the_socket_folder(label, database, where):
    assert document_module._database_and_server(label) == (database, where)
