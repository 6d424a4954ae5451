"""One question asked of the whole graph (the predicates' figures), asked again after writes.

On a small graph the answer takes a few milliseconds and is found where it is asked. On a big
one it is found on a worker thread (:mod:`.background`, a read-only store of its own). Writes
ask again, once they stop coming for a moment; a run still going when another is asked
finishes, its answer is dropped, and the newest question is run. A paused query (a panel out
of sight) only notes that it must ask again, and does when it is resumed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from factlines import KnowledgeGraph
from factlines.core.errors import Refused, Unavailable
from factlines.ui.errors import in_words
from factlines.ui.panels.background import THREAD_ABOVE, BackgroundRead
from factlines.ui.state import AppState

REFRESH_MS = 300  # writes in a row are looked at once, this long after the last


class GraphQuery(QObject):
    """Finds ``ask(kg)`` and says so: ``running(words)`` when a run starts off the UI thread,
    ``found(answer)`` with the answer (``empty`` when no graph is open), ``failed(words)`` when
    the store could not be read. ``what`` names the answer in those words (``predicates``)."""

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
    ):
        super().__init__(parent)
        self._state = state
        self._ask = ask
        self._empty = empty
        self._what = what
        self.thread_above = THREAD_ABOVE
        self._opened = False
        self._paused = False
        self._stale = False
        self._reader = BackgroundRead(f"factlines-{what}", self)
        self._reader.answered.connect(self.found)
        self._reader.failed.connect(self._failed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh_now)
        state.graphChanged.connect(self._graph_changed)
        state.dataChanged.connect(self.refresh_soon)

    @property
    def busy(self) -> bool:
        """A run is going on a worker thread, or one is waiting for writes to stop."""
        return self._reader.busy or self._timer.isActive()

    def set_paused(self, paused: bool) -> None:
        """Paused, only note that the graph changed; resumed, ask then if it did."""
        self._paused = paused
        if not paused and self._stale:
            self.refresh_now()

    def _graph_changed(self) -> None:
        self._reader.forget()  # whatever runs now is about the previous graph
        self.refresh_now()
        self._opened = True  # the "all rows changed" that follows an open is this one

    def refresh_soon(self, *_touched) -> None:
        if self._opened:
            self._opened = False
            return
        self._timer.start()

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
        try:
            facts = kg.stats()["triples"]
            if facts >= self.thread_above or self._reader.busy:
                self.running.emit(f"Finding {self._what} among {facts:,} facts…")
                ask = self._ask
                self._reader.start(str(kg.db_path), lambda kg, _progress: ask(kg))
                return
            answer = self._ask(kg)
        except (Refused, Unavailable) as exc:
            self.failed.emit(f"Cannot find {self._what}: {in_words(exc)}")
            return
        self.found.emit(answer)

    def _failed(self, error: Exception) -> None:
        if isinstance(error, (Refused, Unavailable)):
            self.failed.emit(f"Cannot find {self._what}: {in_words(error)}")
        # a bug: the reader raises it next, to the error handler

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the worker (if any) is done (for closing and for tests)."""
        self._reader.wait(timeout)
