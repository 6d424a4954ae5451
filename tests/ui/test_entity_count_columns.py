"""The entity list's count columns say what they count: open facts and ended facts."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import entity_rows_read


def header(model, section: int, role=Qt.ItemDataRole.DisplayRole):
    return model.headerData(section, Qt.Orientation.Horizontal, role)


def test_the_counts_are_named_open_and_ended_and_say_as_of_is_not_applied(window):
    model = window.browser.view.model()
    while hasattr(model, "sourceModel"):
        model = model.sourceModel()
    names = [header(model, i) for i in range(model.columnCount())]
    assert names[2:] == ["Open", "Ended"]
    assert "Current" not in names
    tip = header(model, 2, Qt.ItemDataRole.ToolTipRole)
    assert "valid_to empty" in tip and "both directions" in tip and "as_of" in tip
    assert "valid_to set" in header(model, 3, Qt.ItemDataRole.ToolTipRole)


def test_the_status_bar_counts_open_facts_too(window):
    text = window.document.stats_text()
    assert " open · " in text and " current" not in text


def _listed_counts(model) -> dict:
    return {r["id"]: (r["current"], r["ended"]) for r in entity_rows_read(model).values()}


def _stored_counts(kg) -> dict:
    return {e["id"]: (e["current"], e["ended"]) for e in kg.list_entities(limit=1000)}


class CountReads:
    """Which threads read the list's counts; a worker's answer may be held until released
    (read, then held: what it read is older than a write made meanwhile)."""

    def __init__(self, monkeypatch, hold: bool = False):
        self.on_ui: list[bool] = []
        self.held = threading.Event()
        self.release = threading.Event()
        if not hold:
            self.release.set()
        read = KnowledgeGraph.entity_list_rows

        def counted(kg, ids):
            rows = read(kg, ids)
            on_ui = threading.current_thread() is threading.main_thread()
            self.on_ui.append(on_ui)
            if not on_ui:
                self.held.set()
                self.release.wait(10)
            return rows

        monkeypatch.setattr(KnowledgeGraph, "entity_list_rows", counted)


def test_the_counts_of_the_rows_shown_are_read_off_the_ui_thread(window, qtbot, monkeypatch):
    """A page's counts walk its entities' facts (20-100 ms at a million facts, while the window
    is first painted): they are read on a worker, and painted when in."""
    reads = CountReads(monkeypatch)
    model = window.browser.model
    model.refresh()
    qtbot.waitUntil(lambda: None not in _listed_counts(model).get("kai_moreno"), timeout=5000)
    assert reads.on_ui and not any(reads.on_ui)
    assert _listed_counts(model) == _stored_counts(window.kg)
    row = model.row_of("kai_moreno")
    assert model.index(row, 2).data() == _stored_counts(window.kg)["kai_moreno"][0]


def test_counts_read_before_a_write_are_read_again_after_it(window, qtbot, monkeypatch):
    reads = CountReads(monkeypatch, hold=True)
    model = window.browser.model
    model.refresh()
    window.browser.view.viewport().repaint()  # the first page's counts are asked for
    assert reads.held.wait(5)
    fact = next(f for f in window.kg.intervals("kai_moreno") if f["valid_to"] is None)
    before = _stored_counts(window.kg)
    assert window.end_fact(fact["id"], "2026-01-01")
    after = _stored_counts(window.kg)
    assert after != before
    reads.release.set()
    qtbot.waitUntil(lambda: None not in _listed_counts(model).get("kai_moreno"), timeout=5000)
    qtbot.wait(100)  # a stale answer would be in by now
    assert _listed_counts(model) == after
