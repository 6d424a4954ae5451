"""The chart as a file: PNG or SVG (title, lanes, bars, legend), with pyqtgraph's exporters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg
from pyqtgraph import exporters
from PySide6.QtWidgets import QFileDialog, QWidget

from factlines.ui.chart import pg_adapter


def close_path_data(d: str) -> str:
    """SVG path data with each ``Z`` (close) written as a line back to the subpath's start.

    Qt 6's SVG generator closes subpaths with ``Z``; pyqtgraph 0.14's SVG exporter reads path
    data as ``x,y`` tokens only and fails on it (any plot's export does). Same drawing.
    """
    out: list[str] = []
    start: str | None = None
    for token in d.split():
        while token[:1] in ("Z", "z"):
            if start is not None:
                out.append("L" + start)
            token = token[1:]
        if not token:
            continue
        if token[0] in "Mm":
            start = token[1:]
        out.append(token)
    return " ".join(out)


def export_chart(canvas: pg.GraphicsLayoutWidget, path: str | Path) -> Path:
    """Save what ``canvas`` shows as PNG or SVG, chosen by the suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    chart = pg_adapter.central_layout(canvas)
    if suffix == ".png":
        # ImageExporter reports a failed save by returning False, not by raising.
        if exporters.ImageExporter(chart).export(str(path)) is False:
            raise OSError(f"cannot write {path}")
    elif suffix == ".svg":
        with pg_adapter.svg_path_data_rewritten(close_path_data):
            exporters.SVGExporter(chart).export(str(path))
    else:
        raise ValueError(f"cannot export to {path.name!r}: use a .png or .svg file name")
    return path


def export_dialog(
    parent: QWidget,
    save: Callable[[str], Path],
    entity_name: str | None,
    report: Callable[[str], None],
) -> None:
    """Ask for a file name (``<entity>.png`` proposed) and export there; ``report`` says how
    it went."""
    name = (entity_name or "chart").replace("/", "_")
    path, _ = QFileDialog.getSaveFileName(
        parent, "Export chart", f"{name}.png", "PNG image (*.png);;SVG drawing (*.svg)"
    )
    if not path:
        return
    if Path(path).suffix.lower() not in (".png", ".svg"):
        path += ".png"
    try:
        save(path)
    except (OSError, ValueError) as exc:
        report(f"Export failed: {exc}")
        return
    report(f"Exported the chart to {path}")
