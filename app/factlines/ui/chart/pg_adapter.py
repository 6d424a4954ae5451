"""Every use of pyqtgraph beyond its documented API, in one place.

pyqtgraph is pinned below 0.15 (see pyproject.toml): each use below says what it relies on and
why, so that a new pyqtgraph version is checked here and nowhere else. The rest of the chart
uses pyqtgraph's documented classes, methods, signals and mouse events only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import compat as pg_compat
from pyqtgraph.Qt import internals as pg_internals
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter


class RectArray:
    """A reusable block of QRectF that numpy fills, drawn with one native ``drawRects`` call.

    The bars are painted in groups of thousands of rectangles: a QRectF object per bar would
    cost more than the painting itself.
    """

    def __init__(self) -> None:
        # pyqtgraph.Qt.internals.PrimitiveArray (undocumented): pyqtgraph's own fast path for
        # drawing many rectangles (its ScatterPlotItem uses it): QRectF memory seen as an
        # (n, 4) float64 array, with the drawRects arguments for the binding in use.
        self._array = pg_internals.PrimitiveArray(QRectF, 4)

    def draw(self, p: QPainter, rects: np.ndarray) -> None:
        """Draw an (n, 4) array of x, y, w, h with one native drawRects call."""
        n = len(rects)
        if n == 0:
            return
        self._array.resize(n)
        self._array.ndarray()[:] = rects
        p.drawRects(*self._array.drawargs())

    def draw_rows(self, p: QPainter, rects: np.ndarray, a: int, b: int) -> None:
        """Draw rows ``a:b`` of a C-contiguous (n, 4) float64 array in place when the binding
        takes a pointer (PySide6 >= 6.4.3), else through a copy."""
        # PrimitiveArray.use_ptr_to_array (undocumented) says whether the binding takes a
        # pointer to QRectF; pyqtgraph.Qt.compat.wrapinstance (undocumented) wraps an address
        # as one for every binding pyqtgraph supports. Drawing a group's slice in place saves
        # copying each group into the array above.
        if self._array.use_ptr_to_array and b > a:
            ptr = pg_compat.wrapinstance(rects.ctypes.data + a * rects.strides[0], QRectF)
            p.drawRects(ptr, b - a)
        else:
            self.draw(p, rects[a:b])


class WrapLabel(pg.LabelItem):
    """A LabelItem that wraps to the layout's width instead of forcing it wider (the legend).

    LabelItem sizes itself to its text on one line; this overrides its undocumented
    ``updateMin`` hook, which sets its size hints, and writes the hints where LabelItem keeps
    them (``_sizeHint``, private), so that a long legend wraps. ``item`` (the
    QGraphicsTextItem it draws with) and ``itemRect`` are undocumented attributes too.
    """

    def updateMin(self) -> None:
        width = max(50.0, self.size().width())
        self.item.setTextWidth(width)
        bounds = self.itemRect()
        self.setMinimumWidth(10)
        self.setMinimumHeight(bounds.height())
        self.setMaximumHeight(bounds.height())
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (10, bounds.height()),
            Qt.SizeHint.PreferredSize: (width, bounds.height()),
            Qt.SizeHint.MaximumSize: (-1, bounds.height()),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()

    def resizeEvent(self, ev) -> None:
        self.item.setPos(0, 0)
        if abs(self.item.textWidth() - self.size().width()) > 1:
            self.updateMin()


def central_layout(canvas: pg.GraphicsLayoutWidget) -> pg.GraphicsLayout:
    """The GraphicsLayout that holds the title, the plot and the legend."""
    # GraphicsLayoutWidget.ci (undocumented attribute): the layout's margins and spacing, and
    # the item the exporters save (the whole chart, not just the plot), are only reached here.
    return canvas.ci


def lay_out_now(canvas: pg.GraphicsLayoutWidget, plot: pg.PlotItem) -> None:
    """Lay out the title, plot and legend now and apply the new view range, so that the next
    paint is the final one (see ``GanttChart._settle_layout``)."""
    # GraphicsLayout.layout and PlotItem.layout (undocumented attributes): the
    # QGraphicsGridLayouts that Qt would otherwise lay out in a posted event, after a paint.
    canvas.ci.layout.activate()
    plot.layout.activate()
    # GraphicsScene.prepareForPaint is documented as called before every render; pyqtgraph
    # applies a new view range there. Called early, the items it moves need no second paint.
    canvas.scene().prepareForPaint()


def date_tick_format(axis: pg.DateAxisItem, spacing: float) -> str | None:
    """The strftime format ``axis`` writes its ticks of ``spacing`` (seconds) with, at its
    present zoom."""
    # DateAxisItem.zoomLevel (set by setZoomLevelForDensity, whose docstring invites
    # customising it) and its ZoomLevel.tickSpecs / TickSpec.spacing, .format (undocumented):
    # the only record of which format a row of ticks is written in.
    specs = axis.zoomLevel.tickSpecs
    return next((spec.format for spec in specs if spec.spacing == spacing), None)


def wheel_zooms_x(view: pg.ViewBox, ev) -> None:
    """Zoom ``view`` on the time axis only, as the wheel does in ViewBox."""
    # ViewBox.wheelEvent's ``axis`` argument (undocumented): 0 limits the zoom to x.
    pg.ViewBox.wheelEvent(view, ev, axis=0)


@contextmanager
def svg_path_data_rewritten(rewrite: Callable[[str], str]) -> Iterator[None]:
    """Run pyqtgraph's SVG export with each ``<path>``'s data passed through ``rewrite`` first.

    Qt 6's SVG generator writes path data that pyqtgraph 0.14's exporter cannot parse (see
    ``export.close_path_data``); the exporter has no hook for it, so this patches one in.
    """
    # Monkey-patch: pyqtgraph.exporters.SVGExporter.correctCoordinates (an undocumented module
    # function) is the step every exported node goes through before its path data is parsed.
    # The module is imported by name: ``pyqtgraph.exporters.SVGExporter`` is the class.
    module = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    original = module.correctCoordinates

    def correct(node, defs, item, options):
        for element in node.getElementsByTagName("path"):
            element.setAttribute("d", rewrite(element.getAttribute("d")))
        return original(node, defs, item, options)

    module.correctCoordinates = correct
    try:
        yield
    finally:
        module.correctCoordinates = original
