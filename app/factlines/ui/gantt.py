"""The Gantt chart of the selected entity's relationship intervals (placeholder: issue 4)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from factlines.ui.actions import FactActions
from factlines.ui.state import AppState


class GanttChart(QWidget):
    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ganttPlot")
        self._state = state
        self._actions = actions
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The chart of intervals comes with issue 4."))

    def drawn_intervals(self) -> list[dict]:
        return []
