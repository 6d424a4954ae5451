"""The conflicts panel: every conflict listed, a jump to each, fixes that are one
undo step each and land in the file, single-valued suggestions marked with one click, and the
count in the status bar; at every size the search runs on a worker thread."""

from __future__ import annotations

import sqlite3
import threading

from PySide6.QtWidgets import QAbstractItemView, QLabel, QPushButton

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import file_fact


def conflicts_view(window) -> QAbstractItemView:
    view = window.findChild(QAbstractItemView, "conflictsPanel")
    assert view is not None
    return view


def count_text(window) -> str:
    return window.findChild(QLabel, "conflictCountLabel").text()


def row_of(panel, subject: str, predicate: str) -> int:
    for number, row in enumerate(panel.model.rows):
        if (row["subject"], row["predicate"]) == (subject, predicate):
            return number
    raise AssertionError(f"no conflict of {subject} {predicate}")


def test_every_conflict_is_listed_in_words_and_counted(window, qtmodeltester):
    panel = window.panels.conflicts
    view = conflicts_view(window)
    assert view.model() is panel.model
    assert panel.model.rows == window.kg.conflicts()
    assert count_text(window) == f"⚠ {len(window.kg.conflicts())} conflicts"
    model = view.model()
    row = row_of(panel, "kai_moreno", "lives_in")
    said = [model.index(row, column).data() for column in range(model.columnCount())]
    assert said == [
        "Overlap",
        "Kai Moreno",
        "lives_in",
        "Berlin (2018-09-01 – 2023-08-31)",
        "Lisbon (2023-06-01 – open)",
        "2023-06-01 – 2023-08-31",
    ]
    qtmodeltester.check(model)


def test_choosing_a_conflict_jumps_to_it_and_a_fix_is_one_undo_step(window, qtbot):
    panel, view = window.panels.conflicts, conflicts_view(window)
    path = window.path()
    row = row_of(panel, "kai_moreno", "lives_in")
    conflict = panel.model.rows[row]
    index = view.model().index(row, 0)

    view.activated.emit(index)
    assert window.selected_entity() == "kai_moreno"
    assert window.as_of() == "2023-06-01"  # inside the overlap
    assert window.selected_fact() == conflict["a"]

    view.setCurrentIndex(index)
    button = window.findChild(QPushButton, "conflictFix_end_first")
    assert button.isEnabled()
    before = window.undo_stack.count()
    button.click()
    assert window.undo_stack.count() == before + 1
    assert file_fact(path, conflict["a"])["valid_to"] == "2023-05-31"  # the day before Lisbon
    qtbot.waitUntil(lambda: len(panel.model.rows) == 1, timeout=3000)
    assert count_text(window) == "⚠ 1 conflict"

    window.undo_stack.undo()
    assert file_fact(path, conflict["a"])["valid_to"] == "2023-08-31"
    qtbot.waitUntil(lambda: len(panel.model.rows) == 2, timeout=3000)


def test_the_second_fact_can_start_after_the_first_instead(window, qtbot):
    panel = window.panels.conflicts
    row = row_of(panel, "kai_moreno", "lives_in")
    conflict = panel.model.rows[row]
    fixes = panel.fixes(row)
    assert fixes["swap"].reason is not None  # not an inverted interval
    assert panel.apply_fix("start_second", row)
    assert file_fact(window.path(), conflict["b"])["valid_from"] == "2023-09-01"
    qtbot.waitUntil(lambda: len(panel.model.rows) == 1, timeout=3000)
    window.undo_stack.undo()
    assert file_fact(window.path(), conflict["b"])["valid_from"] == "2023-06-01"


def test_an_inverted_interval_is_listed_and_swapped(window, qtbot):
    conn = sqlite3.connect(window.path())
    with conn:
        conn.execute(
            "UPDATE triples SET valid_from = '2021-05-01', valid_to = '2019-01-01' "
            "WHERE id = (SELECT id FROM triples WHERE predicate = 'mentors' ORDER BY id LIMIT 1)"
        )
    conn.close()
    panel = window.panels.conflicts
    window.check_external_changes()
    qtbot.waitUntil(lambda: any(r["kind"] == "inverted" for r in panel.model.rows), timeout=3000)
    row = next(i for i, r in enumerate(panel.model.rows) if r["kind"] == "inverted")
    tid = panel.model.rows[row]["a"]
    assert panel.model.index(row, 0).data() == "Ends before it starts"
    assert panel.apply_fix("swap", row)
    fact = file_fact(window.path(), tid)
    assert (fact["valid_from"], fact["valid_to"]) == ("2019-01-01", "2021-05-01")
    qtbot.waitUntil(
        lambda: not any(r["kind"] == "inverted" for r in panel.model.rows), timeout=3000
    )


def test_a_suggested_predicate_is_marked_with_one_click_and_undone(window, qtbot):
    panel = window.panels.conflicts
    before = len(panel.model.rows)
    button = window.findChild(QPushButton, "markSingleValued_works_at")
    assert button is not None
    assert (
        "works_at: 100% of 9 subjects hold one at a time; 2 of 3 changes follow on within a "
        "month; 0 overlaps"
    ) in [label.text() for label in panel.suggestions.findChildren(QLabel)]
    button.click()
    assert "works_at" in window.kg.single_valued_predicates()
    assert window.undo_stack.undoText() == "Mark works_at single-valued"
    qtbot.waitUntil(lambda: window.findChild(QPushButton, "markSingleValued_works_at") is None)
    window.undo_stack.undo()
    assert "works_at" not in window.kg.single_valued_predicates()
    qtbot.waitUntil(lambda: len(panel.model.rows) == before, timeout=3000)


def test_marking_uses_reveals_its_overlaps(window, qtbot):
    panel = window.panels.conflicts
    before = len(panel.model.rows)
    assert panel.mark("uses")
    qtbot.waitUntil(lambda: len(panel.model.rows) > before, timeout=3000)
    assert len(panel.model.rows) == len(window.kg.conflicts())
    assert count_text(window) == f"⚠ {len(panel.model.rows)} conflicts"


def held_at_each_step(monkeypatch, gate: threading.Event) -> None:
    """``kg.conflicts`` waits for ``gate`` at each of its steps (the test has seen the run)."""
    counting = KnowledgeGraph.conflicts

    def held_conflicts(kg, entity=None, progress=None):
        def held(done, total):
            gate.wait(10)
            return progress(done, total)

        return counting(kg, entity, held if progress else None)

    monkeypatch.setattr(KnowledgeGraph, "conflicts", held_conflicts)


def test_after_an_edit_of_a_small_graph_the_conflicts_are_counted_off_the_ui_thread(
    window, qtbot, monkeypatch
):
    panel = window.panels.conflicts
    finder = panel.finder
    threads: list[threading.Thread] = []  # where each whole-graph read ran
    for name in ("conflicts", "single_valued_suggestions"):
        read = getattr(KnowledgeGraph, name)

        def recorded(kg, *args, _read=read, **kwargs):
            threads.append(threading.current_thread())
            return _read(kg, *args, **kwargs)

        monkeypatch.setattr(KnowledgeGraph, name, recorded)
    window.kg.set_single_valued("works_at")  # a write: the panel looks again
    qtbot.waitUntil(lambda: len(threads) >= 2 and not finder.busy, timeout=10000)
    assert threading.main_thread() not in threads
    assert panel.model.rows == window.kg.conflicts() and panel.model.rows


def test_a_long_search_shows_its_progress(window, qtbot, monkeypatch):
    panel = window.panels.conflicts
    finder = panel.finder
    gate = threading.Event()
    held_at_each_step(monkeypatch, gate)
    seen: list[tuple] = []  # what the panel showed as the run started (after its own slot)
    finder.running.connect(
        lambda words: seen.append((words, panel.progress.isVisibleTo(panel), count_text(window)))
    )
    steps: list[tuple] = []
    finder.progressed.connect(
        lambda done, total: steps.append((done, total, panel.progress.value()))
    )
    window.kg.set_single_valued("works_at")  # a write: the panel looks again, off the UI thread
    qtbot.waitUntil(lambda: bool(seen), timeout=3000)  # said once the run lasts a moment
    gate.set()
    words, progress_shown, counting = seen[0]
    assert words == "Finding conflicts in the whole graph…" and progress_shown
    assert counting == "Counting conflicts…"
    qtbot.waitUntil(lambda: not finder.busy, timeout=10000)
    assert panel.model.rows == window.kg.conflicts()
    assert not panel.progress.isVisibleTo(panel)
    # Told how far it is: reading the marked facts, their overlaps, the odd facts, the order
    # (the job passes on a step at most every few milliseconds: not each one).
    assert steps and all(total == 4 for _done, total, _shown in steps)
    assert [done for done, _total, _shown in steps] == sorted({s[0] for s in steps})
    assert all(done == shown for done, _total, shown in steps)  # the bar shows each

    # The suggestions follow, from a second read: works_at is no longer offered. (A new
    # line is shown by a queued event.)
    def offered() -> set[str]:
        labels = panel.suggestions.findChildren(QLabel)
        return {label.text() for label in labels if label.isVisibleTo(panel.suggestions)}

    wanted = {s["text"] for s in window.kg.single_valued_suggestions() if not s["marked"]}

    def marked_shown() -> bool:
        return any(t.startswith("Marked single-valued:") and "works_at" in t for t in offered())

    qtbot.waitUntil(lambda: wanted <= offered() and marked_shown(), timeout=3000)
    assert not any(text.startswith("works_at:") for text in offered())


def test_counting_on_the_worker_can_be_cancelled_and_started_again(window, qtbot, monkeypatch):
    panel = window.panels.conflicts
    finder = panel.finder
    gate = threading.Event()
    counting = KnowledgeGraph.conflicts
    held_at_each_step(monkeypatch, gate)
    shown = list(panel.model.rows)
    finder.refresh_now()
    qtbot.waitUntil(lambda: panel.cancel_button.isVisibleTo(panel), timeout=3000)
    assert finder.busy
    panel.cancel_button.click()
    assert panel.summary.text() == "Cancelling…" and not panel.cancel_button.isEnabled()
    gate.set()
    qtbot.waitUntil(lambda: not finder.busy, timeout=10000)
    assert panel.summary.text() == "Conflicts not counted: cancelled"
    assert count_text(window) == "Conflicts: not counted"
    assert not panel.cancel_button.isVisibleTo(panel) and not panel.progress.isVisibleTo(panel)
    assert panel.model.rows == shown  # the last answer stays listed

    monkeypatch.setattr(KnowledgeGraph, "conflicts", counting)
    assert panel.recount_button.isVisibleTo(panel)
    panel.recount_button.click()
    qtbot.waitUntil(lambda: not finder.busy, timeout=10000)
    assert panel.model.rows == window.kg.conflicts() and panel.model.rows
    assert count_text(window) == f"⚠ {len(panel.model.rows)} conflicts"
    assert not panel.recount_button.isVisibleTo(panel)


def test_a_bug_in_the_worker_reaches_the_error_handler(window, qtbot, monkeypatch, app_errors):
    panel = window.panels.conflicts
    finder = panel.finder

    def broken_conflicts(kg, entity=None, progress=None):
        raise KeyError("a bug in the worker")

    monkeypatch.setattr(KnowledgeGraph, "conflicts", broken_conflicts)
    finder.refresh_now()
    qtbot.waitUntil(lambda: bool(app_errors.reports), timeout=10000)
    [report] = app_errors.reports
    assert type(report.exception) is KeyError
    assert "broken_conflicts" in report.traceback  # the worker's own frames
    assert not finder.busy
    assert count_text(window) == "Conflicts: not counted"  # not left counting
    assert panel.recount_button.isVisibleTo(panel) and not panel.progress.isVisibleTo(panel)


def test_the_status_bar_count_shows_the_panel(window):
    window.panels.conflicts_dock.hide()
    window.findChild(QLabel, "conflictCountLabel").clicked.emit()
    assert window.panels.conflicts_dock.isVisible()


def test_the_suggestions_read_after_the_conflicts_does_not_say_it_counts(
    window, qtbot, monkeypatch
):
    panel = window.panels.conflicts
    finder = panel.finder
    suggesting = threading.Event()
    suggest = KnowledgeGraph.single_valued_suggestions

    def slow_suggestions(kg, *args, **kwargs):
        suggesting.set()
        threading.Event().wait(0.6)  # longer than the moment after which progress shows
        return suggest(kg, *args, **kwargs)

    monkeypatch.setattr(KnowledgeGraph, "single_valued_suggestions", slow_suggestions)
    said_while_suggesting: list[bool] = []
    finder.running.connect(lambda _words: said_while_suggesting.append(suggesting.is_set()))
    window.kg.set_single_valued("works_at")
    qtbot.waitUntil(lambda: suggesting.is_set() and not finder.busy, timeout=10000)
    assert True not in said_while_suggesting
    assert count_text(window) == f"⚠ {len(window.kg.conflicts())} conflicts"
    assert not panel.progress.isVisibleTo(panel)
