"""The main window driven as a user would, each step checked in the file (second connection):
its automation surface, every view at once, the edits from its menus and undo."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QAbstractSlider, QMessageBox

from factlines import KnowledgeGraph
from factlines.core.errors import Unavailable
from factlines.ui import MainWindow
from factlines.ui.chart import GanttChart
from factlines.ui.errors import ErrorHandler
from factlines.ui.models import entity_listing
from factlines.ui.models.fact_models import VALID_ROLE
from factlines.ui.session.commands import run_edit
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import (
    PaintCounter,
    cell,
    dump,
    file_fact,
    file_query,
    find_fact,
    messages_of,
    triple_rows,
)

APP = Path(__file__).resolve().parents[2] / "app"

# ── The automation surface ─────────────────────────────────────────────────


def test_automation_surface(window, demo):
    assert isinstance(window.findChild(QAbstractItemView, "entityBrowser"), QAbstractItemView)
    assert isinstance(window.findChild(QAbstractItemView, "tripleTable"), QAbstractItemView)
    assert isinstance(window.findChild(QAbstractSlider, "asOfSlider"), QAbstractSlider)
    gantt = window.findChild(GanttChart, "ganttPlot")
    assert gantt is not None and window.centralWidget().isAncestorOf(gantt)
    assert window.findChild(object, "graphView") is window.graph_view
    from PySide6.QtGui import QAction

    actions = {a.objectName(): a for a in window.findChildren(QAction)}
    for name in ("actionEndFact", "actionUndo", "actionRedo"):
        assert name in actions and actions[name].parent() is window
    assert actions["actionUndo"].shortcut() == QKeySequence(QKeySequence.StandardKey.Undo)
    assert actions["actionRedo"].shortcut() == QKeySequence(QKeySequence.StandardKey.Redo)
    assert window.as_of() is None
    assert window.select_entity("Kai Moreno")
    assert window.state.entity == "kai_moreno"


def test_empty_start_is_usable(qtbot, isolated_settings):
    win = MainWindow(kg=None, settings=str(isolated_settings))
    qtbot.addWidget(win)
    win.show()
    said = messages_of(win)
    assert win.findChild(QAbstractItemView, "entityBrowser").model().rowCount() == 0
    assert not win.select_entity("anyone")
    # Nothing can be edited: every edit is disabled and says why.
    for action in (win.action_add_fact, win.action_end_fact, win.action_rename):
        assert not action.isEnabled() and "no graph is open" in action.toolTip()
    win.fact_actions.end_selected()  # asked for anyway (a script): said, not done
    assert any("select a fact" in m for m in said)
    win.set_as_of("2020-01-01")
    assert win.as_of() == "2020-01-01"


# ── Every view at once ─────────────────────────────────────────────────────


def test_scrubbing_restyles_every_view_and_writes_nothing(window, demo):
    window.select_entity("Kai Moreno")
    before = dump(demo.db_path)
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    window.set_as_of("2025-12-01")
    assert cell(window, orion["id"], "predicate").data(VALID_ROLE) is True
    assert cell(window, nova["id"], "predicate").data(VALID_ROLE) is False
    solid_before = sum(e["solid"] for e in window.graph_view.drawn_edges())
    window.set_as_of("2026-04-01")
    assert cell(window, orion["id"], "predicate").data(VALID_ROLE) is False
    assert cell(window, nova["id"], "predicate").data(VALID_ROLE) is True
    valid_neighbours = {
        n["id"] for n in window.graph_view.drawn_neighbours() if n["valid_at_as_of"]
    }
    assert "nova" in valid_neighbours and "orion" not in valid_neighbours
    window.set_as_of(None)
    assert all(e["solid"] for e in window.graph_view.drawn_edges())
    assert solid_before < len(window.graph_view.drawn_edges())
    window.facts_table.hide_invalid.setChecked(True)
    window.set_as_of("2026-04-01")
    shown = triple_rows(window)
    assert nova["id"] in shown and orion["id"] not in shown
    assert dump(demo.db_path) == before


# ── Edits, in the file, undone exactly ────────────────────────────────────


def test_add_end_undo_redo(window, demo, answer_dialogs):
    path = demo.db_path
    window.select_entity("Kai Moreno")
    before = dump(path)

    def fill(dialog):
        assert dialog.subject.text() == "Kai Moreno"
        dialog.predicate.setCurrentText("uses")
        dialog.object.setText("Zig")
        dialog.valid_from.setText("2026-02-01T09:00:00Z")
        dialog.confidence.setValue(0.8)
        dialog.provenance["source_file"].setText("notes/zig.md")

    answer_dialogs.append(fill)
    new_id = window.fact_actions.add_fact_dialog()
    row = file_fact(path, new_id)
    assert row["subject"] == "kai_moreno" and row["object"] == "zig"
    assert row["valid_from"] == "2026-02-01T09:00:00Z" and row["valid_to"] is None
    assert row["confidence"] == pytest.approx(0.8) and row["source_file"] == "notes/zig.md"
    assert new_id in triple_rows(window) and window.state.fact == new_id
    after_add = dump(path)

    assert window.end_fact(new_id, "2026-03-01")
    assert file_fact(path, new_id)["valid_to"] == "2026-03-01"
    window.action_undo.trigger()
    assert dump(path) == after_add
    window.action_undo.trigger()
    assert dump(path) == before
    assert new_id not in triple_rows(window)
    window.action_redo.trigger()
    window.action_redo.trigger()
    assert file_fact(path, new_id)["valid_to"] == "2026-03-01"
    # Every step is in the file already: nothing is "modified" and unsaved.
    assert not window.undo_stack.isClean()
    assert not window.isWindowModified() and "*" not in window.windowTitle()


def test_the_title_says_which_file_and_where(window, demo):
    path = Path(demo.db_path).resolve()
    assert window.windowTitle() == f"{path.name} — {path.parent} — Factlines"
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    assert window.end_fact(nova["id"], "2026-06-30")
    assert window.windowTitle() == f"{path.name} — {path.parent} — Factlines"
    assert not window.isWindowModified()


def test_end_fact_action_ends_the_selected_fact_at_as_of(window, demo):
    window.select_entity("Kai Moreno")
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    before = dump(demo.db_path)
    window.state.select_fact(nova["id"])
    window.set_as_of("2026-06-30")
    action = window.findChild(type(window.action_end_fact), "actionEndFact")
    assert action.isEnabled() and "2026-06-30" in action.text()
    action.trigger()
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-06-30"
    # Already ended: not offered, and the action says why.
    assert not window.action_end_fact.isEnabled()
    assert "already ended on 2026-06-30" in window.action_end_fact.toolTip()
    said = messages_of(window)
    window.fact_actions.end_selected()  # asked for anyway (a script): refused, said
    assert "already ended" in said[-1]
    window.action_undo.trigger()
    assert dump(demo.db_path) == before


def test_delete_is_confirmed_and_undoable(window, demo, answer_dialogs):
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    before = dump(demo.db_path)
    answer_dialogs += [lambda dialog: False, lambda dialog: None]  # Cancel, then Delete
    window.select_entity("Kai Moreno")
    window.state.select_fact(orion["id"])
    window.action_delete_fact.trigger()
    assert dump(demo.db_path) == before
    window.action_delete_fact.trigger()
    assert file_fact(demo.db_path, orion["id"]) is None
    assert orion["id"] not in triple_rows(window)
    window.action_undo.trigger()
    assert dump(demo.db_path) == before  # rowid and all


def _tick(names: set[str]):
    """A dialog filler: tick exactly ``names`` in the single-valued list."""

    def fill(dialog):
        for row in range(dialog.list.count()):
            item = dialog.list.item(row)
            item.setCheckState(
                Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked
            )

    return fill


def test_marking_a_predicate_single_valued_shows_its_conflicts(window, demo, answer_dialogs):
    window.select_entity("Kai Moreno")
    marked = set(demo.single_valued_predicates())
    assert {"lives_in", "led_by"} <= marked
    before = dump(demo.db_path)
    answer_dialogs.append(_tick(marked - {"lives_in", "led_by"}))
    action = window.findChild(QAction, "actionSingleValued")
    assert action.isEnabled()
    action.trigger()
    stored = file_query(demo.db_path, "SELECT value FROM fl_meta")[0][0]
    assert "lives_in" not in stored and "works_on" in stored
    assert window.facts_table.model.conflict_count == 0
    assert window.gantt.bars.layout.conflict_row.size == 0
    window.action_undo.trigger()
    assert dump(demo.db_path) == before
    assert window.facts_table.model.conflict_count == 2
    assert window.gantt.bars.layout.conflict_row.size > 0


# ── Reading and painting no more than needed ──────────────────────────────


def test_moving_as_of_queries_nothing(window, demo, monkeypatch):
    """Views restyle what they hold; the store is asked again only on selection or data change."""
    window.select_entity("Kai Moreno")
    calls = []
    for name in (
        "interval_table",
        "conflicts_touching",
        "get_entity",
        "get_fact",
        "list_entities",
        "count_entities",
        "query_entity",
        "time_span",
        "stats",
    ):
        original = getattr(demo, name)
        monkeypatch.setattr(
            demo, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    for value in ("2019-01-01", "2023-07-01", "2025-12-01", "2026-04-01T08:00:00Z", None):
        window.set_as_of(value)
    window.time_control.step(months=1)
    window.repaint()
    assert calls == []
    window.select_entity("Orion")  # a selection does query
    assert "interval_table" in calls


def test_a_selection_paints_each_view_once(window, qtbot):
    window.select_entity("Kai Moreno")
    qtbot.wait(50)
    counter = PaintCounter(
        {
            "chart": window.gantt._glw.viewport(),
            "graph": window.graph_view.viewport(),
            "table": window.facts_table.view.viewport(),
        }
    )
    window.select_entity("Mira Chen")
    qtbot.waitUntil(lambda: all(counter.counts.values()), timeout=2000)
    qtbot.wait(50)
    assert counter.counts == {"chart": 1, "graph": 1, "table": 1}


def test_a_selection_reads_the_entity_once_for_every_view(window, demo, monkeypatch):
    calls = []
    for name in ("get_entity", "interval_table", "conflicts_touching"):
        original = getattr(demo, name)
        monkeypatch.setattr(
            demo, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    window.select_entity("Orion")
    window.repaint()
    # The name is resolved once; the chart, the table and the graph share one record,
    # one read of its facts and one conflicts read.
    assert sorted(calls) == ["conflicts_touching", "get_entity", "get_entity", "interval_table"]


# ── When the store says no ─────────────────────────────────────────────────


def _unavailable(*_args, **_kwargs):
    raise Unavailable("database is locked")


def test_an_unavailable_store_is_said_as_try_again_and_writes_nothing(window, demo, monkeypatch):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    window.select_entity("Kai Moreno")
    window.state.select_fact(nova["id"])
    before = dump(demo.db_path)
    said = messages_of(window)
    monkeypatch.setattr(demo, "end_fact", _unavailable)
    window.action_end_fact.trigger()
    assert "database is locked" in said[-1] and "try again" in said[-1]
    assert "refused" not in said[-1]
    assert dump(demo.db_path) == before
    assert window.undo_stack.count() == 0


def test_undo_and_redo_meeting_an_unavailable_store_keep_the_step(window, demo, monkeypatch):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    before = dump(demo.db_path)
    assert window.end_fact(nova["id"], "2026-06-30")
    ended = dump(demo.db_path)
    said = messages_of(window)
    stack = window.undo_stack

    with monkeypatch.context() as patched:
        patched.setattr(demo, "revert", _unavailable)
        window.action_undo.trigger()
    assert "database is locked" in said[-1] and "try again" in said[-1]
    assert dump(demo.db_path) == ended  # nothing written
    assert (stack.count(), stack.index()) == (1, 1)  # the step is still there, still done
    assert window.action_undo.isEnabled() and not window.action_redo.isEnabled()
    window.action_undo.trigger()  # tried again, and done
    assert dump(demo.db_path) == before
    assert (stack.count(), stack.index()) == (1, 0)

    with monkeypatch.context() as patched:
        patched.setattr(demo, "reapply", _unavailable)
        window.action_redo.trigger()
    assert "try again" in said[-1]
    assert dump(demo.db_path) == before
    assert (stack.count(), stack.index()) == (1, 0)
    assert window.action_redo.isEnabled()
    window.action_redo.trigger()
    assert dump(demo.db_path) == ended
    assert (stack.count(), stack.index()) == (1, 1)


def test_undo_after_another_program_changed_the_rows_drops_the_step(window, demo):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    assert window.end_fact(nova["id"], "2026-06-30")
    other = KnowledgeGraph(demo.db_path)
    try:
        other.update_fact(nova["id"], valid_to="2026-07-31")
    finally:
        other.close()
    said = messages_of(window)
    window.action_undo.trigger()
    assert "changed by another program since this step" in said[-1]
    assert window.undo_stack.count() == 0  # it can never be undone blindly
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-07-31"


def _added_then_mempalace_wrote(window, demo) -> str:
    """A fact added in the window; then MemPalace writes the file (and may have asserted it)."""
    run_edit(
        window.state, window.undo_stack, "Add Ann mentors Zoe",
        lambda kg: kg.add_fact("Ann", "mentors", "Zoe"),
    )  # fmt: skip
    mempalace = mempalace_class()(demo.db_path)
    try:
        tid = mempalace.add_triple("Ann", "mentors", "Zoe")  # found open: writes nothing
        mempalace.add_triple("Zoe", "works_on", "Nova")
    finally:
        mempalace.close()
    return tid


@pytest.mark.parametrize("answer", [False, True])
def test_an_undo_that_would_delete_what_mempalace_may_rely_on_asks_first(
    window, demo, monkeypatch, answer
):
    tid = _added_then_mempalace_wrote(window, demo)
    asked: list[str] = []
    monkeypatch.setattr(window, "ask", lambda _title, q: asked.append(q) or answer)
    said = messages_of(window)

    window.action_undo.trigger()

    assert "another program wrote the graph since this step" in asked[0]
    assert "“Ann mentors Zoe”" in asked[0] and "Undo “Add Ann mentors Zoe” anyway?" in asked[0]
    if answer:
        assert file_fact(demo.db_path, tid) is None  # the person decided, knowingly
        assert window.undo_stack.index() == 0
    else:
        assert file_fact(demo.db_path, tid)["valid_to"] is None
        assert said[-1].startswith("Did not undo “Add Ann mentors Zoe”: another program")
        assert (window.undo_stack.count(), window.undo_stack.index()) == (1, 1)
        assert window.action_undo.isEnabled()  # the step is kept: undo stays possible


# ── A bug is shown as a bug ────────────────────────────────────────────────


# A plain ValueError too: it is a bug, not a refusal (a Refused is a ValueError, not the reverse).
@pytest.mark.parametrize("bug", [KeyError, ValueError])
def test_a_bug_in_an_edit_reaches_the_handler_with_its_traceback(
    window, demo, monkeypatch, app_errors, bug
):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    window.select_entity("Kai Moreno")
    window.state.select_fact(nova["id"])
    before = dump(demo.db_path)
    said = messages_of(window)

    def broken_end_fact(triple_id, ended):
        raise bug(triple_id)

    with monkeypatch.context() as patched:
        patched.setattr(demo, "end_fact", broken_end_fact)
        window.action_end_fact.trigger()  # a slot: the exception goes to sys.excepthook
    [report] = app_errors.reports
    assert type(report.exception) is bug
    assert report.traceback.startswith("Traceback") and "broken_end_fact" in report.traceback
    assert not any("refused" in m for m in said)  # not mistaken for the store saying no
    assert window.undo_stack.count() == 0
    assert dump(demo.db_path) == before
    # The app goes on.
    window.action_end_fact.trigger()
    assert file_fact(demo.db_path, nova["id"])["valid_to"] is not None
    assert len(app_errors.reports) == 1


def test_a_bug_in_a_view_update_reaches_the_handler(window, demo, monkeypatch, app_errors):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")

    def broken_counts(_touched):
        raise KeyError("entities")

    # The entity list's update after a write: how much its counts moved.
    monkeypatch.setattr(entity_listing, "moved_counts", broken_counts)
    assert window.end_fact(nova["id"], "2026-06-30")  # the edit is done and undoable
    assert window.undo_stack.count() == 1
    # Each view that updates meanwhile reports it (the window answers while the edit waits
    # for the backup before it, so a view due to refresh may meet the bug first).
    assert {type(r.exception) for r in app_errors.reports} == {KeyError}
    assert all("broken_counts" in r.traceback for r in app_errors.reports)
    assert file_fact(demo.db_path, nova["id"])["valid_to"] == "2026-06-30"


def test_a_refusal_is_a_message_not_a_bug(window, demo, app_errors):
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    said = messages_of(window)
    assert not window.end_fact(nova["id"], "2026-01-01")  # before it started
    assert "refused" in said[-1]
    assert app_errors.reports == []


def _raised(exc: BaseException):
    try:
        raise exc
    except BaseException:
        return sys.exc_info()


def test_the_handler_shows_a_bug_with_its_traceback_and_goes_on(qtbot, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box) or 0)
    handler = ErrorHandler(quiet=False)
    handler(*_raised(KeyError("missing")))
    [box] = shown
    assert box.icon() == QMessageBox.Icon.Critical
    assert "bug" in box.text() and "KeyError: 'missing'" in box.informativeText()
    assert "Traceback" in box.detailedText() and "_raised" in box.detailedText()

    handler(*_raised(Unavailable("the disk is full")))
    assert shown[-1].icon() == QMessageBox.Icon.Warning
    assert "the disk is full" in shown[-1].text() and "try again" in shown[-1].text()
    assert shown[-1].detailedText() == ""
    assert len(handler.reports) == 2


def test_a_bug_in_the_event_loop_does_not_end_the_app(tmp_path):
    script = textwrap.dedent(
        """
        import sys
        from PySide6.QtCore import QTimer
        from factlines.ui.app import _application

        app = _application()

        def bug():
            raise KeyError("in a slot")

        QTimer.singleShot(0, bug)
        QTimer.singleShot(50, lambda: app.exit(7))
        sys.exit(app.exec())
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(APP)}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 7  # the loop ran on after the bug, until asked to end
    assert "KeyError: 'in a slot'" in result.stderr and "Traceback" in result.stderr


def test_a_bug_in_a_read_leaves_no_model_half_reset(window, demo, monkeypatch, app_errors):
    """A read that fails inside a view's reload reaches the handler; the models stay whole
    (read before their reset begins) and the app goes on."""
    window.select_entity("Lumen Labs")
    model = window.facts_table.model
    shown = [f["id"] for f in model.facts]

    def broken_read(*_args):
        raise KeyError("a bug in the store")

    with monkeypatch.context() as patched:
        patched.setattr(demo._store.facts, "of_entity", broken_read)
        window.select_entity("Kai Moreno")
    assert [type(r.exception) for r in app_errors.reports][:1] == [KeyError]
    assert "broken_read" in app_errors.reports[0].traceback
    assert [f["id"] for f in model.facts] == shown  # as it was, not half-reset
    assert model.rowCount() == len(shown)
    window.state.select_entity(None)
    window.select_entity("Kai Moreno")  # the app goes on
    assert model.rowCount() > 0
    assert all("kai_moreno" in (f["subject"], f["object"]) for f in model.facts)


def test_closing_the_window_stops_the_figures_read_after_a_write(window, monkeypatch):
    """The span and counts are read again on a worker after a write: closing the window
    stops that read and waits for it (a read left running when Qt destroys its thread
    aborts the whole process: seen on quitting a 1M-fact graph just after an edit)."""
    import threading

    from factlines.ui.panels import figures

    gate, reading = threading.Event(), threading.Event()
    read = figures.read_figures

    def held(kg, progress=None):
        reading.set()
        gate.wait(10)
        return read(kg, progress)

    monkeypatch.setattr(figures, "read_figures", held)
    window.figures.refresh_now()
    job = window.figures.reader._job
    asked_to_stop = job.cancel

    def cancel() -> None:  # the read goes on once asked to stop, as a real one's next step does
        asked_to_stop()
        gate.set()

    monkeypatch.setattr(job, "cancel", cancel)
    try:
        assert reading.wait(5)
        window.close()
        assert job.wait(0)  # its thread has ended
    finally:
        gate.set()
        job.wait(10_000)
