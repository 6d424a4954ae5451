"""A big entity's facts, and what the chart, the table and the graph make of them, are read on
a worker: at a million facts a hub's read and layouts took the UI thread for hundreds of
milliseconds. What is written meanwhile still shows; a bug still reaches the error handler."""

from __future__ import annotations

import threading

import pytest

from factlines import KnowledgeGraph
from factlines.core import collector
from factlines.ui import MainWindow
from factlines.ui.chart import layout as chart_layout
from factlines.ui.session.state import SPREAD_FROM
from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, triple_rows, write_hub

HUB_FACTS = SPREAD_FROM + 200


@pytest.fixture
def hub_graph(tmp_path):
    kg = KnowledgeGraph(tmp_path / "hub.sqlite3")
    write_hub(kg, HUB_FACTS, others=300)
    yield kg
    kg.close()


@pytest.fixture
def window(qtbot, hub_graph):
    win = MainWindow(hub_graph)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: not win.state.reloads.running, timeout=10000)
    yield win
    win.close()


class Threads:
    """Which threads read the hub's facts and laid out its chart; a worker's read may be held
    until :attr:`release` is set."""

    def __init__(self, monkeypatch, hold: bool = False, broken: bool = False):
        self.reads: list[bool] = []  # True: on the UI thread
        self.layouts: list[bool] = []
        self.release = threading.Event()
        self.reading = threading.Event()
        if not hold:
            self.release.set()
        intervals, build_layout = KnowledgeGraph.interval_table, chart_layout.build_layout

        def counted_intervals(kg, entity, *args, **kwargs):
            on_ui = threading.current_thread() is threading.main_thread()
            if entity == "hub":
                self.reads.append(on_ui)
                if not on_ui:
                    self.reading.set()
                    self.release.wait(10)
                    if broken:
                        raise RuntimeError("a bug in a read elsewhere")
            return intervals(kg, entity, *args, **kwargs)

        def counted_layout(*args, **kwargs):
            self.layouts.append(threading.current_thread() is threading.main_thread())
            return build_layout(*args, **kwargs)

        monkeypatch.setattr(KnowledgeGraph, "interval_table", counted_intervals)
        monkeypatch.setattr(chart_layout, "build_layout", counted_layout)


def _select_hub_and_wait(window, qtbot) -> None:
    window.select_entity("Hub")
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)


def test_a_hubs_facts_and_chart_layout_are_made_off_the_ui_thread(window, qtbot, monkeypatch):
    threads = Threads(monkeypatch)
    _select_hub_and_wait(window, qtbot)
    assert threads.reads == [False]  # read once, on a worker
    assert threads.layouts == [False]  # laid out there too, not again here
    assert len(triple_rows(window)) == HUB_FACTS
    assert len(window.state.entity_facts()) == HUB_FACTS


def test_a_write_while_a_hubs_facts_are_read_shows_once_they_are_in(window, qtbot, monkeypatch):
    open_fact = next(f for f in window.kg.intervals("hub") if f["valid_to"] is None)
    threads = Threads(monkeypatch, hold=True)
    window.select_entity("Hub")
    assert threads.reading.wait(10)
    window.kg.end_fact(open_fact["id"], "2030-01-01")  # while the worker holds its read
    qtbot.wait(50)
    assert window.state.reloads.running  # the views wait for the facts
    threads.release.set()
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    assert threads.reads == [False]  # the worker's facts, brought up to date, not read again
    assert cell(window, open_fact["id"], "valid_to").data() == "2030-01-01"
    [shown] = [f for f in window.state.entity_facts() if f["id"] == open_fact["id"]]
    assert shown["valid_to"] == "2030-01-01"


def test_a_bug_in_a_read_elsewhere_reaches_the_error_handler_and_the_views_fill(
    window, qtbot, monkeypatch, app_errors
):
    threads = Threads(monkeypatch, broken=True)
    window.select_entity("Hub")
    qtbot.waitUntil(lambda: bool(app_errors.reports), timeout=10000)
    [bug] = app_errors.reports
    assert isinstance(bug.exception, RuntimeError)
    assert "counted_intervals" in bug.traceback
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    assert threads.reads == [False, True]  # then read here
    assert len(triple_rows(window)) == HUB_FACTS


def test_the_collector_waits_while_a_hub_is_read_and_shown_and_after_a_bug_runs_again(
    window, qtbot, monkeypatch, app_errors
):
    # A collection on the UI thread walks the rows being read and shown (1M graph's hub:
    # 18-35 ms inside a selection): it waits for the views, and never for good (the window's
    # whole-graph reads pause it too, for a while).
    qtbot.waitUntil(lambda: not collector.paused(), timeout=10000)  # the open's reads answered
    threads = Threads(monkeypatch, hold=True)
    window.select_entity("Hub")
    assert threads.reading.wait(10)
    assert collector.paused()
    threads.release.set()
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    qtbot.waitUntil(lambda: not collector.paused(), timeout=10000)
    window.select_entity("E0001")  # another selection while the hub is read drops its pause
    window.select_entity("Hub")
    window.select_entity("E0002")
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    window.entity_reads.wait()
    qtbot.waitUntil(lambda: not collector.paused(), timeout=10000)
    Threads(monkeypatch, broken=True)
    window.select_entity("Hub")
    qtbot.waitUntil(lambda: bool(app_errors.reports), timeout=10000)
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    qtbot.waitUntil(lambda: not collector.paused(), timeout=10000)


def test_a_graph_read_through_a_private_copy_is_read_on_the_ui_thread(window, qtbot, monkeypatch):
    # Each store opened on another user's file copies it: a worker's read would copy it again.
    monkeypatch.setattr(KnowledgeGraph, "private_copy", property(lambda _kg: True))
    threads = Threads(monkeypatch)
    _select_hub_and_wait(window, qtbot)
    assert threads.reads == [True]
    assert len(triple_rows(window)) == HUB_FACTS


def test_selecting_another_entity_while_a_hub_is_read_drops_the_hubs_answer(
    window, qtbot, monkeypatch
):
    threads = Threads(monkeypatch, hold=True)
    window.select_entity("Hub")
    assert threads.reading.wait(10)
    window.select_entity("E0001")
    threads.release.set()
    window.entity_reads.wait()
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    qtbot.wait(20)  # the worker's answer, delivered by the event loop
    assert window.state.entity == "e0001"
    assert all(
        f["subject"] == "e0001" or f["object"] == "e0001" for f in window.state.entity_facts()
    )
    assert len(triple_rows(window)) == len(window.kg.intervals("e0001"))


def test_the_entity_list_waits_for_a_hubs_read_without_keeping_the_ui_thread_busy(
    window, qtbot, monkeypatch
):
    # The list looks for the hub once the views have their facts. It waited a turn at a time
    # (a 0 ms timer, thousands of turns): the UI thread kept the interpreter's lock from the
    # worker, whose read took five times as long.
    threads = Threads(monkeypatch, hold=True)
    turns = []
    window.browser.finding._next.timeout.connect(lambda: turns.append(1))
    window.select_entity("Hub")
    assert threads.reading.wait(10)
    qtbot.wait(200)
    assert window.state.reloads.running and window.browser.finding.running
    assert len(turns) <= 2
    threads.release.set()
    qtbot.waitUntil(lambda: not window.browser.finding.running, timeout=10000)
    current = window.browser.view.currentIndex()
    assert window.browser.model.entity_at(current.row())["id"] == "hub"
