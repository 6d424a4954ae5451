"""Export: PNG and SVG files of the chart."""

from __future__ import annotations

import pytest
from chart_harness import shots_dir

from factlines.ui.chart.export import close_path_data


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


def test_a_png_export_that_cannot_be_written_is_an_error(h, tmp_path):
    with pytest.raises(OSError, match="cannot write"):
        h.chart.export(tmp_path / "no such folder" / "chart.png")


def test_svg_path_data_closes_subpaths_with_lines():
    # pyqtgraph 0.14's SVG exporter cannot read Qt 6's "Z": a line back to the start instead.
    assert close_path_data("M1,2 L3,4 L5,6 Z") == "M1,2 L3,4 L5,6 L1,2"
    assert close_path_data("M0,0 L1,1 ZM2,2 L3,3 z") == "M0,0 L1,1 L0,0 M2,2 L3,3 L2,2"
