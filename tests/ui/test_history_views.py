"""What changed between two instants, the density histogram under the slider, the story in
order and the fact search."""

from __future__ import annotations

import gc
import threading
from datetime import date

from PySide6.QtWidgets import QAbstractItemView, QApplication, QPushButton, QWidget

from factlines import KnowledgeGraph
from factlines.core import temporal
from factlines.ui.jobs import progress
from factlines.ui.models import changes as changes_model
from factlines.ui.models.changes import CHANGE_ROLE
from factlines.ui.models.fact_models import FACT_ID_ROLE
from factlines.ui.panels import changes as changes_panel
from factlines.ui.panels.story import StoryModel, event_key
from store_helpers import raw_sql
from ui_fixtures import *  # noqa: F403


def view_named(window, name: str) -> QAbstractItemView:
    view = window.findChild(QAbstractItemView, name)
    assert view is not None, name
    return view


def fact_rows(model, parent=None):
    """Every fact row of the changes tree, depth first: (index, change)."""
    from PySide6.QtCore import QModelIndex

    parent = parent or QModelIndex()
    found = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if index.data(FACT_ID_ROLE) is not None:
            found.append((index, index.data(CHANGE_ROLE)))
        found += fact_rows(model, index)
    return found


# ── What changed between two instants ─────────────────────────────────────


def test_changes_between_two_instants_for_the_entity_and_the_graph(window, qtbot, qtmodeltester):
    window.select_entity("Kai Moreno")
    panel = window.panels.changes
    view = view_named(window, "changesPanel")
    panel.set_instants("2025-01-01", "2026-06-01")
    expected = window.kg.changes_between("2025-01-01", "2026-06-01", "kai_moreno")
    rows = fact_rows(view.model())
    started = {i.data(FACT_ID_ROLE) for i, change in rows if change in ("started", "both")}
    ended = {i.data(FACT_ID_ROLE) for i, change in rows if change in ("ended", "both")}
    assert started == {f["id"] for f in expected["started"]}
    assert ended == {f["id"] for f in expected["ended"]}
    assert "3 started, 3 ended" in panel.summary.text()
    qtmodeltester.check(view.model())

    panel.whole_graph.setChecked(True)  # read on a worker thread
    qtbot.waitUntil(lambda: not panel.busy, timeout=10000)
    everything = window.kg.changes_between("2025-01-01", "2026-06-01")
    rows = fact_rows(view.model())
    assert {i.data(FACT_ID_ROLE) for i, _ in rows} == {
        f["id"] for f in everything["started"] + everything["ended"]
    }
    # Grouped by entity, then predicate.
    top = view.model().index(0, 0)
    assert view.model().index(0, 0, top).parent() == top
    qtmodeltester.check(view.model())


def test_the_whole_graphs_changes_are_read_on_a_worker_thread(window, qtbot):
    panel = window.panels.changes
    panel.whole_graph.setChecked(True)
    panel.set_instants("2025-01-01", "2026-06-01")
    assert panel.busy and panel.summary.text() == "Reading the whole graph's changes…"
    panel.set_instants("2024-01-01", "2026-06-01")  # asked again while it reads: the newest wins
    qtbot.waitUntil(lambda: not panel.busy, timeout=10000)
    everything = window.kg.changes_between("2024-01-01", "2026-06-01")
    rows = fact_rows(view_named(window, "changesPanel").model())
    assert {i.data(FACT_ID_ROLE) for i, _ in rows} == {
        f["id"] for f in everything["started"] + everything["ended"]
    }
    started, ended = len(everything["started"]), len(everything["ended"])
    assert f"{started} started, {ended} ended" in panel.summary.text()
    panel.whole_graph.setChecked(False)  # one entity's: read where it is asked
    assert not panel.busy


def test_the_whole_graphs_tree_is_built_and_let_go_on_workers(window, qtbot, monkeypatch):
    """Over a long span at a million facts the answer is hundreds of thousands of rows: its
    tree is built on the worker that read it, and a big tree replaced is freed on one."""
    built_on_ui, freed_on_ui = [], []
    build = changes_model.build

    def watched_build(changes):
        built_on_ui.append(threading.current_thread() is threading.main_thread())
        return build(changes)

    let_go = progress.let_go
    monkeypatch.setattr(changes_panel, "build", watched_build)
    monkeypatch.setattr(
        progress,
        "let_go",
        lambda rows, between=None: (
            freed_on_ui.append(threading.current_thread() is threading.main_thread())
            or let_go(rows, between)
        ),
    )
    monkeypatch.setattr(changes_model, "LET_GO_ELSEWHERE_FROM", 1)
    panel = window.panels.changes
    panel.whole_graph.setChecked(True)
    for first in ("2025-01-01", "2023-01-01", "2024-01-01"):
        panel.set_instants(first, "2026-06-01")
        qtbot.waitUntil(lambda: not panel.busy, timeout=10000)
    qtbot.waitUntil(lambda: len(freed_on_ui) >= 2, timeout=5000)
    assert built_on_ui and not any(built_on_ui)
    assert not any(freed_on_ui)
    everything = window.kg.changes_between("2024-01-01", "2026-06-01")
    rows = fact_rows(view_named(window, "changesPanel").model())
    assert {i.data(FACT_ID_ROLE) for i, _ in rows} == {
        f["id"] for f in everything["started"] + everything["ended"]
    }


def test_the_tree_is_held_where_the_cycle_collector_does_not_walk_it(window, monkeypatch):
    """The collector read every item of the tree's lists on the UI thread each time it looked
    at them (a wide span at a million facts: 70-130 ms); the groupings the tree was made from
    are let go in slices on the worker, not all at once as the build returns (180-250 ms)."""
    everything = window.kg.changes_between("2024-01-01", "2026-06-01")
    listed = len({f["id"] for f in everything["started"] + everything["ended"]})
    let_go_sizes = []
    let_go = changes_model.let_go
    monkeypatch.setattr(
        changes_model, "let_go", lambda rows: let_go_sizes.append(len(rows)) or let_go(rows)
    )
    tree = changes_model.build(everything)
    assert tree.facts == listed > 0
    assert listed in let_go_sizes  # the facts as listed, before they were grouped
    walked = [
        item
        for column in tree[: len(changes_model.Node._fields) + 1]
        for item in gc.get_referents(column)
        if not isinstance(item, type)
    ]
    assert walked == []
    model = changes_model.ChangesModel()
    model.set_changes(everything, tree)
    assert {i.data(FACT_ID_ROLE) for i, _ in fact_rows(model)} == {
        f["id"] for f in everything["started"] + everything["ended"]
    }


def test_a_long_answer_lists_its_entities_a_part_at_a_time(window, qtmodeltester, monkeypatch):
    """The view asks Python about every row it lays out: 100,000 entities changed took the UI
    thread for a second. The entities are listed a part at a time, more as the list is
    scrolled to its end; a fact asked for is listed at once."""
    monkeypatch.setattr(changes_model, "TOP_ROWS_AT_ONCE", 2)
    everything = window.kg.changes_between("2024-01-01", "2026-06-01")
    entities = {f["subject"] for f in everything["started"] + everything["ended"]}
    assert len(entities) > 2
    model = changes_model.ChangesModel()
    model.set_changes(everything)
    assert model.rowCount() == 2 and model.canFetchMore()
    last = max(everything["ended"], key=lambda f: f["subject_name"])["id"]  # listed last
    index = model.fact_index(last)
    assert index.isValid() and index.data(FACT_ID_ROLE) == last
    assert model.rowCount() > 2
    while model.canFetchMore():
        model.fetchMore()
    assert model.rowCount() == len(entities)
    rows = fact_rows(model)
    assert {i.data(FACT_ID_ROLE) for i, _ in rows} == {
        f["id"] for f in everything["started"] + everything["ended"]
    }
    qtmodeltester.check(model)


def test_the_diff_is_drawn_on_the_chart_and_a_row_selects_its_fact(window):
    window.select_entity("Kai Moreno")
    window.panels.changes_dock.show()
    window.panels.changes_dock.raise_()
    panel = window.panels.changes
    panel.set_visible_in_window(True)
    panel.set_instants("2025-01-01", "2026-06-01")
    diff = window.panels.chart_diff
    assert diff.band.isVisible() and all(item.isVisible() for item in diff.marks.values())
    spots = diff.spots()
    expected = window.kg.changes_between("2025-01-01", "2026-06-01", "kai_moreno")
    assert {s["id"] for s in spots if s["change"] == "started"} == {
        f["id"] for f in expected["started"]
    }
    drawn = {bar["id"]: bar for bar in window.gantt.drawn_intervals()}
    for spot in spots:  # each mark sits at its bar's start or end
        bar = drawn[spot["id"]]
        assert spot["x"] == (bar["start"] if spot["change"] == "started" else bar["end"])
    assert diff.band.getRegion() == (
        temporal.to_posix("2025-01-01T00:00:00Z"),
        temporal.to_posix("2026-06-01T00:00:00Z"),
    )
    # One look per change: pyqtgraph draws a symbol per pen and brush object it is given.
    assert len(spots) > 2
    for first in ("2024-01-01", "2025-01-01"):
        panel.set_instants(first, "2026-06-01")
    assert all(len(item.fragmentAtlas) <= 1 for item in diff.marks.values())

    index, _change = fact_rows(view_named(window, "changesPanel").model())[0]
    view_named(window, "changesPanel").activated.emit(index)
    assert window.selected_fact() == index.data(FACT_ID_ROLE)

    panel.on_chart.setChecked(False)
    assert not any(item.isVisible() for item in diff.marks.values())


def test_changes_default_to_since_as_of_and_refuse_a_backwards_span(window, qtbot):
    window.select_entity("Kai Moreno")
    panel = window.panels.changes
    window.set_as_of("2025-01-01")
    panel.refresh()
    since = window.kg.changes_between("2025-01-01", temporal.now_instant(), "kai_moreno")
    assert len(fact_rows(panel.model)) == len({f["id"] for f in since["started"] + since["ended"]})
    panel.set_instants("2026-01-01", "2025-01-01")
    assert "not before" in panel.summary.text()
    assert panel.model.rowCount() == 0


# ── Where the history is dense ────────────────────────────────────────────


def test_the_histogram_sits_under_the_slider_and_follows_an_edit(window, qtbot):
    histogram = window.findChild(QWidget, "timeHistogram")
    assert histogram is window.panels.histogram
    assert histogram.data == window.kg.validity_histogram(histogram.bins)
    starts = sum(histogram.data["starts"])
    window.fact_actions.add_fact("Kai Moreno", "uses", "Go", valid_from="2024-02-01")
    qtbot.waitUntil(lambda: sum(histogram.data["starts"]) == starts + 1, timeout=3000)
    assert histogram.data == window.kg.validity_histogram(histogram.bins)
    # On the slider's scale: the slider's ends are the histogram's.
    slider = window.time_control.slider
    low, high = slider.minimum(), slider.maximum()
    assert histogram.day_at(histogram.x_of((low - 719163) * 86400)).toordinal() == low
    assert histogram.day_at(histogram.x_of((high - 719163) * 86400)).toordinal() == high
    # Scrubbing on it moves as_of.
    x = histogram.x_of(temporal.to_posix("2022-06-15T00:00:00Z"))
    histogram._scrub(x)
    assert abs(temporal.calendar_day(window.as_of()) - date(2022, 6, 15)).days <= 1
    assert "facts valid" in histogram.words_at(x)
    histogram.grab()  # paints with as_of marked


def test_the_histogram_moves_our_edits_counts_without_reading_the_graph(window, qtbot):
    histogram = window.panels.histogram
    qtbot.waitUntil(lambda: not histogram.busy, timeout=5000)
    reads = []
    histogram.query.reader.start = lambda *args: reads.append(args)  # a read asked for
    kg, stack = window.kg, window.undo_stack
    starts, ends = sum(histogram.data["starts"]), sum(histogram.data["ends"])
    fact_id = window.fact_actions.add_fact("Kai Moreno", "uses", "Go", valid_from="2024-02-01")
    assert fact_id is not None and sum(histogram.data["starts"]) == starts + 1
    assert histogram.data == kg.validity_histogram(histogram.bins)
    assert window.fact_actions.end_fact(fact_id, "2024-03-01")
    assert sum(histogram.data["ends"]) == ends + 1
    assert histogram.data == kg.validity_histogram(histogram.bins)
    stack.undo()
    stack.undo()
    assert sum(histogram.data["starts"]) == starts and sum(histogram.data["ends"]) == ends
    stack.redo()
    assert histogram.data == kg.validity_histogram(histogram.bins)
    assert reads == [] and not histogram.busy
    # Another program's write says not which rows: the counts are read again.
    raw_sql(kg.db_path, "UPDATE triples SET valid_to = '2024-06-01' WHERE valid_to IS NULL")
    window.state.notify_data_changed()
    qtbot.waitUntil(lambda: histogram.busy, timeout=3000)
    qtbot.waitUntil(lambda: not histogram.query._timer.isActive(), timeout=3000)
    assert len(reads) == 1


def test_an_as_of_step_repaints_the_histogram_only_where_its_mark_was_and_is(window, qtbot):
    from PySide6.QtCore import QEvent, QObject, QPoint
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication

    histogram = window.panels.histogram
    window.set_as_of("2019-01-01")

    # Counted for the width it settled at (a resize asks again: the answer repaints it all).
    qtbot.waitUntil(lambda: any(histogram.data["valid"]) and not histogram.busy, timeout=5000)
    histogram.repaint()
    before = histogram.grab().toImage()
    painted = []

    class Painted(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                painted.extend(event.region())
            return False

    spy = Painted()
    histogram.installEventFilter(spy)
    window.set_as_of("2023-06-01")
    qtbot.waitUntil(lambda: len(painted) > 0, timeout=3000)  # the window paints what it must
    QApplication.processEvents()
    histogram.removeEventFilter(spy)
    assert painted and all(rect.width() < histogram.width() / 4 for rect in painted)
    # What the strips repaint, laid over the picture before, is the picture now.
    composed = before.copy()
    painter = QPainter(composed)
    for rect in painted:
        painter.drawImage(rect.topLeft(), histogram.grab(rect).toImage())
    painter.end()
    assert composed == histogram.grab().toImage()
    assert any(rect.contains(QPoint(histogram._mark_x, 1)) for rect in painted)


def test_the_histogram_is_counted_off_the_ui_thread(window, qtbot, monkeypatch):
    histogram = window.panels.histogram
    counted_on = []
    count = KnowledgeGraph.validity_histogram

    def recorded(kg, bins):
        counted_on.append(threading.current_thread())
        return count(kg, bins)

    monkeypatch.setattr(KnowledgeGraph, "validity_histogram", recorded)
    starts = sum(histogram.data["starts"])
    # Before the span: its edges move, so the counts are read again.
    window.fact_actions.add_fact("Kai Moreno", "uses", "Go", valid_from="1900-02-01")
    qtbot.waitUntil(lambda: sum(histogram.data["starts"]) == starts + 1, timeout=5000)
    assert counted_on and threading.main_thread() not in counted_on
    # A new width asks for as many bins as it has room for, on the worker too.
    bins = histogram.bins
    window.resize(window.width() - 300, window.height())
    qtbot.waitUntil(lambda: histogram.bins != bins, timeout=3000)
    qtbot.waitUntil(lambda: len(histogram.data["edges"]) == histogram.bins + 1, timeout=5000)
    histogram.query.wait()
    assert threading.main_thread() not in counted_on


def test_a_question_waiting_when_the_window_closes_is_never_asked(window, qtbot, monkeypatch):
    # A read left waiting used to start once the running one ended, after the window closed,
    # and held the reads' turn from the next window's questions.
    histogram = window.panels.histogram
    gate, asked = threading.Event(), []
    count = KnowledgeGraph.validity_histogram

    def held(kg, bins):
        asked.append(bins)
        gate.wait(10)
        return count(kg, bins)

    monkeypatch.setattr(KnowledgeGraph, "validity_histogram", held)
    # Before the span: the counts are read again (the edges move).
    window.fact_actions.add_fact("Kai Moreno", "uses", "Go", valid_from="1900-02-01")
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5000)
    window.fact_actions.add_fact("Kai Moreno", "uses", "Zig", valid_from="2024-03-01")
    qtbot.waitUntil(lambda: histogram.query.reader._waiting is not None, timeout=5000)
    threading.Timer(0.2, gate.set).start()  # closing blocks until the running read ends
    window.close()
    qtbot.wait(500)
    assert len(asked) == 1 and not histogram.query.busy


# ── The story in order ────────────────────────────────────────────────────


def in_sight_story(window):
    """The Story tab brought to the front (behind another tab it reads nothing)."""
    window.panels.show_dock(window.panels.narrative_dock)
    return window.panels.narrative


def test_the_story_pages_through_the_whole_graph_and_follows_as_of(window, qtmodeltester):
    panel = in_sight_story(window)
    view = view_named(window, "narrativeView")
    model = view.model()
    panel.whole_graph.setChecked(True)
    total = window.kg.narrative_total()
    assert total > StoryModel.PAGE
    assert model.rowCount() == StoryModel.PAGE
    assert model.canFetchMore()
    model.fetchMore()
    assert model.rowCount() == total and not model.canFetchMore()
    everything = window.kg.narrative(limit=total)
    assert [model.event_at(r)["fact"]["id"] for r in range(total)] == [
        e["fact"]["id"] for e in everything
    ]
    qtmodeltester.check(model)

    window.set_as_of("2023-06-15")
    marked = model.event_at(model.marked)
    assert event_key(marked) <= "2023-06-15T00:00:00Z"
    later = model.event_at(model.marked + 1)
    assert event_key(later) is None or event_key(later) > "2023-06-15T00:00:00Z"
    assert model.index(model.marked, 0).data().startswith("▸ ")


def test_the_story_loads_pages_to_reach_as_of_and_choosing_an_event_moves_as_of(
    window, monkeypatch
):
    monkeypatch.setattr(StoryModel, "PAGE", 10)
    panel = in_sight_story(window)
    model = panel.model
    panel.whole_graph.setChecked(True)
    window.set_as_of(None)
    panel.reload()
    assert model.rowCount() == 10
    window.set_as_of("2024-01-01")
    assert model.rowCount() > 10  # read on until as_of's event
    everything = window.kg.narrative(limit=1000)
    expected = sum(1 for e in everything if (event_key(e) or "~") <= "2024-01-01T00:00:00Z")
    assert model.marked == expected - 1
    assert model.position_of("2024-01-01T00:00:00Z") == expected

    panel.go_to_as_of()
    assert model.base > 0 and panel.start_button.isVisibleTo(panel)
    marked = model.event_at(model.marked)
    assert model.base + model.marked == expected - 1
    assert (marked["kind"], marked["fact"]["id"]) == (
        everything[expected - 1]["kind"],
        everything[expected - 1]["fact"]["id"],
    )

    view = view_named(window, "narrativeView")
    index = model.index(3, 1)
    event = model.event_at(3)
    view.activated.emit(index)
    assert window.as_of() == event["at"]
    assert window.selected_fact() == event["fact"]["id"]
    assert window.selected_entity() == event["fact"]["subject"]


def test_an_entitys_story_lists_unknown_starts_apart(window, qtbot):
    in_sight_story(window)
    window.fact_actions.add_fact("Kai Moreno", "knows", "Ada Park")  # no start
    window.select_entity("Kai Moreno")
    model = window.panels.narrative.model
    qtbot.waitUntil(lambda: model.total == window.kg.narrative_total("kai_moreno"), timeout=3000)
    while model.canFetchMore():
        model.fetchMore()
    last = model.event_at(model.rowCount() - 1)
    assert last["at"] is None
    assert model.index(model.rowCount() - 1, 0).data() == "unknown"
    assert "(start unknown)" in model.index(model.rowCount() - 1, 1).data()


# ── Finding facts ─────────────────────────────────────────────────────────


def test_facts_are_found_by_predicate_and_provenance_at_as_of(window, qtmodeltester):
    panel = window.panels.find_facts
    window.set_as_of("2025-12-01")
    panel.find("works_at", predicate=True)
    view = view_named(window, "factSearchResults")
    assert view.model().rowCount() == window.kg.count_found_facts(
        predicate="works_at", as_of="2025-12-01"
    )
    panel.find("notes/")
    assert view.model().total == window.kg.count_found_facts("notes/", as_of="2025-12-01")
    qtmodeltester.check(view.model())
    view.activated.emit(view.model().index(0, 0))
    fact = view.model().fact_at(0)
    assert window.selected_fact() == fact["id"]
    assert window.selected_entity() in (fact["subject"], fact["object"])


def test_a_predicate_typed_in_the_entity_search_offers_its_facts(window):
    window.browser.set_search("works_at")
    hint = window.findChild(QPushButton, "entitySearchFactHint")
    assert hint.isVisibleTo(window) and "facts with this predicate" in hint.text()
    hint.click()
    panel = window.panels.find_facts
    assert window.panels.find_dock.isVisible()
    assert panel.field.text() == "works_at" and panel.predicate_only.isChecked()
    assert panel.model.total > 0
    window.browser.set_search("closet_company")  # no entity: the facts are offered
    assert "search facts" in hint.text()
    window.browser.set_search("Kai")
    assert not hint.isVisibleTo(window)


def test_the_window_says_which_entity_and_fact_are_selected(window):
    assert window.selected_entity() is None and window.selected_fact() is None
    window.select_entity("Kai Moreno")
    assert window.selected_entity() == "kai_moreno"


def test_an_entitys_story_speaks_in_words_and_is_filtered_by_predicate(window, qtbot):
    """The story was a flat list of raw predicate names with no filter (403 events for one
    person, knows/met_with swamping it)."""
    panel = in_sight_story(window)
    window.select_entity("Kai Moreno")
    model = panel.model
    lines = [model.index(row, 1).data() for row in range(model.rowCount())]
    assert "Kai Moreno works on Orion" in lines
    assert "Kai Moreno no longer works on Orion" in lines
    assert not any("_" in line for line in lines)
    everything = window.kg.narrative("Kai Moreno", limit=1000)
    works_on = [e for e in everything if e["fact"]["predicate"] == "works_on"]
    choices = [panel.predicate.itemText(i) for i in range(panel.predicate.count())]
    assert choices[0] == "All predicates" and "works_on" in choices
    panel.predicate.setCurrentText("works_on")
    assert model.total == len(works_on) < len(everything)
    shown = [model.event_at(row) for row in range(model.rowCount())]
    assert [(e["kind"], e["fact"]["id"]) for e in shown] == [
        (e["kind"], e["fact"]["id"]) for e in works_on
    ]
    assert "works_on" in panel.label.text()
    window.set_as_of("2025-07-01")  # as_of is marked among the filtered events
    assert model.event_at(model.marked)["fact"]["object_name"] == "Orion"
    panel.predicate.setCurrentIndex(0)
    assert model.total == len(everything)


def test_the_story_behind_another_tab_is_read_when_it_comes_to_the_front(window, monkeypatch):
    # A hub's story orders all its events (0.3-0.45 s at 20,000 facts): behind the Facts tab
    # (where it starts) a selection, an edit or an as_of step must not pay for it.
    read = []
    narrative = type(window.kg).narrative
    monkeypatch.setattr(
        type(window.kg), "narrative", lambda kg, *a, **k: read.append(a) or narrative(kg, *a, **k)
    )
    panel = window.panels.narrative
    assert panel.visibleRegion().isEmpty()
    window.select_entity("Kai Moreno")
    window.fact_actions.add_fact("Kai Moreno", "knows", "Ada Park", valid_from="2020-01-01")
    window.set_as_of("2023-06-15")
    QApplication.processEvents()
    assert read == []
    in_sight_story(window)
    assert read
    model = panel.model
    assert model.entity == "kai_moreno"
    assert model.total == window.kg.narrative_total("kai_moreno")
    marked = model.event_at(model.marked)
    assert event_key(marked) <= "2023-06-15T00:00:00Z"


def test_the_story_finds_dated_what_the_store_lists_as_dated(tmp_path):
    # The story indexes the keys of the leading dated events and stops at the first undated
    # one: an event the store lists among the dated must have a key here too.
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        for n, start in enumerate(["2025-01-01", "2025-06-01", "2026-01-01"]):
            kg.add_triple("Kai", "knows", f"P{n}", valid_from=start)
    # A hand edit MemPalace keeps as written: shaped like an instant, but not in UTC's form.
    raw_sql(path, "UPDATE triples SET valid_from = '2025-06-01T10:00:00z' WHERE object = 'p1'")
    with KnowledgeGraph(path) as kg:
        events = kg.narrative(limit=100)
    keys = [event_key(event) for event in events]
    dated = keys[: len(keys) - keys.count(None)]
    assert None not in dated and dated == sorted(dated) and len(dated) == 3
