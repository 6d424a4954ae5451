"""A backup before the first edit of a file Factlines did not create.

The person's graph is usually MemPalace's own file, full of what MemPalace gathered. Before
the first edit written to such a file in a session, a copy of the whole graph is kept in the
app's data folder (``<AppDataLocation>/backups/<file stem>-<YYYY-MM-DD>-<HHMMSS>.sqlite3``),
taken through the store (SQLite's online backup: consistent while MemPalace writes). Once per
file per session; never for the demo's temporary copies or for graphs made by Factlines in
this session (new files, and empty files made graphs); not for a read-only graph, which is
never written. ``backups/enabled`` (File → Keep a backup before the first edit) turns it off.

A backup that cannot be kept (no room, no permission) stops the edit, which writes nothing,
and says how to edit without one.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QStandardPaths, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.ui import settings as app_settings
from factlines.ui.actions import make_action
from factlines.ui.document import Document

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from factlines import KnowledgeGraph

KEEP_TEXT = "Keep a &backup before the first edit"
TURN_OFF = "File → Keep a backup before the first edit"


def backups_folder() -> Path:
    """Where backups are kept: ``backups`` in the app's data folder."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder or Path.home() / ".factlines") / "backups"


def backup_name(path: str | Path, when: datetime) -> str:
    """``<file stem>-<YYYY-MM-DD>-<HHMMSS>.sqlite3``, e.g. ``knowledge_graph-2026-03-01-142500``."""
    return f"{Path(path).stem}-{when:%Y-%m-%d-%H%M%S}.sqlite3"


class Backups(QObject):
    """Keeps the backups of one window's document, and its two File menu entries."""

    def __init__(self, document: Document, settings: QSettings, window: QWidget):
        super().__init__(window)
        self._document = document
        self._settings = settings
        self._window = window
        self._kept: dict[str, Path] = {}  # file -> its backup, this session
        self._session_only: bool | None = None  # set_enabled(remember=False)
        self.action_keep_backups = make_action(
            window,
            "actionKeepBackups",
            KEEP_TEXT,
            self.set_enabled,
            tip="Before the first edit of a file Factlines did not create, copy it into the "
            "backups folder (once per file per session)",
        )
        self.action_keep_backups.setCheckable(True)
        self.action_keep_backups.setChecked(self.enabled)
        self.action_show_backups = make_action(
            window, "actionShowBackups", "Show backups &folder", self.show_folder
        )
        self.update_tip()

    def fill(self, menu: QMenu) -> None:
        menu.aboutToShow.connect(self.update_tip)
        menu.addActions([self.action_keep_backups, self.action_show_backups])

    # ── Whether, and where ────────────────────────────────────────────────

    @property
    def enabled(self) -> bool:
        if self._session_only is not None:
            return self._session_only
        return app_settings.BACKUPS_ENABLED.get(self._settings)

    def set_enabled(self, on: bool, remember: bool = True) -> None:
        """Keep backups (or not) from now on; ``remember`` keeps the choice for later runs."""
        if remember:
            self._session_only = None
            app_settings.BACKUPS_ENABLED.set(self._settings, bool(on))
        else:
            self._session_only = bool(on)
        self.action_keep_backups.setChecked(bool(on))

    def folder(self) -> Path:
        return backups_folder()

    def kept(self, path: str | None = None) -> Path | None:
        """The backup kept this session of ``path`` (the open file by default), or None."""
        path = path or self._document.path
        return self._kept.get(path) if path else None

    def update_tip(self) -> None:
        where = str(self.folder())
        self.action_show_backups.setToolTip(f"Open the backups folder: {where}")
        self.action_show_backups.setStatusTip(f"Backups are kept in {where}")

    def show_folder(self, _checked: bool = False) -> bool:
        """Open the backups folder in the file manager (made first if there is none yet)."""
        folder = self.folder()
        self.update_tip()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._document.state.message.emit(
                f"Backups are kept in {folder}, which cannot be made: {exc.strerror or exc}"
            )
            return False
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self._document.state.message.emit(f"Backups are kept in {folder}")
            return False
        return True

    # ── Before a write ────────────────────────────────────────────────────

    def needed(self) -> bool:
        """Whether the next edit of the open graph must first be backed up."""
        document = self._document
        path = document.path
        return (
            path is not None
            and document.kg is not None
            and not document.kg.on_server  # a server's backups are its own (pg_dump)
            and not document.read_only
            and not document.made_here
            and path not in self._kept
            and self.enabled
        )

    def before_write(self, kg: KnowledgeGraph) -> None:
        """Called before each edit is written: the first one of a file not made here is
        preceded by a backup. Raises Unavailable (nothing written) when none can be kept."""
        if kg is not self._document.kg or not self.needed():
            return
        path = self._document.path
        folder = self.folder()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            target = self._keep(kg, folder)
        except (Refused, Unavailable) as exc:
            raise Unavailable(
                f"no backup of {Path(path).name} could be kept in {folder} before the first "
                f"edit ({exc}); to edit without one, turn off {TURN_OFF}"
            ) from None
        finally:
            QApplication.restoreOverrideCursor()
        self._kept[path] = target
        self._document.state.message.emit(
            f"Kept a backup of {Path(path).name} before the first edit: {target}"
        )

    def _keep(self, kg: KnowledgeGraph, folder: Path) -> Path:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise Unavailable(exc.strerror or str(exc)) from None
        name = backup_name(self._document.path, datetime.now())
        target, number = folder / name, 1
        while target.exists():  # two files of one name within a second
            number += 1
            target = folder / f"{Path(name).stem}-{number}.sqlite3"
        return kg.backup_to(target)
