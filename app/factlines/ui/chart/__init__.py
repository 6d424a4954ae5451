"""The Gantt chart: the selected entity's relationship intervals on a UTC time axis.

``layout`` holds the lanes, rows and bars as numpy arrays; ``widget`` draws and edits them.

``from factlines.ui.chart import GanttChart`` imports Qt and pyqtgraph only when the name is used.
"""

from __future__ import annotations

__all__ = ["GanttChart"]


def __getattr__(name: str):
    if name == "GanttChart":
        from factlines.ui.chart.widget import GanttChart

        return GanttChart
    raise AttributeError(f"module 'factlines.ui.chart' has no attribute {name!r}")
