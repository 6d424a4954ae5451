"""The cycle collector paused for a whole-graph read, and started again after."""

from __future__ import annotations

import gc
import threading

import pytest

from factlines.core.collector import collector_paused, turned_off


@pytest.fixture(autouse=True)
def collector_running():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_inside_running_after():
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_running_again_after_an_error():
    with pytest.raises(KeyError), collector_paused():
        raise KeyError("boom")
    assert gc.isenabled()


def test_overlapping_pauses_on_two_threads_end_with_the_last():
    first_in, first_may_leave, first_left = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with collector_paused():
            first_in.set()
            first_may_leave.wait(5)
        seen["after the first"] = gc.isenabled()
        first_left.set()

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(5)
    with collector_paused():
        first_may_leave.set()
        assert first_left.wait(5)
        # The first pause ended while this one goes on: the collector stays paused.
        assert seen["after the first"] is False
        assert not gc.isenabled()
    thread.join(5)
    assert gc.isenabled()


def test_a_collector_someone_stopped_stays_stopped():
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_turned_off_for_good_during_a_pause_stays_off():
    """The app turns the automatic collector off as it begins; a read paused before that (a
    benchmark's window, made before) must not turn it back on as it ends."""
    with collector_paused():
        turned_off()
    assert not gc.isenabled()
