"""Every value a MemPalace file can hold is shown, never crashes, never misleads.

Each file here is written by the real MemPalace where it accepts the value, by raw SQL where
it does not, and opened in the window as a person would open it.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest
from PySide6.QtCore import Qt

from factlines import KnowledgeGraph
from factlines.core import temporal
from factlines.ui.models.fact_models import COLUMN
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import cell, messages_of, shown_window, triple_rows


def mempalace_file(path, facts=(), sql=()) -> str:
    """A file MemPalace wrote: ``facts`` are add_triple keyword sets; ``sql`` runs after."""
    mempalace = mempalace_class()(str(path))
    mempalace.add_triple("Kai", "works_on", "Orion", valid_from="2024-01-01")
    for fact in facts:
        mempalace.add_triple(**fact)
    mempalace.close()
    with sqlite3.connect(str(path)) as conn:
        for statement, params in sql:
            conn.execute(statement, params)
    return str(path)


def odd_fact(path, column: str, value) -> str:
    """Kai knows Ann, with ``column`` set to ``value`` behind MemPalace's back."""
    return mempalace_file(
        path,
        [dict(subject="Kai", predicate="knows", obj="Ann", valid_from="2024-03-01")],
        [(f"UPDATE triples SET {column} = ? WHERE predicate = 'knows'", (value,))],
    )


@pytest.fixture
def open_window(qtbot, isolated_settings):
    """``open_window(path, entity="kai")``: a shown window over the file, entity selected."""
    graphs = []

    def make(path, entity="kai"):
        kg = KnowledgeGraph(path)
        graphs.append(kg)
        win = shown_window(qtbot, kg, isolated_settings)
        if entity:
            win.state.select_entity(entity)
        win.repaint()
        return win

    yield make
    for kg in graphs:
        kg.close()


def knows(win) -> str:
    return next(f["id"] for f in win.state.entity_facts() if f["predicate"] == "knows")


def table_row(win, triple_id: str) -> dict:
    """What the table shows of a fact, column by column, and its tooltips."""
    return {
        key: (
            cell(win, triple_id, key).data(Qt.ItemDataRole.DisplayRole),
            cell(win, triple_id, key).data(Qt.ItemDataRole.ToolTipRole),
            cell(win, triple_id, key).data(Qt.ItemDataRole.FontRole),
            cell(win, triple_id, key).data(Qt.ItemDataRole.EditRole),
        )
        for key in COLUMN
    }


# ── A confidence that is not a number ─────────────────────────────────────


def test_a_text_confidence_is_shown_as_stored_and_drawn_as_unknown(tmp_path, open_window):
    path = mempalace_file(
        tmp_path / "kg.sqlite3",
        [dict(subject="Kai", predicate="knows", obj="Ann", confidence="high")],
    )
    assert mempalace_class()(path).query_entity("Kai")[-1]["confidence"] == "high"
    win = open_window(path)
    tid = knows(win)
    shown, tip, font, edit = table_row(win, tid)["confidence"]
    assert "high" in shown and edit == "high"
    assert font.italic() and "not a number" in tip
    bars = win.gantt.bars.layout
    assert bars.conf_level[bars.index_of(tid)] == 4  # full opacity: unknown
    assert "high" in win.gantt.tooltip(bars.index_of(tid))


def test_sorting_by_a_confidence_of_mixed_types_works(tmp_path, open_window):
    path = mempalace_file(
        tmp_path / "kg.sqlite3",
        [
            dict(subject="Kai", predicate="knows", obj="Ann", confidence="high"),
            dict(subject="Kai", predicate="likes", obj="Tea", confidence=0.5),
            dict(subject="Kai", predicate="uses", obj="Vim", confidence=None),
        ],
        [("UPDATE triples SET confidence = x'00ff' WHERE predicate = 'uses'", ())],
    )
    win = open_window(path)
    view = win.facts_table.view
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        view.sortByColumn(COLUMN["confidence"], order)
        assert len(triple_rows(win)) == 4
    win.repaint()


# ── Time values the rules do not accept ────────────────────────────────────


@pytest.mark.parametrize(
    "value", ["2025-06", "2025", "2025-06-01 10:00", "2025-06-01T10:00:00+02:00"]
)
def test_an_end_the_rules_refuse_is_shown_verbatim_marked_and_not_open(
    tmp_path, open_window, value
):
    path = odd_fact(tmp_path / "kg.sqlite3", "valid_to", value)
    win = open_window(path)
    win.set_as_of("2030-01-01")
    tid = knows(win)
    shown, tip, font, edit = table_row(win, tid)["valid_to"]
    assert shown.endswith(value) and "⚠" in shown and "open" not in shown
    assert edit == value
    assert font.italic()
    assert "not a date the time rules accept" in tip
    # Not valid in 2030, as MemPalace says; valid just before the text's threshold.
    assert not win.state.valid_mask()[win.state.fact_index(tid)]
    assert all(
        f["predicate"] != "knows" for f in mempalace_class()(path).query_entity("Kai", "2030-01-01")
    )
    drawn = next(d for d in win.gantt.drawn_intervals() if d["id"] == tid)
    assert drawn["end"] == temporal.end_posix(value) and not drawn["valid_at_as_of"]
    assert value in win.gantt.tooltip(win.gantt.bars.layout.index_of(tid))
    edges = win.graph_view.drawn_edges()
    assert sum(not e["solid"] for e in edges) == 1  # Ann's edge: not valid in 2030


@pytest.mark.parametrize("value", ["0000-00-00", "2025-13-45", "2025-02-30", ""])
@pytest.mark.parametrize("column", ["valid_from", "valid_to"])
def test_impossible_days_neither_crash_nor_break_the_time_control(
    tmp_path, open_window, column, value
):
    path = odd_fact(tmp_path / "kg.sqlite3", column, value)
    win = open_window(path)
    control = win.time_control
    control.refresh_span()
    low, high = control.slider.minimum(), control.slider.maximum()
    assert control.span_label.text() and low < high
    for day in ("2024-01-01", "2025-03-01", "2026-01-01"):
        win.set_as_of(day)
    control.step(days=1)
    win.set_as_of(None)
    tid = knows(win)
    shown = table_row(win, tid)[column][0]
    if value:
        assert value in shown and "⚠" in shown
    win.repaint()


def test_an_end_nobody_knows_is_valid_nowhere_and_says_so(tmp_path, open_window):
    path = odd_fact(tmp_path / "kg.sqlite3", "valid_to", "0000-00-00")
    win = open_window(path)
    tid = knows(win)
    assert win.state.time_arrays()[1][win.state.fact_index(tid)] == -math.inf
    for day in ("1900-01-01", "2024-06-01", "2030-01-01"):
        win.set_as_of(day)
        assert not win.state.valid_mask()[win.state.fact_index(tid)]
    tip = table_row(win, tid)["valid_to"][1]
    assert "valid at no instant" in tip


# ── Entities ───────────────────────────────────────────────────────────────


def test_an_entity_row_with_a_null_id_is_listed_marked_and_not_editable(tmp_path, open_window):
    path = mempalace_file(
        tmp_path / "kg.sqlite3",
        sql=[("INSERT INTO entities (id, name) VALUES (NULL, 'Ghost')", ())],
    )
    win = open_window(path, entity=None)
    browser = win.browser
    model = browser.model
    names = [model.index(r, 0).data() for r in range(model.rowCount())]
    row = next(r for r, name in enumerate(names) if "Ghost" in name)
    assert "⚠" in names[row]
    assert "no id" in model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    said = messages_of(win)
    browser.view.setCurrentIndex(model.index(row, 0))
    browser.select_current()
    assert win.state.entity is None
    assert said and "no id" in said[-1]
    menu = browser.context_menu(model.entity_at(row))
    assert not any(a.isEnabled() for a in menu.actions() if a.text() and "Copy" not in a.text())
    browser.set_search("gho")
    assert model.rowCount() == 1


# ── Huge strings ───────────────────────────────────────────────────────────


def test_a_megabyte_predicate_is_elided_in_labels_and_legends_whole_in_tooltips(
    tmp_path, open_window, qtbot
):
    huge = "p" * 1_000_000
    path = mempalace_file(
        tmp_path / "kg.sqlite3", [dict(subject="Kai", predicate=huge, obj="Orion")]
    )
    win = open_window(path, entity=None)
    win.state.select_entity("kai")
    win.repaint()
    chart = win.gantt
    assert all(len(label) < 300 for label in chart.lane_labels())
    assert len(chart._legend.text) < 2_000 and "…" in chart._legend.text
    i = next(i for i, f in enumerate(chart.bars.layout.facts) if f["predicate"] == huge)
    assert len(chart.tooltip(i)) < 10_000
    tid = chart.bars.layout.ids[i]
    shown, tip, _font, edit = table_row(win, tid)["predicate"]
    assert len(shown) <= 1_000 and edit == huge
    assert "1,000,000 characters" in tip
    assert all(len(label) < 300 for label in win.graph_view.legend_labels())
    # The panels' cells too, as the tables' (its whole paint took a fifth of a second).
    panels = win.panels
    for dock in (panels.predicates_dock, panels.narrative_dock):
        panels.show_dock(dock)
    for model in (panels.predicates.model, panels.narrative.model):
        qtbot.waitUntil(lambda m=model: m.rowCount() > 0, timeout=10_000)
        cells = [
            model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)
            for row in range(model.rowCount())
            for column in range(model.columnCount())
        ]
        assert any(huge[:900] in str(text) for text in cells), type(model).__name__
        assert all(len(str(text)) < 1_100 for text in cells), type(model).__name__
    story = panels.narrative.predicate
    assert all(len(story.itemText(i)) < 300 for i in range(story.count()))


def test_the_chart_marks_each_side_the_rules_refuse_and_never_draws_it_open(tmp_path, open_window):
    path = odd_fact(tmp_path / "kg.sqlite3", "valid_to", "never")
    win = open_window(path)
    layout = win.gantt.bars.layout
    i = layout.index_of(knows(win))
    # MemPalace returns the fact at every as_of (text after every instant), and so do we...
    assert layout.end[i] == math.inf and layout.odd[i] == 2
    win.set_as_of("2030-01-01")
    assert win.gantt.bars.valid[i]
    assert any(
        r["object"] == "Ann" for r in mempalace_class()(path).query_entity("Kai", "2030-01-01")
    )
    # ...but it is not drawn as an open end, and the legend says what the mark means.
    from factlines.ui.chart.painting import legend_html

    assert "rules do not accept" in legend_html(layout)
    bars = win.gantt.bars
    geometry = bars._geometry(layout, np.arange(layout.n), 1e-6, 0.0, 20.0, 0.0, 0.0, 900.0)
    assert not geometry["open"][i]
    still_open = next(f["id"] for f in win.state.entity_facts() if f["valid_to"] is None)
    assert geometry["open"][layout.index_of(still_open)]
    win.repaint()


def test_names_are_shown_literally_in_rich_text_headings(tmp_path, open_window):
    path = mempalace_file(
        tmp_path / "kg.sqlite3", [dict(subject="<b>Kai", predicate="knows", obj="Ann")]
    )
    win = open_window(path, entity="<b>kai")
    assert "&lt;b&gt;Kai" in win.facts_table.title.text()
    assert "&lt;b&gt;Kai" in win.gantt._title.text
