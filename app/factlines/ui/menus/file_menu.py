"""The File menu over the document: a new graph, open a file (for editing or read-only),
MemPalace's graph, the demo, the recent files, a file dropped on the window, and copying the
graph elsewhere (:mod:`factlines.ui.menus.copy_to`).

A file that cannot be opened is reported (``report(title, text)``: a dialog, or the status bar
when quiet) and nothing changes; a refused one leaves the recent files, one unavailable for now
stays there to try again. An existing empty file (any name: it may be notes picked by mistake)
becomes a graph only when the person says yes (``ask(title, question)``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, QSettings
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from factlines.core.errors import EmptyFile, Refused, Unavailable
from factlines.core.mempalace_paths import (
    GraphCandidate,
    describe_mempalace_graphs,
    mempalace_graph_candidates,
)
from factlines.ui.actions import make_action
from factlines.ui.look.wording import in_words
from factlines.ui.menus.copy_to import CopyActions
from factlines.ui.session import settings as app_settings
from factlines.ui.session.document import Document, default_new_path

FILE_FILTER = "Knowledge graphs (*.sqlite3 *.sqlite *.db);;All files (*)"


class FileActions(QObject):
    def __init__(
        self,
        document: Document,
        settings: QSettings,
        report: Callable[[str, str], None],
        window: QWidget,
        ask: Callable[[str, str], bool] = lambda _title, _question: False,
    ):
        super().__init__(window)
        self.document = document
        self.settings = settings
        self._report = report
        self._ask = ask
        self._window = window
        self.action_new = make_action(
            window, "actionNew", "&New graph…", self.new_file, QKeySequence.StandardKey.New
        )
        self.action_open = make_action(
            window, "actionOpen", "&Open…", self.open_dialog, QKeySequence.StandardKey.Open
        )
        self.action_open_read_only = make_action(
            window,
            "actionOpenReadOnly",
            "Open read-on&ly…",
            self.open_read_only_dialog,
            tip="Open a graph to look at it only: nothing is written to the file, not even "
            "an index",
        )
        # MemPalace keeps a graph in up to two places (its default file and the palace's):
        # the submenu lists them as MemPalace resolves them, each said in words.
        self.mempalace_menu = QMenu("Open &MemPalace's graph", window)
        self.mempalace_menu.setObjectName("mempalaceMenu")
        self.mempalace_menu.setToolTipsVisible(True)
        self.action_open_mempalace = self.mempalace_menu.menuAction()
        self.action_open_mempalace.setObjectName("actionOpenMemPalace")
        self.action_open_demo = make_action(
            window, "actionOpenDemo", "Open the &demo graph", self.open_demo
        )
        self.copying = CopyActions(document, report, window)
        self.action_copy_to = self.copying.action_copy_to
        self.recent_menu = QMenu("Open &recent", window)
        self.recent_menu.setObjectName("recentMenu")
        self.update_recent_menu()
        self.update_mempalace_action()

    def fill(self, menu: QMenu) -> None:
        """Put the file actions in ``menu`` (the window adds Quit)."""
        menu.aboutToShow.connect(self.update_mempalace_action)
        menu.setToolTipsVisible(True)
        menu.addActions([self.action_new, self.action_open, self.action_open_read_only])
        menu.addMenu(self.mempalace_menu)
        menu.addMenu(self.recent_menu)
        menu.addAction(self.action_open_demo)
        menu.addSeparator()
        menu.addAction(self.action_copy_to)

    # ── Opening, each said when it cannot be done ─────────────────────────

    def open_path(self, path: str | Path, remember: bool = True, read_only: bool = False) -> bool:
        """Open a knowledge graph file (``read_only``: nothing will be written to it); a bad
        path or a non-KG file is reported, nothing changes. An empty file is made a graph
        only if the person says so."""
        try:
            self.document.open(path, read_only=read_only)
        except EmptyFile as exc:
            return self._offer_new_graph(path, exc, remember, read_only)
        except Refused as exc:
            self._report("Cannot open file", str(exc))
            if remember:
                app_settings.forget_file(self.settings, str(path))
                self.update_recent_menu()
            return False
        except Unavailable as exc:
            self._report("Cannot open file now", f"{path}: {in_words(exc)}")
            return False
        if remember:
            self._remember()
        return True

    def _offer_new_graph(
        self, path: str | Path, refusal: EmptyFile, remember: bool, read_only: bool
    ) -> bool:
        """An existing empty file: ask before making it a graph; No leaves it untouched."""
        name = Path(path).name
        if read_only or not self._ask(
            "Empty file", f"{name} is empty. Make it a new knowledge graph?"
        ):
            self._report("Cannot open file", str(refusal))
            return False
        try:
            self.document.open(path, initialize_empty=True)
        except (Refused, Unavailable) as exc:
            self._report("Cannot open file", in_words(exc))
            return False
        if remember:
            self._remember()
        return True

    def new_graph(self, path: str | Path) -> bool:
        try:
            self.document.create(path)
        except (Refused, Unavailable) as exc:
            self._report("Cannot create file", in_words(exc))
            return False
        self._remember()
        return True

    def open_mempalace(self) -> bool:
        """Open MemPalace's graph: the one that exists; when its default file and the palace's
        both do, the default, saying that the other exists too (the submenu lists both)."""
        candidates = mempalace_graph_candidates()
        existing = [c for c in candidates if c.exists]
        if not existing:
            self._report("MemPalace's graph not found", describe_mempalace_graphs(candidates))
            return False
        opened = self.open_path(existing[0].path)
        if opened and len(existing) > 1:
            self.document.state.message.emit(
                describe_mempalace_graphs(candidates) + " (File → Open MemPalace's graph)"
            )
        return opened

    def open_demo(self) -> bool:
        try:
            self.document.open_demo()
        except (Refused, Unavailable) as exc:
            self._report("Cannot open the demo", in_words(exc))
            return False
        return True

    def _remember(self) -> None:
        path = self.document.path
        app_settings.remember_file(self.settings, path)
        left_read_only = app_settings.READ_ONLY_BY_FILE.of(path)
        left_read_only.set(self.settings, self.document.asked_read_only)
        self.update_recent_menu()

    def left_read_only(self, path: str | Path) -> bool:
        """Whether ``path`` was last opened read-only as asked: it opens so again (from the
        recent files, or ``factlines`` alone) until it is opened for editing."""
        return app_settings.READ_ONLY_BY_FILE.of(path).get(self.settings)

    # ── Asking where ──────────────────────────────────────────────────────

    def open_dialog(self) -> None:
        if path := self._pick("Open a knowledge graph"):
            self.open_path(path)

    def open_read_only_dialog(self) -> None:
        if path := self._pick("Open a knowledge graph read-only"):
            self.open_path(path, read_only=True)

    def reopen_for_editing(self) -> bool:
        """Open the file shown read-only (as asked) again, for editing."""
        path = self.document.path
        return self.open_path(path) if path else False

    def _pick(self, title: str) -> str:
        current = self.document.path
        start = str(Path(current).parent) if current else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self._window, title, start, FILE_FILTER)
        return path

    def new_file(self) -> None:
        start = str(default_new_path().parent)
        path, _ = QFileDialog.getSaveFileName(
            self._window, "New knowledge graph", start + "/knowledge_graph.sqlite3", FILE_FILTER
        )
        if path:
            self.new_graph(path)

    @staticmethod
    def dropped_path(mime: QMimeData) -> str | None:
        """The first local file in a drag, or None."""
        if not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile():
                return url.toLocalFile()
        return None

    # ── The menu's state ──────────────────────────────────────────────────

    def update_mempalace_action(self) -> None:
        """List MemPalace's graphs as MemPalace 3.11 finds them now (the environment and its
        config may have changed since the last look)."""
        candidates = mempalace_graph_candidates()
        self.mempalace_menu.clear()
        for candidate in candidates:
            action = self.mempalace_menu.addAction(_candidate_label(candidate))
            action.setToolTip(candidate.describe())
            action.setEnabled(candidate.exists)
            action.triggered.connect(lambda _=False, p=candidate.path: self.open_path(p))
        summary = describe_mempalace_graphs(candidates)
        self.action_open_mempalace.setEnabled(any(c.exists for c in candidates))
        self.action_open_mempalace.setStatusTip(summary)
        self.action_open_mempalace.setToolTip(summary)

    def update_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = app_settings.recent_files(self.settings)
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(
                lambda _=False, p=path: self.open_path(p, read_only=self.left_read_only(p))
            )
        self.recent_menu.setEnabled(bool(recent))


def _candidate_label(candidate: GraphCandidate) -> str:
    """A menu entry: which of MemPalace's places, and where; "(not there)" when missing."""
    where = "Default" if "default" in candidate.rules else "Palace"
    if len(candidate.rules) > 1:
        where = "Default and palace"
    missing = "" if candidate.exists else "  (not there)"
    return f"{where}: {candidate.path}{missing}"
