"""The conflicts panel on a graph MemPalace wrote, opened for the first time: the real overlaps
are there without marking anything (as likely, of the suggested predicates, with one click to
mark one, undoable), same-day handovers only when asked, and a click on a row goes there."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QCheckBox, QLabel, QPushButton

from factlines import KnowledgeGraph
from people_graph import write_people_graph
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import shown_window


@pytest.fixture
def palace(tmp_path):
    """A people graph MemPalace wrote, with mistakes; nothing marked single-valued."""
    path = tmp_path / "palace" / "knowledge_graph.sqlite3"
    mem = mempalace_class()(str(path))
    written = write_people_graph(mem, people=40, mistakes=0.2, seed=3)
    mem.close()
    return path, written


@pytest.fixture
def palace_window(qtbot, palace, isolated_settings):
    kg = KnowledgeGraph(palace[0])
    yield shown_window(qtbot, kg, isolated_settings)
    kg.close()


def count_text(window) -> str:
    return window.findChild(QLabel, "conflictCountLabel").text()


def shown_kinds(panel) -> list[tuple[str, str]]:
    model = panel.model
    return [
        (model.index(row, 0).data(), model.index(row, 2).data()) for row in range(model.rowCount())
    ]


def test_the_real_overlaps_are_listed_at_first_open_as_likely(palace_window):
    panel = palace_window.panels.conflicts
    assert palace_window.kg.single_valued_predicates() == []
    shown = shown_kinds(panel)
    likely = {predicate for kind, predicate in shown if kind == "Likely overlap"}
    assert {"works_at", "lives_in"} <= likely
    assert not likely & {"knows", "visited", "met_with", "has_role", "likes", "works_on"}
    works_at = next(s for s in panel.finder.suggestions if s["predicate"] == "works_at")
    assert (
        sum(1 for kind, p in shown if (kind, p) == ("Likely overlap", "works_at"))
        == (works_at["overlaps"])
    )
    assert "likely" in count_text(palace_window)
    # Each suggestion says its figures, in the box below the list.
    said = [label.text() for label in panel.suggestions.findChildren(QLabel)]
    assert works_at["text"] in said
    assert "hold one at a time" in works_at["text"]


def test_a_likely_row_marks_its_predicate_with_one_click_undoable(palace_window, qtbot):
    window = palace_window
    panel = window.panels.conflicts
    view = window.findChild(QAbstractItemView, "conflictsPanel")
    row = next(n for n, r in enumerate(panel.model.rows) if r["predicate"] == "lives_in")
    view.setCurrentIndex(panel.model.index(row, 0))
    button = window.findChild(QPushButton, "conflictFix_mark")
    assert button.isVisible() and button.isEnabled()
    assert button.toolTip() == "Mark lives_in single-valued"
    assert not window.findChild(QPushButton, "conflictFix_swap").isVisible()  # not inverted
    button.click()
    assert "lives_in" in window.kg.single_valued_predicates()
    assert window.undo_stack.undoText() == "Mark lives_in single-valued"
    marked = [c for c in window.kg.conflicts() if c["kind"] == "overlap"]
    qtbot.waitUntil(
        lambda: (
            ("Overlap", "lives_in") in shown_kinds(panel)
            and ("Likely overlap", "lives_in") not in shown_kinds(panel)
        ),
        timeout=5000,
    )
    assert shown_kinds(panel).count(("Overlap", "lives_in")) == len(marked)
    window.undo_stack.undo()
    assert window.kg.single_valued_predicates() == []
    qtbot.waitUntil(lambda: ("Likely overlap", "lives_in") in shown_kinds(panel), timeout=5000)


def test_same_day_handovers_are_shown_only_when_asked(palace_window, qtbot):
    window = palace_window
    panel = window.panels.conflicts
    assert panel.mark("lives_in")
    qtbot.waitUntil(lambda: ("Overlap", "lives_in") in shown_kinds(panel), timeout=5000)
    handovers = [c for c in window.kg.conflicts() if c["kind"] == "handover"]
    assert handovers  # MemPalace's invalidate(ended=D) + add_triple(valid_from=D)
    overlaps = [c for c in window.kg.conflicts() if c["kind"] != "handover"]
    assert "Same-day handover" not in {kind for kind, _ in shown_kinds(panel)}
    assert count_text(window).startswith(f"⚠ {len(overlaps)} conflicts")
    box = window.findChild(QCheckBox, "conflictsShowHandovers")
    assert not box.isChecked()
    box.click()
    assert shown_kinds(panel).count(("Same-day handover", "lives_in")) == len(handovers)
    assert count_text(window).startswith(f"⚠ {len(overlaps)} conflicts")  # still not counted
    box.click()
    assert "Same-day handover" not in {kind for kind, _ in shown_kinds(panel)}


def test_a_single_click_on_a_conflict_goes_there(palace_window, qtbot):
    window = palace_window
    panel = window.panels.conflicts
    view = window.findChild(QAbstractItemView, "conflictsPanel")
    assert panel.mark("works_at")
    qtbot.waitUntil(lambda: ("Overlap", "works_at") in shown_kinds(panel), timeout=5000)
    number = next(n for n, r in enumerate(panel.model.rows) if r["start"] is not None)
    row = panel.model.rows[number]
    view.scrollTo(panel.model.index(number, 1))
    rect = view.visualRect(panel.model.index(number, 1))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.selected_entity() == row["subject"]
    assert window.selected_fact() == row["a"]
    assert window.as_of() == row["start"][:10]


def test_a_same_day_handover_is_no_conflict_on_the_entitys_facts(
    qtbot, tmp_path, isolated_settings
):
    path = tmp_path / "palace" / "knowledge_graph.sqlite3"
    mem = mempalace_class()(str(path))
    mem.add_triple("Ann", "works_at", "Acme", valid_from="2019-01-01")
    mem.invalidate("Ann", "works_at", "Acme", ended="2021-03-01")
    mem.add_triple("Ann", "works_at", "Bolt", valid_from="2021-03-01")  # MemPalace's handover
    side = mem.add_triple("Ann", "works_at", "Side", valid_from="2020-06-01", valid_to="2020-07-01")
    mem.close()
    kg = KnowledgeGraph(path)
    kg.set_single_valued("works_at")
    try:
        window = shown_window(qtbot, kg, isolated_settings)
        window.panels.conflicts.jump(window.panels.conflicts.model.index(0, 0))
        assert window.selected_entity() == "ann"
        flagged = window.state.conflicts_by_fact()
        assert set(flagged) == {side, window.state.conflicts_by_fact()[side][0]["other"]}
        assert [c["kind"] for c in window.state.entity_conflicts()] == ["overlap"]
    finally:
        kg.close()


def test_in_a_big_panel_the_suggestions_take_their_share_and_their_buttons_show(
    palace_window, qtbot
):
    window, panel = palace_window, palace_window.panels.conflicts
    window.panels.conflicts_dock.raise_()
    window.resize(1500, 950)
    window.resizeDocks([window.panels.conflicts_dock], [600], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: panel.height() > 450, timeout=5000)
    area = panel.suggestions_area
    lines = [w for w in panel.suggestions.findChildren(QLabel) if w.text()]
    assert len(lines) >= 3  # what was marked, and two suggestions at least

    def buttons_in_view() -> list[str]:
        return [
            button.objectName()
            for button in panel.suggestions.findChildren(QPushButton)
            if not area.viewport()
            .rect()
            .contains(button.mapTo(area.viewport(), button.rect().bottomRight()))
        ]

    # Not two lines high: every suggestion in view, and each one's Mark button whole, once
    # the layouts have settled.
    qtbot.waitUntil(lambda: buttons_in_view() == [], timeout=5000)
    assert area.height() >= sum(label.height() for label in lines)


def test_the_rows_found_on_the_worker_reach_the_panel_as_they_are(palace_window):
    """Not converted to Qt's variants and back on the way (a signal of lists does that: 20,000
    conflicts took the UI thread for 330 ms)."""
    finder = palace_window.panels.conflicts.finder
    heard: list = []
    finder.found.connect(lambda conflicts, suggestions: heard.append((conflicts, suggestions)))
    finder.suggested.connect(lambda suggestions: heard.append(suggestions))
    suggestions = list(finder.suggestions)
    conflicts = [dict(row) for found in suggestions for row in found["pairs"]]  # shaped alike
    assert conflicts
    finder._answered(("suggestions", suggestions))
    finder._answered(("conflicts", conflicts))
    assert heard[0] is suggestions
    assert heard[1][0] is conflicts and heard[1][1] is suggestions
