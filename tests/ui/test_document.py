"""The open document: files opened, created, dropped or refused; other programs' writes."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import triple_rows


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
