"""The Gantt chart: the selected entity's relationship intervals on a UTC time axis.

Modules, each importing only modules above it in this list (no import circle):

- ``look``: the chart's sizes and colours (predicate colours come from ``factlines.ui.look.style``);
- ``layout``: lanes, rows and bars as numpy arrays, validity, picking and snapping (no drawing);
- ``pg_adapter``: every use of pyqtgraph beyond its documented API, each saying why;
- ``line_labels``: the as_of and today lines' labels, kept whole inside the view;
- ``time_axis``: the dates under the chart, with the year wherever a zoom would hide it;
- ``painting``: the bars item and the lane axis, painted from the layout's arrays;
- ``navigation``: which time range and rows are in view (zoom, pan, fit, scroll);
- ``interaction``: hover, click, end dragging, the as_of cursor, context menus, keys;
- ``export``: the chart as a PNG or SVG file;
- ``toolbar``: the entity's name and the chart's buttons (Fit, zoom, Export…);
- ``widget``: :class:`GanttChart` (object name ``ganttPlot``), which assembles them.

``from factlines.ui.chart import GanttChart`` imports Qt and pyqtgraph only when the name is used.
"""

from __future__ import annotations

__all__ = ["GanttChart"]


def __getattr__(name: str):
    if name == "GanttChart":
        from factlines.ui.chart.widget import GanttChart

        return GanttChart
    raise AttributeError(f"module 'factlines.ui.chart' has no attribute {name!r}")
