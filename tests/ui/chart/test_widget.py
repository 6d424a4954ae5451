"""The chart widget as a whole: what it draws for the state, its reloads, its empty states."""

from __future__ import annotations

import sqlite3

import pytest
from chart_harness import KAI, Harness

from factlines.core import temporal


def test_the_chapter_example_at_two_instants(h):
    chart = h.chart
    drawn = {d["lane"]: d for d in chart.drawn_intervals()}
    for lane in ("works_on → Orion", "works_on → Nova", "recommended → Clerk"):
        assert lane in drawn

    def valid(lane):
        return [d["valid_at_as_of"] for d in chart.drawn_intervals() if d["lane"] == lane]

    h.state.set_as_of("2025-12-01")
    assert valid("works_on → Orion") == [True]
    assert valid("works_on → Nova") == [False]
    assert valid("recommended → Clerk") == [False]  # not yet
    h.state.set_as_of("2026-04-01")
    assert valid("works_on → Orion") == [False]
    assert valid("works_on → Nova") == [True]
    assert valid("recommended → Clerk") == [True]
    # the last day of a date-only valid_to is still inside the fact
    h.state.set_as_of("2026-03-01")
    assert valid("works_on → Orion") == [True]
    h.state.set_as_of("2026-03-02")
    assert valid("works_on → Orion") == [False]


def test_drawn_intervals_reflect_the_store(h):
    drawn = h.chart.drawn_intervals()
    facts = {f["id"]: f for f in h.kg.intervals("Kai Moreno")}
    assert {d["id"] for d in drawn} == set(facts)
    for d in drawn:
        f = facts[d["id"]]
        assert set(d) == {"id", "start", "end", "lane", "valid_at_as_of"}
        assert d["start"] == f["start"] and d["end"] == f["end"]
        assert d["valid_at_as_of"] is True  # all time: every fact
    nova = next(d for d in drawn if d["lane"] == "works_on → Nova")
    assert nova["end"] is None
    orion = next(d for d in drawn if d["lane"] == "works_on → Orion")
    assert orion["end"] == temporal.to_posix("2026-03-01T23:59:59Z")
    incoming = [d["lane"] for d in drawn if "←" in d["lane"]]
    assert "mentors ← Mira Chen" in incoming and "led_by ← Atlas" in incoming
    labels = h.chart.lane_labels()
    assert labels.index("works_on") < labels.index("works_on → Atlas")


def test_data_change_reloads_but_keeps_the_view(h):
    chart = h.chart
    chart.set_x_range(temporal.to_posix("2025-01-01"), temporal.to_posix("2026-01-01"))
    before = chart.x_range()
    h.actions.end_fact(h.fact_id("works_on", "Nova"), "2026-10-01")
    assert chart.x_range() == pytest.approx(before)
    assert any(d["end"] for d in chart.drawn_intervals() if d["lane"] == "works_on → Nova")


def test_empty_states(qtbot, demo):
    harness = Harness(demo, qtbot)
    chart = harness.chart
    assert chart.drawn_intervals() == []
    assert "Select an entity" in chart._empty.text()
    demo.add_entity("Loner", "person")
    harness.state.select_entity("loner")
    assert "no facts yet" in chart._empty.text()
    harness.state.select_entity(KAI)
    assert chart.drawn_intervals()
    harness.state.set_kg(None)
    assert chart.drawn_intervals() == []
    assert "No knowledge graph" in chart._empty.text()


def test_an_end_written_empty_by_mempalace_is_a_lane_without_a_bar(h):
    orion = h.fact_id("works_on", "Orion")
    with sqlite3.connect(h.kg.db_path) as other:  # as MemPalace stores invalidate(ended="")
        other.execute("UPDATE triples SET valid_to = '' WHERE id = ?", (orion,))
    h.state.notify_data_changed()
    h.settle()
    assert "works_on → Orion" in h.chart.lane_labels()
    assert orion not in {d["id"] for d in h.chart.drawn_intervals()}
    for as_of in ("2025-12-01", "2026-04-01"):
        h.state.set_as_of(as_of)
        assert not h.chart.bars.valid[h.chart.bars.layout.index_of(orion)]
