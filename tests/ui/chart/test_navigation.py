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
