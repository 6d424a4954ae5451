"""The store's indexes, built and dropped off the UI thread, with progress in the status bar.

After a writable graph is shown, the default indexes it lacks (``kg.missing_indexes()``: small,
quick, chosen for what the window shows) are built on a worker thread while the window is
already usable: "Indexing entity names… 1/2". View → Speed indexes for huge graphs… says
what they would cost in MB first, then builds them the same way; View → Remove speed indexes
drops them. The store builds each index in its own short transaction on a connection of its
own, so the window's reads go on meanwhile; the document is told that these writes are ours,
so its watch does not report them as another program's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QMenu, QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.ui.actions import enable_or_say_why, make_action
from factlines.ui.jobs.progress import Job
from factlines.ui.look.wording import in_words
from factlines.ui.session.document import Document

if TYPE_CHECKING:
    from factlines import KnowledgeGraph

Progress = Callable[[int, int, str], None]

# The indexes in the words of the status bar; an index not listed is shown by its name.
INDEX_WORDS = {
    "fl_entities_name_cover": "entity names",
    "fl_triples_subject_cover": "facts by subject",
    "fl_triples_object_cover": "facts by object",
    "fl_triples_from_id": "facts by start",
    "fl_triples_to": "facts by end",
    "fl_triples_predicate_cover": "facts by predicate",
    "fl_triples_recorded": "facts by when recorded",
    "fl_entities_id_name": "entity names by id",
}


def index_words(name: str) -> str:
    return INDEX_WORDS.get(name, name)


def megabytes(cost: float) -> str:
    """A size in MB as a person reads it: "about 12 MB", "less than 0.1 MB"."""
    if cost < 0.1:
        return "less than 0.1 MB"
    return f"about {cost:,.1f} MB" if cost < 10 else f"about {cost:,.0f} MB"


class IndexActions(QObject):
    """The automatic build after opening, the two View menu entries, and the progress label
    (``indexProgress``, for the status bar). One job at a time."""

    # What the progress label shows ("" when idle), for the status bar and for tests.
    progressShown = Signal(str)

    def __init__(self, document: Document, window: QWidget, ask: Callable[[str, str], bool]):
        super().__init__(window)
        self._document = document
        self._ask = ask
        self.job: Job | None = None
        self._verb = ""  # "Indexing", "Building speed index", "Removing speed index"
        self._check_again = False  # a graph was shown while a job ran
        self.label = QLabel(window)
        self.label.setObjectName("indexProgress")
        self.label.hide()
        self.progressShown.connect(self._show_progress)
        self.action_speed_indexes = make_action(
            window, "actionSpeedIndexes", "Speed indexes for huge graphs…", self.add_speed
        )
        self.action_remove_speed_indexes = make_action(
            window, "actionRemoveSpeedIndexes", "Remove speed indexes", self.remove_speed
        )
        document.readOnlyChanged.connect(self.graph_shown)
        self.update_actions()

    def fill(self, menu: QMenu) -> None:
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self.update_actions)
        menu.addActions([self.action_speed_indexes, self.action_remove_speed_indexes])

    @property
    def busy(self) -> bool:
        return self.job is not None

    # ── The default indexes, after opening ────────────────────────────────

    def graph_shown(self, *_read_only) -> None:
        """Build what the graph shown now lacks, off the UI thread (after a running job)."""
        if self.busy:
            self._check_again = True
            return
        self.update_actions()
        kg = self._writable_graph()
        if kg is None:
            return
        try:
            missing = kg.missing_indexes()
        except (Refused, Unavailable):
            return  # the file cannot be read now: its views say so; built next time
        if missing:
            self._start(kg.build_indexes, "Indexing")

    # ── Speed indexes, on request ─────────────────────────────────────────

    def add_speed(self, _checked: bool = False) -> bool:
        """Say what the speed indexes would cost, then build them if the person agrees."""
        kg = self._writable_graph()
        if kg is None or self.busy:
            return False
        try:
            cost = kg.speed_index_cost()
            present = kg.speed_indexes()
        except (Refused, Unavailable) as exc:
            self._say(f"Speed indexes not built: {in_words(exc)}")
            return False
        if cost == 0 and present:
            self._say("This graph already has every speed index")
            return False
        name = Path(self._document.path).name
        size = _file_megabytes(self._document.path)
        question = (
            "Speed indexes make each entity's facts, the timeline, the time span and the "
            "review inbox quicker to read on huge graphs (hundreds of thousands of facts).\n\n"
            f"They would add {megabytes(cost)} to {name}"
            + (f" ({megabytes(size).removeprefix('about ')} now)" if size is not None else "")
            + ". While each one is built, the file's write lock is held (up to a few seconds "
            "on a million facts): MemPalace waits meanwhile. Remove them again under View → "
            "Remove speed indexes.\n\nBuild them now?"
        )
        if not self._ask("Speed indexes", question):
            return False
        self._start(kg.add_speed_indexes, "Building speed index")
        return True

    def remove_speed(self, _checked: bool = False) -> bool:
        kg = self._writable_graph()
        if kg is None or self.busy:
            return False
        self._start(kg.remove_speed_indexes, "Removing speed index")
        return True

    def update_actions(self) -> None:
        """Enable the menu entries as the open graph allows, each saying why not."""
        document = self._document
        kg = document.kg
        if kg is None or kg.closed:
            reason = "no graph is open"
        elif document.read_only:
            reason = f"the graph is open read-only ({document.read_only_reason})"
        elif kg.on_server:
            reason = "a PostgreSQL graph has the indexes it needs; it takes no speed indexes"
        elif self.busy:
            reason = "indexes are being built or removed now"
        else:
            reason = None
        present: list[str] = []
        if reason is None:
            try:
                present = kg.speed_indexes()
            except (Refused, Unavailable) as exc:
                reason = in_words(exc)
        enable_or_say_why(
            self.action_speed_indexes,
            reason,
            "Faster views of huge graphs, for some more MB in the file (the cost is said first)",
            "build speed indexes",
        )
        enable_or_say_why(
            self.action_remove_speed_indexes,
            reason or (None if present else "this graph has no speed indexes"),
            "Drop the speed indexes (SQLite reuses their space; the file does not shrink)",
            "remove speed indexes",
        )

    # ── Running one job ───────────────────────────────────────────────────

    def _writable_graph(self) -> KnowledgeGraph | None:
        kg = self._document.kg
        if kg is None or kg.closed or self._document.read_only:
            return None
        return kg

    def _start(self, work: Callable[[Progress], list], verb: str) -> None:
        job = Job(work, self)
        job.named.connect(self._progressed)
        job.finished.connect(self._done)
        job.failed.connect(self._failed)
        job.ended.connect(self._ended)
        self.job, self._verb = job, verb
        self._document.own_write_started()  # its writes are ours, not another program's
        self.update_actions()
        job.start()

    def _progressed(self, done: int, total: int, name: str) -> None:
        """Before each index (``name``): "Indexing entity names… 1/1", "Building speed
        index: facts by subject… 1/5"; the call at the end has no name."""
        if self.job is None or not name:
            return
        words, verb = index_words(name), self._verb
        said = f"Indexing {words}" if verb == "Indexing" else f"{verb}: {words}"
        self.progressShown.emit(f"{said}… {done + 1}/{total}")

    def _done(self, names: list[str]) -> None:
        if names:
            self._say(_done_words(self._verb, names))

    def _failed(self, words: str) -> None:
        verb = self._verb
        what = "Indexes not built" if verb == "Indexing" else f"{verb} stopped"
        later = " (tried again the next time the file is opened)" if verb == "Indexing" else ""
        self._say(f"{what}: {words}{later}")

    def _ended(self) -> None:
        """The job is over (after what it said; a bug is raised next, by the job)."""
        job, self.job = self.job, None
        if job is None:
            return
        self.progressShown.emit("")
        self._document.own_write_ended()
        self.update_actions()
        if self._check_again:
            self._check_again = False
            self.graph_shown()

    def shutdown(self) -> None:
        """Wait for a job under way (the window is closing): each index is one short
        transaction, never left half done."""
        if self.job is not None:
            self.job.wait()
            self._ended()

    def _show_progress(self, text: str) -> None:
        self.label.setText(text)
        self.label.setVisible(bool(text))

    def _say(self, text: str) -> None:
        self._document.state.message.emit(text)


def _done_words(verb: str, names: list[str]) -> str:
    words = ", ".join(index_words(name) for name in names)
    if verb == "Indexing":
        return f"Indexed {words}"
    if verb == "Removing speed index":
        return f"Speed indexes removed ({words}); SQLite reuses their space"
    return f"Speed indexes built ({words})"


def _file_megabytes(path: str | None) -> float | None:
    try:
        return Path(path).stat().st_size / 1e6 if path else None
    except OSError:
        return None
