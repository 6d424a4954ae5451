"""The as_of and today labels: one label, whole inside the view, no ghosts after a drag, and a
selected bar's dates kept out from under it."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from chart_harness import mouse_drag
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication

from factlines.core import temporal


def as_of_labels(chart) -> list:
    """Every item in the chart's scene that shows an "as of" text, visible or not."""
    found = []
    for item in chart.canvas.scene().items():
        text = ""
        if isinstance(item, pg.TextItem):
            text = item.toPlainText()
        elif hasattr(item, "text") and callable(item.text):
            text = item.text()
        if "as of" in str(text):
            found.append(item)
    return found


def view_rect(chart) -> QRectF:
    return chart.view.sceneBoundingRect()


def drag_cursor_to(h, fraction: float, steps: int = 30) -> None:
    chart = h.chart
    x0, x1 = chart.x_range()
    top = chart.view.viewRange()[1][0] + 0.3  # the header row: no bar to grab there
    start = chart.viewport_point(chart.cursor.value(), top)
    mouse_drag(h, start, chart.viewport_point(x0 + (x1 - x0) * fraction, top), steps=steps)
    h.qtbot.wait(50)


@pytest.mark.parametrize("fraction", [0.005, 0.02, 0.04, 0.5, 0.97])
def test_after_dragging_the_line_the_chart_as_painted_equals_a_fresh_render(h, fraction):
    """What the window shows (the backing store) is what a fresh paint gives: a drag towards
    the edge once left pieces of old labels painted until F was pressed."""
    chart = h.chart
    chart.resize(1000, 500)
    h.state.set_as_of("2022-04-06")
    h.qtbot.wait(50)
    drag_cursor_to(h, fraction)
    shown = QApplication.primaryScreen().grabWindow(chart.winId()).toImage()
    fresh = chart.grab().toImage().convertToFormat(shown.format())
    assert shown.size() == fresh.size()
    assert shown == fresh
    visible = [item for item in as_of_labels(chart) if item.isVisible()]
    assert len(visible) == 1 and visible[0].text() == f"as of {h.state.as_of}"


@pytest.mark.parametrize("fraction", [0.0005, 0.01, 0.5, 0.99, 0.9995])
def test_the_as_of_label_is_whole_inside_the_view_at_both_edges(h, fraction):
    chart = h.chart
    x0, x1 = chart.x_range()
    h.state.set_as_of(temporal.day_of_posix(x0 + (x1 - x0) * fraction))
    h.settle()
    label = chart.cursor_label
    assert label.isVisible()
    assert view_rect(chart).contains(label.sceneBoundingRect())
    # beside the line, on the side with room: right of it near the left edge, else left
    line_x = chart.view.mapFromView(pg.Point(chart.cursor.value(), 0)).x()
    box = label.box()
    if fraction < 0.5:
        assert box.left() >= line_x
    else:
        assert box.right() <= line_x


def test_the_label_goes_with_the_line(h):
    chart = h.chart
    h.state.set_as_of("2025-12-01")
    h.settle()
    assert chart.cursor_label.isVisible()
    assert chart.cursor_label.text() == "as of 2025-12-01"
    h.state.set_as_of(None)  # all time: no line, no label
    h.settle()
    assert not chart.cursor_label.isVisible()
    h.state.set_as_of("2024-01-01")
    chart.set_x_range(temporal.to_posix("2025-01-01"), temporal.to_posix("2026-01-01"))
    h.settle()
    assert not chart.cursor_label.isVisible()  # as_of out of view
    chart.fit()
    h.settle()
    assert chart.cursor_label.isVisible()


@pytest.mark.parametrize("px_after_today", [0, 5, 60, 130, -60])
def test_today_label_keeps_clear_of_the_as_of_label(h, px_after_today):
    """Near each other the two labels take the two sides of the lines where they can; the
    today label goes under the as_of label only when neither side is free."""
    chart = h.chart
    today = chart.today_line.value()
    chart.set_x_range(today - 2 * 365 * 86400, today + 2 * 365 * 86400)
    h.settle()
    per_px = chart.navigator.seconds_per_px()
    h.state.set_as_of(temporal.day_of_posix(today + px_after_today * per_px))
    h.settle()
    today_box, as_of_box = chart.today_label.box(), chart.cursor_label.box()
    assert chart.today_label.isVisible() and chart.cursor_label.isVisible()
    assert not today_box.intersects(as_of_box)
    if px_after_today == 130:  # the as_of label covers today's right, not its left: it goes left
        assert today_box.top() == as_of_box.top() and today_box.right() <= as_of_box.left() + 1


def test_a_selected_bars_end_date_is_not_hidden_under_the_as_of_label(h):
    """Atlas led_by Kai (the top lane) ends 2022-04-30: with as_of there, its end date moves
    below the bar instead of under the as_of label."""
    chart = h.chart
    fact = h.fact_id("led_by", "Atlas")
    h.state.set_as_of("2022-04-30")
    chart.set_x_range(temporal.to_posix("2019-06-01"), temporal.to_posix("2023-06-01"))
    h.state.select_fact(fact)
    chart.canvas.viewport().repaint()
    label = chart.cursor_label
    on_screen = chart.canvas.viewportTransform().mapRect(label.sceneBoundingRect())
    texts = [text for text, _place in chart.bars.dates_drawn]
    assert texts == ["2020-01-01", "2022-04-30"]
    for text, place in chart.bars.dates_drawn:
        assert not place.intersects(on_screen), text
    # far from as_of, the end date is over the bar as usual
    h.state.set_as_of("2021-01-01")
    chart.canvas.viewport().repaint()
    assert [text for text, _place in chart.bars.dates_drawn] == texts
    bar_top = chart.viewport_point(0, chart.bars.layout.row[chart.bars.selected] - 0.31).y()
    assert all(place.bottom() <= bar_top + 1 for _t, place in chart.bars.dates_drawn)


def test_a_short_bars_dates_do_not_overlap(h):
    """A bar of ten days, seen across twelve years: its start and end dates were written over
    each other."""
    chart = h.chart
    fact = h.kg.add_triple(
        "Kai Moreno", "visited", "Porto", valid_from="2021-03-01", valid_to="2021-03-10"
    )
    h.state.notify_data_changed()
    h.settle()
    chart.set_x_range(temporal.to_posix("2015-01-01"), temporal.to_posix("2027-01-01"))
    h.state.select_fact(fact)
    chart.canvas.viewport().repaint()
    drawn = chart.bars.dates_drawn
    assert [text for text, _place in drawn] == ["2021-03-01", "2021-03-10"]
    (_, first), (_, second) = drawn
    assert not first.intersects(second)
