"""The chart on a read-only graph: a bar's end is not dragged (the pointer offers no handle and
a drag pans instead), double-click and the keys open no form, and the tooltip says why."""

from __future__ import annotations

import pytest
from chart_harness import KAI, NONE, Harness, drag_side, mouse_click, send_mouse
from PySide6.QtCore import QEvent, Qt

from factlines import KnowledgeGraph
from factlines.core import temporal
from factlines.ui.menus.edits import FactActions

WHY = "the graph is open read-only (opened read-only, as asked)"


@pytest.fixture
def ro(qtbot, demo, monkeypatch):
    def no_form(*_args):
        raise AssertionError("a form was opened on a read-only graph")

    monkeypatch.setattr(FactActions, "_exec", no_form)
    kg = KnowledgeGraph(demo.db_path, read_only=True)
    harness = Harness(kg, qtbot)
    harness.state.select_entity(KAI)
    harness.settle()
    yield harness
    kg.close()


def test_dragging_an_end_writes_nothing_and_no_handle_is_offered(ro):
    chart = ro.chart
    before = ro.rows()
    orion = ro.fact_id("works_on", "Orion")
    row = drag_side(ro, orion, "end", temporal.to_posix("2026-04-20T10:00:00Z"))
    assert row["valid_to"] == "2026-03-01"
    assert ro.rows() == before and ro.stack.count() == 0
    # Hovering the end shows no resize cursor.
    point = chart.view_point(orion, "end")
    vp = chart.canvas.viewport()
    send_mouse(vp, QEvent.Type.MouseMove, chart.viewport_point(point.x(), point.y()), NONE, NONE)
    ro.settle()
    assert chart.bars.cursor().shape() != Qt.CursorShape.SizeHorCursor
    assert f"Cannot change it: {WHY}" in chart.bars.toolTip()


def test_double_click_and_keys_open_no_form_and_say_why(ro):
    chart = ro.chart
    before = ro.rows()
    orion = ro.fact_id("works_on", "Orion")
    point = chart.view_point(orion)
    mouse_click(ro, chart.viewport_point(point.x(), point.y()), double=True)
    assert ro.state.fact == orion
    assert ro.messages[-1] == f"Cannot edit: {WHY}"
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Delete):
        assert chart.keys.handle_key(key)
    assert ro.messages[-1] == f"Cannot delete: {WHY}"
    assert ro.rows() == before
