"""A backup before the first edit of a file Factlines did not create.

The person's graph is usually MemPalace's own file, full of what MemPalace gathered. Before
the first edit written to such a file in a session, a copy of the whole graph is kept in the
app's data folder (``<GenericDataLocation>/Factlines/backups/<file stem>-<YYYY-MM-DD>-<HHMMSS>
.sqlite3``), taken through the store (SQLite's online backup: consistent while MemPalace
writes). Once per file per session; never for the demo's temporary copies or for graphs made by
Factlines in this session (new files, and empty files made graphs); not for a read-only graph,
which is never written. ``backups/enabled`` (File → Keep a backup before the first edit) turns
it off.

The copy runs on a worker thread (:class:`~factlines.ui.jobs.progress.Job`) with a progress dialog
and Cancel; the edit waits for it in a local event loop, so the window goes on answering.
Kept backups are bounded: the newest ``backups/keepPerFile`` of each file name and at most
``backups/keepTotalMB`` in all (never the one just made); older ones are removed, and the
message says so. A backup that would leave less than :data:`ROOM_LEFT_MB` free on its disk
(room MemPalace needs to go on writing) is not taken without asking: the person may edit
without one, knowingly.

A backup that cannot be kept (no room, no permission, cancelled) stops the edit, which writes
nothing, and says how to edit without one.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEventLoop, QObject, QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMenu, QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Cancelled
from factlines.ui.actions import make_action
from factlines.ui.jobs.progress import Job, ProgressDialog
from factlines.ui.session import settings as app_settings
from factlines.ui.session.document import Document

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from factlines import KnowledgeGraph

KEEP_TEXT = "Keep a &backup before the first edit"
TURN_OFF = "File → Keep a backup before the first edit"
# Free space a backup must leave on its disk, or the person is asked first: room for
# MemPalace (and this app) to go on writing the graph and its -wal.
ROOM_LEFT_MB = 1000
# A backup's name: <file stem>-<YYYY-MM-DD>-<HHMMSS>[-<n>].sqlite3 (see backup_name).
_BACKUP = re.compile(r"^(?P<stem>.+)-(?P<when>\d{4}-\d\d-\d\d-\d{6})(?:-(?P<n>\d+))?\.sqlite3$")


def backups_folder() -> Path:
    """Where backups are kept: ``Factlines/backups`` in the user's data folder (once
    ``Factlines``: the app's own data location names the organisation and the app)."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return (Path(folder) / "Factlines" if folder else Path.home() / ".factlines") / "backups"


def backup_name(path: str | Path, when: datetime) -> str:
    """``<file stem>-<YYYY-MM-DD>-<HHMMSS>.sqlite3``, e.g. ``knowledge_graph-2026-03-01-142500``."""
    return f"{Path(path).stem}-{when:%Y-%m-%d-%H%M%S}.sqlite3"


def free_megabytes(folder: Path) -> float:
    """Free space on ``folder``'s disk, in MB."""
    return shutil.disk_usage(folder).free / 1e6


def _megabytes(path: str) -> float:
    """A graph file's size with its -wal: about what its backup takes."""
    sizes = (Path(path + suffix) for suffix in ("", "-wal"))
    return sum(p.stat().st_size for p in sizes if p.exists()) / 1e6


class Backups(QObject):
    """Keeps the backups of one window's document, and its two File menu entries.
    ``ask(title, question)`` puts a yes-or-no question to the person."""

    def __init__(
        self,
        document: Document,
        settings: QSettings,
        window: QWidget,
        ask: Callable[[str, str], bool],
    ):
        super().__init__(window)
        self._document = document
        self._settings = settings
        self._window = window
        self._ask = ask
        self._kept: dict[str, Path | None] = {}  # file -> its backup this session (None: skipped)
        self._session_only: bool | None = None  # set_enabled(remember=False)
        self.job: Job | None = None  # the copy being made
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
        preceded by a backup, copied on a worker thread while the edit waits (the window goes
        on answering). Raises Unavailable (nothing written) when none can be kept."""
        if kg is not self._document.kg or not self.needed():
            return
        path = self._document.path
        name, folder = Path(path).name, self.folder()
        if self.job is not None:
            raise Unavailable(f"a backup of {name} is being kept; edit once it is done")
        try:
            _make_folder(folder)
            if not self._room_for(path, folder):
                self._kept[path] = None
                self._document.state.message.emit(
                    f"No backup of {name} kept, as you chose: little room is left on the disk "
                    f"of {folder}"
                )
                return
            target = self._copy(kg, path, folder)
        except (Refused, Unavailable) as exc:
            raise Unavailable(
                f"no backup of {name} could be kept in {folder} before the first "
                f"edit ({exc}); to edit without one, turn off {TURN_OFF}"
            ) from None
        self._kept[path] = target
        removed = self._remove_old(folder, Path(path).stem, target)
        said = f"Kept a backup of {name} before the first edit: {target}"
        if removed:
            said += f"; removed {_older(removed)} to keep {self._bounds()}"
        self._document.state.message.emit(said)

    def _room_for(self, path: str, folder: Path) -> bool:
        """Whether to take the backup: yes when it leaves room on its disk; else the person
        says (no: Unavailable, saying why)."""
        size = _megabytes(path)
        left = free_megabytes(folder) - size
        if left >= ROOM_LEFT_MB:
            return True
        why = (
            f"only {max(left, 0):,.0f} MB would be left on the disk of {folder}, and MemPalace "
            "needs room to go on writing"
        )
        question = (
            f"A backup of {Path(path).name} ({size:,.0f} MB) in {folder} would leave "
            f"{max(left, 0):,.0f} MB free on that disk, and MemPalace needs room to go on "
            "writing the graph.\n\nEdit without a backup of this file (this session)?"
        )
        if self._ask("Little room for a backup", question):
            return False
        raise Unavailable(why)

    def _copy(self, kg: KnowledgeGraph, path: str, folder: Path) -> Path:
        """Copy the graph into the folder on a worker thread, with progress and Cancel; wait
        for it here, the window answering meanwhile."""
        name = backup_name(path, datetime.now())
        target, number = folder / name, 1
        while target.exists():  # two files of one name within a second
            number += 1
            target = folder / f"{Path(name).stem}-{number}.sqlite3"
        job = Job(lambda progress: kg.backup_to(target, progress), self)
        dialog = ProgressDialog(
            job,
            "Keeping a backup",
            f"Keeping a backup of {Path(path).name} in {folder} before the first edit…",
            self._window,
            unit="MB",
        )
        waiting = QEventLoop()
        job.ended.connect(waiting.quit)
        self.job = job
        try:
            job.start()
            waiting.exec()
        finally:
            self.job = None
            dialog.deleteLater()
            job.deleteLater()
        if isinstance(job.error, Cancelled):
            raise Unavailable("the backup was cancelled")
        if isinstance(job.error, (Refused, Unavailable)):
            raise job.error
        if job.error is not None:  # a bug: the app's error handler has shown it
            raise Unavailable("the copy stopped on an error, shown separately")
        return target

    def shutdown(self) -> None:
        """Before the window closes: a backup being copied is cancelled (nothing of it is left,
        and the edit waiting for it is not written) and waited for."""
        if self.job is not None and self.job.running:
            self.job.stop()

    def _bounds(self) -> str:
        per_file = app_settings.BACKUPS_PER_FILE.get(self._settings)
        total = app_settings.BACKUPS_TOTAL_MB.get(self._settings)
        return f"the newest {per_file} of each file and at most {total:,} MB"

    def _remove_old(self, folder: Path, stem: str, new: Path) -> list[int]:
        """Remove older backups beyond the newest few of this file name and beyond the total
        cap (oldest first; never ``new``); the sizes of those removed."""
        per_file = app_settings.BACKUPS_PER_FILE.get(self._settings)
        cap = app_settings.BACKUPS_TOTAL_MB.get(self._settings) * 1e6
        kept = sorted(_kept_backups(folder), key=lambda b: b[0])  # oldest first
        of_file = [b for b in kept if b[1] == stem and b[2] != new]
        doomed = of_file[: max(0, len(of_file) - (per_file - 1))]
        rest = [b for b in kept if b not in doomed]
        total = sum(b[3] for b in rest)
        for backup in rest:
            if total <= cap:
                break
            if backup[2] != new:
                doomed.append(backup)
                total -= backup[3]
        removed = []
        for _, _, place, size in doomed:
            with contextlib.suppress(OSError):
                place.unlink()
                removed.append(size)
        return removed


def _kept_backups(folder: Path) -> list[tuple[tuple, str, Path, int]]:
    """Every backup in the folder: ((when, number), file stem, path, bytes)."""
    found = []
    for place in folder.iterdir():
        match = _BACKUP.match(place.name)
        if match and place.is_file():
            when = (match["when"], int(match["n"] or 1))
            found.append((when, match["stem"], place, place.stat().st_size))
    return found


def _older(sizes: list[int]) -> str:
    count = f"{len(sizes)} older backup" + ("s" if len(sizes) != 1 else "")
    return f"{count} ({sum(sizes) / 1e6:,.0f} MB)"


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unavailable(exc.strerror or str(exc)) from None
