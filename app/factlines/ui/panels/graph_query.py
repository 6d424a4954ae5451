"""One question asked of the whole graph (the predicates' figures), asked again after writes.

It is found on a worker thread at every size (:mod:`.background`, a read-only store of its
own). Writes ask again, once they stop coming for a moment; a run still going when another is
asked finishes, its answer is dropped, and the newest question is run. A paused query (a panel out
of sight) only notes that it must ask again, and does when it is resumed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from factlines import KnowledgeGraph
from factlines.core.store import Touched
from factlines.ui.jobs.whole_graph import WholeGraphQuestion
from factlines.ui.session.state import AppState


class GraphQuery(WholeGraphQuestion):
    """Finds ``ask(kg)`` and says so: ``running(words)`` once a run lasts long enough to say so,
    ``found(answer)`` with the answer (``empty`` when no graph is open), ``failed(words)`` when
    the store could not be read. ``what`` names the answer in those words (``predicates``).
    ``bring_in(touched)``, if given, brings the answer shown up to date with a write instead
    of asking again, and says whether it could."""

    running = Signal(str)
    found = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        state: AppState,
        ask: Callable[[KnowledgeGraph], object],
        empty: object,
        what: str,
        parent: QObject | None = None,
        bring_in: Callable[[Touched], bool] | None = None,
    ):
        super().__init__(state, parent)
        self._ask = ask
        self._bring_in = bring_in
        self._empty = empty
        self._paused = False
        self._stale = False
        self.reader.answered.connect(self.found)
        self.reader.slow.connect(lambda: self.running.emit(f"Finding {what}…"))
        self.reader.failed.connect(lambda words: self.failed.emit(f"Cannot find {what}: {words}"))

    def brought_in(self, touched: Touched) -> bool:
        return self._bring_in is not None and self._bring_in(touched)

    def set_paused(self, paused: bool) -> None:
        """Paused, only note that the graph changed; resumed, ask then if it did."""
        self._paused = paused
        if not paused and self._stale:
            self.refresh_now()

    def refresh_now(self) -> None:
        self._timer.stop()
        if self._paused:
            self._stale = True
            return
        self._stale = False
        kg = self._state.kg
        if kg is None or kg.closed:
            self.found.emit(self._empty)
            return
        ask = self._ask
        self.reader.start(str(kg.db_path), lambda kg, _progress: ask(kg))
