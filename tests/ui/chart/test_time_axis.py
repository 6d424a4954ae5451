"""The time axis says the year at every zoom, and its dates never overlap."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtGui import QImage, QPainter

from factlines.core import temporal


def axis_texts(chart) -> list[tuple[str, object]]:
    """The dates the time axis draws now, with their rects (as pyqtgraph lays them out)."""
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        painter.setFont(chart.time_axis.font())
        _axis, _ticks, texts = chart.time_axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(text, rect) for rect, _flags, text in texts if text]


@pytest.mark.parametrize(
    ("start", "end", "year"),
    [
        ("2025-03-01", "2025-08-20", "2025"),  # months, no January in view
        ("2024-10-11", "2025-05-20", "2024"),  # months across a new year: both years said
        ("2025-05-20", "2025-06-25", "2025"),  # days
        ("2025-06-02", "2025-06-14", "2025"),  # days inside one month
        ("2025-06-09", "2025-06-12", "2025"),  # hours
    ],
)
def test_zoomed_in_the_axis_still_says_the_year(h, start, end, year):
    chart = h.chart
    chart.set_x_range(temporal.to_posix(start), temporal.to_posix(end))
    h.settle()
    texts = axis_texts(chart)
    assert len(texts) >= 3
    assert any(year in text for text, _rect in texts), [t for t, _r in texts]
    if start[:4] != end[:4]:
        assert any(end[:4] in text for text, _rect in texts), [t for t, _r in texts]
    rects = sorted((rect for _text, rect in texts), key=lambda r: r.left())
    for left, right in itertools.pairwise(rects):
        assert left.right() <= right.left(), "two dates overlap"


def test_the_year_is_said_once_not_on_every_month(h):
    chart = h.chart
    chart.set_x_range(temporal.to_posix("2025-02-10"), temporal.to_posix("2025-11-20"))
    h.settle()
    texts = [text for text, _rect in axis_texts(chart)]
    assert sum("2025" in text for text in texts) == 1, texts
    assert "Jun" in texts and "Jul" in texts  # the other months stay short
