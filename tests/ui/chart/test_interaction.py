"""Interaction: the as_of cursor, clicks, hover, the context menus, dragging ends, keys.

Every edit is checked in the file through a second connection, then undone.
"""

from __future__ import annotations

import re
import sqlite3

import pytest
from chart_harness import LEFT, NONE, drag_side, menu_action, mouse_click, mouse_drag, send_mouse
from PySide6.QtCore import QEvent, Qt

from factlines.core import temporal
from factlines.core.columns import BY_NAME, PROVENANCE
from factlines.ui.menus.edits import FactActions


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


def test_the_tooltip_names_every_provenance_column_recorded(h, qtbot):
    orion = h.fact_id("works_on", "Orion")
    recorded = {name: f"{name}-value" for name in PROVENANCE}
    h.kg.update_fact(orion, **recorded)
    qtbot.waitUntil(
        lambda: (
            h.chart.bars.layout.facts[h.chart.bars.layout.index_of(orion)].get("adapter_name")
            is not None
        ),
        timeout=2000,
    )
    text = h.chart.tooltip(h.chart.bars.layout.index_of(orion))
    provenance = text[text.index("Provenance: ") :].split("<br>")[0]
    for name in PROVENANCE:
        assert f"{BY_NAME[name].header.lower()}: {name}-value" in provenance


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
    send_mouse(vp, QEvent.Type.MouseMove, chart.viewport_point(point.x(), point.y()), NONE, NONE)
    h.settle()
    assert "Orion" in chart.bars.toolTip()
    assert chart.bars.hovered == i
    berlin = chart.bars.layout.index_of(h.fact_id("lives_in", "Berlin"))
    # The other fact by its names and dates, never its id; the overlap as days.
    text = chart.tooltip(berlin)
    assert "Conflict: overlaps Kai Moreno lives_in Lisbon (2023-06-01 – " in text
    assert "from 2023-06-01 to 2023-08-31" in text
    assert not re.search(r"t_\w+_[0-9a-f]{12}", text)


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
    assert "Confidence: 1.00" in h.chart.tooltip(layout.index_of(orion))
    # A text confidence (MemPalace stores it as given) is shown as stored, drawn as unknown.
    nova = layout.index_of(h.fact_id("works_on", "Nova"))
    assert "Confidence: ⚠ high" in h.chart.tooltip(nova)
    assert "full opacity" in h.chart.tooltip(nova)
    assert layout.conf_level[nova] == layout.conf_level[layout.index_of(orion)] == 4


# ── Context menus ─────────────────────────────────────────────────────────


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


def test_an_end_before_the_start_is_not_offered_and_says_why(h):
    chart = h.chart
    before = h.rows()
    nova = h.fact_id("works_on", "Nova")  # from 2026-03-15
    h.state.set_as_of("2026-01-01")
    menu = chart.bar_menu(chart.bars.layout.index_of(nova), temporal.to_posix("2020-01-01"))
    assert h.state.fact == nova  # the bar's fact is selected first
    for name, when in (("ganttEndHere", "2020-01-01"), ("ganttEndAtAsOf", "2026-01-01")):
        action = menu_action(menu, name)
        assert not action.isEnabled() and when in action.text()
        assert "starts on 2026-03-15, after" in action.toolTip()
        action.trigger()  # disabled: nothing happens
    # The same rule as the window's action, in the same words.
    shared = h.actions.commands.end
    assert shared.text() == menu_action(menu, "ganttEndAtAsOf").text()
    assert shared.toolTip() == menu_action(menu, "ganttEndAtAsOf").toolTip()
    # Asked for anyway (a script), it is refused in words and writes nothing.
    assert not h.actions.end_fact(nova, "2020-01-01")
    assert "refused" in h.messages[-1] and "a fact cannot end before it starts" in h.messages[-1]
    assert h.rows() == before
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
    answers = [False, True]  # Cancel, then Delete
    monkeypatch.setattr(FactActions, "_exec", lambda _self, dialog: answers.pop(0))
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


# ── Dragging ends ─────────────────────────────────────────────────────────


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
    send_mouse(vp, QEvent.Type.MouseMove, grab, NONE, NONE)
    h.qtbot.wait(15)
    send_mouse(vp, QEvent.Type.MouseButtonPress, grab, LEFT, LEFT)
    for k in range(1, 5):
        h.qtbot.wait(15)
        send_mouse(vp, QEvent.Type.MouseMove, (grab + (target - grab) * (k / 4)), NONE, LEFT)
    assert chart.bars.preview is not None  # the drag is under way
    before = h.rows()
    with sqlite3.connect(h.kg.db_path) as other:  # another program adds a fact of Kai's
        other.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES ('t_other', 'kai_moreno', 'aaa_first', 'orion', '2024-01-01')"
        )
    h.state.notify_data_changed()
    h.settle()
    send_mouse(vp, QEvent.Type.MouseButtonRelease, target, LEFT, NONE)
    h.settle()
    assert [row for row in h.rows()["triples"] if row[1] != "t_other"] == before["triples"]
    assert h.stack.count() == 0


# ── Keys ──────────────────────────────────────────────────────────────────


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


def test_dragging_an_open_ends_arrow_ends_the_fact_there_after_the_reason_form(h, answer_dialogs):
    """An open bar's arrow was not a handle: dragging it panned the chart."""
    before = h.rows()
    nova = h.fact_id("works_on", "Nova")  # open since 2026-03-15
    chart = h.chart
    chart.set_x_range(temporal.to_posix("2025-06-01"), temporal.to_posix("2027-06-01"))
    h.settle()
    x0, x1 = chart.x_range()
    row = chart.view_point(nova, "middle").y()
    seconds_per_px = (x1 - x0) / chart.view.width()
    arrow = chart.viewport_point(x1 - 4 * seconds_per_px, row)  # on the arrowhead
    target = chart.viewport_point(temporal.to_posix("2026-09-10"), row)
    forms = []

    def give_a_reason(dialog):
        forms.append(dialog.ended.text())
        dialog.reason.setText("left for another project")

    answer_dialogs.append(give_a_reason)
    mouse_drag(h, arrow, target)
    assert chart.x_range() == (x0, x1)  # not panned
    assert (
        len(forms) == 1
        and abs(temporal.to_posix(forms[0]) - temporal.to_posix("2026-09-10")) <= 3 * 86400
    )
    ended = h.file_fact(nova)["valid_to"]
    assert ended == forms[0]
    assert h.kg.edit_log()[0]["reason"] == "left for another project"
    h.stack.undo()
    assert h.rows() == before


def test_an_open_end_dragged_then_cancelled_writes_nothing(h, answer_dialogs):
    before = h.rows()
    nova = h.fact_id("works_on", "Nova")
    chart = h.chart
    chart.set_x_range(temporal.to_posix("2025-06-01"), temporal.to_posix("2027-06-01"))
    h.settle()
    x0, x1 = chart.x_range()
    row = chart.view_point(nova, "middle").y()
    seconds_per_px = (x1 - x0) / chart.view.width()
    answer_dialogs.append(lambda dialog: False)  # Cancel
    mouse_drag(
        h,
        chart.viewport_point(x1 - 4 * seconds_per_px, row),
        chart.viewport_point(temporal.to_posix("2026-09-10"), row),
    )
    assert len(answer_dialogs.seen) == 1
    assert h.rows() == before and h.stack.count() == 0
