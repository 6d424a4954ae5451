"""The store's façade: ``KnowledgeGraph``, MemPalace's class and what the app adds, over an engine.

``KnowledgeGraph(path)`` opens (or creates) a SQLite file as MemPalace's class does;
:func:`open_graph` is the one way in for the app. The façade checks input and turns names into
ids; the engine behind it (:mod:`factlines.core.store.protocol`) stores and finds rows.

Read-only (``read_only=True``, or automatically when the file, its folder or its side files may
not be written): ``read_only`` and ``read_only_reason`` say so, and every method that writes
raises :class:`~factlines.core.errors.ReadOnlyGraph` before doing anything.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from factlines.core.errors import NotAKnowledgeGraph, Refused
from factlines.core.progress import Progress
from factlines.core.store import places
from factlines.core.store.as_recorded import RecordedView
from factlines.core.store.bulk import BulkRows
from factlines.core.store.changes import Change, Touched
from factlines.core.store.duplicates import DuplicateEntities
from factlines.core.store.edit_history import EditHistory
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.fact_edits import FactEdits
from factlines.core.store.graph_settings import GraphSettings
from factlines.core.store.history import GraphHistory
from factlines.core.store.mempalace import MemPalaceSurface
from factlines.core.store.neighbourhood import GraphNeighbourhood
from factlines.core.store.predicate_edits import PredicateEdits
from factlines.core.store.protocol import WRITE_WAIT, GraphStore
from factlines.core.store.replication import MemPalaceReplication
from factlines.core.store.resolve import ConflictResolution
from factlines.core.store.review import GraphReview
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS

# What names a graph on a PostgreSQL server rather than a file.
DATABASE_URL_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_KG_PATH = os.path.expanduser("~/.mempalace/knowledge_graph.sqlite3")
# MemPalace 3.11's tables, column for column (contract §1.2).
MEMPALACE_COLUMNS = {"entities": ENTITY_COLUMNS, "triples": TRIPLE_COLUMNS}


class KnowledgeGraph(
    MemPalaceSurface,
    MemPalaceReplication,
    EntityEdits,
    FactEdits,
    GraphSettings,
    GraphHistory,
    PredicateEdits,
    GraphNeighbourhood,
    BulkRows,
    EditHistory,
    GraphReview,
    RecordedView,
    DuplicateEntities,
    ConflictResolution,
):
    """A temporal knowledge graph, readable and writable by MemPalace too."""

    def __init__(
        self,
        db_path: str | os.PathLike | None = None,
        *,
        read_only: bool = False,
        initialize_empty: bool = False,
        store: GraphStore | None = None,
        write_wait: float = WRITE_WAIT,
    ):
        """Open the graph at ``db_path`` (MemPalace's default path when None), a SQLite file,
        or a PostgreSQL database named by its URL (``postgresql://…``; one graph per database,
        made in an empty one; needs ``factlines[postgres]``).

        A missing file is created (not when ``read_only``); an existing empty file is made a
        graph only with ``initialize_empty`` (it may be a file picked by mistake).
        ``write_wait``: seconds the app's own edits wait for another program's write to end
        before failing as :class:`~factlines.core.errors.Unavailable` ("locked by another
        program, try again"); MemPalace's methods wait as long as MemPalace does.
        """
        if store is None and is_database_url(db_path):
            from factlines.core.store.postgres import PostgresStore

            store = PostgresStore(str(db_path), read_only=read_only, write_wait=write_wait)
        if store is None:
            from factlines.core.store.sqlite import SQLiteStore

            path = str(db_path) if db_path is not None else DEFAULT_KG_PATH
            if db_path is None and not read_only:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(
                path,
                read_only=read_only,
                initialize_empty=initialize_empty,
                write_wait=write_wait,
            )
        self._store = store
        self.db_path = store.location

    @property
    def on_server(self) -> bool:
        """The graph is a database on a PostgreSQL server, not a file (``db_path`` is then its
        URL without the password): no file to back up, watch or resolve."""
        return is_database_url(self.db_path)

    @property
    def engine(self) -> str:
        """The engine and its version holding this graph: ``SQLite 3.40.1``, ``PostgreSQL 15.18``
        (the server's)."""
        return self._store.engine

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

    @property
    def read_only(self) -> bool:
        """Nothing can be written: asked for, or the file may not be written by this user."""
        return self._store.read_only

    @property
    def read_only_reason(self) -> str | None:
        """Why the graph is read-only, in words for a banner; None when it is not."""
        return self._store.read_only_reason

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
        self._store.refuse_writes()
        with self._store.transaction():
            yield

    @contextmanager
    def recording(self) -> Iterator[Change]:
        """Record the row images of every write inside the block, for :meth:`revert`."""
        with self._store.recording() as change:
            yield change

    def adopt(self, change: Change) -> None:
        """Make a step recorded through another ``KnowledgeGraph`` on this graph, in this
        process (a worker thread's own), one this one can undo: from now on, a write of anyone
        but this one counts as another writer's (§5.2)."""
        self._store.adopt(change)

    def revert(self, change: Change, force: bool = False, log: str | None = None) -> None:
        """Put back the rows a recorded change wrote (undo). Refused if they changed since;
        and, unless ``force`` (the person knows), where it would delete or end a fact another
        writer may rely on: anyone else wrote the graph since the step, or MemPalace's write
        log shows it asserting one of those facts (:class:`~factlines.core.errors.WrittenSince`).
        ``log``: the words of its entry in Factlines' edit log (as :meth:`logged` writes it)."""
        self.replay_step(change, True, force, log)

    def reapply(self, change: Change, force: bool = False, log: str | None = None) -> None:
        """Write again the rows a reverted change had written (redo); refused as :meth:`revert`."""
        self.replay_step(change, False, force, log)

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

    # ── A copy of the file ────────────────────────────────────────────────

    def backup_to(self, path: str | os.PathLike, progress: Progress | None = None) -> Path:
        """Copy the whole graph, as committed now, into a new file at ``path`` (its folder
        must exist) and return that path. Another program may go on writing meanwhile; a
        read-only graph can be copied too. ``progress(done, total)`` hears the megabytes
        copied (returning False cancels: ``Cancelled``, nothing left). The copy reads through
        a connection of its own, so it may run on another thread while this graph is used.
        Refused when ``path`` exists (a copy never overwrites); Unavailable when it cannot be
        written (no room, no permission)."""
        target = Path(path).expanduser()
        if target.exists() or target.is_symlink():
            raise Refused(f"{target} already exists; a copy never overwrites a file")
        self._store.backup_to(str(target), progress)
        return target

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

    # ── Our indexes ───────────────────────────────────────────────────────
    # Opening never builds an index on an existing file. Each method below that builds or
    # drops works on a connection of its own, one index per short transaction, so it can run
    # on a worker thread while this graph is read; readers see the result when it commits.

    def missing_indexes(self) -> list[str]:
        """The default indexes (small, chosen for what the app shows) this file still lacks;
        always empty on a read-only graph, where nothing is built."""
        return self._store.missing_indexes()

    def build_indexes(self, progress: Callable[[int, int, str], None] | None = None) -> list:
        """Build the missing default indexes; ``progress(done, total, name)`` before each and
        at the end. Returns the names built."""
        return self._store.build_indexes(progress)

    def speed_indexes(self) -> list[str]:
        """The opt-in speed indexes this file has."""
        return self._store.speed_indexes()

    def speed_index_cost(self) -> float:
        """About how many MB the missing speed indexes would add to the file (an estimate
        from a sample of rows, for asking the person before :meth:`add_speed_indexes`)."""
        return self._store.speed_index_cost() / 1e6

    def add_speed_indexes(self, progress: Callable[[int, int, str], None] | None = None) -> list:
        """Build the speed indexes: faster per-entity views, timelines and time span on huge
        graphs, for the size :meth:`speed_index_cost` says. Each build holds the file's write
        lock while it runs (0.3 to 2 s each on a million facts): MemPalace waits meanwhile."""
        return self._store.add_speed_indexes(progress)

    def remove_speed_indexes(self, progress: Callable[[int, int, str], None] | None = None):
        """Drop the speed indexes, one per transaction (up to ~0.7 s each on a million facts).
        SQLite reuses their pages; the file shrinks only when vacuumed."""
        return self._store.remove_speed_indexes(progress)


# Every method that writes, refused up front on a read-only graph (the engine refuses any
# write too, but only once the arguments have been checked and the rows read).
WRITE_METHODS = (
    "add_entity",
    "add_triple",
    "invalidate",
    "supersede",
    "seed_from_entity_facts",
    "rewrite",
    "apply_row",
    "insert_rows",
    "batched",
    "logged",
    "add_edit_log_entries",
    "set_graph_settings",
    "update_fact",
    "add_fact",
    "supersede_fact",
    "end_fact",
    "delete_fact",
    "rename_entity",
    "set_entity_type",
    "set_entity_properties",
    "merge_entities",
    "set_single_valued",
    "mark_reviewed",
    "keep_reviewed",
    "mark_not_duplicates",
    "merge_duplicates",
    "resolve_conflict",
    "rename_predicate",
    "revert",
    "reapply",
    "build_indexes",
    "add_speed_indexes",
    "remove_speed_indexes",
)


def _refused_when_read_only(method):
    @functools.wraps(method)
    def write(self, *args, **kwargs):
        self._store.refuse_writes()
        return method(self, *args, **kwargs)

    return write


for _name in WRITE_METHODS:
    if hasattr(KnowledgeGraph, _name):
        setattr(KnowledgeGraph, _name, _refused_when_read_only(getattr(KnowledgeGraph, _name)))


def is_database_url(location: object) -> bool:
    """Whether ``location`` is a PostgreSQL URL (``postgresql://…``) rather than a file path."""
    return isinstance(location, str) and location.startswith(DATABASE_URL_SCHEMES)


def engine_version() -> str:
    """The storage engine's library and version, e.g. ``SQLite 3.40.1``."""
    from factlines.core.store.sqlite import engine_version as sqlite_version

    return sqlite_version()


def open_graph(
    location: str | os.PathLike,
    *,
    create: bool = True,
    read_only: bool = False,
    initialize_empty: bool = False,
) -> KnowledgeGraph:
    """Open the knowledge graph at ``location`` (a file path, or a ``postgresql://`` URL)
    behind the store's façade.

    With ``create=False`` (and always with ``read_only``) a location where no file exists is
    refused instead of created. An existing empty file (any file of 0 bytes, or a SQLite
    database without tables) is refused untouched unless ``initialize_empty``: ask the person
    first. Read-only is also chosen automatically when the file may not be written; see
    ``KnowledgeGraph.read_only_reason``.
    """
    if is_database_url(location):
        return KnowledgeGraph(location, read_only=read_only)
    path = Path(location).expanduser()
    found = places.look_at(path)
    if (not create or read_only) and found is None:
        raise Refused(f"{path} does not exist")
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise NotAKnowledgeGraph(f"{path} is not a file")
    return KnowledgeGraph(path, read_only=read_only, initialize_empty=initialize_empty)


def graph_exists(location: str | os.PathLike) -> bool:
    """Whether something is at ``location`` already: a file exists; a PostgreSQL database has
    tables. Another URL is taken to exist: its engine opens what is there."""
    if is_database_url(location):
        from factlines.core.store.postgres import graph_at

        return graph_at(location)
    if _is_url(location):
        return True
    return places.exists(Path(location).expanduser())


def discard_new_graph(location: str | os.PathLike) -> None:
    """Remove the graph a command created at ``location`` moments ago and then wrote nothing
    into, or took back all it wrote (an import that wrote nothing, a cancelled copy): the file
    and its side files, or a PostgreSQL database's new tables; only while it holds exactly
    what the command created (no row of anyone's; a file no other program has open).
    Otherwise it stays as it is. Only for a location :func:`graph_exists` said was free."""
    if is_database_url(location):
        from factlines.core.store.postgres import discard_new_graph as discard_tables

        return discard_tables(location)
    if _is_url(location):
        return
    from factlines.core.store.sqlite import discard_new_graph as discard_file

    discard_file(str(Path(location).expanduser()))


def same_graph(first: str | os.PathLike, second: str | os.PathLike) -> bool:
    """Whether two locations name one graph (two paths to one file, or one URL twice)."""
    if _is_url(first) or _is_url(second):
        return str(first) == str(second)
    one, other = Path(first).expanduser(), Path(second).expanduser()
    if one.exists() and other.exists():
        return one.samefile(other)
    return one.resolve() == other.resolve()


def _is_url(location: str | os.PathLike) -> bool:
    return "://" in str(location)
