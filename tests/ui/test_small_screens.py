"""A small screen (1024×700): the time toolbar fits without overlaps, the chart keeps its lanes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QTabBar, QWidget

from factlines.ui.app import select_richest
from ui_fixtures import *  # noqa: F403


def settle(window, width: int, height: int) -> None:
    window.resize(width, height)
    for _ in range(5):
        QApplication.processEvents()
    window.size_docks()
    for _ in range(5):
        QApplication.processEvents()


def toolbar_widgets(window) -> list[QWidget]:
    bar = window.time_bar
    return [
        child
        for child in bar.findChildren(QWidget)
        if child.isVisible() and child.parentWidget() is window.time_control
    ]


@pytest.mark.parametrize("size", [(1024, 700), (1600, 1000)])
def test_the_window_takes_the_size_and_the_toolbar_fits(window, size):
    select_richest(window)
    settle(window, *size)
    assert (window.width(), window.height()) == size
    bar = window.time_bar
    inside = bar.rect()
    shown = toolbar_widgets(window)
    assert len(shown) >= 12
    rects: list[tuple[str, QRect]] = []
    for child in shown:
        rect = QRect(child.mapTo(bar, child.rect().topLeft()), child.size())
        name = child.objectName() or child.__class__.__name__
        assert inside.contains(rect), f"{name} {rect} is cut off by the toolbar {inside}"
        assert child.width() >= child.minimumSizeHint().width(), f"{name} is squeezed"
        rects.append((name, rect))
    for i, (name, rect) in enumerate(rects):
        for other, other_rect in rects[i + 1 :]:
            assert not rect.intersects(other_rect), f"{name} overlaps {other}"


@pytest.mark.parametrize("size", [(1024, 700), (1600, 1000)])
def test_the_start_entity_shows_six_lanes(window, size):
    select_richest(window)
    settle(window, *size)
    assert len(window.gantt.navigator.lanes_fully_in_view()) >= 6


def test_play_and_pause_take_the_same_width(window):
    settle(window, 1024, 700)
    button = window.time_control.play_button
    before = {child: child.geometry() for child in toolbar_widgets(window)}
    window.time_control.play()
    QApplication.processEvents()
    assert "Pause" in button.text()
    window.time_control.pause()
    assert all(child.geometry() == rect for child, rect in before.items())
    window.time_control.play()
    QApplication.processEvents()
    assert all(child.geometry() == rect for child, rect in before.items())
    window.time_control.pause()


def test_at_1024_wide_the_entity_names_stay_readable(window, qtbot):
    window.resize(1024, 700)
    window.show()
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    qtbot.wait(50)
    browser = window.browser
    header = browser.view.horizontalHeader()
    assert browser.width() < browser.NARROW  # the list is narrow at this size ...
    assert header.isSectionHidden(1)  # ... so the type gives way
    assert header.sectionSize(0) >= 100  # room for a name, not "…"
    tip = browser.model.data(browser.model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert "type: " in tip


@pytest.mark.parametrize("size", [(1024, 700), (1500, 950)])
def test_the_facts_table_shows_the_whole_fact_up_to_its_confidence(window, size):
    """Valid to (and the confidence after it) stay in view: the names are elided first, the
    provenance columns scroll."""
    from factlines.ui.models.fact_models import COLUMN

    select_richest(window)
    settle(window, *size)
    view = window.facts_table.view
    header = view.horizontalHeader()
    assert header.offset() == 0
    for key in ("valid_from", "valid_to", "confidence"):
        column = COLUMN[key]
        right = header.sectionViewportPosition(column) + header.sectionSize(column)
        assert right <= view.viewport().width(), f"{key} is cut off"
        # wide enough for what it shows: a date is never elided
        assert header.sectionSize(column) >= view.sizeHintForColumn(column)
    assert header.sectionSize(COLUMN["other_name"]) >= 64


def test_the_history_folds_away_where_the_fact_needs_the_room_and_comes_back_on_a_click(
    window, qtbot
):
    editor = window.facts_table
    select_richest(window)
    settle(window, 1024, 700)
    assert editor.width() < editor.HISTORY_FROM_WIDTH
    assert not editor.history.isVisible() and not editor.show_history.isChecked()
    qtbot.mouseClick(editor.show_history, Qt.MouseButton.LeftButton)
    assert editor.history.isVisible() and editor.show_history.isChecked()
    settle(window, 1500, 950)  # chosen by hand: the width no longer decides
    assert editor.history.isVisible()
    qtbot.mouseClick(editor.show_history, Qt.MouseButton.LeftButton)
    assert not editor.history.isVisible()


def test_the_history_stands_beside_the_facts_where_both_fit(window):
    editor = window.facts_table
    settle(window, 1500, 950)
    assert editor.width() >= editor.HISTORY_FROM_WIDTH
    assert editor.history.isVisible() and editor.show_history.isChecked()


def test_a_column_the_person_sized_keeps_its_width(window):
    from factlines.ui.models.fact_models import COLUMN

    select_richest(window)
    settle(window, 1500, 950)
    header = window.facts_table.view.horizontalHeader()
    header.resizeSection(COLUMN["predicate"], 200)  # as a drag of the header's edge does
    settle(window, 1024, 700)
    assert header.sectionSize(COLUMN["predicate"]) == 200


def fresh_window(qtbot, kg, settings, size):
    """A window opened for the first time on a screen of ``size``: shown at that size."""
    from factlines.ui import MainWindow

    win = MainWindow(kg, settings=str(settings))
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    select_richest(win)
    qtbot.waitUntil(lambda: not win.panels.busy, timeout=10000)
    for _ in range(5):
        QApplication.processEvents()
    return win


def facts_rows_in_view(window) -> int:
    view = window.facts_table.view
    return view.viewport().height() // view.verticalHeader().defaultSectionSize()


@pytest.mark.parametrize("size", [(1024, 700), (1500, 950)])
def test_a_first_window_fits_the_screen_with_lanes_and_facts(qtbot, demo, isolated_settings, size):
    window = fresh_window(qtbot, demo, isolated_settings, size)
    assert window.minimumSizeHint().width() <= 1000
    assert (window.width(), window.height()) == size
    assert len(window.gantt.navigator.lanes_fully_in_view()) >= 6
    assert facts_rows_in_view(window) >= (5 if size[1] < 900 else 7)


def test_a_layout_kept_from_a_bigger_screen_gives_way(qtbot, demo, isolated_settings):
    """The chart dragged down to one lane on a big screen: on a small one, the lanes and the
    facts both keep their room."""
    big = fresh_window(qtbot, demo, isolated_settings, (1500, 950))
    big.resizeDocks([big.facts_dock], [800], Qt.Orientation.Vertical)  # as a splitter drag
    QApplication.processEvents()
    big.close()
    window = fresh_window(qtbot, demo, isolated_settings, (1024, 700))
    assert window.width() <= 1024 and window.height() <= 700
    assert len(window.gantt.navigator.lanes_fully_in_view()) >= 6
    assert facts_rows_in_view(window) >= 5


def test_a_window_made_smaller_keeps_six_lanes(qtbot, demo, isolated_settings):
    """Docks sized for 1500×950, then the window dragged to 1024×700: the chart took all the
    loss and showed five lanes."""
    window = fresh_window(qtbot, demo, isolated_settings, (1500, 950))
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.height() == 700, timeout=2000)
    for _ in range(5):
        QApplication.processEvents()
    assert len(window.gantt.navigator.lanes_fully_in_view()) >= 6
    assert facts_rows_in_view(window) >= 5


def test_at_1024_wide_the_stacked_panels_tabs_keep_their_whole_names(window):
    """Qt elides the tabs of docks stacked together: at 1024×700 they read "F…", "Co…";
    whole names, and arrows to scroll to the ones that do not fit."""
    settle(window, 1024, 700)
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible()]
    tabs = next(bar for bar in bars if "Facts" in [bar.tabText(i) for i in range(bar.count())])
    assert tabs.count() >= 8 and tabs.usesScrollButtons()
    # The offscreen platform's font is small enough for the tabs to fit; a desktop's is not.
    assert tabs.elideMode() == Qt.TextElideMode.ElideNone
    for i in range(tabs.count()):
        text = tabs.tabText(i)
        assert tabs.tabRect(i).width() > tabs.fontMetrics().horizontalAdvance(text), text
