"""The time control: a slider over the graph's span, a date field, steps and play.

It owns no time of its own: it shows ``state.as_of`` and sets it. The slider moves in whole days
(a day is its first second as ``as_of``); an instant typed in the field is kept as typed.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QToolButton,
    QWidget,
)

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.ui.look import style
from factlines.ui.session.state import AppState

PLAY_TICK_MS = 40
SPEEDS = (
    ("1 week / s", 7),
    ("1 month / s", 30),
    ("3 months / s", 91),
    ("1 year / s", 365),
    ("3 years / s", 1096),
)
DEFAULT_SPEED = 2
MARGIN_DAYS = 60
EMPTY_SPAN_DAYS = 365  # an empty graph's slider: this far either side of today
PLAY_TEXT, PAUSE_TEXT = "▶ Play", "❚❚ Pause"
SLIDER_MIN_WIDTH = 120
INSTANT_SAMPLE = "2026-12-31T23:59:59Z"
FIELD_PADDING = 16  # the line edit's frame and margins, both sides
COMPACT_BUTTON = "QToolButton { padding: 1px 2px; }"
SPAN_LABEL_FROM_WIDTH = 1100  # narrower than this, the span label is hidden


def add_months(day: date, months: int) -> date:
    """``day`` moved by whole months, the day of month clamped (Jan 31 + 1 month = Feb 28/29)."""
    month_index = day.year * 12 + day.month - 1 + months
    year, month = divmod(month_index, 12)
    year = min(max(year, 1), 9999)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


class TimeControl(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timeControl")
        self._state = state
        self._carry = 0.0

        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("asOfSlider")
        self.slider.setMinimumWidth(SLIDER_MIN_WIDTH)
        self.slider.setToolTip("as_of: drag to scrub through time (whole days)")
        self.slider.setPageStep(30)
        self.slider.setTracking(True)
        self.field = QLineEdit(self)
        self.field.setObjectName("asOfField")
        self.field.setPlaceholderText("all time")
        self.field.setToolTip(f"as_of: {temporal.EXPECTED_FORMS}; empty = all time. Enter applies.")
        # As wide as an instant ("Now" sets one), so that none shows with its year cut off.
        self.field.setFixedWidth(
            self.field.fontMetrics().horizontalAdvance(INSTANT_SAMPLE) + FIELD_PADDING
        )
        self.span_label = QLabel(self)
        self.span_label.setObjectName("asOfSpan")
        # A hint, in the palette's hint colour (readable light or dark).
        self.span_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        # Shown once the toolbar is known to be wide enough, and never part of the window's
        # least width (shown from the start it made that 1,041 px, wider than a 1024 px screen).
        self.span_label.setMinimumWidth(1)  # what the layouts count: not its text's width
        self.span_label.hide()
        self.speed = QComboBox(self)
        self.speed.setObjectName("playSpeed")
        self.speed.setToolTip("Play speed")
        for text, days in SPEEDS:
            self.speed.addItem(text, days)
        self.speed.setCurrentIndex(DEFAULT_SPEED)
        # Shrinks with the window; the full wording stays in the list.
        self.speed.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.speed.setMinimumContentsLength(7)

        self.actions_by_name: dict[str, QAction] = {}
        self._make_action(
            "allTime", "All time", "Alt+End", "Show every fact (no as_of)", self.all_time
        )
        self.actions_by_name["allTime"].setCheckable(True)  # pressed while no as_of is set
        self._make_action("now", "Now", "Alt+Home", "as_of = this instant", self.now)
        for name, text, keys, amount in (
            ("backYear", "−1y", "Ctrl+Alt+Left", ("years", -1)),
            ("backMonth", "−1m", "Alt+Shift+Left", ("months", -1)),
            ("backDay", "−1d", "Alt+Left", ("days", -1)),
            ("forwardDay", "+1d", "Alt+Right", ("days", 1)),
            ("forwardMonth", "+1m", "Alt+Shift+Right", ("months", 1)),
            ("forwardYear", "+1y", "Ctrl+Alt+Right", ("years", 1)),
        ):
            unit, count = amount
            tip = f"Step as_of {'back' if count < 0 else 'forward'} one {unit[:-1]}"
            self._make_action(
                name, text, keys, tip, lambda _=False, u=unit, c=count: self.step(**{u: c})
            )
        self.play_action = self._make_action(
            "play", PLAY_TEXT, "Alt+P", "Play / pause", self.toggle_play
        )
        self.play_action.setCheckable(True)
        self.play_button = self._button("play")
        self.play_button.setObjectName("playButton")
        self._fix_play_width()

        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(2)
        layout.addWidget(QLabel("as of ", self))
        for name in ("allTime", "now", "backYear", "backMonth", "backDay"):
            layout.addWidget(self._button(name))
        layout.addWidget(self.slider, 1)
        for name in ("forwardDay", "forwardMonth", "forwardYear"):
            layout.addWidget(self._button(name))
        layout.addSpacing(6)
        layout.addWidget(self.field)
        layout.addSpacing(6)
        layout.addWidget(self.play_button)
        layout.addWidget(self.speed)
        layout.addSpacing(6)
        layout.addWidget(self.span_label)

        self._timer = QTimer(self)
        self._timer.setInterval(PLAY_TICK_MS)
        self._timer.timeout.connect(self._tick)

        self.slider.valueChanged.connect(self._slider_moved)
        self.field.returnPressed.connect(self._field_entered)
        state.asOfChanged.connect(self._show)
        self._span: tuple[str, str] | None = None
        state.graphChanged.connect(self._graph_changed)  # after writes: set_span
        self.update_range()

    def _make_action(self, name, text, keys, tip, slot) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"action{name[0].upper()}{name[1:]}")
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(f"{tip} ({keys})")
        action.triggered.connect(slot)
        self.actions_by_name[name] = action
        self.addAction(action)
        return action

    def _button(self, name: str) -> QToolButton:
        button = QToolButton(self)
        button.setDefaultAction(self.actions_by_name[name])
        button.setAutoRaise(True)
        button.setStyleSheet(COMPACT_BUTTON)  # compact: room for the slider
        return button

    def _fix_play_width(self) -> None:
        """One width for Play and Pause, so the toolbar does not shift when it turns."""
        text = self.play_action.text()
        widths = []
        for label in (PLAY_TEXT, PAUSE_TEXT):
            self.play_action.setText(label)
            widths.append(self.play_button.sizeHint().width())
        self.play_action.setText(text)
        self.play_button.setFixedWidth(max(widths))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            # A widget with a style sheet of its own keeps the palette it was polished with:
            # polished again, the buttons' text follows a switch to dark (it stayed black).
            for button in self.findChildren(QToolButton):
                button.setStyleSheet(COMPACT_BUTTON)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # The span is a hint; on a narrow window it gives its room to the slider.
        self.span_label.setVisible(event.size().width() >= SPAN_LABEL_FROM_WIDTH)

    # Range: the graph's span (read off the store's indexes: well under a millisecond), padded
    def _graph_changed(self) -> None:
        self.pause()  # another graph: play starts again only when asked
        self._span = None
        self.refresh_span()

    def refresh_span(self) -> None:
        """Read the graph's span (after an open)."""
        kg = self._state.kg
        self.set_span(kg.time_span() if kg is not None and not kg.closed else None)

    def set_span(self, span: tuple[str, str] | None) -> None:
        """The graph's span as read again after writes (off the UI thread)."""
        self._span = span
        self.update_range()

    def update_range(self) -> None:
        today = date.today()
        first, last = (
            (temporal.calendar_day(self._span[0]), temporal.calendar_day(self._span[1]))
            if self._span is not None
            else (None, None)
        )
        dated = first is not None and last is not None  # (days the rules accept)
        if dated:
            last = max(last, today)
        else:  # an empty graph: the year around today, where a first fact is likely
            first, last = (
                today - timedelta(days=EMPTY_SPAN_DAYS),
                today + timedelta(days=EMPTY_SPAN_DAYS),
            )
        # Ordinals, clamped: a "forever" date such as 9999-12-31 has no day after it.
        low = max(first.toordinal() - MARGIN_DAYS, date.min.toordinal())
        high = min(last.toordinal() + MARGIN_DAYS, date.max.toordinal())
        with QSignalBlocker(self.slider):
            self.slider.setRange(low, high)
        years = f"{date.fromordinal(low).year}–{date.fromordinal(high).year}"
        self.span_label.setText(years if dated else "no dated facts yet")
        self.span_label.setToolTip(
            f"The slider spans {years}: the graph's dated facts, to today"
            if dated
            else "No fact in this graph has a date yet: the slider spans the years around today"
        )
        self._show(self._state.as_of)

    def slider_day(self) -> date:
        return date.fromordinal(self.slider.value())

    # From the state
    def _show(self, value: str | None) -> None:
        with QSignalBlocker(self.slider):
            day = temporal.calendar_day(value)
            # All time rests on today (clamped to the span): where the day steps start from,
            # and what "every fact known now" means; the empty field says "all time".
            self.slider.setValue((day or date.today()).toordinal())
        self.actions_by_name["allTime"].setChecked(value is None)
        if not self.field.hasFocus() or self.field.text().strip() != (value or ""):
            self.field.setText(value or "")
        self.field.setStyleSheet("")
        self.slider.setToolTip(
            f"as_of = {value}" if value else "All time: drag to pick an as_of instant"
        )

    # To the state
    def _slider_moved(self, ordinal: int) -> None:
        self._state.set_as_of(date.fromordinal(ordinal).isoformat())

    def _field_entered(self) -> None:
        text = self.field.text().strip()
        try:
            self._state.set_as_of(text or None)
        except Refused as exc:  # TimeValueError
            self.field.setStyleSheet(f"background: {style.theme().conflict_background.name()};")
            self._state.message.emit(f"as_of not changed: {exc}")
            return
        self.field.setStyleSheet("")

    def all_time(self, _checked: bool = False) -> None:
        self.pause()
        self._state.set_as_of(None)
        self._show(None)  # pressed again: it stays pressed

    def now(self) -> None:
        self._state.set_as_of(temporal.now_instant())

    def step(self, days: int = 0, months: int = 0, years: int = 0) -> None:
        base = temporal.calendar_day(self._state.as_of) or self.slider_day()
        try:
            target = add_months(base, months + 12 * years) + timedelta(days=days)
        except (OverflowError, ValueError):
            self._state.message.emit("as_of cannot move past the calendar's ends")
            return
        self._state.set_as_of(target.isoformat())

    # Play
    def toggle_play(self, _checked: bool = False) -> None:
        if self._timer.isActive():
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        if self._state.as_of is None or self.slider.value() >= self.slider.maximum():
            self._state.set_as_of(date.fromordinal(self.slider.minimum()).isoformat())
        self._carry = 0.0
        self._timer.start()
        self.play_action.setChecked(True)
        self.play_action.setText(PAUSE_TEXT)

    def pause(self) -> None:
        self._timer.stop()
        self.play_action.setChecked(False)
        self.play_action.setText(PLAY_TEXT)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def _tick(self) -> None:
        if self._state.as_of is None:  # all time was chosen elsewhere (the chart, the field)
            self.pause()
            return
        self._carry += self.speed.currentData() * PLAY_TICK_MS / 1000.0
        whole = int(self._carry)
        if whole < 1:
            return
        self._carry -= whole
        day = temporal.calendar_day(self._state.as_of).toordinal() + whole
        if day >= self.slider.maximum():
            day = self.slider.maximum()
            self.pause()
        self._state.set_as_of(date.fromordinal(day).isoformat())
