"""The Gantt chart widget: the selected entity's relationship intervals on a UTC time axis.

One lane per relationship (predicate + direction + other entity), grouped by predicate; bars from
``valid_from`` to ``valid_to`` with the store's meaning (a date-only end covers its whole last
day); the ``as_of`` cursor bound both ways to :class:`AppState`; the chart is an editor (drag an
end, context menu, double-click).

:class:`GanttChart` assembles the parts and follows the state: the bars and lane axis
(:mod:`.painting`) show the arrays of :mod:`.layout`; a :class:`Navigator` moves the view; the
pointer, the cursor, the menus and the keys are :mod:`.interaction`'s; files are :mod:`.export`'s.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt
from PySide6.QtWidgets import (
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QMenu,
    QScrollBar,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from factlines.ui.chart import export, look, pg_adapter
from factlines.ui.chart import layout as gl
from factlines.ui.chart.interaction import (
    AsOfCursor,
    BarPointer,
    ChartKeys,
    ChartMenus,
    GanttViewBox,
)
from factlines.ui.chart.line_labels import LineLabel
from factlines.ui.chart.navigation import Navigator
from factlines.ui.chart.painting import BarsItem, LaneAxis, legend_html, title_html
from factlines.ui.chart.time_axis import TimeAxis
from factlines.ui.chart.toolbar import ChartToolbar
from factlines.ui.look import style
from factlines.ui.menus.edits import FactActions
from factlines.ui.painting import paint_with_the_window
from factlines.ui.session.state import AppState


class GanttChart(QWidget):
    """The chart widget (object name ``ganttPlot``)."""

    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ganttPlot")
        self._state = state
        self._actions = actions
        self._entity_name: str | None = None

        self._glw = pg.GraphicsLayoutWidget()
        paint_with_the_window(self._glw.scene())
        self._glw.setBackground(style.theme().background)
        self._glw.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._glw.installEventFilter(self)
        pg_adapter.central_layout(self._glw).setContentsMargins(*look.MARGINS)
        pg_adapter.central_layout(self._glw).setSpacing(look.SPACING)
        # The title is in the toolbar's row on screen (a row more for the lanes); the same text
        # heads an exported file, in row 0 while it is saved.
        self._title = pg.LabelItem(
            "", justify="left", color=style.theme().text_color, size=look.TITLE_SIZE
        )
        self.bars = BarsItem()
        self.view = GanttViewBox(self.scroll_rows, self.background_menu, self.setFocus)
        self.lane_axis = LaneAxis(self.bars, self.scroll_rows)
        self.time_axis = TimeAxis()
        self.plot = pg.PlotItem(
            viewBox=self.view, axisItems={"left": self.lane_axis, "bottom": self.time_axis}
        )
        self._glw.addItem(self.plot, row=1, col=0)
        self._legend = pg_adapter.WrapLabel(
            "", justify="left", color=style.theme().muted_text, size=look.LEGEND_SIZE
        )
        self._glw.addItem(self._legend, row=2, col=0)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        for axis in (self.lane_axis, self.time_axis):
            axis.setPen(pg.mkPen(style.theme().axis_color))
            axis.setTextPen(pg.mkPen(style.theme().text_color))
        self.time_axis.setGrid(look.TIME_GRID_ALPHA)
        # Axes and labels change with the view or the entity, never with as_of: Qt keeps them
        # as device pixmaps and blits them while the bars repaint.
        for item in (self.lane_axis, self.time_axis, self._title, self._legend):
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.view.setLimits(
            xMin=gl.X_MIN, xMax=gl.X_MAX, minXRange=gl.MIN_SPAN, maxXRange=gl.X_MAX - gl.X_MIN
        )

        self.view.addItem(self.bars, ignoreBounds=True)
        self.today_line = pg.InfiniteLine(
            pos=time.time(),
            angle=90,
            movable=False,
            pen=pg.mkPen(style.theme().today_color, width=1, style=Qt.PenStyle.DashLine),
        )
        self.today_line.setZValue(5)
        self.view.addItem(self.today_line, ignoreBounds=True)
        self._scrollbar = QScrollBar(Qt.Orientation.Vertical)
        self.navigator = Navigator(self.view, self._scrollbar, self.bars, state, self.today_line)
        self._as_of_cursor = AsOfCursor(state, self.navigator)
        self.cursor = self._as_of_cursor.line
        self.cursor_label = self._as_of_cursor.label
        self.view.addItem(self.cursor, ignoreBounds=True)
        self.today_label = LineLabel(
            self.view, self.today_line, prefer_left=False, avoid=self.cursor_label
        )
        self.today_label.set_colors(style.theme().muted_text, style.theme().today_label_fill)
        self.today_label.set_text("today")
        # A selected bar's dates move out from under the as_of label.
        self.bars.keep_clear = (self.cursor_label, self.today_label)
        self.cursor_label.moved.connect(self.bars.update_marks)

        self._scrollbar.valueChanged.connect(self.navigator.scrolled)
        self._empty = QLabel()
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setObjectName("ganttEmpty")
        self._empty.setStyleSheet(
            f"color: {style.theme().muted_text}; font-size: {look.EMPTY_TEXT_SIZE}; padding: 24px;"
        )
        page = QWidget()
        row = QHBoxLayout(page)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self._glw, 1)
        row.addWidget(self._scrollbar)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._empty)
        self._stack.addWidget(page)

        self.menus = ChartMenus(self, self.bars, self.navigator, state, actions, self.export_dialog)
        self.pointer = BarPointer(self.bars, self.navigator, self.menus, state, actions, self._glw)
        self.bars.events = self.pointer
        self.keys = ChartKeys(self.navigator, self.pointer, state, actions)

        self.toolbar = ChartToolbar(self.fit, self.zoom_as_of_year, self.zoom, self.export_dialog)
        self.title_label = self.toolbar.title
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.toolbar)
        box.addWidget(self._stack, 1)

        self.view.sigRangeChanged.connect(self.navigator.show_view_rect)
        self.view.sigResized.connect(self.navigator.apply_rows)
        state.entityChanged.connect(
            lambda _=None: state.reload_view(self, lambda: self.reload(refit=True))
        )
        state.graphChanged.connect(lambda: self.reload(refit=True))
        state.factsChanged.connect(self._facts_changed)
        # A hub's layout is made where its facts are read, off the UI thread.
        state.prepare_with(
            self,
            lambda _kg, facts: gl.build_layout(
                facts.facts, facts.conflicts, (facts.starts, facts.ends)
            ),
        )
        # The first facts of an empty graph (an import, MemPalace): its message is no more true.
        state.dataChanged.connect(lambda _touched: self._graph_empty and self.reload())
        state.asOfChanged.connect(self._as_of_changed)
        state.factChanged.connect(self._fact_changed)
        self.reload(refit=True)

    @property
    def canvas(self) -> pg.GraphicsLayoutWidget:
        """The graphics view the chart draws in (its viewport receives the mouse)."""
        return self._glw

    @property
    def build_count(self) -> int:
        """How many times the bars were rebuilt (tests check that as_of only restyles)."""
        return self.bars.build_count

    def viewport_point(self, x: float, y: float) -> QPoint:
        """Where view point ``(x, y)`` (POSIX seconds, row) is on the canvas's viewport."""
        return self._glw.mapFromScene(self.view.mapViewToScene(QPointF(x, y)))

    # ── Keys ─────────────────────────────────────────────────────────────
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self._glw and event.type() == QEvent.Type.KeyPress:
            return self.handle_key(event.key(), event.modifiers())
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event) -> None:
        if not self.handle_key(event.key(), event.modifiers()):
            super().keyPressEvent(event)

    # ── Loading ──────────────────────────────────────────────────────────
    def reload(self, refit: bool = False) -> None:
        """Query the entity's intervals and rebuild the bar arrays (not on as_of changes)."""
        state = self._state
        kg, entity = state.kg, state.entity
        facts: list[dict] = []
        conflicts: list[dict] = []
        name = None
        record = state.entity_record()
        if record is not None:
            name = record["name"]
            facts = state.entity_facts()
            conflicts = state.entity_conflicts()
        self._entity_name = name
        layout = state.prepared(self) or gl.build_layout(
            facts, conflicts, state.time_arrays() if facts else None
        )
        # The same entity again (a write): the rows in view stay in view as lanes come above.
        anchor = None if refit else self.navigator.top_anchor()
        self.bars.set_layout(layout, layout.index_of(state.fact), self._valid(layout))
        # A drag holds a bar's index, which may now be another fact's: it ends with the reload.
        self.pointer.cancel_drag()
        self._graph_empty = (
            entity is None and kg is not None and not kg.closed and not kg.has_facts()
        )
        if kg is None:
            self._show_empty(
                "No knowledge graph is open.\nOpen a file or the demo to see facts on a time line."
            )
        elif self._graph_empty:
            self._show_empty(
                "This graph has no facts yet.\n"
                "Add the first one with Edit → Add fact… (Ctrl+Shift+N)."
            )
        elif entity is None:
            self._show_empty("Select an entity in the browser\nto see its facts over time.")
        elif name is None:
            self._show_empty(f"The entity “{entity}” is not in this graph any more.")
        elif layout.n == 0:
            self._show_empty(f"{name} has no facts yet.\nAdd one in the facts table.")
        else:
            self._stack.setCurrentIndex(1)
        self._update_labels()
        self.lane_axis.fit_width(layout, self.font())
        if refit:
            self.navigator.refit()
        self.navigator.keep_anchor(anchor)
        self.navigator.apply_rows()
        self._settle_layout()
        self._as_of_cursor.sync()
        self.bars.update()
        self.lane_axis.update()

    def _settle_layout(self) -> None:
        """Lay the chart out now (the scroll bar, the lane axis width, the wrapped labels), so
        the first paint after a reload is the final one: left to Qt's posted layout requests,
        the chart paints once with the old geometry (its axes redrawn at a stale width), then
        again."""
        page = self._stack.currentWidget().layout()
        if page is not None:
            page.activate()
        # pyqtgraph applies a new view range when it paints; apply it now, or the items it
        # moves ask for one more paint.
        pg_adapter.lay_out_now(self._glw, self.plot)

    def _show_empty(self, text: str) -> None:
        self._empty.setText(text)
        self._stack.setCurrentIndex(0)

    def _update_labels(self) -> None:
        name = self._entity_name
        title = "" if name is None else title_html(name, self.bars.layout)
        self._title.setText(title)
        self.title_label.setText(f"<span style='font-size:{look.TITLE_SIZE}'>{title}</span>")
        self._legend.setText("" if name is None else legend_html(self.bars.layout))

    # ── as_of, selection: restyle only ───────────────────────────────────
    def _facts_changed(self, patch) -> None:
        """A write touched some of the entity's facts: patch their bars where they stay on
        their lane and start (an end moved, a confidence changed), else lay out again."""
        state = self._state
        if state.waiting(self):
            return
        if patch.reloaded:
            state.reload_view(self, lambda: self.reload(refit=False))
            return
        if patch.added or patch.removed:
            self.reload(refit=False)
            return
        starts, ends = state.time_arrays()
        layout = self.bars.layout
        if not gl.patch_layout(layout, patch.changed, starts, ends, state.entity_conflicts()):
            self.reload(refit=False)
            return
        self.bars.set_valid(self._valid(layout))
        self._update_labels()
        self.bars.update()

    def _valid(self, layout: gl.Layout) -> np.ndarray:
        """The bars' validity, read from the state's mask (evaluated once per as_of step)."""
        return self._state.valid_mask()[layout.source]

    def _as_of_changed(self, _value=None) -> None:
        if self._state.waiting(self):  # the bars are still another entity's
            return
        self.bars.set_valid(self._valid(self.bars.layout))
        self._as_of_cursor.sync()

    def _fact_changed(self, triple_id=None) -> None:
        self.bars.selected = self.bars.layout.index_of(triple_id)
        if self.bars.selected >= 0:
            self.navigator.ensure_row_visible(int(self.bars.layout.row[self.bars.selected]))
        self.bars.update()
        self.lane_axis.update()

    # ── Colours: the palette's, light or dark ────────────────────────────
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self.apply_colors()

    def apply_colors(self) -> None:
        """Take the colours of the palette now in use: the parts made with the previous
        palette's, then a reload (the layout, title and legend name predicate colours)."""
        self._glw.setBackground(style.theme().background)
        self._title.setAttr("color", style.theme().text_color)
        self._legend.setAttr("color", style.theme().muted_text)
        for axis in (self.lane_axis, self.time_axis):
            axis.setPen(pg.mkPen(style.theme().axis_color))
            axis.setTextPen(pg.mkPen(style.theme().text_color))
        self.today_line.setPen(
            pg.mkPen(style.theme().today_color, width=1, style=Qt.PenStyle.DashLine)
        )
        self.today_label.set_colors(style.theme().muted_text, style.theme().today_label_fill)
        self.cursor.setPen(pg.mkPen(style.theme().cursor_color, width=2))
        self.cursor.setHoverPen(pg.mkPen(style.theme().cursor_color, width=4))
        self.cursor_label.set_colors(
            style.theme().cursor_color, style.theme().cursor_label_fill, style.theme().cursor_color
        )
        self._empty.setStyleSheet(
            f"color: {style.theme().muted_text}; font-size: {look.EMPTY_TEXT_SIZE}; padding: 24px;"
        )
        self.bars.forget_colors()
        self.reload()

    # ── What is drawn ────────────────────────────────────────────────────
    def drawn_intervals(self) -> list[dict]:
        """The bars as drawn now: ``{id, start, end, lane, valid_at_as_of}`` from the arrays
        the painting uses (None for an unknown start or an open end). A fact that ended at an
        unknown time (MemPalace's empty ``valid_to``) has a lane but no bar, so it is left out."""
        layout = self.bars.layout
        valid = self.bars.valid
        lanes = [lane.label for lane in layout.lanes]
        return [
            {
                "id": layout.ids[i],
                "start": float(layout.start[i]) if np.isfinite(layout.start[i]) else None,
                "end": float(layout.end[i]) if np.isfinite(layout.end[i]) else None,
                "lane": lanes[int(layout.lane[i])],
                "valid_at_as_of": bool(valid[i]),
            }
            for i in range(layout.n)
            if layout.end[i] != -np.inf
        ]

    def lane_labels(self) -> list[str]:
        """Every row's label, top to bottom (group headers are the bare predicate)."""
        layout = self.bars.layout
        return [layout.row_label(r) for r in range(layout.n_rows)]

    # ── The chart's verbs, done by its parts (the names scripts and tests use) ──
    def handle_key(self, key: int, modifiers=Qt.KeyboardModifier.NoModifier) -> bool:
        """The chart's keys: see :meth:`ChartKeys.handle_key`."""
        return self.keys.handle_key(key, modifiers)

    def x_range(self) -> tuple[float, float]:
        return self.navigator.x_range()

    def set_x_range(self, start: float, end: float) -> None:
        self.navigator.set_x_range(start, end)

    def fit(self) -> None:
        self.navigator.fit()

    def zoom_as_of_year(self) -> None:
        self.navigator.zoom_as_of_year()

    def zoom(self, factor: float) -> None:
        self.navigator.zoom(factor)

    def pan(self, fraction: float) -> None:
        self.navigator.pan(fraction)

    def scroll_rows(self, rows: float) -> None:
        self.navigator.scroll_rows(rows)

    def ensure_row_visible(self, row: int) -> None:
        self.navigator.ensure_row_visible(row)

    def zoom_to_fact(self, triple_id: str) -> None:
        self.navigator.zoom_to_fact(triple_id)

    def zoom_to_bar(self, i: int) -> None:
        self.navigator.zoom_to_bar(i)

    def bar_at(self, x: float, y: float) -> int:
        return self.navigator.bar_at(x, y)

    def handle_at(self, x: float, y: float) -> tuple[int, str] | None:
        return self.navigator.handle_at(x, y)

    def view_point(self, triple_id: str, where: str = "middle") -> QPointF:
        return self.navigator.view_point(triple_id, where)

    def select_bar(self, i: int) -> None:
        self.pointer.select_bar(i)

    def edit_bar(self, i: int) -> None:
        self.pointer.edit_bar(i)

    def drag_value(self, i: int, side: str, x: float) -> tuple[str, float]:
        return self.pointer.drag_value(i, side, x)

    def commit_drag(self, i: int, side: str, value: str) -> bool:
        return self.pointer.commit_drag(i, side, value)

    def tooltip(self, i: int, x: float | None = None) -> str:
        return self.pointer.tooltip(i, x)

    def here_value(self, i: int, x: float) -> str:
        return self.menus.here_value(i, x)

    def bar_menu(self, i: int, x: float) -> QMenu:
        """The context menu of bar ``i`` clicked at ``x`` (POSIX); actions have object names."""
        return self.menus.bar_menu(i, x)

    def background_menu(self, x: float) -> QMenu:
        return self.menus.background_menu(x)

    def export(self, path: str | Path) -> Path:
        """Save the chart (title, lanes, bars, legend) as PNG or SVG, chosen by the suffix."""
        chart = pg_adapter.central_layout(self._glw)
        chart.addItem(self._title, row=0, col=0)
        try:
            chart.layout.activate()
            return export.export_chart(self._glw, path)
        finally:
            chart.removeItem(self._title)
            chart.layout.activate()

    def export_dialog(self) -> None:
        export.export_dialog(self, self.export, self._entity_name, self._state.message.emit)


__all__ = ["GanttChart"]
