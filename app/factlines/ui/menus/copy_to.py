"""File → Copy to…: the open graph, whole, to a new place (``factlines copy`` in the window).

The person names the target (typed, or a file picked with Browse…); the copy runs on a worker
thread (:mod:`factlines.ui.jobs.progress`) with stores of its own, the open graph read in one
snapshot, while the window goes on answering; a progress dialog counts the rows and can
cancel, and then nothing is written to the target. A target that holds a graph, or is not a
knowledge graph, is refused in words; the open graph is never written (a read-only one can be
copied too). When the target is the graph open in the window, the window's watch shows the
copied rows as another program's write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from factlines.core.transfer import CopySummary, copy_graph
from factlines.ui.actions import enable_or_say_why, make_action
from factlines.ui.jobs.progress import Job, ProgressDialog
from factlines.ui.session.document import Document

FILE_FILTER = "Knowledge graphs (*.sqlite3 *.sqlite *.db);;All files (*)"
COPY_TIP = "Copy the whole graph, losslessly, to a new file or an empty graph"
WHAT_IS_COPIED = (
    "Every fact and entity exactly as stored (ids, provenance, odd dates), the graph's "
    "settings (single-valued predicates …) and Factlines' edit log. The target must be new "
    "or an empty graph: nothing is overwritten or merged."
)


def free_copy_name(source: str) -> Path:
    """A new file beside ``source`` for its copy: ``<stem>-copy``, else ``-copy-2``, …"""
    path = Path(source)
    for n in range(1, 1000):
        candidate = path.with_name(f"{path.stem}-copy{'' if n == 1 else f'-{n}'}{path.suffix}")
        if not candidate.exists():
            return candidate
    return path.with_name(f"{path.stem}-copy{path.suffix}")  # the copy will say it is taken


class CopyTargetDialog(QDialog):
    """Where the copy goes: a location typed or picked (Browse… asks for a new file)."""

    def __init__(self, source: str, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("copyTargetDialog")
        self.setWindowTitle("Copy the graph to…")
        self.setMinimumWidth(520)
        name = Path(source).name
        self.target = QLineEdit(str(free_copy_name(source)), self)
        self.target.setObjectName("copyTarget")
        self.target.setPlaceholderText("a new .sqlite3 file, or an empty graph")
        self.target.selectAll()
        browse = QPushButton("&Browse…", self)
        browse.clicked.connect(self._browse)
        note = QLabel(WHAT_IS_COPIED, self)
        note.setWordWrap(True)
        note.setObjectName("copyNote")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("&Copy")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.target.textChanged.connect(self._update_ok)
        layout = QGridLayout(self)
        layout.addWidget(QLabel(f"Copy <b>{name}</b> to:", self), 0, 0, 1, 2)
        layout.addWidget(self.target, 1, 0)
        layout.addWidget(browse, 1, 1)
        layout.addWidget(note, 2, 0, 1, 2)
        layout.addWidget(self.buttons, 3, 0, 1, 2)

    def location(self) -> str:
        return self.target.text().strip()

    def _update_ok(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.location()))

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Copy the graph to a new file",
            self.location(),
            FILE_FILTER,
            options=QFileDialog.Option.DontConfirmOverwrite,  # an empty graph may take it
        )
        if path:
            self.target.setText(path)


class CopyActions(QObject):
    """File → Copy to…, and the one copy that may run at a time (:attr:`job`).

    ``report(title, text)`` shows a refusal; what went well goes to the status bar."""

    def __init__(self, document: Document, report: Callable[[str, str], None], window: QWidget):
        super().__init__(window)
        self._document = document
        self._report = report
        self._window = window
        self.job: Job | None = None
        self.dialog: ProgressDialog | None = None
        self.action_copy_to = make_action(
            window,
            "actionCopyTo",
            "&Copy to…",
            self.copy_dialog,
            tip=COPY_TIP,
        )
        document.state.graphChanged.connect(self.update_action)
        self.update_action()

    @property
    def busy(self) -> bool:
        return self.job is not None

    def update_action(self) -> None:
        """Enabled while a graph is open and no copy runs (a read-only graph copies too)."""
        reason = None
        if self._document.kg is None or self._document.path is None:
            reason = "no graph is open"
        elif self.busy:
            reason = "a copy is under way"
        enable_or_say_why(self.action_copy_to, reason, COPY_TIP, "copy")

    def copy_dialog(self, _checked: bool = False) -> None:
        source = self._document.path
        if source is None or self.busy:
            return
        target = self.ask_target(source)
        if target:
            self.copy_to(target)

    def ask_target(self, source: str) -> str | None:
        """The location the person typed or picked; None when they cancelled."""
        dialog = CopyTargetDialog(source, self._window)
        return dialog.location() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def copy_to(self, target: str) -> Job | None:
        """Copy the open graph to ``target`` on a worker thread, with the progress dialog;
        the outcome is said when it ends. None when nothing is open or a copy runs."""
        source = self._document.path
        if source is None or self.busy:
            return None
        job = Job(lambda progress: copy_graph(source, target, progress=progress), self)
        job.finished.connect(self._finished)
        job.failed.connect(lambda words: self._report("Cannot copy the graph", words))
        job.cancelled.connect(lambda: self._say(f"Copy cancelled: nothing was written to {target}"))
        job.ended.connect(self._ended)
        self.job = job
        self.dialog = ProgressDialog(
            job, "Copy to…", f"Copying {Path(source).name} to {target}…", self._window
        )
        self.update_action()
        job.start()
        return job

    def shutdown(self) -> None:
        """The window is closing: a copy under way is cancelled (nothing is left of it)."""
        if self.job is not None:
            self.job.stop()

    def _finished(self, summary: CopySummary) -> None:
        self._say(summary.words())

    def _ended(self) -> None:
        job, self.job = self.job, None
        dialog, self.dialog = self.dialog, None
        for done in (job, dialog):
            if done is not None:
                done.deleteLater()
        self.update_action()

    def _say(self, text: str) -> None:
        self._document.state.message.emit(text)
