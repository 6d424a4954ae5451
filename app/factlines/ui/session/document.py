"""The open knowledge graph as a document: what belongs to one graph, and nothing about windows.

A :class:`Document` owns the store (the ``KnowledgeGraph`` façade) while it is open: where it
is, whether it may be written (and why not), whether it must be closed here, its undo steps,
the watch for other programs' writes, and its per-file settings (where ``as_of`` was left, how
far the neighbourhood graph reached).
Views never hold it: the document hands the graph to them through
:class:`~factlines.ui.session.state.AppState`.

Read-only is the store's: asked for (``open(path, read_only=True)``), or chosen by the store
when the file or its folder may not be written. :attr:`Document.read_only` and
:attr:`Document.read_only_reason` say so, and ``readOnlyChanged`` is emitted whenever a graph
is shown.

Opening refuses (``Refused``) or cannot for now (``Unavailable``) with nothing changed; the
caller says so. Every edit is written at once, so there is nothing to save.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer, Signal
from PySide6.QtGui import QUndoStack

from factlines import open_graph
from factlines.core.errors import Refused, Unavailable
from factlines.core.store import places
from factlines.ui.session import settings as app_settings
from factlines.ui.session.state import AppState

if TYPE_CHECKING:
    from factlines import KnowledgeGraph

WATCH_MS = 1000  # how often another program's writes are looked for in a file
# On a server the change feed is read off its socket, no query: looked at four times a second.
FEED_MS = 250
SAVE_AS_OF_MS = 1000  # as_of is kept this long after it stops moving


def default_new_path() -> Path:
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder or Path.home() / ".factlines") / "knowledge_graph.sqlite3"


@dataclass
class ReasonMemory:
    """The reason typed last for an end, a replacement or a deletion, offered again in the next
    such form. Held by the window's document, so it lasts until the app closes; never kept in
    settings (a reason is about one session's work)."""

    last: str = ""


class Document(QObject):
    # Whether the graph now shown may not be written; emitted each time a graph is shown.
    readOnlyChanged = Signal(bool)

    def __init__(self, state: AppState, settings: QSettings, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.settings = settings
        self.undo_stack = QUndoStack(self)
        self.reasons = ReasonMemory()  # the last reason typed for an edit, until the app closes
        self._kg: KnowledgeGraph | None = None
        self._path: str | None = None
        self._owned = False  # opened here, so closed here
        self._keep_position = True  # as_of kept for this file across sessions
        self._asked_read_only = False  # read-only because the person asked, not the file
        self._made_here: set[str] = set()  # files Factlines created this session
        self._demo_copies: set[str] = set()  # temporary files of "Open the demo graph"
        self._own_writes = 0  # writes of ours on other connections under way (index builds)
        self._unreadable = False  # the watch already said the file cannot be read

        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self.check_external_changes)
        self._watch.start()
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_AS_OF_MS)
        self._save_timer.timeout.connect(self.save_as_of)
        state.asOfChanged.connect(self._schedule_save)

    # ── What is open ──────────────────────────────────────────────────────

    @property
    def kg(self) -> KnowledgeGraph | None:
        return self._kg

    @property
    def path(self) -> str | None:
        """The open file, resolved; None when no graph is open."""
        return self._path

    @property
    def owned(self) -> bool:
        return self._owned

    @property
    def read_only(self) -> bool:
        """Nothing can be written to the open graph (asked for, or not writable)."""
        return self._kg is not None and self._kg.read_only

    @property
    def read_only_reason(self) -> str | None:
        """Why the open graph may not be written, in the store's words; None when it may."""
        return self._kg.read_only_reason if self.read_only else None

    @property
    def made_here(self) -> bool:
        """The open graph was created by Factlines this session (a new file, an empty file
        made a graph, the demo's copy): there is nothing of anyone else's in it to back up."""
        return self._path is not None and self._path in self._made_here

    @property
    def asked_read_only(self) -> bool:
        """Read-only because the person asked for it (the file itself may be writable)."""
        return self.read_only and self._asked_read_only

    def title(self) -> str:
        """What the window's title says: the file (marked when read-only) and its folder
        (every edit is already written, so there is no unsaved state to mark)."""
        if self._path is None:
            return "Factlines"
        read_only = " (read-only)" if self.read_only else ""
        if self._kg is not None and self._kg.on_server:
            database, where = _database_and_server(self._path)
            return f"{database}{read_only} — {where} — Factlines"
        path = Path(self._path)
        return f"{path.name}{read_only} — {path.parent} — Factlines"

    def stats_text(self) -> str:
        kg = self._kg
        if kg is None or kg.closed:
            return "No graph open"
        try:
            return stats_words(kg.stats())
        except Unavailable as exc:
            return counts_unavailable(str(exc))

    # ── Opening ───────────────────────────────────────────────────────────

    def set_graph(
        self,
        kg: KnowledgeGraph | None,
        owned: bool,
        keep_position: bool = True,
        asked_read_only: bool = False,
    ) -> None:
        """Make ``kg`` the open graph; ``owned`` closes it here when another one is shown,
        ``keep_position`` keeps its as_of across sessions (not for the demo's copies),
        ``asked_read_only`` says it was opened read-only because the person asked."""
        self.save_as_of()
        old, old_owned = self._kg, self._owned
        self.undo_stack.clear()
        self._kg = kg
        self._owned = owned
        self._path = app_settings.location(kg.db_path) if kg is not None else None
        self._watch.setInterval(FEED_MS if kg is not None and kg.on_server else WATCH_MS)
        self._keep_position = keep_position
        self._unreadable = False
        self._asked_read_only = asked_read_only
        self.state.set_kg(kg)
        if old is not None and old_owned and old is not kg:
            old.close()
            self._remove_if_demo(old.db_path)
        self._restore_as_of()
        self.readOnlyChanged.emit(self.read_only)
        if kg is not None:
            said = f"Opened {self._path}"
            if self.read_only:
                said += f" read-only: {self.read_only_reason}"
            self.state.message.emit(said)

    def open(
        self, path: str | os.PathLike, *, read_only: bool = False, initialize_empty: bool = False
    ) -> None:
        """Open an existing graph file (``read_only``: nothing will be written to it;
        ``initialize_empty``: an empty file becomes a new graph, once the person said so);
        ``Refused`` (``EmptyFile`` for an empty file) or ``Unavailable`` with nothing changed."""
        kg = open_graph(path, create=False, read_only=read_only, initialize_empty=initialize_empty)
        self.set_graph(kg, owned=True, asked_read_only=read_only)
        if initialize_empty:
            self._made_here.add(self._path)

    def create(self, path: str | os.PathLike) -> None:
        """Create a new, empty graph file (its folder too) and open it; an existing file is
        refused, never opened or overwritten."""
        path = Path(path).expanduser()
        if places.exists(path):
            raise Refused(f"{path} already exists; open it instead, or choose a new name")
        _make_folder(path.parent)
        self.set_graph(open_graph(path, create=True), owned=True)
        self._made_here.add(self._path)

    def open_demo(self) -> None:
        """A fresh copy of the demo graph, in a temporary file: edit freely."""
        from factlines.core.demo import create_demo

        self.set_graph(create_demo(), owned=True, keep_position=False)
        self._made_here.add(self._path)
        self._demo_copies.add(self._path)
        self.state.message.emit("Opened the demo graph (a temporary copy: edit freely)")

    def close(self) -> None:
        """Keep where as_of was left, stop watching, and close the store if opened here."""
        self._watch.stop()
        self._save_timer.stop()
        self.save_as_of()
        if self._owned and self._kg is not None:
            self._kg.close()
            self._remove_if_demo(self._kg.db_path)

    def _remove_if_demo(self, db_path: str) -> None:
        """A demo's copy is gone with its window or the next graph: each "Open the demo
        graph" would else leave a file in the temporary folder for good."""
        path = app_settings.location(db_path)
        if path in self._demo_copies:
            self._demo_copies.discard(path)
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):  # gone already, or not ours to remove now
                    Path(path + suffix).unlink()

    # ── Other programs' writes ────────────────────────────────────────────

    def own_write_started(self) -> None:
        """A write of ours on a connection of its own begins (an index build on a worker
        thread): until it ends, a change seen in the file is not said to be another
        program's (it may be both: the views still reload)."""
        self._own_writes += 1

    def own_write_ended(self) -> None:
        """That write is done: take note of what it changed now, quietly, so that the watch
        does not report it a second later as another program's."""
        self._own_writes = max(0, self._own_writes - 1)
        self.check_external_changes(quiet=True)

    def check_external_changes(self, quiet: bool = False) -> bool:
        """Reload the views when another program wrote the file (polled every second), or
        another client the database (its change feed); ``quiet``, or while a write of ours is
        under way, without saying so; not while the window's long write runs (an import, the
        undo of a big step: ``state.long_write``). Selection and as_of stay as they are."""
        kg = self._kg
        if kg is None or kg.closed:
            return False
        if self.state.long_write is not None:
            # The window's long write on a worker: the views would show it half done, and
            # their reloads slowed it and the window (150k rows: undone in 80 s, not 40);
            # they reload once it has ended (own_write_ended), with anything seen meanwhile.
            return False
        try:
            changed = kg.external_changes()
        except (Refused, Unavailable) as exc:
            if not self._unreadable:  # said once, not every second
                self._unreadable = True
                what = "reach the database" if kg.on_server else "read the file"
                self.state.message.emit(f"Cannot {what} now ({exc}); trying again")
            return False
        self._unreadable = False
        if changed:
            self.state.reload_soon()  # all views, once
            if not (quiet or self._own_writes):
                what = (
                    "graph was changed by another client"
                    if kg.on_server
                    else ("file was changed by another program")
                )
                self.state.message.emit(f"The {what}: views reloaded")
        return bool(changed)

    # ── Per-file settings ─────────────────────────────────────────────────

    def _schedule_save(self, *_as_of) -> None:
        self._save_timer.start()

    def save_as_of(self) -> None:
        if self._path is not None and self._keep_position:
            app_settings.AS_OF_BY_FILE.of(self._path).set(self.settings, self.state.as_of)

    def graph_depth(self) -> int | None:
        """How far the neighbourhood graph reached when this file was last open (None: not
        kept, as for the demo's copies)."""
        if self._path is None or not self._keep_position:
            return None
        return app_settings.GRAPH_DEPTH_BY_FILE.of(self._path).get(self.settings)

    def keep_graph_depth(self, depth: int) -> None:
        if self._path is not None and self._keep_position:
            app_settings.GRAPH_DEPTH_BY_FILE.of(self._path).set(self.settings, depth)

    def _restore_as_of(self) -> None:
        as_of = None
        if self._path is not None and self._keep_position:
            as_of = app_settings.AS_OF_BY_FILE.of(self._path).get(self.settings)
        try:
            self.state.set_as_of(as_of)
        except Refused:  # kept by an older version in a form no longer accepted
            self.state.set_as_of(None)
        self._save_timer.stop()  # restoring is not moving


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unavailable(f"cannot create the folder {folder}: {exc.strerror or exc}") from None


def _database_and_server(label: str) -> tuple[str, str]:
    """A PostgreSQL graph's label (``postgresql://user@host:port/db``, or ``…@:port/db?host=/dir``
    on a Unix socket) as the database and who on which server or socket folder has it open."""
    server, _, database = label.partition("://")[2].partition("/")
    database, _, socket = database.partition("?host=")
    user, at, host_port = server.rpartition("@")
    host, colon, port = host_port.rpartition(":")
    if not colon or not port.isdigit():
        host, port = host_port, ""
    where = f"{user}{at}{socket or host}" + (f":{port}" if port else "")
    return database, where


def stats_words(stats: dict) -> str:
    """The status bar's counts, from ``kg.stats()``."""
    return (
        f"{stats['entities']:,} entities · {stats['triples']:,} facts · "
        f"{stats['current_facts']:,} open · {stats['expired_facts']:,} ended · "
        f"{len(stats['relationship_types']):,} predicates"
    )


def counts_unavailable(words: str) -> str:
    return f"Counts unavailable ({words})"
