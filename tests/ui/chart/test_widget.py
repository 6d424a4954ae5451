"""The Gantt chart in a window-less harness: drawing, the as_of cursor, editing by mouse and
menu (each checked in the file through a second connection, then undone), export, shots."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QMouseEvent, QUndoStack
from PySide6.QtWidgets import QApplication, QMessageBox

from factlines.core import temporal
from factlines.ui.actions import FactActions
from factlines.ui.chart import GanttChart
from factlines.ui.state import AppState

KAI = "kai_moreno"
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.MouseButton.NoButton


class Harness:
    def __init__(self, kg, qtbot):
        self.kg = kg
        self.state = AppState(kg)
        self.stack = QUndoStack()
        self.actions = FactActions(self.state, self.stack)
        self.chart = GanttChart(self.state, self.actions)
        self.messages: list[str] = []
        self.state.message.connect(self.messages.append)
        qtbot.addWidget(self.chart)
        self.chart.resize(1200, 700)
        self.chart.show()
        qtbot.waitExposed(self.chart)
        self.qtbot = qtbot

    def rows(self) -> dict:
        """Every row of every table, rowid included, read through a second connection."""
        with sqlite3.connect(self.kg.db_path) as conn:
            names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            return {
                name: conn.execute(f"SELECT rowid, * FROM {name} ORDER BY rowid").fetchall()
                for (name,) in names.fetchall()
            }

    def file_fact(self, triple_id: str) -> dict:
        with sqlite3.connect(self.kg.db_path) as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM triples WHERE id = ?", (triple_id,)).fetchone()
        return dict(row) if row else None

    def fact_id(self, predicate: str, other_name: str) -> str:
        for f in self.chart.bars.layout.facts:
            if f["predicate"] == predicate and other_name in (f["object_name"], f["subject_name"]):
                return f["id"]
        raise KeyError((predicate, other_name))

    def settle(self):
        QApplication.processEvents()


@pytest.fixture
def h(qtbot, demo):
    harness = Harness(demo, qtbot)
    harness.state.select_entity(KAI)
    harness.settle()
    return harness


def _send(widget, kind, pos, button, buttons):
    event = QMouseEvent(
        kind,
        QPointF(pos),
        QPointF(widget.mapToGlobal(pos)),
        button,
        buttons,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def mouse_drag(h, start, end, steps=8):
    """Press at ``start``, move to ``end`` in steps, release: pyqtgraph sees a real drag."""
    vp = h.chart.canvas.viewport()
    _send(vp, QEvent.Type.MouseMove, start, NONE, NONE)
    h.qtbot.wait(15)
    _send(vp, QEvent.Type.MouseButtonPress, start, LEFT, LEFT)
    for k in range(1, steps + 1):
        h.qtbot.wait(15)
        p = QPointF(start) + (QPointF(end) - QPointF(start)) * (k / steps)
        _send(vp, QEvent.Type.MouseMove, p.toPoint(), NONE, LEFT)
    h.qtbot.wait(15)
    _send(vp, QEvent.Type.MouseButtonRelease, end, LEFT, NONE)
    h.settle()


def mouse_click(h, pos, double=False):
    vp = h.chart.canvas.viewport()
    _send(vp, QEvent.Type.MouseMove, pos, NONE, NONE)
    h.qtbot.wait(15)
    _send(vp, QEvent.Type.MouseButtonPress, pos, LEFT, LEFT)
    _send(vp, QEvent.Type.MouseButtonRelease, pos, LEFT, NONE)
    if double:
        _send(vp, QEvent.Type.MouseButtonDblClick, pos, LEFT, LEFT)
        _send(vp, QEvent.Type.MouseButtonRelease, pos, LEFT, NONE)
    h.settle()


def shots_dir(tmp_path) -> Path:
    folder = os.environ.get("FACTLINES_SHOTS")
    path = Path(folder) if folder else tmp_path / "shots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def menu_action(menu, name):
    action = next((a for a in menu.actions() if a.objectName() == name), None)
    assert action is not None, f"no {name} in {[a.objectName() for a in menu.actions()]}"
    return action


# ── Drawing ──────────────────────────────────────────────────────────────


def test_the_chapter_example_at_two_instants(h):
    chart = h.chart
    drawn = {d["lane"]: d for d in chart.drawn_intervals()}
    for lane in ("works_on → Orion", "works_on → Nova", "recommended → Clerk"):
        assert lane in drawn

    def valid(lane):
        return [d["valid_at_as_of"] for d in chart.drawn_intervals() if d["lane"] == lane]

    h.state.set_as_of("2025-12-01")
    assert valid("works_on → Orion") == [True]
    assert valid("works_on → Nova") == [False]
    assert valid("recommended → Clerk") == [False]  # not yet
    h.state.set_as_of("2026-04-01")
    assert valid("works_on → Orion") == [False]
    assert valid("works_on → Nova") == [True]
    assert valid("recommended → Clerk") == [True]
    # the last day of a date-only valid_to is still inside the fact
    h.state.set_as_of("2026-03-01")
    assert valid("works_on → Orion") == [True]
    h.state.set_as_of("2026-03-02")
    assert valid("works_on → Orion") == [False]


def test_drawn_intervals_reflect_the_store(h):
    drawn = h.chart.drawn_intervals()
    facts = {f["id"]: f for f in h.kg.intervals("Kai Moreno")}
    assert {d["id"] for d in drawn} == set(facts)
    for d in drawn:
        f = facts[d["id"]]
        assert set(d) == {"id", "start", "end", "lane", "valid_at_as_of"}
        assert d["start"] == f["start"] and d["end"] == f["end"]
        assert d["valid_at_as_of"] is True  # all time: every fact
    nova = next(d for d in drawn if d["lane"] == "works_on → Nova")
    assert nova["end"] is None
    orion = next(d for d in drawn if d["lane"] == "works_on → Orion")
    assert orion["end"] == temporal.to_posix("2026-03-01T23:59:59Z")
    incoming = [d["lane"] for d in drawn if "←" in d["lane"]]
    assert "mentors ← Mira Chen" in incoming and "led_by ← Atlas" in incoming
    labels = h.chart.lane_labels()
    assert labels.index("works_on") < labels.index("works_on → Atlas")


def test_as_of_change_restyles_without_rebuilding(h):
    chart = h.chart
    builds = chart.build_count
    bars = chart.bars
    layout = bars.layout
    start, end = layout.start, layout.end
    h.state.set_as_of("2025-12-01")
    chart.repaint()
    painted = bars.paint_count
    h.state.set_as_of("2026-04-01")
    chart.canvas.viewport().repaint()
    assert chart.build_count == builds
    assert chart.bars is bars and bars.layout is layout
    assert bars.layout.start is start and bars.layout.end is end
    assert bars.paint_count > painted
    # ... and the restyle is right: the same mask as the validity rule over the facts
    at = temporal.start_key("2026-04-01")
    expected = [temporal.is_valid_at(f["valid_from"], f["valid_to"], at) for f in layout.facts]
    assert bars.valid.tolist() == expected
    # the batched item is the only bar item in the view
    assert sum(isinstance(i, type(bars)) for i in chart.view.childGroup.childItems()) == 1


def test_cursor_follows_state_and_hides_in_all_time_mode(h):
    chart = h.chart
    assert not chart.cursor.isVisible()
    h.state.set_as_of("2025-12-01")
    assert chart.cursor.isVisible()
    assert chart.cursor.value() == temporal.to_posix("2025-12-01")
    h.state.set_as_of("2026-04-01T12:30:00Z")
    assert chart.cursor.value() == temporal.to_posix("2026-04-01T12:30:00Z")
    h.state.set_as_of(None)
    assert not chart.cursor.isVisible()


def test_dragging_the_cursor_sets_as_of_snapped_to_days(h):
    chart = h.chart
    h.state.set_as_of("2025-12-01")
    chart.zoom_as_of_year()
    h.settle()
    x = temporal.to_posix("2025-12-01")
    top = chart.view.viewRange()[1][0] + 0.3  # the header row: no bar there
    start = chart.viewport_point(x, top)
    target = temporal.to_posix("2026-02-10T05:00:00Z")
    mouse_drag(h, start, chart.viewport_point(target, top))
    assert temporal.is_date(h.state.as_of)
    assert abs(temporal.to_posix(h.state.as_of) - target) <= 3 * 86400
    assert chart.cursor.value() == temporal.to_posix(h.state.as_of)
    # an instant as_of stays an instant
    h.state.set_as_of("2026-02-10T00:00:00Z")
    h.settle()
    start = chart.viewport_point(chart.cursor.value(), top)
    mouse_drag(h, start, chart.viewport_point(temporal.to_posix("2026-03-01"), top))
    assert not temporal.is_date(h.state.as_of)
    assert abs(temporal.to_posix(h.state.as_of) - temporal.to_posix("2026-03-01")) <= 3 * 86400


def test_click_selects_and_selection_highlights(h):
    chart = h.chart
    orion = h.fact_id("works_on", "Orion")
    point = chart.view_point(orion)
    mouse_click(h, chart.viewport_point(point.x(), point.y()))
    assert h.state.fact == orion
    assert chart.bars.selected == chart.bars.layout.index_of(orion)
    nova = h.fact_id("works_on", "Nova")
    h.state.select_fact(nova)
    assert chart.bars.selected == chart.bars.layout.index_of(nova)
    h.state.select_fact(None)
    assert chart.bars.selected == -1


def test_hover_tooltip_describes_the_fact(h):
    chart = h.chart
    h.state.set_as_of("2025-12-01")
    orion = h.fact_id("works_on", "Orion")
    i = chart.bars.layout.index_of(orion)
    text = chart.tooltip(i)
    for part in ("Kai Moreno works_on Orion", "2025-06-01", "2026-03-01", "Duration", "Confidence"):
        assert part in text
    assert "Provenance" in text and "Valid at as_of 2025-12-01: yes" in text
    point = chart.view_point(orion)
    vp = chart.canvas.viewport()
    _send(vp, QEvent.Type.MouseMove, chart.viewport_point(point.x(), point.y()), NONE, NONE)
    h.settle()
    assert "Orion" in chart.bars.toolTip()
    assert chart.bars.hovered == i
    berlin = chart.bars.layout.index_of(h.fact_id("lives_in", "Berlin"))
    assert "Conflict: overlaps Lisbon" in chart.tooltip(berlin)


def test_conflicts_are_drawn_on_the_lanes_concerned(h):
    layout = h.chart.bars.layout
    rows = {layout.row_label(int(r)) for r in layout.conflict_row}
    # Kai's own lives_in clash, and Atlas led_by Kai against Atlas led_by Rosa
    assert rows == {"lives_in → Berlin", "lives_in → Lisbon", "led_by ← Atlas"}


# ── Editing through the chart: checked in the file, then undone ──────────


def test_end_fact_here_from_the_context_menu(h):
    chart = h.chart
    before = h.rows()
    nova = h.fact_id("works_on", "Nova")
    i = chart.bars.layout.index_of(nova)
    clicked = temporal.to_posix("2026-09-17T15:00:00Z")
    menu = chart.bar_menu(i, clicked)
    action = menu_action(menu, "ganttEndHere")
    assert action.isEnabled() and "2026-09-17" in action.text()
    action.trigger()
    assert h.file_fact(nova)["valid_to"] == "2026-09-17"
    drawn = next(d for d in chart.drawn_intervals() if d["id"] == nova)
    assert drawn["end"] == temporal.to_posix("2026-09-17T23:59:59Z")
    h.stack.undo()
    assert h.rows() == before
    assert next(d for d in chart.drawn_intervals() if d["id"] == nova)["end"] is None
    # an ended fact cannot be ended again; it can have its end moved
    orion_menu = chart.bar_menu(chart.bars.layout.index_of(h.fact_id("works_on", "Orion")), clicked)
    assert not menu_action(orion_menu, "ganttEndHere").isEnabled()
    assert menu_action(orion_menu, "ganttMoveEnd").isEnabled()


def test_end_fact_at_as_of_from_the_context_menu(h):
    chart = h.chart
    before = h.rows()
    h.state.set_as_of("2026-05-01")
    clerk = h.fact_id("recommended", "Clerk")
    menu = chart.bar_menu(chart.bars.layout.index_of(clerk), 0.0)
    menu_action(menu, "ganttEndAtAsOf").trigger()
    assert h.file_fact(clerk)["valid_to"] == "2026-05-01"
    h.stack.undo()
    assert h.rows() == before


def test_a_refused_end_writes_nothing_and_says_why(h):
    chart = h.chart
    before = h.rows()
    nova = h.fact_id("works_on", "Nova")
    menu = chart.bar_menu(chart.bars.layout.index_of(nova), temporal.to_posix("2020-01-01"))
    menu_action(menu, "ganttEndHere").trigger()
    assert h.rows() == before
    assert h.messages and "refused" in h.messages[-1]
    assert h.stack.count() == 0


def test_move_end_here_for_an_ended_fact(h):
    chart = h.chart
    before = h.rows()
    orion = h.fact_id("works_on", "Orion")
    menu = chart.bar_menu(chart.bars.layout.index_of(orion), temporal.to_posix("2026-02-14"))
    menu_action(menu, "ganttMoveEnd").trigger()
    assert h.file_fact(orion)["valid_to"] == "2026-02-14"
    assert h.file_fact(orion)["valid_from"] == "2025-06-01"
    h.stack.undo()
    assert h.rows() == before


def test_delete_from_the_context_menu_is_confirmed(h, monkeypatch):
    chart = h.chart
    before = h.rows()
    clerk = h.fact_id("recommended", "Clerk")
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: answers.pop(0))
    menu = chart.bar_menu(chart.bars.layout.index_of(clerk), 0.0)
    menu_action(menu, "ganttDelete").trigger()
    assert h.rows() == before  # cancelled
    menu_action(menu, "ganttDelete").trigger()
    assert h.file_fact(clerk) is None
    assert clerk not in {d["id"] for d in chart.drawn_intervals()}
    h.stack.undo()
    assert h.rows() == before
    assert clerk in {d["id"] for d in chart.drawn_intervals()}


def test_edit_and_replace_call_the_actions_dialogs(h, monkeypatch):
    chart = h.chart
    calls = []
    for name in ("edit_fact_dialog", "replace_fact_dialog"):
        monkeypatch.setattr(h.actions, name, lambda tid, name=name: calls.append((name, tid)))
    nova = h.fact_id("works_on", "Nova")
    menu = chart.bar_menu(chart.bars.layout.index_of(nova), 0.0)
    menu_action(menu, "ganttEdit").trigger()
    menu_action(menu, "ganttReplace").trigger()
    assert calls == [("edit_fact_dialog", nova), ("replace_fact_dialog", nova)]
    # double-click edits
    calls.clear()
    point = chart.view_point(nova, "start")
    mouse_click(h, chart.viewport_point(point.x() + 86400 * 30, point.y()), double=True)
    assert calls == [("edit_fact_dialog", nova)]
    assert h.state.fact == nova


def test_edit_dialog_through_the_chart_writes_the_file(h, monkeypatch):
    """The real dialog, filled in by its test hook, through the chart's menu."""
    chart = h.chart
    before = h.rows()
    orion = h.fact_id("works_on", "Orion")

    def fill(dialog):
        changes = getattr(dialog, "changes", None)
        if changes is None:
            return False
        monkeypatch.setattr(dialog, "changes", lambda: {"confidence": 0.5})
        return True

    monkeypatch.setattr(h.actions, "_exec", fill)
    menu = chart.bar_menu(chart.bars.layout.index_of(orion), 0.0)
    menu_action(menu, "ganttEdit").trigger()
    assert h.file_fact(orion)["confidence"] == 0.5
    h.stack.undo()
    assert h.rows() == before


def drag_side(h, triple_id, side, target, view=("2025-01-01", "2026-12-31")):
    """Drag a fact's ``start`` or ``end`` to POSIX ``target`` with the mouse, in a set view."""
    chart = h.chart
    chart.set_x_range(temporal.to_posix(view[0]), temporal.to_posix(view[1]))
    h.settle()
    point = chart.view_point(triple_id, side)
    grab = chart.viewport_point(point.x(), point.y())
    mouse_drag(h, grab, chart.viewport_point(target, point.y()))
    return h.file_fact(triple_id)


def test_dragging_an_end_changes_valid_to_through_the_undo_stack(h):
    before = h.rows()
    orion = h.fact_id("works_on", "Orion")
    target = temporal.to_posix("2026-04-20T10:00:00Z")
    row = drag_side(h, orion, "end", target)
    value = row["valid_to"]
    assert temporal.is_date(value)  # a fact kept in days snaps to days
    assert abs(temporal.to_posix(value) - target) <= 3 * 86400
    assert row["valid_from"] == "2025-06-01"
    assert h.stack.count() == 1
    drawn = next(d for d in h.chart.drawn_intervals() if d["id"] == orion)
    assert drawn["end"] == temporal.to_posix(temporal.end_key(value))
    h.stack.undo()
    assert h.rows() == before


def test_dragging_a_start_changes_valid_from(h):
    before = h.rows()
    orion = h.fact_id("works_on", "Orion")
    target = temporal.to_posix("2025-03-03")
    row = drag_side(h, orion, "start", target)
    value = row["valid_from"]
    assert temporal.is_date(value) and abs(temporal.to_posix(value) - target) <= 3 * 86400
    assert row["valid_to"] == "2026-03-01"
    h.stack.undo()
    assert h.rows() == before


def test_dragging_past_the_other_end_is_clamped_not_inverted(h):
    before = h.rows()
    orion = h.fact_id("works_on", "Orion")
    row = drag_side(h, orion, "end", temporal.to_posix("2025-02-01"))
    assert row["valid_to"] == "2025-06-01"
    h.stack.undo()
    assert h.rows() == before


def test_dragging_the_background_pans_instead_of_editing(h):
    chart = h.chart
    before = h.rows()
    chart.set_x_range(temporal.to_posix("2025-01-01"), temporal.to_posix("2026-12-31"))
    h.settle()
    x0, _ = chart.x_range()
    header_row = 0.0
    a = chart.viewport_point(temporal.to_posix("2025-06-01"), header_row)
    b = chart.viewport_point(temporal.to_posix("2025-09-01"), header_row)
    mouse_drag(h, a, b)
    assert chart.x_range()[0] < x0
    assert h.rows() == before and h.stack.count() == 0


def test_an_instant_fact_drags_to_instants(h):
    tid = h.kg.add_triple(
        "Kai Moreno", "met", "Ana", "2026-05-06T09:00:00Z", "2026-05-06T17:30:00Z"
    )
    h.state.notify_data_changed()
    before = h.rows()
    target = temporal.to_posix("2026-05-07T03:10:00Z")
    value = drag_side(h, tid, "end", target, ("2026-05-05", "2026-05-08"))["valid_to"]
    assert not temporal.is_date(value)
    assert abs(temporal.to_posix(value) - target) <= 3600
    h.stack.undo()
    assert h.rows() == before


# ── View, keys, export, states ───────────────────────────────────────────


def test_keys_zoom_pan_and_fit(h):
    chart = h.chart
    chart.fit()
    fit = chart.x_range()
    chart.handle_key(Qt.Key.Key_Plus)
    zoomed = chart.x_range()
    assert zoomed[1] - zoomed[0] == pytest.approx((fit[1] - fit[0]) / 2, rel=1e-3)
    chart.handle_key(Qt.Key.Key_Right)
    assert chart.x_range()[0] > zoomed[0]
    chart.handle_key(Qt.Key.Key_Minus)
    chart.handle_key(Qt.Key.Key_F)
    assert chart.x_range() == pytest.approx(fit)
    h.state.set_as_of("2024-01-01")
    chart.handle_key(Qt.Key.Key_Y)
    lo, hi = chart.x_range()
    assert (lo + hi) / 2 == pytest.approx(temporal.to_posix("2024-01-01"))
    # and through a real key press on the canvas
    chart.canvas.setFocus()
    before = chart.x_range()
    h.qtbot.keyClick(chart.canvas, Qt.Key.Key_Minus)
    after = chart.x_range()
    assert after[1] - after[0] > before[1] - before[0]


def test_many_lanes_scroll_vertically(h, demo):
    for n in range(60):
        demo.add_triple("Kai Moreno", "knows", f"Person {n:02d}", "2020-01-01")
    h.state.notify_data_changed()
    h.settle()
    chart = h.chart
    assert chart.bars.layout.n_rows > 60
    _, (y0, y1) = chart.view.viewRange()
    rows_shown = y1 - y0
    assert rows_shown < chart.bars.layout.n_rows
    assert chart.view.height() / rows_shown >= 21.9  # labels stay readable
    chart.handle_key(Qt.Key.Key_PageDown)
    assert chart.view.viewRange()[1][0] > y0
    # selecting a fact far down scrolls its lane into view
    last = chart.bars.layout.ids[-1]
    h.state.select_fact(last)
    row = chart.bars.layout.row[-1]
    lo, hi = chart.view.viewRange()[1]
    assert lo <= row <= hi


def test_data_change_reloads_but_keeps_the_view(h):
    chart = h.chart
    chart.set_x_range(temporal.to_posix("2025-01-01"), temporal.to_posix("2026-01-01"))
    before = chart.x_range()
    h.actions.end_fact(h.fact_id("works_on", "Nova"), "2026-10-01")
    assert chart.x_range() == pytest.approx(before)
    assert any(d["end"] for d in chart.drawn_intervals() if d["lane"] == "works_on → Nova")


def test_empty_states(qtbot, demo):
    harness = Harness(demo, qtbot)
    chart = harness.chart
    assert chart.drawn_intervals() == []
    assert "Select an entity" in chart._empty.text()
    demo.add_entity("Loner", "person")
    harness.state.select_entity("loner")
    assert "no facts yet" in chart._empty.text()
    harness.state.select_entity(KAI)
    assert chart.drawn_intervals()
    harness.state.set_kg(None)
    assert chart.drawn_intervals() == []
    assert "No knowledge graph" in chart._empty.text()


def test_export_png_and_svg(h, tmp_path):
    h.state.set_as_of("2025-12-01")
    png = h.chart.export(tmp_path / "kai.png")
    svg = h.chart.export(tmp_path / "kai.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "Kai Moreno" in text and "works_on" in text
    with pytest.raises(ValueError):
        h.chart.export(tmp_path / "kai.jpg")
    shots = shots_dir(tmp_path)
    h.chart.export(shots / "export.png")
    h.chart.export(shots / "export.svg")


def test_screenshots_at_several_zoom_levels(h, tmp_path):
    chart = h.chart
    shots = shots_dir(tmp_path)
    h.state.set_as_of("2025-12-01")
    h.state.select_fact(h.fact_id("works_on", "Orion"))
    chart.fit()
    h.settle()
    chart.grab().save(str(shots / "gantt_fit.png"))
    chart.zoom_as_of_year()
    h.settle()
    chart.grab().save(str(shots / "gantt_as_of_year.png"))
    h.state.set_as_of("2026-04-01")
    chart.set_x_range(temporal.to_posix("2026-03-10"), temporal.to_posix("2026-04-20"))
    h.settle()
    chart.grab().save(str(shots / "gantt_weeks.png"))
    h.state.set_as_of("2026-03-15T10:00:00Z")
    chart.set_x_range(
        temporal.to_posix("2026-03-14T18:00:00Z"), temporal.to_posix("2026-03-16T06:00:00Z")
    )
    h.settle()
    chart.grab().save(str(shots / "gantt_hours.png"))
    h.state.set_as_of(None)
    chart.fit()
    h.settle()
    chart.grab().save(str(shots / "gantt_all_time.png"))
    for name in ("fit", "as_of_year", "weeks", "hours", "all_time"):
        assert (shots / f"gantt_{name}.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("as_of", "clicked", "expected"),
    [
        (None, "2025-06-01T18:00:00Z", "2025-06-01"),  # late in a day: still that day
        ("2025-01-01", "2025-06-01T00:00:01Z", "2025-06-01"),
        # an instant stays an instant (snapped to what a pixel can express at this zoom)
        ("2025-01-01T10:00:00Z", "2025-06-01T18:00:00Z", None),
    ],
)
def test_set_as_of_here_sets_what_its_label_says(h, as_of, clicked, expected):
    h.state.set_as_of(as_of)
    action = menu_action(h.chart.background_menu(temporal.to_posix(clicked)), "ganttSetAsOf")
    action.trigger()
    value = h.state.as_of
    assert f"({value})" in action.text()
    if expected is not None:
        assert value == expected
    else:
        assert not temporal.is_date(value)
        assert abs(temporal.to_posix(value) - temporal.to_posix(clicked)) <= 86400


def test_an_end_written_empty_by_mempalace_is_a_lane_without_a_bar(h):
    orion = h.fact_id("works_on", "Orion")
    with sqlite3.connect(h.kg.db_path) as other:  # as MemPalace stores invalidate(ended="")
        other.execute("UPDATE triples SET valid_to = '' WHERE id = ?", (orion,))
    h.state.notify_data_changed()
    h.settle()
    assert "works_on → Orion" in h.chart.lane_labels()
    assert orion not in {d["id"] for d in h.chart.drawn_intervals()}
    for as_of in ("2025-12-01", "2026-04-01"):
        h.state.set_as_of(as_of)
        assert not h.chart.bars.valid[h.chart.bars.layout.index_of(orion)]


def test_a_reload_in_the_middle_of_a_drag_ends_it_without_writing(h):
    """The once-a-second check for other writers can reload the chart while a bar is dragged;
    the bar's index may then belong to another fact, so nothing may be written on release."""
    chart = h.chart
    orion = h.fact_id("works_on", "Orion")
    chart.set_x_range(temporal.to_posix("2025-01-01"), temporal.to_posix("2026-12-31"))
    h.settle()
    point = chart.view_point(orion, "end")
    grab = chart.viewport_point(point.x(), point.y())
    target = chart.viewport_point(temporal.to_posix("2026-06-01"), point.y())
    vp = chart.canvas.viewport()
    _send(vp, QEvent.Type.MouseMove, grab, NONE, NONE)
    h.qtbot.wait(15)
    _send(vp, QEvent.Type.MouseButtonPress, grab, LEFT, LEFT)
    for k in range(1, 5):
        h.qtbot.wait(15)
        _send(vp, QEvent.Type.MouseMove, (grab + (target - grab) * (k / 4)), NONE, LEFT)
    assert chart.bars.preview is not None  # the drag is under way
    before = h.rows()
    with sqlite3.connect(h.kg.db_path) as other:  # another program adds a fact of Kai's
        other.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES ('t_other', 'kai_moreno', 'aaa_first', 'orion', '2024-01-01')"
        )
    h.state.notify_data_changed()
    h.settle()
    _send(vp, QEvent.Type.MouseButtonRelease, target, LEFT, NONE)
    h.settle()
    assert [row for row in h.rows()["triples"] if row[1] != "t_other"] == before["triples"]
    assert h.stack.count() == 0


def test_tooltip_confidence_is_the_one_drawn(h):
    orion = h.fact_id("works_on", "Orion")
    with sqlite3.connect(h.kg.db_path) as other:
        other.execute("UPDATE triples SET confidence = NULL WHERE id = ?", (orion,))
        other.execute(
            "UPDATE triples SET confidence = 'high' WHERE id = ?", (h.fact_id("works_on", "Nova"),)
        )
    h.state.notify_data_changed()
    h.settle()
    layout = h.chart.bars.layout
    for name in ("Orion", "Nova"):
        assert "Confidence: 1.00" in h.chart.tooltip(layout.index_of(h.fact_id("works_on", name)))


def test_a_png_export_that_cannot_be_written_is_an_error(h, tmp_path):
    with pytest.raises(OSError, match="cannot write"):
        h.chart.export(tmp_path / "no such folder" / "chart.png")


def test_a_group_header_with_many_lanes_is_not_cut(h, demo):
    # 120 short lanes under a long predicate: the header's count is wider than any lane label.
    for n in range(120):
        demo.add_triple("Kai Moreno", "collaborates_with", f"P{n}", "2020-01-01")
    h.state.notify_data_changed()
    h.settle()
    chart = h.chart
    header = next(x for x in chart.bars.layout.headers if x.predicate == "collaborates_with")
    assert header.label == "collaborates_with  (120)"
    bold = QFont(chart.font())
    bold.setPointSizeF(9.0)
    bold.setBold(True)
    # The header is drawn from x=22 and elided at the column width minus 28.
    assert QFontMetrics(bold).horizontalAdvance(header.label) <= chart.lane_axis.width() - 28
