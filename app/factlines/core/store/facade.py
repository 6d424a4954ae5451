"""The store's façade: ``KnowledgeGraph``, MemPalace's class and what the app adds, over an engine.

``KnowledgeGraph(path)`` opens (or creates) a SQLite file as MemPalace's class does;
:func:`open_graph` is the one way in for the app. The façade checks input and turns names into
ids; the engine behind it (:mod:`factlines.core.store.protocol`) stores and finds rows.

Read-only (``read_only=True``, or automatically when the file, its folder or its side files may
not be written): ``read_only`` and ``read_only_reason`` say so, and every method that writes
raises :class:`~factlines.core.errors.ReadOnlyGraph` before doing anything.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Literal, TypeGuard

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
from factlines.core.store.memories import SourceMemories
from factlines.core.store.mempalace import MemPalaceSurface
from factlines.core.store.neighbourhood import GraphNeighbourhood
from factlines.core.store.predicate_edits import PredicateEdits
from factlines.core.store.protocol import WRITE_WAIT, GraphStore
from factlines.core.store.replication import MemPalaceReplication
from factlines.core.store.resolve import ConflictResolution
from factlines.core.store.review import GraphReview
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS
from factlines.core.store.wiring import forwarded, is_write, writes

# What names a graph on a PostgreSQL server rather than a file.
DATABASE_URL_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_KG_PATH = os.path.expanduser("~/.mempalace/knowledge_graph.sqlite3")
# MemPalace 3.11's tables, column for column (contract §1.2).
MEMPALACE_COLUMNS = {"entities": ENTITY_COLUMNS, "triples": TRIPLE_COLUMNS}


class KnowledgeGraph:
    """A temporal knowledge graph, readable and writable by MemPalace too."""

    def __init__(
        self,
        db_path: str | os.PathLike[str] | None = None,
        *,
        read_only: bool = False,
        initialize_empty: bool = False,
        store: GraphStore | None = None,
        write_wait: float = WRITE_WAIT,
        scanning: bool = False,
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
        if store is None:
            store = _engine_for(db_path, read_only, initialize_empty, write_wait, scanning)
        self._store = store
        self.db_path = store.location
        self._log = EditHistory(store)
        self._recorded = RecordedView(store, self._log)
        self._mempalace = MemPalaceSurface(store, self._recorded)
        self._replication = MemPalaceReplication(store)
        self._entities = EntityEdits(store, self._log)
        self._facts = FactEdits(store, self._entities, self._mempalace)
        self._settings = GraphSettings(store)
        self._history = GraphHistory(store, self._entities, self._facts, self._settings)
        self._vocabulary = PredicateEdits(store, self._settings, self._log)
        self._neighbourhood = GraphNeighbourhood(store, self._entities)
        self._bulk = BulkRows(store, self._entities)
        self._review = GraphReview(store, self._log)
        self._duplicates = DuplicateEntities(store, self._entities)
        self._resolution = ConflictResolution(store, self._facts)
        self._memories = SourceMemories(
            store, self._facts, None if is_database_url(store.location) else store.location
        )

    # ── The parts' methods, offered here by name ────────────────────────────

    # MemPalace's own methods (its KnowledgeGraph's, for the drop-in)
    add_entity = forwarded("_mempalace", MemPalaceSurface.add_entity)
    add_triple = forwarded("_mempalace", MemPalaceSurface.add_triple)
    invalidate = forwarded("_mempalace", MemPalaceSurface.invalidate)
    supersede = forwarded("_mempalace", MemPalaceSurface.supersede)
    rewrite = forwarded("_mempalace", MemPalaceSurface.rewrite)
    seed_from_entity_facts = forwarded("_mempalace", MemPalaceSurface.seed_from_entity_facts)
    query_entity = forwarded("_mempalace", MemPalaceSurface.query_entity)
    current_triples_with_source = forwarded(
        "_mempalace", MemPalaceSurface.current_triples_with_source
    )
    find_entity_candidates = forwarded("_mempalace", MemPalaceSurface.find_entity_candidates)
    query_relationship = forwarded("_mempalace", MemPalaceSurface.query_relationship)
    timeline = forwarded("_mempalace", MemPalaceSurface.timeline)
    timeline_total = forwarded("_mempalace", MemPalaceSurface.timeline_total)
    stats = forwarded("_mempalace", MemPalaceSurface.stats)

    # MemPalace's replication
    dump_rows = forwarded("_replication", MemPalaceReplication.dump_rows)
    apply_row = forwarded("_replication", MemPalaceReplication.apply_row)

    # Entities
    resolve_entity = forwarded("_entities", EntityEdits.resolve_entity)
    get_entity = forwarded("_entities", EntityEdits.get_entity)
    list_entities = forwarded("_entities", EntityEdits.list_entities)
    entity_position = forwarded("_entities", EntityEdits.entity_position)
    entity_list_rows = forwarded("_entities", EntityEdits.entity_list_rows)
    count_entities = forwarded("_entities", EntityEdits.count_entities)
    prepare_search = forwarded("_entities", EntityEdits.prepare_search)
    search_index_stamp = forwarded("_entities", EntityEdits.search_index_stamp)
    read_search_index = forwarded("_entities", EntityEdits.read_search_index)
    adopt_search_index = forwarded("_entities", EntityEdits.adopt_search_index)
    entity_types = forwarded("_entities", EntityEdits.entity_types)
    entity_names = forwarded("_entities", EntityEdits.entity_names)
    predicates = forwarded("_entities", EntityEdits.predicates)
    rename_entity = forwarded("_entities", EntityEdits.rename_entity)
    set_entity_type = forwarded("_entities", EntityEdits.set_entity_type)
    set_entity_properties = forwarded("_entities", EntityEdits.set_entity_properties)
    merge_entities = forwarded("_entities", EntityEdits.merge_entities)

    # Facts
    get_fact = forwarded("_facts", FactEdits.get_fact)
    has_fact = forwarded("_facts", FactEdits.has_fact)
    fact_count = forwarded("_facts", FactEdits.fact_count)
    has_facts = forwarded("_facts", FactEdits.has_facts)
    update_fact = forwarded("_facts", FactEdits.update_fact)
    find_open_fact = forwarded("_facts", FactEdits.find_open_fact)
    add_fact = forwarded("_facts", FactEdits.add_fact)
    supersede_fact = forwarded("_facts", FactEdits.supersede_fact)
    end_fact = forwarded("_facts", FactEdits.end_fact)
    delete_fact = forwarded("_facts", FactEdits.delete_fact)
    find_facts = forwarded("_facts", FactEdits.find_facts)
    count_found_facts = forwarded("_facts", FactEdits.count_found_facts)
    intervals = forwarded("_facts", FactEdits.intervals)
    interval_table = forwarded("_facts", FactEdits.interval_table)
    time_span = forwarded("_facts", FactEdits.time_span)

    # The graph's own settings
    single_valued_predicates = forwarded("_settings", GraphSettings.single_valued_predicates)
    set_single_valued = forwarded("_settings", GraphSettings.set_single_valued)
    graph_settings = forwarded("_settings", GraphSettings.graph_settings)
    set_graph_settings = forwarded("_settings", GraphSettings.set_graph_settings)
    predicate_colours = forwarded("_settings", GraphSettings.predicate_colours)

    # History: contradictions, changes, an entity's story
    conflicts = forwarded("_history", GraphHistory.conflicts)
    conflicts_touching = forwarded("_history", GraphHistory.conflicts_touching)
    single_valued_suggestions = forwarded("_history", GraphHistory.single_valued_suggestions)
    changes_between = forwarded("_history", GraphHistory.changes_between)
    narrative = forwarded("_history", GraphHistory.narrative)
    narrative_total = forwarded("_history", GraphHistory.narrative_total)
    validity_histogram = forwarded("_history", GraphHistory.validity_histogram)

    # Predicates as a vocabulary
    predicate_stats = forwarded("_vocabulary", PredicateEdits.predicate_stats)
    rename_predicate = forwarded("_vocabulary", PredicateEdits.rename_predicate)

    # Review: what was recorded since the person last looked, duplicates, contradictions
    recorded_since = forwarded("_review", GraphReview.recorded_since)
    reviewed_up_to = forwarded("_review", GraphReview.reviewed_up_to)
    review_since = forwarded("_review", GraphReview.review_since)
    waiting_for_review = forwarded("_review", GraphReview.waiting_for_review)
    waiting_summary = forwarded("_review", GraphReview.waiting_summary)
    mark_reviewed = forwarded("_review", GraphReview.mark_reviewed)
    keep_reviewed = forwarded("_review", GraphReview.keep_reviewed)
    entity_rows_as_recorded = forwarded("_recorded", RecordedView.entity_rows_as_recorded)
    duplicate_entities = forwarded("_duplicates", DuplicateEntities.duplicate_entities)
    not_duplicates = forwarded("_duplicates", DuplicateEntities.not_duplicates)
    mark_not_duplicates = forwarded("_duplicates", DuplicateEntities.mark_not_duplicates)
    merge_duplicates = forwarded("_duplicates", DuplicateEntities.merge_duplicates)
    resolve_conflict = forwarded("_resolution", ConflictResolution.resolve_conflict)

    # The memories behind facts, read from MemPalace's palace
    source_memory = forwarded("_memories", SourceMemories.source_memory)
    facts_from_source = forwarded("_memories", SourceMemories.facts_from_source)

    # Neighbourhoods
    neighbourhood = forwarded("_neighbourhood", GraphNeighbourhood.neighbourhood)
    link_positions = forwarded("_neighbourhood", GraphNeighbourhood.link_positions)
    facts_among = forwarded("_neighbourhood", GraphNeighbourhood.facts_among)

    # Many rows at once (export, import, copy)
    selection = forwarded("_bulk", BulkRows.selection)
    rows_with_ids = forwarded("_bulk", BulkRows.rows_with_ids)
    open_fact_ids = forwarded("_bulk", BulkRows.open_fact_ids)
    insert_rows = forwarded("_bulk", BulkRows.insert_rows)
    extra_columns = forwarded("_bulk", BulkRows.extra_columns)
    table_columns = forwarded("_bulk", BulkRows.table_columns)
    add_columns = forwarded("_bulk", BulkRows.add_columns)

    # Writes in steps, and who changed what
    logged = forwarded("_log", EditHistory.logged)
    batched = forwarded("_log", EditHistory.batched)
    batch = forwarded("_log", EditHistory.batch)
    write_in_parts = forwarded("_log", EditHistory.write_in_parts)
    edit_log = forwarded("_log", EditHistory.edit_log)
    add_edit_log_entries = forwarded("_log", EditHistory.add_edit_log_entries)
    mempalace_write_log = forwarded("_log", EditHistory.mempalace_write_log)
    fact_history = forwarded("_log", EditHistory.fact_history)

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

    def __exit__(self, exc_type: object, exc: object, tb: object) -> Literal[False]:
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

    @property
    def private_copy(self) -> bool:
        """The graph is read through a private copy of its file (another user's, or in a
        folder that may not be written), taken again when the file changes: each store
        opened on it copies the file."""
        return self._store.private_copy

    # ── What MemPalace's own code and tests reach for past its methods ────

    @property
    def _lock(self) -> AbstractContextManager[Any]:
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
    def transaction(self) -> Generator[None, None, None]:
        """One write: every write inside the block happens, or none does."""
        self._store.refuse_writes()
        with self._store.transaction():
            yield

    @contextmanager
    def recording(self) -> Generator[Change, None, None]:
        """Record the row images of every write inside the block, for :meth:`revert`."""
        with self._store.recording() as change:
            yield change

    def adopt(self, change: Change) -> None:
        """Make a step recorded through another ``KnowledgeGraph`` on this graph, in this
        process (a worker thread's own), one this one can undo: from now on, a write of anyone
        but this one counts as another writer's (§5.2)."""
        self._store.adopt(change)

    def hand_over(self, change: Change) -> None:
        """Before another ``KnowledgeGraph`` of this graph (a worker thread's own) adopts
        ``change`` to undo or redo it, and in that one once it is done: keep in the change
        whether anyone but this one wrote the graph since its mark, which the next
        :meth:`adopt` moves to the adopting one's view (§5.2)."""
        self._store.hand_over(change)

    @writes
    def revert(
        self,
        change: Change,
        force: bool = False,
        log: str | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Put back the rows a recorded change wrote (undo). Refused if they changed since;
        and, unless ``force`` (the person knows), where it would delete or end a fact another
        writer may rely on: anyone else wrote the graph since the step, or MemPalace's write
        log shows it asserting one of those facts (:class:`~factlines.core.errors.WrittenSince`).
        ``log``: the words of its entry in Factlines' edit log (as :meth:`logged` writes it).
        ``progress(done, total)``, for a big step (over 500 rows) written in parts: ``(0, 0)``
        while it is checked, then the rows written; returning False cancels
        (:class:`~factlines.core.progress.Cancelled`) with the parts written put back, so the
        graph is as before the undo and the step may be undone again."""
        self._log.replay_step(change, True, force, log, progress)

    @writes
    def reapply(
        self,
        change: Change,
        force: bool = False,
        log: str | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Write again the rows a reverted change had written (redo); refused and cancelled
        as :meth:`revert`."""
        self._log.replay_step(change, False, force, log, progress)

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

    def backup_to(self, path: str | os.PathLike[str], progress: Progress | None = None) -> Path:
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
        missing: dict[str, list[str]] = {}
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

    @writes
    def build_indexes(self, progress: Callable[[int, int, str], None] | None = None) -> list[str]:
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

    @writes
    def add_speed_indexes(
        self, progress: Callable[[int, int, str], None] | None = None
    ) -> list[str]:
        """Build the speed indexes: faster per-entity views, timelines and time span on huge
        graphs, for the size :meth:`speed_index_cost` says. Each build holds the file's write
        lock while it runs (0.3 to 2 s each on a million facts): MemPalace waits meanwhile."""
        return self._store.add_speed_indexes(progress)

    @writes
    def remove_speed_indexes(
        self, progress: Callable[[int, int, str], None] | None = None
    ) -> list[str]:
        """Drop the speed indexes, one per transaction (up to ~0.7 s each on a million facts).
        SQLite reuses their pages; the file shrinks only when vacuumed."""
        return self._store.remove_speed_indexes(progress)


def write_methods() -> list[str]:
    """The façade's methods that write (each marked where it is defined), by name."""
    return sorted(
        name
        for name, member in vars(KnowledgeGraph).items()
        if is_write(member.method if isinstance(member, forwarded) else member)
    )


def is_database_url(location: object) -> TypeGuard[str]:
    """Whether ``location`` is a PostgreSQL URL (``postgresql://…``) rather than a file path."""
    return isinstance(location, str) and location.startswith(DATABASE_URL_SCHEMES)


def engine_version() -> str:
    """The storage engine's library and version, e.g. ``SQLite 3.40.1``."""
    from factlines.core.store.sqlite import engine_version as sqlite_version

    return sqlite_version()


def open_graph(
    location: str | os.PathLike[str],
    *,
    create: bool = True,
    read_only: bool = False,
    initialize_empty: bool = False,
    scanning: bool = False,
) -> KnowledgeGraph:
    """Open the knowledge graph at ``location`` (a file path, or a ``postgresql://`` URL)
    behind the store's façade.

    With ``create=False`` (and always with ``read_only``) a location where no file exists is
    refused instead of created. An existing empty file (any file of 0 bytes, or a SQLite
    database without tables) is refused untouched unless ``initialize_empty``: ask the person
    first. Read-only is also chosen automatically when the file may not be written; see
    ``KnowledgeGraph.read_only_reason``. ``scanning``: the graph is opened for reads that go
    through all of it (conflicts, suggestions, counts of the whole graph), which gain nothing
    from a big page cache.
    """
    if is_database_url(location):
        return KnowledgeGraph(location, read_only=read_only)
    path = Path(location).expanduser()
    found = places.look_at(path)
    if (not create or read_only) and found is None:
        raise Refused(f"{path} does not exist")
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise NotAKnowledgeGraph(f"{path} is not a file")
    return KnowledgeGraph(
        path, read_only=read_only, initialize_empty=initialize_empty, scanning=scanning
    )


def graph_exists(location: str | os.PathLike[str]) -> bool:
    """Whether something is at ``location`` already: a file exists; a PostgreSQL database has
    tables. Another URL is taken to exist: its engine opens what is there."""
    if is_database_url(location):
        from factlines.core.store.postgres import graph_at

        return graph_at(location)
    if _is_url(location):
        return True
    return places.exists(Path(location).expanduser())


def discard_new_graph(location: str | os.PathLike[str]) -> None:
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


def same_graph(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two locations name one graph (two paths to one file, or one URL twice)."""
    if _is_url(first) or _is_url(second):
        return str(first) == str(second)
    one, other = Path(first).expanduser(), Path(second).expanduser()
    if one.exists() and other.exists():
        return one.samefile(other)
    return one.resolve() == other.resolve()


def _is_url(location: str | os.PathLike[str]) -> bool:
    return "://" in str(location)


def _engine_for(
    db_path: str | os.PathLike[str] | None,
    read_only: bool,
    initialize_empty: bool,
    write_wait: float,
    scanning: bool,
) -> GraphStore:
    """The store of the graph at ``db_path``: PostgreSQL for a database URL, else SQLite (at
    MemPalace's default path when None); see :class:`KnowledgeGraph`."""
    if is_database_url(db_path):
        from factlines.core.store.postgres import PostgresStore

        return PostgresStore(str(db_path), read_only=read_only, write_wait=write_wait)
    from factlines.core.store.sqlite import SQLiteStore

    path = str(db_path) if db_path is not None else DEFAULT_KG_PATH
    if db_path is None and not read_only:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return SQLiteStore(
        path,
        read_only=read_only,
        initialize_empty=initialize_empty,
        write_wait=write_wait,
        scanning=scanning,
    )
