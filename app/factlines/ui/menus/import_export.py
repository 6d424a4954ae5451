"""File → Export… and File → Import…: data in and out of the open graph, off the UI thread.

**Export** reads the graph through a read-only connection of its own, on a worker thread
(:class:`~factlines.ui.jobs.progress.Job`), so the window's store is never held: the whole history
or the snapshot at as_of, the whole graph or the selected entity, in any format
``factlines.core.transfer.formats`` lists (``export_graph``). Cancel leaves no file.

**Import** (any format of those that reads: Factlines' JSON, MemPalace's ``entity_facts``
seed, a CSV) writes through a connection of its own too, on a worker thread
(``import_recorded``): the file read and checked first, then the rows in short transactions
between which MemPalace writes, all or nothing, recorded (the rows before and after) and
logged in Factlines' edit log. It becomes ONE undo step whose undo removes exactly what was
imported. When a row is rejected, nothing is written and the report (``line N: reason``) asks
whether to import the good rows; rows the graph already holds (an open fact again) are
reported, never doubled. Cancel writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from factlines import open_graph
from factlines.core.errors import Refused, Unavailable
from factlines.core.mempalace_paths import mempalace_config_dir
from factlines.core.transfer import export_graph, formats, import_recorded
from factlines.ui.actions import make_action
from factlines.ui.forms.import_export_forms import (
    ExportDialog,
    ImportReportDialog,
    import_filter,
)
from factlines.ui.jobs.progress import Job, ProgressDialog
from factlines.ui.look.wording import in_words
from factlines.ui.menus.edits import FactActions
from factlines.ui.session import settings as app_settings
from factlines.ui.session.commands import StoreCommand
from factlines.ui.session.document import Document

if TYPE_CHECKING:
    from factlines import KnowledgeGraph
    from factlines.core.transfer import ExportSummary, ImportReport


class TransferActions(QObject):
    """The two File menu entries and what they run. ``report(title, text)`` says a failure
    (a dialog, or the status bar when the window is quiet); ``before_write(kg)`` runs before
    an import writes (the backup before a first edit)."""

    def __init__(
        self,
        document: Document,
        facts: FactActions,
        report: Callable[[str, str], None],
        window: QWidget,
        before_write: Callable[[KnowledgeGraph], None] = lambda _kg: None,
    ):
        super().__init__(window)
        self._document = document
        self._state = document.state
        self._facts = facts
        self._report = report
        self._before_write = before_write
        self._window = window
        self.job: Job | None = None  # the export or import running, if any
        self.progress: ProgressDialog | None = None
        self.action_export = make_action(
            window,
            "actionExport",
            "&Export…",
            self.export_dialog,
            tip=f"Write the graph, or part of it, to {formats.names(formats.writing())}",
        )
        self.action_import = make_action(
            window,
            "actionImport",
            "&Import…",
            self.import_dialog,
            tip=f"Add {formats.what_an_import_reads()} to this graph, all or nothing, as one "
            "undo step",
        )
        self._state.graphChanged.connect(self.update)
        document.readOnlyChanged.connect(self.update)
        self.update()

    def fill(self, menu: QMenu) -> None:
        menu.addActions([self.action_import, self.action_export])

    def update(self, *_changed) -> None:
        """Export needs a graph; import one that may be written (the tip says why not)."""
        kg = self._document.kg
        self.action_export.setEnabled(kg is not None)
        blocked = self._facts.commands.blocked()
        self.action_import.setEnabled(blocked is None)
        if blocked is not None:
            self.action_import.setToolTip(f"Cannot import: {blocked}")
        else:
            self.action_import.setToolTip(self.action_import.statusTip())

    def shutdown(self) -> None:
        """Before the window closes: stop a running job (nothing of it is kept) and wait."""
        if self.job is not None and self.job.running:
            self.job.stop()

    def _exec(self, dialog) -> bool:
        """Show a form modally; tests replace this to fill it in."""
        return dialog.exec() == dialog.DialogCode.Accepted

    def _busy(self) -> bool:
        if self.job is not None and self.job.running:
            self._state.message.emit("An export or import is running: wait for it, or cancel it")
            return True
        if self._state.long_write is not None:  # an undo on its worker
            busy = self._state.long_write
            self._state.message.emit(f"{busy[0].upper()}{busy[1:]} is under way: wait for it")
            return True
        return False

    def _run(self, job: Job, title: str, label: str, writing: str | None = None) -> Job:
        """Run ``job`` with its progress dialog; ``writing``: it writes the graph, which
        ``state.long_write`` says in those words until it ends (other edits wait)."""
        self.job = job
        self.progress = ProgressDialog(job, title, label, self._window)
        job.failed.connect(lambda words: self._report(f"{title} not done", words))
        if writing is not None:
            self._state.long_write = writing
            self._document.own_write_started()
            job.ended.connect(self._write_ended)
        job.start()
        return job

    def _write_ended(self) -> None:
        self._state.long_write = None
        self._document.own_write_ended()  # the views reload, with what it wrote

    # ── Export ────────────────────────────────────────────────────────────

    def export_dialog(self, _checked: bool = False) -> Job | None:
        """Ask what to export and where; then export it (off the UI thread)."""
        path = self._document.path
        if path is None or self._busy():
            return None
        entity = self._state.entity_record() if self._state.entity else None
        dialog = ExportDialog(
            self._export_folder() / f"{Path(path).stem}.json",
            self._state.as_of,
            entity,
            self._window,
        )
        if not self._exec(dialog):
            return None
        values = dialog.values()
        app_settings.EXPORT_FOLDER.set(self._document.settings, str(Path(values["path"]).parent))
        return self.export_to(**values)

    def _export_folder(self) -> Path:
        """Where Export starts: the folder used last, else the person's documents folder, else
        home; never inside MemPalace's own folder (private to it: it keeps it 0700)."""
        private = mempalace_config_dir().resolve()
        for folder in (
            app_settings.EXPORT_FOLDER.get(self._document.settings),
            QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation),
        ):
            if not folder:
                continue
            where = Path(folder).resolve()
            inside = where == private or private in where.parents
            if where.is_dir() and os.access(where, os.W_OK) and not inside:
                return where
        return Path.home()

    def export_to(
        self,
        path: str | Path,
        fmt: str | None = None,
        as_of: str | None = None,
        entity: str | None = None,
    ) -> Job | None:
        """Export the open graph to ``path`` on a worker thread, through a read-only store of
        its own; returns the job (None when nothing is open or another job runs)."""
        graph = self._document.path
        if graph is None or self._busy():
            return None
        target = Path(path)

        def work(progress):
            with open_graph(graph, read_only=True) as kg:
                try:
                    return export_graph(
                        kg, target, fmt=fmt, as_of=as_of, entity=entity, progress=progress
                    )
                except OSError as exc:  # the file: no room, no permission, gone
                    raise Unavailable(f"cannot write {target}: {exc.strerror or exc}") from exc

        job = Job(work, self)
        job.finished.connect(self._exported)
        job.cancelled.connect(
            lambda: self._state.message.emit(f"Export cancelled: {target.name} was not written")
        )
        return self._run(job, "Export", f"Exporting to {target}…")

    def _exported(self, done: ExportSummary) -> None:
        self._state.message.emit(
            f"Exported {done.facts:,} facts and {done.entities:,} entities to {done.path}"
        )

    # ── Import ────────────────────────────────────────────────────────────

    def import_dialog(self, _checked: bool = False) -> Job | None:
        """Ask for a file; then import it (off the UI thread)."""
        if not self._facts.may_write("import") or self._busy():
            return None
        folder = str(Path(self._document.path).parent) if self._document.path else ""
        path, _ = QFileDialog.getOpenFileName(self._window, "Import", folder, import_filter())
        return self.import_from(path) if path else None

    def import_from(self, path: str | Path, good_rows: bool = False) -> Job | None:
        """Import ``path`` into the open graph on a worker thread (``good_rows``: even when some
        rows are rejected); returns the job (None when it cannot start: said why)."""
        kg = self._document.kg
        if kg is None or not self._facts.may_write("import") or self._busy():
            return None
        source, graph = Path(path), self._document.path
        text = f"Import {source.name}"
        try:
            self._before_write(kg)  # the backup before a first edit
        except (Refused, Unavailable) as exc:
            self._report(f"{text} not done", in_words(exc))
            return None

        def work(progress):
            return import_recorded(graph, source, text, good_rows=good_rows, progress=progress)

        job = Job(work, self)
        job.finished.connect(lambda result: self._imported(source, text, *result))
        job.cancelled.connect(
            lambda: self._state.message.emit(f"{text} cancelled: nothing was written")
        )
        self._run(job, "Import", f"Importing {source}…", f"the import of {source.name}")
        # Once the progress dialog has closed (it follows ``ended`` too, connected before):
        # the report alone on screen, its buttons the only ones that answer.
        job.ended.connect(lambda: self._report_rows(source, job.result))
        return job

    def _imported(self, source: Path, text: str, report: ImportReport, change) -> None:
        if report.written and change:
            self._document.kg.adopt(change)  # written on the worker's own connection
            self._document.undo_stack.push(
                StoreCommand(self._state, self._document.undo_stack, text, change)
            )
        self._state.message.emit(f"{text}: {report.summary()}")

    # ── A long edit (merging a big entity) ─────────────────────────────────

    def run_long_edit(
        self,
        text: str,
        work: Callable[[KnowledgeGraph, Callable[[int, int], bool]], object],
        reason: str | None,
        done: Callable[[object], None],
    ) -> Job | None:
        """Run ``work(kg, progress)`` as one undo step logged under ``text``, on a worker
        thread with a store of its own, in short transactions (MemPalace writes in between: the
        store's ``batched``); ``done(result)`` on the UI thread once it is written. None when
        it cannot start (said why)."""
        kg = self._document.kg
        if kg is None or self._busy():
            return None
        try:
            self._before_write(kg)  # the backup before a first edit
        except (Refused, Unavailable) as exc:
            self._report(f"{text} not done", in_words(exc))
            return None
        graph = self._document.path

        def run(progress):
            with open_graph(graph) as own, own.recording() as change, own.batched(text, reason):
                result = work(own, progress)
            return result, change

        job = Job(run, self)
        job.finished.connect(lambda found: self._long_edit_done(text, *found, done))
        job.cancelled.connect(
            lambda: self._state.message.emit(f"{text} cancelled: nothing was written")
        )
        return self._run(job, text, f"{text}…", f"“{text}”")

    def _long_edit_done(self, text: str, result, change, done: Callable[[object], None]) -> None:
        if change:
            self._document.kg.adopt(change)  # written on the worker's own connection
            self._document.undo_stack.push(
                StoreCommand(self._state, self._document.undo_stack, text, change)
            )
        done(result)

    def _report_rows(self, source: Path, result) -> None:
        """The rows left out, by line; "Import the good rows" imports the others."""
        report = result[0] if result is not None else None
        if report is None or not report.lines():
            return
        dialog = ImportReportDialog(report, source.name, self._window)
        if self._exec(dialog) and dialog.asks:
            self.import_from(source, good_rows=True)
