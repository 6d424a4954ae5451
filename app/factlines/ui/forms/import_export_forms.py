"""The forms of File → Export… and File → Import…: what to export and where, and the report of
an import's rejected and skipped rows (``line N: reason``), with the choice to import the good
rows anyway."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from factlines.core.transfer import ImportReport, formats
from factlines.core.transfer.formats import Format
from factlines.ui.forms.dialogs import _FormDialog
from factlines.ui.look import style


def export_choices() -> list[tuple[str | None, str]]:
    """The export form's formats: (key, or None for "as the file name says"; words)."""
    writing = formats.writing()
    return [
        (None, f"As the file name says ({', '.join(formats.extensions(writing))})"),
        *((fmt.key, f"{fmt.name}: {fmt.export_words}") for fmt in writing),
    ]


def export_filter() -> str:
    """The save dialog's file types: each format an export writes, then any file."""
    return ";;".join(
        [*(f"{fmt.name} ({_patterns((fmt,))})" for fmt in formats.writing()), "All files (*)"]
    )


def import_filter() -> str:
    """The open dialog's file types: all an import reads, each format it reads, any file."""
    reading = formats.reading()
    return ";;".join(
        [
            f"Graph data ({_patterns(reading)})",
            *(f"{fmt.name}: {fmt.import_words} ({_patterns((fmt,))})" for fmt in reading),
            "All files (*)",
        ]
    )


def _patterns(of: tuple[Format, ...]) -> str:
    return " ".join(f"*{ext}" for ext in formats.extensions(of))


class ExportDialog(_FormDialog):
    """Where to, in which format, and what: the whole history or the snapshot at as_of, the
    whole graph or the selected entity's facts."""

    def __init__(
        self,
        path: Path,
        as_of: str | None,
        entity: dict | None,
        parent: QWidget | None = None,
    ):
        super().__init__("Export", parent)
        self.setObjectName("exportDialog")
        self.setMinimumWidth(560)
        self._as_of = as_of
        self._entity = entity
        self.path = QLineEdit(str(path), self)
        self.path.setObjectName("exportPathEdit")
        browse = QPushButton("Browse…", self)
        browse.setObjectName("exportBrowse")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        self.format = QComboBox(self)
        self.format.setObjectName("exportFormat")
        for fmt, words in export_choices():
            self.format.addItem(words, fmt)
        self.format.currentIndexChanged.connect(self._format_chosen)
        at = style.show_time(as_of) if as_of else None
        name = style.elide(entity["name"], 60) if entity else None
        self.whole_history, self.snapshot = self._either(
            ("exportWholeHistory", "The whole history"),
            ("exportSnapshot", f"Only the facts valid at as_of ({at or 'not set'})"),
            None if as_of else "as_of is all time: set a time on the time bar first",
        )
        self.whole_graph, self.one_entity = self._either(
            ("exportWholeGraph", "The whole graph"),
            ("exportEntity", f"Only {name or 'the selected entity'}'s facts (either side)"),
            None if entity else "Select an entity first",
        )
        self.form.addRow("File", row)
        self.form.addRow("Format", self.format)
        self.form.addRow("Facts", self._column(self.whole_history, self.snapshot))
        self.form.addRow("From", self._column(self.whole_graph, self.one_entity))
        note = QLabel(
            "The graph is only read, on a connection of its own: you can go on working. The "
            "file appears when it is complete; a cancelled export leaves none.",
            self,
        )
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {style.theme().subtle_text.name()};")
        self.form.addRow(note)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        self.watch(self.path, self.format)

    def _either(
        self, first: tuple[str, str], second: tuple[str, str], why_not: str | None
    ) -> tuple[QRadioButton, QRadioButton]:
        """Two exclusive choices (object name, words), the first chosen; the second disabled
        with ``why_not`` as its tip when it cannot be had."""
        group = QButtonGroup(self)
        buttons = []
        for name, text in (first, second):
            button = QRadioButton(text, self)
            button.setObjectName(name)
            group.addButton(button)
            buttons.append(button)
        buttons[0].setChecked(True)
        buttons[1].setEnabled(why_not is None)
        buttons[1].setToolTip(why_not or "")
        return buttons[0], buttons[1]

    def _column(self, *widgets: QWidget) -> QWidget:
        holder = QWidget(self)
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        for widget in widgets:
            layout.addWidget(widget)
        return holder

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export to", self.path.text(), export_filter())
        if path:
            self.path.setText(path)

    def _format_chosen(self, _index: int) -> None:
        """A format chosen by name: a file name with another format's extension follows it."""
        fmt = self.format.currentData()
        path = Path(self.path.text().strip())
        named = formats.named_by(path, formats.writing())
        if fmt is not None and named is not None and named.key != fmt:
            self.path.setText(str(path.with_suffix(formats.to_write(fmt).extensions[0])))

    def values(self) -> dict:
        """``path``, ``fmt``, ``as_of`` and ``entity`` as ``export_graph`` takes them."""
        path = Path(self.path.text().strip()).expanduser()
        named = formats.named_by(path, formats.writing())
        return {
            "path": path,
            "fmt": self.format.currentData() or (named.key if named else None),
            "as_of": self._as_of if self.snapshot.isChecked() else None,
            "entity": self._entity["id"] if self.one_entity.isChecked() else None,
        }

    def validate(self) -> str | None:
        text = self.path.text().strip()
        if not text:
            return "Say where to write the file"
        values = self.values()
        if values["fmt"] is None:
            endings = formats.listed(formats.extensions(formats.writing()))
            return (
                f"“{Path(text).name}” does not say a format: end the name with {endings}, or "
                "choose a format"
            )
        folder = values["path"].parent
        if not folder.is_dir():
            return f"There is no folder {folder}"
        if values["path"].is_dir():
            return f"{values['path']} is a folder: add a file name"
        return None


class ImportReportDialog(QDialog):
    """What an import did not take, by line: scrollable, copyable. When rows were rejected and
    nothing written, the person chooses: write nothing (Cancel), or import the good rows."""

    def __init__(self, report: ImportReport, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("importReportDialog")
        self.setWindowTitle(f"Import {name}")
        self.setMinimumSize(560, 360)
        self.asks = bool(report.rejected) and not report.written
        if self.asks:
            said = (
                f"{len(report.rejected):,} row{'s' if len(report.rejected) != 1 else ''} of "
                f"{name} cannot be imported, so nothing was written."
            )
            if report.skipped:
                said += f" {len(report.skipped):,} more are already in the graph."
            said += " Import the good rows anyway, or nothing?"
        else:
            said = f"{report.summary()[0].upper()}{report.summary()[1:]}. Not imported:"
        self.summary = QLabel(said, self)
        self.summary.setObjectName("importReportSummary")
        self.summary.setWordWrap(True)
        self.lines = QPlainTextEdit("\n".join(report.lines()), self)
        self.lines.setObjectName("importReportLines")
        self.lines.setReadOnly(True)
        self.lines.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.buttons = QDialogButtonBox(self)
        copy = self.buttons.addButton("Copy report", QDialogButtonBox.ButtonRole.ActionRole)
        copy.setObjectName("importReportCopy")
        copy.clicked.connect(self.copy)
        if self.asks:
            self.good_rows = self.buttons.addButton(
                "Import the good rows", QDialogButtonBox.ButtonRole.AcceptRole
            )
            self.good_rows.setObjectName("importGoodRows")
            self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel).setText("Import nothing")
        else:
            self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.lines, 1)
        layout.addWidget(self.buttons)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(f"{self.summary.text()}\n{self.lines.toPlainText()}")
