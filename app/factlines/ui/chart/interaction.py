"""What the pointer and the keys do on the chart: hover, click, drag an end, the as_of cursor,
the context menus, the keys. The chart is an editor: every change goes through
:class:`FactActions` (and so the undo stack).
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QWidget

from factlines.core import temporal
from factlines.core.columns import BY_NAME, PROVENANCE
from factlines.core.errors import Refused, Unavailable
from factlines.core.store import describe
from factlines.ui.chart import layout as gl
from factlines.ui.chart import pg_adapter
from factlines.ui.chart.line_labels import LineLabel
from factlines.ui.chart.navigation import Navigator
from factlines.ui.chart.painting import BarsItem
from factlines.ui.look import style
from factlines.ui.look.fact_memory import memory_lines
from factlines.ui.look.fact_story import fact_story, story_lines
from factlines.ui.look.wording import fact_in_words
from factlines.ui.menus.edits import FactActions
from factlines.ui.menus.selection_actions import mirror, starts_after, why_not_end
from factlines.ui.session.state import AppState


class GanttViewBox(pg.ViewBox):
    """Zoom and pan on the time axis only; lanes scroll (shift+wheel, the scroll bar, keys)."""

    def __init__(
        self,
        scroll_rows: Callable[[float], None],
        background_menu: Callable[[float], QMenu],
        focus: Callable[[], None],
    ):
        super().__init__(enableMenu=False, invertY=True)
        self._scroll_rows = scroll_rows
        self._background_menu = background_menu
        self._focus = focus
        self.setMouseEnabled(x=True, y=False)

    def wheelEvent(self, ev, axis=None) -> None:
        if ev.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier):
            self._scroll_rows(-ev.delta() / 40.0)
            ev.accept()
            return
        pg_adapter.wheel_zooms_x(self, ev)

    def mouseClickEvent(self, ev) -> None:
        x = self.mapSceneToView(ev.scenePos()).x()
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            self._background_menu(x).popup(ev.screenPos().toPoint())
        elif ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self._focus()
        else:
            super().mouseClickEvent(ev)


class AsOfCursor:
    """The as_of cursor: a red line bound both ways to :attr:`AppState.as_of` (drag it to set
    as_of, snapped to days when as_of is a day; hidden when there is no as_of)."""

    def __init__(self, state: AppState, navigator: Navigator):
        self._state = state
        self._nav = navigator
        self.line = pg.InfiniteLine(
            angle=90,
            movable=True,
            pen=pg.mkPen(style.theme().cursor_color, width=2),
            hoverPen=pg.mkPen(style.theme().cursor_color, width=4),
        )
        self.line.setZValue(10)
        self.line.setBounds((gl.X_MIN, gl.X_MAX))
        self.line.sigDragged.connect(self._dragged)
        self.label = LineLabel(navigator.view, self.line, prefer_left=True)
        self.label.set_colors(
            style.theme().cursor_color, style.theme().cursor_label_fill, style.theme().cursor_color
        )

    def sync(self) -> None:
        """Show as_of (hidden in all-time mode)."""
        at = self._state.as_of_posix
        if at is None:
            self.line.hide()
            self.label.set_text("")
            return
        self.line.show()
        if self.line.value() != at:
            self.line.setValue(at)  # emits sigPositionChanged only: no loop back to the state
        self.label.set_text(f"as of {self._state.as_of}")

    def _dragged(self, line=None) -> None:
        as_day = temporal.is_date(self._state.as_of)
        value = gl.start_value(self.line.value(), as_day, self._nav.seconds_per_px())
        try:
            self._state.set_as_of(value)
        except Refused as exc:
            self._state.message.emit(f"as_of refused: {exc}")
        self.sync()


class ChartMenus:
    """The context menus: of a bar (end, move the end, replace, edit, delete, zoom, as_of) and
    of the background (fit, zoom, as_of, export). Their actions have object names."""

    def __init__(
        self,
        parent: QWidget,
        bars: BarsItem,
        navigator: Navigator,
        state: AppState,
        actions: FactActions,
        export_dialog: Callable[[], None],
    ):
        self._parent = parent
        self._bars = bars
        self._nav = navigator
        self._state = state
        self._actions = actions
        self._export_dialog = export_dialog

    def here_value(self, i: int, x: float) -> str:
        """The value "End fact here" writes for a click at ``x``: the clicked day when the fact
        is kept in days (a day as valid_to covers that day), else an instant at this zoom."""
        fact = self._bars.layout.facts[i]
        as_of = self._state.as_of
        if gl.fact_uses_days(fact, default=as_of is None or temporal.is_date(as_of)):
            return temporal.day_of_posix(x)
        return gl.snap_instant(x, self._nav.seconds_per_px())

    def bar_menu(self, i: int, x: float) -> QMenu:
        """The context menu of bar ``i`` clicked at ``x`` (POSIX); actions have object names.

        The bar's fact is selected first; then the shared fact actions are offered for it (as
        entries that keep the chart's names), with what only the chart can offer: ending or
        moving the end where the mouse is, zooming to the fact, setting as_of there."""
        fact = self._bars.layout.facts[i]
        triple_id = fact["id"]
        self._state.select_fact(triple_id)
        shared = self._actions.commands
        as_of_here = self._as_of_value_at(x)
        here = self.here_value(i, x)
        here_words = f"the day clicked ({here})" if temporal.is_date(here) else f"{here}"
        menu = QMenu(self._parent)
        menu.setToolTipsVisible(True)
        title = menu.addAction(describe(fact))
        title.setEnabled(False)
        menu.addSeparator()

        def add(name, text, slot, reason=None, tip="", verb=""):
            action = menu.addAction(text)
            action.setObjectName(name)
            action.setEnabled(reason is None)
            action.setToolTip(tip if reason is None else f"Cannot {verb}: {reason}")
            action.triggered.connect(slot)
            return action

        blocked = shared.blocked()  # no graph, or one that cannot be written
        add(
            "ganttEndHere",
            f"End fact here ({here})",
            lambda: self._actions.end_fact(triple_id, here),
            blocked or why_not_end(fact, here, here_words),
            f"End “{describe(fact)}” at {here_words}",
            f"end it at {here}",
        )
        mirror(shared.end, menu, "ganttEndAtAsOf")
        if fact["valid_to"] is not None:
            add(
                "ganttMoveEnd",
                f"Move end here ({here})",
                lambda: self._actions.set_dates(triple_id, fact["valid_from"], here),
                blocked or starts_after(fact, here, here_words),
                f"Make “{describe(fact)}” end at {here_words}",
                f"move its end to {here}",
            )
        menu.addSeparator()
        mirror(shared.replace, menu, "ganttReplace")
        mirror(shared.edit, menu, "ganttEdit")
        mirror(shared.delete, menu, "ganttDelete")
        menu.addSeparator()
        add("ganttZoomFact", "Zoom to this fact", lambda: self._nav.zoom_to_fact(triple_id))
        add(
            "ganttSetAsOf",
            f"Set as_of here ({as_of_here})",
            lambda: self._state.set_as_of(as_of_here),
        )
        return menu

    def background_menu(self, x: float) -> QMenu:
        as_of_here = self._as_of_value_at(x)
        menu = QMenu(self._parent)

        def add(name, text, slot, enabled=True):
            action = menu.addAction(text)
            action.setObjectName(name)
            action.setEnabled(enabled)
            action.triggered.connect(slot)
            return action

        add("ganttFitMenu", "Fit all facts", self._nav.fit)
        add("ganttAsOfYearMenu", "Zoom to as_of ± 1 year", self._nav.zoom_as_of_year)
        menu.addSeparator()
        add(
            "ganttSetAsOf",
            f"Set as_of here ({as_of_here})",
            lambda: self._state.set_as_of(as_of_here),
        )
        add(
            "ganttAllTime",
            "All time (no as_of)",
            lambda: self._state.set_as_of(None),
            self._state.as_of is not None,
        )
        menu.addSeparator()
        add("ganttExportMenu", "Export as PNG or SVG…", self._export_dialog)
        return menu

    def _as_of_value_at(self, x: float) -> str:
        """The as_of a click at ``x`` means: the day clicked in, or an instant when as_of is one."""
        as_day = self._state.as_of is None or temporal.is_date(self._state.as_of)
        return (
            temporal.day_of_posix(x) if as_day else gl.snap_instant(x, self._nav.seconds_per_px())
        )


class BarPointer:
    """The pointer on the bars (hover, click, double-click, dragging an end) and what it does to
    the facts: :class:`BarsItem` hands its pyqtgraph events here. Picking is an array search
    (:meth:`Navigator.bar_at`), not Qt hit-testing."""

    def __init__(
        self,
        bars: BarsItem,
        navigator: Navigator,
        menus: ChartMenus,
        state: AppState,
        actions: FactActions,
        canvas: QWidget,
    ):
        self.bars = bars
        self._nav = navigator
        self._menus = menus
        self._state = state
        self._actions = actions
        self._canvas = canvas  # takes the keyboard focus when a bar is selected
        self._drag: tuple[int, str] | None = None  # the bar and side held

    # ── Events ───────────────────────────────────────────────────────────
    def hover(self, ev) -> None:
        if ev.isExit():
            self.bars.set_hovered(-1)
            self.bars.unsetCursor()
            return
        pos = ev.pos()
        # A read-only graph offers no end to drag (the tooltip says why).
        handle = self._nav.handle_at(pos.x(), pos.y()) if self._writable() else None
        i = self._nav.bar_at(pos.x(), pos.y())
        if handle is not None:
            ev.acceptDrags(Qt.MouseButton.LeftButton)
            self.bars.setCursor(Qt.CursorShape.SizeHorCursor)
        elif i >= 0:
            self.bars.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self.bars.unsetCursor()
        if i >= 0:
            ev.acceptClicks(Qt.MouseButton.LeftButton)
            ev.acceptClicks(Qt.MouseButton.RightButton)
        self.bars.set_hovered(i)
        self.bars.setToolTip(self.tooltip(i, pos.x()) if i >= 0 else "")

    def click(self, ev) -> None:
        pos = ev.pos()
        i = self._nav.bar_at(pos.x(), pos.y())
        if i < 0:
            ev.ignore()
            return
        ev.accept()
        if ev.button() == Qt.MouseButton.LeftButton:
            self.select_bar(i)
            if ev.double():
                self.edit_bar(i)
        elif ev.button() == Qt.MouseButton.RightButton:
            self.select_bar(i)
            menu = self._menus.bar_menu(i, pos.x())
            menu.popup(ev.screenPos().toPoint())

    def drag(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            down = ev.buttonDownPos()
            handle = self._nav.handle_at(down.x(), down.y()) if self._writable() else None
            if handle is None:
                ev.ignore()
                return
            self._drag = handle
            self.select_bar(handle[0])
        if self._drag is None:
            ev.ignore()
            return
        ev.accept()
        i, side = self._drag
        value, posix = self.drag_value(i, side, ev.pos().x())
        self.bars.preview = (i, side, posix, value)
        self.bars.update()
        if ev.isFinish():
            self._drag = None
            self.bars.preview = None
            self.bars.update()
            self.commit_drag(i, side, value)

    def _writable(self) -> bool:
        return self._actions.commands.read_only_reason() is None

    def cancel_drag(self) -> None:
        """Forget a drag under way (a reload: its bar index may be another fact's now)."""
        self._drag = None
        self.bars.preview = None

    # ── Selection, editing ───────────────────────────────────────────────
    def select_bar(self, i: int) -> None:
        layout = self.bars.layout
        self._canvas.setFocus()
        self._state.select_fact(layout.ids[i] if 0 <= i < layout.n else None)

    def edit_bar(self, i: int) -> None:
        self._actions.edit_fact_dialog(self.bars.layout.ids[i])

    def drag_value(self, i: int, side: str, x: float) -> tuple[str, float]:
        """The value dragging bar ``i``'s ``side`` to ``x`` gives, and where it puts that side."""
        return gl.drag_value(self.bars.layout, i, side, x, self._nav.seconds_per_px())

    def commit_drag(self, i: int, side: str, value: str) -> bool:
        fact = self.bars.layout.facts[i]
        valid_from, valid_to = fact["valid_from"], fact["valid_to"]
        if side == "end" and valid_to is None:  # an open end: ended, asked why as End… asks
            return self._actions.end_fact_dialog(fact["id"], at=value)
        if side == "end":
            valid_to = value
        else:
            valid_from = value
        if (valid_from, valid_to) == (fact["valid_from"], fact["valid_to"]):
            return False
        return self._actions.set_dates(fact["id"], valid_from, valid_to)

    # ── Tooltip ──────────────────────────────────────────────────────────
    def tooltip(self, i: int, x: float | None = None) -> str:
        layout = self.bars.layout
        fact = layout.facts[i]
        start, end = float(layout.start[i]), float(layout.end[i])
        valid_from, valid_to = fact["valid_from"], fact["valid_to"]
        frm = style.show_time(valid_from, "unknown start")
        if valid_to is None:
            to = "open (still true)"
        elif style.is_odd_time(valid_to):
            to = style.show_time(valid_to)
        elif temporal.is_date(valid_to):
            to = f"{valid_to} (through that whole day)"
        else:
            to = valid_to
        if start == math.inf or end == -math.inf:
            duration = "none: valid at no instant"
        elif math.isfinite(start) and math.isfinite(end):
            duration = gl.describe_duration(end - start + layout.in_days(i, "valid_to"))
        elif math.isfinite(start) and valid_to is None:
            duration = f"{gl.describe_duration(time.time() - start)} so far"
        else:
            duration = "unknown" if math.isfinite(start) else "unknown (no start)"
        confidence = fact.get("confidence")
        shown = (
            style.show_confidence(confidence)
            if style.confidence_note(confidence)
            else f"{gl.confidence_of(confidence):.2f}"
        )
        rows = [
            f"<b>{html.escape(style.tip_text(describe(fact)))}</b>",
            f"{html.escape(frm)} → {html.escape(to)}",
            f"Duration: {duration}",
            f"Confidence: {html.escape(shown)}",
        ]
        notes = (
            style.time_note(valid_from, as_end=False),
            style.time_note(valid_to, as_end=True),
            style.confidence_note(confidence),
        )
        rows += [f"<i>{style.MARK} {html.escape(note)}</i>" for note in notes if note]
        sources = [
            f"{BY_NAME[key].header.lower()}: {html.escape(style.tip_text(fact[key]))}"
            for key in PROVENANCE
            if fact.get(key)
        ]
        rows.append("Provenance: " + (", ".join(sources) if sources else "none recorded"))
        if fact.get("extracted_at"):
            rows.append(f"Extracted: {html.escape(style.show_instant(fact['extracted_at']))}")
        if self._state.as_of is not None:
            yes = "yes" if self.bars.valid[i] else "no"
            rows.append(f"Valid at as_of {self._state.as_of}: {yes}")
        for conflict in layout.conflicts:
            if fact["id"] in (conflict["a"], conflict["b"]):
                other = conflict["b"] if conflict["a"] == fact["id"] else conflict["a"]
                span = (
                    f"{style.show_key(conflict['start'], 'the start')} to "
                    f"{style.show_key(conflict['end'], 'open', as_end=True)}"
                )
                words = html.escape(style.elide(self._fact_words(other)))
                rows.append(
                    f"<span style='color:{style.theme().conflict_text}'>Conflict: overlaps "
                    f"{words} from {html.escape(span)}</span>"
                )
        rows += [html.escape(line) for line in memory_lines(self._state.kg, fact["id"])]
        rows += [
            html.escape(line) for line in story_lines(fact_story(self._state.kg, fact["id"])[0])
        ]
        read_only = self._actions.commands.read_only_reason()
        if read_only is None:
            rows.append(
                "<i>drag an end to change it · double-click to edit · right-click for more</i>"
            )
        else:
            rows.append(f"<i>Cannot change it: {html.escape(read_only)}</i>")
        return "<br>".join(rows)

    def _fact_words(self, triple_id: str) -> str:
        """Another fact by its names and dates: drawn here, else read once (a tooltip)."""
        layout = self.bars.layout
        j = layout.index_of(triple_id)
        fact = layout.facts[j] if j >= 0 else None
        if fact is None and self._state.kg is not None:
            try:
                fact = self._state.kg.get_fact(triple_id)
            except (Refused, Unavailable):  # gone since, or unreadable now
                return "another fact"
        return fact_in_words(fact) if fact is not None else "another fact"


class ChartKeys:
    """The chart's keyboard."""

    def __init__(
        self, navigator: Navigator, pointer: BarPointer, state: AppState, actions: FactActions
    ):
        self._nav = navigator
        self._pointer = pointer
        self._state = state
        self._actions = actions

    def handle_key(self, key: int, modifiers=Qt.KeyboardModifier.NoModifier) -> bool:
        """The chart's keys: +/- zoom, arrows pan and scroll, F fit, Y as_of ± a year,
        Enter edits the selected fact, Delete deletes it (confirmed), Escape deselects."""
        K = Qt.Key
        nav, bars = self._nav, self._pointer.bars
        if key in (K.Key_Plus, K.Key_Equal):
            nav.zoom(0.5)
        elif key in (K.Key_Minus, K.Key_Underscore):
            nav.zoom(2.0)
        elif key == K.Key_Left:
            nav.pan(-0.15)
        elif key == K.Key_Right:
            nav.pan(0.15)
        elif key == K.Key_Up:
            nav.scroll_rows(-1)
        elif key == K.Key_Down:
            nav.scroll_rows(1)
        elif key == K.Key_PageUp:
            nav.scroll_rows(-nav.rows_shown() + 1)
        elif key == K.Key_PageDown:
            nav.scroll_rows(nav.rows_shown() - 1)
        elif key in (K.Key_F, K.Key_Home):
            nav.fit()
        elif key == K.Key_Y:
            nav.zoom_as_of_year()
        elif key in (K.Key_Return, K.Key_Enter) and bars.selected >= 0:
            self._pointer.edit_bar(bars.selected)
        elif key == K.Key_Delete and bars.selected >= 0:
            self._actions.delete_fact(bars.layout.ids[bars.selected])
        elif key == K.Key_Escape:
            self._state.select_fact(None)
        else:
            return False
        return True


__all__ = ["AsOfCursor", "BarPointer", "ChartKeys", "ChartMenus", "GanttViewBox"]
