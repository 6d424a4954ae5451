"""The time control in the window: the slider, the as_of field, steps, play, all time."""

from __future__ import annotations

from datetime import date

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from ui_fixtures import *  # noqa: F403
from ui_fixtures import messages_of, shown_window


def test_slider_and_as_of_follow_each_other(window):
    slider = window.findChild(QAbstractSlider, "asOfSlider")
    slider.setValue(date(2025, 12, 1).toordinal())
    assert window.as_of() == "2025-12-01"
    window.set_as_of("2026-04-01")
    assert slider.value() == date(2026, 4, 1).toordinal()
    window.set_as_of("2026-04-01T12:30:00+00:00")
    assert window.as_of() == "2026-04-01T12:30:00Z"
    assert slider.value() == date(2026, 4, 1).toordinal()
    assert window.time_control.field.text() == "2026-04-01T12:30:00Z"
    slider.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepAdd)
    assert window.as_of() == "2026-04-02"
    window.set_as_of(None)
    assert window.as_of() is None
    said = messages_of(window)
    with pytest.raises(ValueError):
        window.set_as_of("2026-02-30")
    assert window.as_of() is None and "no such calendar day" in said[-1]


def test_time_field_steps_now_and_all_time(window, qtbot):
    control = window.time_control
    control.field.setText("2026-01-31")
    qtbot.keyClick(control.field, Qt.Key.Key_Return)
    assert window.as_of() == "2026-01-31"
    control.actions_by_name["forwardMonth"].trigger()
    assert window.as_of() == "2026-02-28"
    control.actions_by_name["forwardYear"].trigger()
    assert window.as_of() == "2027-02-28"
    control.actions_by_name["backDay"].trigger()
    assert window.as_of() == "2027-02-27"
    control.actions_by_name["backYear"].trigger()
    control.actions_by_name["backMonth"].trigger()
    assert window.as_of() == "2026-01-27"
    said = messages_of(window)
    control.field.setText("2026-13-01")
    qtbot.keyClick(control.field, Qt.Key.Key_Return)
    assert window.as_of() == "2026-01-27" and "as_of not changed" in said[-1]
    control.actions_by_name["now"].trigger()
    assert window.as_of().endswith("Z") and window.as_of()[:10] == date.today().isoformat()
    control.actions_by_name["allTime"].trigger()
    assert window.as_of() is None
    shortcuts = {a.shortcut().toString() for a in control.actions_by_name.values()}
    assert {"Alt+Left", "Alt+Right", "Alt+P"} <= shortcuts


def test_play_animates_as_of_and_pauses(window, qtbot):
    control = window.time_control
    window.set_as_of("2020-01-01")
    control.speed.setCurrentIndex(control.speed.count() - 1)  # the fastest
    control.play()
    qtbot.waitUntil(lambda: window.as_of() > "2020-06-01", timeout=10000)
    control.pause()
    stopped = window.as_of()
    qtbot.wait(150)
    assert window.as_of() == stopped and not control.playing


def test_all_time_chosen_anywhere_stops_play(window, qtbot):
    control = window.time_control
    window.set_as_of("2020-01-01")
    control.play()
    window.state.set_as_of(None)  # e.g. the chart's "All time" or an emptied date field
    qtbot.wait(300)
    assert window.as_of() is None and not control.playing


def test_a_forever_date_does_not_break_the_time_control(window, demo, qtbot):
    demo.add_triple("Kai Moreno", "is", "mortal", valid_from="0001-01-01", valid_to="9999-12-31")
    with qtbot.waitSignal(window.figures.found, timeout=10000):
        window.state.notify_data_changed()  # raised OverflowError past the slider's range
    slider = window.findChild(QAbstractSlider, "asOfSlider")
    assert slider.minimum() == date.min.toordinal()
    assert slider.maximum() == date.max.toordinal()
    window.set_as_of("9999-12-31")
    assert slider.value() == date.max.toordinal()


def test_all_time_rests_the_slider_on_today(window):
    """In all-time mode the slider sits on today (not on whatever day it last showed), and the
    day steps start from there."""
    slider = window.findChild(QAbstractSlider, "asOfSlider")
    control = window.time_control
    assert window.as_of() is None
    assert slider.value() == date.today().toordinal()
    assert control.field.text() == "" and control.field.placeholderText() == "all time"
    all_time = control.actions_by_name["allTime"]
    assert all_time.isChecked()  # the All time button shows the mode
    window.set_as_of("2019-06-01")
    assert slider.value() == date(2019, 6, 1).toordinal() and not all_time.isChecked()
    all_time.trigger()
    assert slider.value() == date.today().toordinal() and all_time.isChecked()
    all_time.trigger()  # again: still all time, still pressed
    assert window.as_of() is None and all_time.isChecked()
    control.actions_by_name["backDay"].trigger()
    assert window.as_of() == date.fromordinal(date.today().toordinal() - 1).isoformat()


def test_an_empty_graph_spans_the_years_around_today(qtbot, kg, isolated_settings):
    win = shown_window(qtbot, kg, isolated_settings)
    slider = win.findChild(QAbstractSlider, "asOfSlider")
    today = date.today().toordinal()
    assert slider.minimum() < today < slider.maximum()
    assert slider.maximum() - slider.minimum() <= 3 * 366
    assert slider.value() == today
    assert win.time_control.span_label.text() == "no dated facts yet"
    assert "no facts yet" in win.gantt._empty.text()
    assert "Add fact" in win.gantt._empty.text()
    # a first dated fact: the span is the graph's again
    with qtbot.waitSignal(win.figures.found, timeout=10000):
        kg.add_triple("Ann", "knows", "Bob", valid_from="2011-03-01")
    assert slider.minimum() <= date(2011, 3, 1).toordinal() < date(2012, 1, 1).toordinal()
    assert win.time_control.span_label.text().startswith("2010–")


def test_after_a_write_the_span_and_counts_are_read_off_the_ui_thread(window, demo, qtbot):
    # Without the speed indexes both read every fact: on the UI thread they stalled the window
    # after every edit and every write of another program.
    asked: list[str] = []
    demo.time_span = lambda: asked.append("span")
    demo.stats = lambda: asked.append("counts")
    facts = window.document.stats_text
    with qtbot.waitSignal(window.figures.found, timeout=10000):
        demo.add_triple("Kai Moreno", "visited", "Lisbon", valid_from="1950-06-01")
    assert asked == []
    slider = window.findChild(QAbstractSlider, "asOfSlider")
    assert slider.minimum() <= date(1950, 6, 1).toordinal()
    del demo.time_span, demo.stats
    assert window.stats_label.text() == facts()
