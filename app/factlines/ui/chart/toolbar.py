"""The chart's toolbar: the entity's name, then Fit, as_of ± 1 year, Zoom in and out, Export…"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolBar

from factlines.ui.chart import look


class ChartToolbar(QToolBar):
    """A toolbar no taller than its buttons: on a 1024×700 screen every row of pixels is a
    lane's. (A style sheet would do it, but would keep the buttons' text dark in the dark
    theme; the style puts its margins back on every change of style.)

    :attr:`title` takes the row's room, the buttons at its right; a long name gives way."""

    def __init__(
        self,
        fit: Callable[[], None],
        zoom_as_of_year: Callable[[], None],
        zoom: Callable[[float], None],
        export: Callable[[], None],
    ):
        super().__init__("Chart")
        self.setObjectName("ganttToolbar")
        self.title = QLabel()
        self.title.setObjectName("ganttTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setContentsMargins(look.MARGINS[0], 0, 8, 0)
        self.title.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.title.setMinimumWidth(40)
        self.addWidget(self.title)
        self.fit = self._add("ganttFit", "Fit", "Show every fact", fit, "F")
        self.as_of_year = self._add(
            "ganttAsOfYear",
            "as_of ± 1 year",
            "Zoom to a year either side of as_of (or today)",
            zoom_as_of_year,
            "Y",
        )
        self.zoom_in = self._add(
            "ganttZoomIn", "Zoom in", "Zoom in on time", lambda: zoom(0.5), "+"
        )
        self.zoom_out = self._add(
            "ganttZoomOut", "Zoom out", "Zoom out on time", lambda: zoom(2.0), "-"
        )
        self.addSeparator()
        self.export = self._add("ganttExport", "Export…", "Save the chart as PNG or SVG", export)

    def _add(self, name: str, text: str, tip: str, slot, shortcut: str | None = None) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        action.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.Polish):
            self.layout().setContentsMargins(0, 0, 0, 0)
        return handled
