"""Painting: restyles without rebuilds, conflict spans, the label column, screenshots."""

from __future__ import annotations

from chart_harness import shots_dir
from PySide6.QtGui import QFont, QFontMetrics

from factlines.core import temporal


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


def test_an_as_of_step_repaints_only_the_flipped_bars_in_view(h, demo):
    # 100 facts on lanes under Kai's own (the last predicate), valid in 2020 only: a step
    # into 2020 flips them all, most of them scrolled out of view.
    for n in range(100):
        demo.add_triple("Kai Moreno", "zz_visited", f"Place {n:03d}", "2020-01-01", "2020-12-31")
    h.state.set_as_of("2019-06-01")
    h.state.notify_data_changed()
    h.settle()
    chart, bars = h.chart, h.chart.bars
    chart.canvas.viewport().repaint()
    view = bars.boundingRect()
    visits = [i for i, f in enumerate(bars.layout.facts) if f["predicate"] == "zz_visited"]
    hidden = [i for i in visits if bars.layout.row[i] > view.bottom() + 1]
    assert len(hidden) > 64
    updates = []
    bars.update = lambda *rect: updates.append(rect)
    try:
        h.state.set_as_of("2020-06-01")
    finally:
        del bars.update
    assert bars.valid[visits].all()
    # The bars in view that flipped are repainted one by one (a row of slack at the edges),
    # nothing else.
    assert updates and all(rect for rect in updates)
    assert all(view.adjusted(0, -1.5, 0, 1.5).intersects(rect[0]) for rect in updates)


def test_conflicts_are_drawn_on_the_lanes_concerned(h):
    layout = h.chart.bars.layout
    rows = {layout.row_label(int(r)) for r in layout.conflict_row}
    # Kai's own lives_in clash, and Atlas led_by Kai against Atlas led_by Rosa
    assert rows == {"lives_in → Berlin", "lives_in → Lisbon", "led_by ← Atlas"}


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
