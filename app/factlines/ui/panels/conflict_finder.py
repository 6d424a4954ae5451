"""Finding every conflict in the graph, and the predicates that look single-valued.

At every size this runs on a worker thread (:mod:`.background`); past a moment it says how
far it is and can be cancelled. The conflicts are shown as soon as they are found, the
suggestions (a read of every fact) follow in a second read. Writes ask again, once they stop
coming for a moment; a run still going when another is asked finishes, its answer is dropped,
and the newest question is run.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from factlines.ui.jobs.whole_graph import WholeGraphQuestion
from factlines.ui.session.state import AppState


class ConflictFinder(WholeGraphQuestion):
    """Finds ``kg.conflicts()`` and ``kg.single_valued_suggestions()`` on a worker thread and
    says so: ``running(words)`` once a run lasts long enough to show progress,
    ``progressed(done, total)`` as it goes, ``found(conflicts, suggestions)`` with the answer
    (and the suggestions found last time), ``suggested(suggestions)`` when the new ones
    follow, ``failed(words)`` when the store could not be read or the run was cancelled."""

    running = Signal(str)
    progressed = Signal(int, int)
    # object, not list: a signal of lists converts every row to Qt's variants and back (20,000
    # conflicts: 330 ms on the UI thread); the rows are handed over as they are.
    found = Signal(object, object)
    suggested = Signal(object)
    failed = Signal(str)

    def __init__(self, state: AppState, parent: QObject | None = None):
        super().__init__(state, parent)
        self._suggestions: list[dict] = []
        self._counting = False  # the read under way is the conflicts' (not the suggestions')
        self.reader.answered.connect(self._answered)
        self.reader.slow.connect(self._slow)
        self.reader.progressed.connect(self.progressed)
        self.reader.failed.connect(lambda words: self.failed.emit(f"Conflicts not found: {words}"))
        self.reader.cancelled.connect(lambda: self.failed.emit("Conflicts not counted: cancelled"))
        self.reader.broke.connect(
            lambda: self.failed.emit("Conflicts not counted: the search failed")
        )

    @property
    def suggestions(self) -> list[dict]:
        """The single-valued suggestions found last (``kg.single_valued_suggestions()``)."""
        return self._suggestions

    def refresh_now(self) -> None:
        self._timer.stop()
        kg = self._state.kg
        if kg is None or kg.closed:
            self._suggestions = []
            self.found.emit([], [])
            return
        self._counting = True
        self.reader.start(str(kg.db_path), _conflicts)

    def _slow(self) -> None:
        if self._counting:
            self.running.emit("Finding conflicts in the whole graph…")

    def _answered(self, answer: tuple[str, list]) -> None:
        what, rows = answer
        if what == "suggestions":
            self._suggestions = rows
            self.suggested.emit(rows)
            return
        self._counting = False
        self.found.emit(rows, self._suggestions)
        kg = self._state.kg
        if kg is not None and not kg.closed:
            self.reader.start(str(kg.db_path), _suggestions)

    def cancel(self) -> None:
        """Stop the run going on the worker thread (at the store's next step) and drop it."""
        self._timer.stop()
        self.reader.cancel()


def _conflicts(kg, progress) -> tuple[str, list]:
    """On the worker: the conflicts, step by step."""
    return "conflicts", kg.conflicts(progress=progress)


def _suggestions(kg, _progress) -> tuple[str, list]:
    """On the worker: the suggestions, each of their rows saying why it is likely (so the UI
    thread only picks rows, however many handovers a big graph has)."""
    found = kg.single_valued_suggestions()
    for suggestion in found:
        for row in suggestion["pairs"]:
            row["likely"] = suggestion["text"]
    return "suggestions", found
