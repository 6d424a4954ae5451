"""The graph's figures the window shows all the time: its time span (the time control's range)
and its counts (the status bar).

Without Factlines' speed indexes both read every fact; after a write (ours, or another
program's) they are read again off the UI thread (:mod:`.background`), once writes stop coming
for a moment. At an open the window reads them itself, as it is built.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from factlines import KnowledgeGraph
from factlines.core.progress import report
from factlines.ui.jobs.whole_graph import WholeGraphQuestion


def read_figures(kg: KnowledgeGraph, progress=None) -> tuple[tuple[str, str] | None, dict]:
    """(the time span, the counts) of ``kg``; a cancel (closing the window) stops it between
    the two."""
    span = kg.time_span()
    report(progress, 1, 2)
    return span, kg.stats()


class GraphFigures(WholeGraphQuestion):
    """``found(span, stats)`` after writes (:func:`read_figures`); ``failed(words)``."""

    found = Signal(object, object)
    failed = Signal(str)

    def __init__(self, state, parent: QObject | None = None):
        super().__init__(state, parent)
        self.reader.answered.connect(lambda figures: self.found.emit(*figures))
        self.reader.failed.connect(self.failed)

    def _graph_changed(self) -> None:
        self.reader.forget()  # whatever runs now is about the previous graph
        self._opened = True  # the window read the new graph's figures as it opened it

    def refresh_now(self) -> None:
        self._timer.stop()
        kg = self._state.kg
        if kg is not None and not kg.closed:
            self.reader.start(str(kg.db_path), read_figures)
