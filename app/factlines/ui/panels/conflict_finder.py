"""Finding every conflict in the graph, and the predicates that look single-valued.

On a small graph this is a few milliseconds and runs where it is asked. On a big one it runs
on a worker thread (:mod:`.background`), says how far it is and can be cancelled; the
conflicts are shown as soon as they are found, the suggestions (a read of every fact) follow
in a second read. Writes ask
again, once they stop coming for a moment; a run still going when another is asked finishes,
its answer is dropped, and the newest question is run.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Cancelled
from factlines.ui.errors import in_words
from factlines.ui.panels.background import WholeGraphQuestion
from factlines.ui.state import AppState


class ConflictFinder(WholeGraphQuestion):
    """Finds ``kg.conflicts()`` and ``kg.single_valued_suggestions()`` and says so:
    ``running(words)`` when a run starts off the UI thread, ``progressed(done, total)`` as it
    goes, ``found(conflicts, suggestions)`` with the answer (on a worker: the suggestions
    found last time), ``suggested(suggestions)`` when a worker has the new ones, ``failed(words)``
    when the store could not be read or the run was cancelled."""

    running = Signal(str)
    progressed = Signal(int, int)
    found = Signal(list, list)
    suggested = Signal(list)
    failed = Signal(str)

    def __init__(self, state: AppState, parent: QObject | None = None):
        super().__init__(state, "factlines-conflicts", parent)
        self._suggestions: list[dict] = []
        self.reader.answered.connect(self._answered)
        self.reader.progressed.connect(self.progressed)
        self.reader.failed.connect(self._failed)

    def refresh_now(self) -> None:
        self._timer.stop()
        kg = self._state.kg
        if kg is None or kg.closed:
            self._suggestions = []
            self.found.emit([], [])
            return
        try:
            facts = kg.stats()["triples"]
            if facts < self.thread_above and not self.reader.busy:
                conflicts, suggestions = kg.conflicts(), kg.single_valued_suggestions()
            else:
                self._start_worker(str(kg.db_path), facts)
                return
        except (Refused, Unavailable) as exc:
            self.failed.emit(f"Conflicts not found: {in_words(exc)}")
            return
        self._suggestions = suggestions
        self.found.emit(conflicts, suggestions)

    def _start_worker(self, path: str, facts: int) -> None:
        self.running.emit(f"Finding conflicts among {facts:,} facts…")
        self.reader.start(path, _conflicts)

    def _answered(self, answer: tuple[str, list]) -> None:
        what, rows = answer
        if what == "suggestions":
            self._suggestions = rows
            self.suggested.emit(rows)
            return
        self.found.emit(rows, self._suggestions)
        kg = self._state.kg
        if kg is not None and not kg.closed:
            self.reader.start(str(kg.db_path), _suggestions)

    def cancel(self) -> None:
        """Stop the run going on the worker thread (at the store's next step) and drop it."""
        self._timer.stop()
        self.reader.cancel()

    def _failed(self, error: Exception) -> None:
        if isinstance(error, Cancelled):
            self.failed.emit("Conflicts not counted: cancelled")
        elif isinstance(error, (Refused, Unavailable)):
            self.failed.emit(f"Conflicts not found: {in_words(error)}")
        else:  # a bug: the reader raises it next, to the error handler
            self.failed.emit("Conflicts not counted: the search failed")


def _conflicts(kg, progress) -> tuple[str, list]:
    """On the worker: the conflicts, step by step."""
    return "conflicts", kg.conflicts(progress=progress)


def _suggestions(kg, _progress) -> tuple[str, list]:
    return "suggestions", kg.single_valued_suggestions()
