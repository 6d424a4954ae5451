"""The File menu over the document: a new graph, open a file, MemPalace's graph, the demo, the
recent files, and a file dropped on the window.

A file that cannot be opened is reported (``report(title, text)``: a dialog, or the status bar
when quiet) and nothing changes; a refused one leaves the recent files, one unavailable for now
stays there to try again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, QSettings
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.core.store import DEFAULT_KG_PATH
from factlines.ui import settings as app_settings
from factlines.ui.actions import make_action
from factlines.ui.document import Document, default_new_path
from factlines.ui.errors import in_words

FILE_FILTER = "Knowledge graphs (*.sqlite3 *.sqlite *.db);;All files (*)"


class FileActions(QObject):
    def __init__(
        self,
        document: Document,
        settings: QSettings,
        report: Callable[[str, str], None],
        window: QWidget,
    ):
        super().__init__(window)
        self.document = document
        self.settings = settings
        self._report = report
        self._window = window
        self.action_new = make_action(
            window, "actionNew", "&New graph…", self.new_file, QKeySequence.StandardKey.New
        )
        self.action_open = make_action(
            window, "actionOpen", "&Open…", self.open_dialog, QKeySequence.StandardKey.Open
        )
        self.action_open_mempalace = make_action(
            window,
            "actionOpenMemPalace",
            "Open &MemPalace's graph",
            self.open_mempalace,
            tip=DEFAULT_KG_PATH,
        )
        self.action_open_demo = make_action(
            window, "actionOpenDemo", "Open the &demo graph", self.open_demo
        )
        self.recent_menu = QMenu("Open &recent", window)
        self.recent_menu.setObjectName("recentMenu")
        self.update_recent_menu()
        self.update_mempalace_action()

    def fill(self, menu: QMenu) -> None:
        """Put the file actions in ``menu`` (the window adds Quit)."""
        menu.aboutToShow.connect(self.update_mempalace_action)
        menu.addActions([self.action_new, self.action_open, self.action_open_mempalace])
        menu.addMenu(self.recent_menu)
        menu.addAction(self.action_open_demo)

    # ── Opening, each said when it cannot be done ─────────────────────────

    def open_path(self, path: str | Path, remember: bool = True) -> bool:
        """Open a knowledge graph file; a bad path or a non-KG file is reported, nothing changes."""
        try:
            self.document.open(path)
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

    def new_graph(self, path: str | Path) -> bool:
        try:
            self.document.create(path)
        except (Refused, Unavailable) as exc:
            self._report("Cannot create file", in_words(exc))
            return False
        self._remember()
        return True

    def open_mempalace(self) -> bool:
        if not Path(DEFAULT_KG_PATH).exists():
            self._report(
                "MemPalace's graph not found", f"There is no MemPalace graph at {DEFAULT_KG_PATH}"
            )
            return False
        return self.open_path(DEFAULT_KG_PATH)

    def open_demo(self) -> bool:
        try:
            self.document.open_demo()
        except (Refused, Unavailable) as exc:
            self._report("Cannot open the demo", in_words(exc))
            return False
        return True

    def _remember(self) -> None:
        app_settings.remember_file(self.settings, self.document.path)
        self.update_recent_menu()

    # ── Asking where ──────────────────────────────────────────────────────

    def open_dialog(self) -> None:
        current = self.document.path
        start = str(Path(current).parent) if current else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self._window, "Open a knowledge graph", start, FILE_FILTER
        )
        if path:
            self.open_path(path)

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
        exists = Path(DEFAULT_KG_PATH).exists()
        self.action_open_mempalace.setEnabled(exists)
        self.action_open_mempalace.setStatusTip(
            DEFAULT_KG_PATH if exists else f"No MemPalace graph at {DEFAULT_KG_PATH}"
        )

    def update_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = app_settings.recent_files(self.settings)
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))
        self.recent_menu.setEnabled(bool(recent))
