"""The chart in a window-less harness, and the mouse as pyqtgraph sees it: shared by the tests
of tests/ui/chart (their conftest.py gives them the ``h`` fixture)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QUndoStack
from PySide6.QtWidgets import QApplication

from factlines.core import temporal
from factlines.ui.chart import GanttChart
from factlines.ui.menus.edits import FactActions
from factlines.ui.session.state import AppState
from ui_fixtures import dump

KAI = "kai_moreno"
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.MouseButton.NoButton


class Harness:
    def __init__(self, kg, qtbot):
        self.kg = kg
        self.state = AppState(kg)
        self.stack = QUndoStack()
        self.actions = FactActions(self.state, self.stack)
        self.chart = GanttChart(self.state, self.actions)
        self.messages: list[str] = []
        self.state.message.connect(self.messages.append)
        qtbot.addWidget(self.chart)
        self.chart.resize(1200, 700)
        self.chart.show()
        qtbot.waitExposed(self.chart)
        self.qtbot = qtbot

    def rows(self) -> dict:
        """Every row of every table (but the edit log), read through a second connection."""
        return dump(self.kg.db_path)

    def file_fact(self, triple_id: str) -> dict:
        with sqlite3.connect(self.kg.db_path) as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM triples WHERE id = ?", (triple_id,)).fetchone()
        return dict(row) if row else None

    def fact_id(self, predicate: str, other_name: str) -> str:
        for f in self.chart.bars.layout.facts:
            if f["predicate"] == predicate and other_name in (f["object_name"], f["subject_name"]):
                return f["id"]
        raise KeyError((predicate, other_name))

    def settle(self):
        QApplication.processEvents()


def send_mouse(widget, kind, pos, button, buttons):
    event = QMouseEvent(
        kind,
        QPointF(pos),
        QPointF(widget.mapToGlobal(pos)),
        button,
        buttons,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def mouse_drag(h, start, end, steps=8):
    """Press at ``start``, move to ``end`` in steps, release: pyqtgraph sees a real drag."""
    vp = h.chart.canvas.viewport()
    send_mouse(vp, QEvent.Type.MouseMove, start, NONE, NONE)
    h.qtbot.wait(15)
    send_mouse(vp, QEvent.Type.MouseButtonPress, start, LEFT, LEFT)
    for k in range(1, steps + 1):
        h.qtbot.wait(15)
        p = QPointF(start) + (QPointF(end) - QPointF(start)) * (k / steps)
        send_mouse(vp, QEvent.Type.MouseMove, p.toPoint(), NONE, LEFT)
    h.qtbot.wait(15)
    send_mouse(vp, QEvent.Type.MouseButtonRelease, end, LEFT, NONE)
    h.settle()


def mouse_click(h, pos, double=False):
    vp = h.chart.canvas.viewport()
    send_mouse(vp, QEvent.Type.MouseMove, pos, NONE, NONE)
    h.qtbot.wait(15)
    send_mouse(vp, QEvent.Type.MouseButtonPress, pos, LEFT, LEFT)
    send_mouse(vp, QEvent.Type.MouseButtonRelease, pos, LEFT, NONE)
    if double:
        send_mouse(vp, QEvent.Type.MouseButtonDblClick, pos, LEFT, LEFT)
        send_mouse(vp, QEvent.Type.MouseButtonRelease, pos, LEFT, NONE)
    h.settle()


def shots_dir(tmp_path) -> Path:
    folder = os.environ.get("FACTLINES_SHOTS")
    path = Path(folder) if folder else tmp_path / "shots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def menu_action(menu, name):
    action = next((a for a in menu.actions() if a.objectName() == name), None)
    assert action is not None, f"no {name} in {[a.objectName() for a in menu.actions()]}"
    return action


def drag_side(h, triple_id, side, target, view=("2025-01-01", "2026-12-31")):
    """Drag a fact's ``start`` or ``end`` to POSIX ``target`` with the mouse, in a set view."""
    chart = h.chart
    chart.set_x_range(temporal.to_posix(view[0]), temporal.to_posix(view[1]))
    h.settle()
    point = chart.view_point(triple_id, side)
    grab = chart.viewport_point(point.x(), point.y())
    mouse_drag(h, grab, chart.viewport_point(target, point.y()))
    return h.file_fact(triple_id)
