"""Fixtures for the window tests: isolated settings, the demo graph, a shown window, file dumps.

Imported by the window tests in tests/ (``from ui_fixtures import *``), with helpers to read
the window's table and count paints. Nothing here touches the real user's settings: every window
gets an INI file under the test's tmp_path.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject

from factlines.ui.models.fact_models import COLUMN, FACT_ID_ROLE


@pytest.fixture(autouse=True)
def collector_on_the_ui_thread(qapp):
    """As in the app: Python's cycle collector runs on the UI thread alone (a collection on a
    worker thread that frees Qt objects can hang the process). The tests of the core after
    this one in the same process collect as Python does."""
    import gc

    from factlines.ui.app import collect_on_the_ui_thread

    collect_on_the_ui_thread()
    yield
    gc.enable()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch) -> Path:
    """Every window in the test keeps its settings in tmp_path, never in the user's."""
    path = tmp_path / "settings" / "factlines.ini"
    path.parent.mkdir()
    monkeypatch.setenv("FACTLINES_SETTINGS", str(path))
    return path


@pytest.fixture(autouse=True)
def isolated_backups(tmp_path_factory, monkeypatch) -> Path:
    """The backups kept before a first edit go to a folder of the test's, never the user's
    (and not into tmp_path, whose listing some tests compare)."""
    from factlines.ui.jobs import backups

    folder = tmp_path_factory.mktemp("data") / "backups"
    monkeypatch.setattr(backups, "backups_folder", lambda: folder)
    return folder


@pytest.fixture(autouse=True)
def no_modal_dialogs(monkeypatch):
    """A modal dialog nobody answers would hang the run: fail instead, saying which one.

    Tests that expect a dialog replace these (monkeypatch, or ``answer_dialogs``).
    """
    from PySide6.QtWidgets import QMessageBox

    from factlines.ui.menus.edits import FactActions

    def unexpected(kind):
        def refuse(*args, **kwargs):
            raise AssertionError(f"unexpected modal {kind}: {args[1:3]}")

        return refuse

    for name in ("warning", "question", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, name, unexpected(f"QMessageBox.{name}"))
    monkeypatch.setattr(FactActions, "_exec", unexpected("form"))


@pytest.fixture
def app_errors(monkeypatch):
    """The app's error handler, quiet, as ``sys.excepthook`` for this test: what reaches it is
    in ``app_errors.reports``. It stands in for pytest-qt's hook, which would fail the test on
    the very exception the test causes; pytest-qt's comes back when the test ends."""
    from factlines.ui.errors import ErrorHandler

    handler = ErrorHandler(quiet=True)
    monkeypatch.setattr(sys, "excepthook", handler)
    return handler


def write_hub(kg, facts: int, others: int = 1000) -> None:
    """A hub ('Hub', id ``hub``) with ``facts`` facts to ``others`` entities (``E0000``…),
    half of them from the hub, half to it, over three predicates, a quarter ended."""
    with kg.transaction():
        conn = kg._conn()
        conn.execute("INSERT INTO entities (id, name, type) VALUES ('hub', 'Hub', 'org')")
        conn.executemany(
            "INSERT INTO entities (id, name) VALUES (?, ?)",
            [(f"e{i:04d}", f"E{i:04d}") for i in range(others)],
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    f"t{n:05d}",
                    "hub" if n % 2 else f"e{n % others:04d}",
                    ("works_on", "knows", "uses")[n % 3],
                    f"e{n % others:04d}" if n % 2 else "hub",
                    f"{2000 + n % 20}-01-01",
                    None if n % 4 else f"{2021 + n % 5}-06-30",
                )
                for n in range(facts)
            ],
        )


def shown_window(qtbot, kg, settings, size=(1500, 950)):
    """The main window on ``kg``, shown and exposed."""
    from factlines.ui import MainWindow

    win = MainWindow(kg, settings=str(settings))
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    try:
        qtbot.waitUntil(lambda: not win.panels.busy, timeout=10000)  # the whole graph's answers
    except qtbot.TimeoutError:
        raise AssertionError(f"still answering after 10 s: {busy_questions(win)}") from None
    return win


def busy_questions(win) -> list[str]:
    """Which of the window's whole-graph questions are busy, and how (for a failure's words)."""
    panels = win.panels
    named = {
        "conflicts": panels.conflicts.finder,
        "predicates": panels.predicates.query,
        "histogram": panels.histogram,
        "changes": panels.changes,
        "as recorded": panels.as_recorded,
        "review inbox": panels.review.inbox,
        "duplicates": panels.review.duplicates.finder,
    }
    said = []
    for name, question in named.items():
        if question.busy:
            reader = getattr(question, "reader", None) or getattr(question, "_reader", None)
            timer = getattr(question, "_timer", None)
            said.append(
                f"{name} (reading: {getattr(reader, 'busy', '?')}, "
                f"timer: {timer.isActive() if timer is not None else '-'})"
            )
    return said


@pytest.fixture
def window(qtbot, demo, isolated_settings):
    return shown_window(qtbot, demo, isolated_settings)


def dump(path) -> dict:
    """Every row of every table, rowid included, read through a second connection; but for
    Factlines' edit log, which keeps each edit and then its undo as entries of their own."""
    conn = sqlite3.connect(str(path))
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "AND name != 'fl_edit_log'"
            )
        ]
        return {
            table: conn.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid").fetchall()
            for table in sorted(tables)
        }
    finally:
        conn.close()


def file_fact(path, triple_id: str) -> dict | None:
    """One triple row as the file has it (second connection)."""
    conn = sqlite3.connect(str(path))
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM triples WHERE id = ?", (triple_id,)).fetchone()
        return dict(row) if row else None
    finally:
        conn.close()


def file_query(path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(str(path))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


@pytest.fixture
def answer_dialogs(monkeypatch):
    """Queue fillers for the next dialogs; each fills the form, then OK is pressed.

    ``answer_dialogs.append(lambda dialog: ...)``; a filler returning False presses Cancel.
    The dialog's own validation runs (a refused form stays open and counts as not accepted).
    """
    from factlines.ui.menus.edits import FactActions

    class Fillers(list):
        seen: list

    fillers: Fillers = Fillers()
    seen: list = []

    def fake_exec(self, dialog) -> bool:
        seen.append(dialog)
        filler = fillers.pop(0)
        if filler(dialog) is False:
            dialog.reject()
            return False
        dialog.accept()
        return dialog.result() == dialog.DialogCode.Accepted

    monkeypatch.setattr(FactActions, "_exec", fake_exec)
    fillers.seen = seen
    return fillers


def messages_of(window) -> list[str]:
    """Collect what the window says in its status bar from now on."""
    said: list[str] = []
    window.state.message.connect(said.append)
    return said


def find_fact(kg, subject: str, predicate: str, obj: str) -> dict:
    for fact in kg.intervals(subject):
        if (fact["subject_name"], fact["predicate"], fact["object_name"]) == (
            subject,
            predicate,
            obj,
        ):
            return fact
    raise AssertionError(f"no fact {subject} {predicate} {obj}")


def entity_rows_read(model) -> dict[int, dict]:
    """The entity list's rows read from the store (a page at a time, as shown), by row."""
    return {
        number * model.PAGE + at: entity
        for number, page in model._pages.by_number.items()
        for at, entity in enumerate(page)
    }


def triple_rows(window) -> list[str]:
    view = window.facts_table.view
    model = view.model()
    return [model.index(r, 0).data(FACT_ID_ROLE) for r in range(model.rowCount())]


def cell(window, triple_id: str, column: str):
    view = window.facts_table.view
    model = view.model()
    for r in range(model.rowCount()):
        if model.index(r, 0).data(FACT_ID_ROLE) == triple_id:
            return model.index(r, COLUMN[column])
    raise AssertionError(f"{triple_id} is not shown")


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
