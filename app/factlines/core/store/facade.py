"""The store's façade: ``KnowledgeGraph``, MemPalace's class and what the app adds, over an engine.

``KnowledgeGraph(path)`` opens (or creates) a SQLite file as MemPalace's class does;
:func:`open_graph` is the one way in for the app. The façade checks input and turns names into
ids; the engine behind it (:mod:`factlines.core.store.protocol`) stores and finds rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from factlines.core.errors import NotAKnowledgeGraph, Refused
from factlines.core.store.changes import Change, Touched
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.fact_edits import FactEdits
from factlines.core.store.graph_settings import GraphSettings
from factlines.core.store.mempalace import MemPalaceSurface
from factlines.core.store.protocol import WRITE_WAIT, GraphStore
from factlines.core.store.replication import MemPalaceReplication

DEFAULT_KG_PATH = os.path.expanduser("~/.mempalace/knowledge_graph.sqlite3")
# MemPalace 3.11's tables, column for column (contract §1.2).
MEMPALACE_COLUMNS = {
    "entities": ("id", "name", "type", "properties", "created_at"),
    "triples": (
        "id",
        "subject",
        "predicate",
        "object",
        "valid_from",
        "valid_to",
        "confidence",
        "source_closet",
        "source_file",
        "source_drawer_id",
        "adapter_name",
        "extracted_at",
    ),
}


class KnowledgeGraph(MemPalaceSurface, MemPalaceReplication, EntityEdits, FactEdits, GraphSettings):
    """A temporal knowledge graph, readable and writable by MemPalace too."""

    def __init__(
        self,
        db_path: str | os.PathLike | None = None,
        *,
        store: GraphStore | None = None,
        write_wait: float = WRITE_WAIT,
    ):
        """Open (or create) the graph at ``db_path`` (MemPalace's default path if None).

        ``write_wait``: seconds the app's own edits wait for another program's write to end
        before failing as :class:`~factlines.core.errors.Unavailable` ("locked by another
        program, try again"); MemPalace's methods wait as long as MemPalace does.
        """
        if store is None:
            from factlines.core.store.sqlite import SQLiteStore

            path = str(db_path) if db_path is not None else DEFAULT_KG_PATH
            if db_path is None:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(path, write_wait)
        self._store = store
        self.db_path = store.location

    @property
    def write_wait(self) -> float:
        """Seconds the app's own edits wait for another program's write (see ``__init__``)."""
        return self._store.write_wait

    @write_wait.setter
    def write_wait(self, seconds: float) -> None:
        self._store.write_wait = seconds

    # ── Lifecycle ─────────────────────────────────────────────────────────

    def close(self) -> None:
        # Under the lock, as MemPalace's close: never in the middle of another thread's call.
        with self._lock:
            self._store.close()

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.close()
        return False

    @property
    def closed(self) -> bool:
        return self._store.closed

    # ── What MemPalace's own code and tests reach for past its methods ────

    @property
    def _lock(self) -> AbstractContextManager:
        """The lock every call of this graph holds (MemPalace's ``kg._lock``); re-entrant."""
        return self._store.lock

    def _conn(self):
        """The SQLite connection as MemPalace's code uses it (``kg._conn()``): rows by column
        name, statements under :attr:`_lock`, ``with conn:`` as one write, ``close()`` closing
        the graph (:mod:`factlines.core.store.sqlite.compat`). SQLite engines only."""
        opener = getattr(self._store, "mempalace_connection", None)
        if opener is None:
            raise NotImplementedError(f"{type(self._store).__name__} has no SQLite connection")
        return opener()

    @property
    def _connection(self):
        """MemPalace's attribute: the connection :meth:`_conn` gives, None once closed."""
        return None if self.closed else self._conn()

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

    # ── What the file holds (read only) ───────────────────────────────────

    def factlines_objects(self) -> list[tuple[str, str]]:
        """What Factlines added to the file (contract §1.4): its tables, then its indexes,
        each ``(kind, name)`` with the ``fl_`` prefix."""
        return self._store.own_objects()

    def missing_mempalace_columns(self) -> dict[str, list[str]]:
        """MemPalace 3.11's columns the file's tables lack, by table; empty when it has them
        all (contract §1.2)."""
        missing = {}
        for table, wanted in MEMPALACE_COLUMNS.items():
            present = set(self._store.columns(table))
            if gaps := [column for column in wanted if column not in present]:
                missing[table] = gaps
        return missing


def engine_version() -> str:
    """The storage engine's library and version, e.g. ``SQLite 3.40.1``."""
    from factlines.core.store.sqlite import engine_version as sqlite_version

    return sqlite_version()


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
