"""Navigation: lanes scroll vertically once they would be too thin."""

from __future__ import annotations

from PySide6.QtCore import Qt


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


def test_lanes_added_above_leave_the_lanes_in_view_where_they_are(h):
    """As MemPalace wrote facts of predicates sorted before the ones in view, the chart's scroll
    position stayed a row number: the lanes in view slid down, out of sight."""
    from mempalace.knowledge_graph import KnowledgeGraph as MemPalaceGraph

    chart = h.chart
    chart.resize(1200, 320)
    h.qtbot.wait(50)
    nav = chart.navigator
    chart.scroll_rows(8)
    h.settle()

    def first_lane_in_view():
        layout = chart.bars.layout
        return layout.lanes[layout.row_lane[nav.lanes_fully_in_view()[0]]].label

    before = first_lane_in_view()
    writer = MemPalaceGraph(db_path=str(h.kg.db_path))
    try:
        for other in ("Ada", "Bea", "Cem"):
            writer.add_triple("Kai Moreno", "advises", other, valid_from="2024-01-01")
    finally:
        writer.close()
    h.state.notify_data_changed()
    h.settle()
    layout = chart.bars.layout
    assert any(lane.predicate == "advises" for lane in layout.lanes)
    assert first_lane_in_view() == before
