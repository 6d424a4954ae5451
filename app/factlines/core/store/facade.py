"""The store's façade: ``KnowledgeGraph``, MemPalace's class and what the app adds, over an engine.

``KnowledgeGraph(path)`` opens (or creates) a SQLite file as MemPalace's class does;
:func:`open_graph` is the one way in for the app. The façade checks input and turns names into
ids; the engine behind it (:mod:`factlines.core.store.protocol`) stores and finds rows.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from factlines.core.errors import NotAKnowledgeGraph, Refused
from factlines.core.store.changes import Change, Touched
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.fact_edits import FactEdits
from factlines.core.store.graph_settings import GraphSettings
from factlines.core.store.history import GraphHistory
from factlines.core.store.mempalace import MemPalaceSurface
from factlines.core.store.protocol import GraphStore

DEFAULT_KG_PATH = os.path.expanduser("~/.mempalace/knowledge_graph.sqlite3")


class KnowledgeGraph(MemPalaceSurface, EntityEdits, FactEdits, GraphSettings, GraphHistory):
    """A temporal knowledge graph, readable and writable by MemPalace too."""

    def __init__(
        self, db_path: str | os.PathLike | None = None, *, store: GraphStore | None = None
    ):
        if store is None:
            from factlines.core.store.sqlite import SQLiteStore

            path = str(db_path) if db_path is not None else DEFAULT_KG_PATH
            if db_path is None:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(path)
        self._store = store
        self.db_path = store.location

    # ── Lifecycle ─────────────────────────────────────────────────────────

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.close()
        return False

    @property
    def closed(self) -> bool:
        return self._store.closed

    # MemPalace's own code reaches for the raw connection (``kg._conn()``, ``kg._connection``).
    def _conn(self) -> sqlite3.Connection:
        return self._store.connection

    @property
    def _connection(self) -> sqlite3.Connection:
        return self._store.connection

    # ── Writes as one, undo, and what changed ─────────────────────────────

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write: every write inside the block happens, or none does."""
        with self._store.transaction():
            yield

    @contextmanager
    def recording(self) -> Iterator[Change]:
        """Record the row images of every write inside the block, for :meth:`revert`."""
        with self._store.recording() as change:
            yield change

    def revert(self, change: Change) -> None:
        """Put back the rows a recorded change wrote (undo). Refused if they changed since."""
        self._store.revert(change)

    def reapply(self, change: Change) -> None:
        """Write again the rows a reverted change had written (redo)."""
        self._store.reapply(change)

    def add_listener(self, listener: Callable[[Touched], None]) -> None:
        """Call ``listener(touched)`` with the ids of the rows after every write committed here."""
        self._store.add_listener(listener)

    def remove_listener(self, listener: Callable[[Touched], None]) -> None:
        self._store.remove_listener(listener)

    def external_changes(self) -> Touched:
        """What other programs changed since the last call (empty when nothing). Cheap to poll."""
        return self._store.changed_externally()

    def changed_externally(self) -> bool:
        """Has another program written the graph since we last looked?"""
        return bool(self.external_changes())


def open_graph(location: str | os.PathLike, *, create: bool = True) -> KnowledgeGraph:
    """Open the knowledge graph at ``location`` (a file path) behind the store's façade.

    With ``create=False`` a location where no graph exists yet is refused instead of created.
    """
    path = Path(location).expanduser()
    if not create and not path.exists():
        raise Refused(f"{path} does not exist")
    if path.exists() and not path.is_file():
        raise NotAKnowledgeGraph(f"{path} is not a file")
    return KnowledgeGraph(path)
