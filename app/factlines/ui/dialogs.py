"""The forms behind the edits: add, edit, replace or end a fact; rename or merge an entity;
mark single-valued predicates.

Each dialog only collects and validates values (a bad value keeps the dialog open with the
reason); applying them through the undo stack is :class:`~factlines.ui.actions.FactActions`' job.
"""

from __future__ import annotations

from PySide6.QtCore import QDate, QStringListModel, Qt
from PySide6.QtWidgets import (
    QCalendarWidget,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.store import PROVENANCE
from factlines.ui import style

PROVENANCE_LABELS = {
    "source_closet": "Source closet",
    "source_file": "Source file",
    "source_drawer_id": "Source drawer id",
    "adapter_name": "Adapter name",
}


def name_completer(names: list[str], parent: QWidget) -> QCompleter:
    completer = QCompleter(QStringListModel(names, parent), parent)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    completer.setMaxVisibleItems(12)
    return completer


class DateField(QWidget):
    """A time value typed in an accepted form, or picked from a calendar (a whole day)."""

    def __init__(self, field: str, value: str | None = None, placeholder: str = "", parent=None):
        super().__init__(parent)
        self.field = field
        self.edit = QLineEdit(value or "", self)
        self.edit.setObjectName(f"{field}Edit")
        self.edit.setPlaceholderText(placeholder or "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ")
        self.edit.setToolTip(f"{field}: {temporal.EXPECTED_FORMS}")
        self.edit.setMinimumWidth(190)
        pick = QToolButton(self)
        pick.setText("Pick")
        pick.setToolTip("Pick a day")
        pick.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(pick)
        self._calendar = QCalendarWidget(menu)
        self._calendar.setGridVisible(True)
        holder = QWidgetAction(menu)
        holder.setDefaultWidget(self._calendar)
        menu.addAction(holder)
        menu.aboutToShow.connect(self._show_current)
        self._calendar.clicked.connect(lambda day: (self._picked(day), menu.close()))
        pick.setMenu(menu)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(pick)

    def _show_current(self) -> None:
        text = self.edit.text().strip()[:10]
        day = QDate.fromString(text, "yyyy-MM-dd")
        self._calendar.setSelectedDate(day if day.isValid() else QDate.currentDate())

    def _picked(self, day: QDate) -> None:
        self.edit.setText(day.toString("yyyy-MM-dd"))

    def text(self) -> str:
        return self.edit.text().strip()

    def setText(self, text: str | None) -> None:
        self.edit.setText(text or "")

    def value(self) -> str | None:
        """The stored form; raises TimeValueError naming the field."""
        return temporal.parse(self.text(), self.field)


class _FormDialog(QDialog):
    """A form with an error line; ``validate`` returns None or the reason to stay open."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.error = QLabel(self)
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.CONFLICT.name()};")
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def validate(self) -> str | None:
        return None

    def accept(self) -> None:
        reason = self.validate()
        if reason:
            self.error.setText(reason)
            self.error.show()
            return
        super().accept()


def _confidence_box(value: float, parent) -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(0.0, 1.0)
    box.setSingleStep(0.05)
    box.setDecimals(2)
    box.setValue(1.0 if value is None else value)
    return box


class _ProvenanceMixin:
    def _add_provenance(self, fact: dict | None) -> None:
        self.provenance: dict[str, QLineEdit] = {}
        for key in PROVENANCE:
            edit = QLineEdit((fact or {}).get(key) or "", self)
            edit.setObjectName(f"{key}Edit")
            edit.setPlaceholderText("optional")
            self.provenance[key] = edit
            self.form.addRow(PROVENANCE_LABELS[key], edit)

    def provenance_values(self) -> dict:
        return {key: edit.text().strip() or None for key, edit in self.provenance.items()}


class FactDialog(_ProvenanceMixin, _FormDialog):
    """Add a fact (``fact`` None) or edit every field of one (``fact`` a ``get_fact`` dict)."""

    def __init__(
        self,
        names: list[str],
        predicates: list[str],
        fact: dict | None = None,
        subject: str | None = None,
        parent=None,
    ):
        super().__init__("Edit fact" if fact else "Add fact", parent)
        self.setObjectName("factDialog")
        self._fact = fact
        self.subject = QLineEdit((fact or {}).get("subject_name") or subject or "", self)
        self.subject.setObjectName("subjectEdit")
        self.subject.setCompleter(name_completer(names, self))
        self.predicate = QComboBox(self)
        self.predicate.setObjectName("predicateEdit")
        self.predicate.setEditable(True)
        self.predicate.addItems(predicates)
        self.predicate.setCurrentText((fact or {}).get("predicate") or "")
        self.predicate.completer().setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.predicate.completer().setFilterMode(Qt.MatchFlag.MatchContains)
        self.object = QLineEdit((fact or {}).get("object_name") or "", self)
        self.object.setObjectName("objectEdit")
        self.object.setCompleter(name_completer(names, self))
        self.valid_from = DateField("valid_from", (fact or {}).get("valid_from"), "unknown", self)
        self.valid_to = DateField("valid_to", (fact or {}).get("valid_to"), "still open", self)
        self.confidence = _confidence_box((fact or {}).get("confidence"), self)
        self.form.addRow("Subject", self.subject)
        self.form.addRow("Predicate", self.predicate)
        self.form.addRow("Object", self.object)
        self.form.addRow("Valid from", self.valid_from)
        self.form.addRow("Valid to", self.valid_to)
        self.form.addRow("Confidence", self.confidence)
        self._add_provenance(fact)
        if fact is None and subject:
            self.predicate.setFocus()

    def values(self) -> dict:
        """Every field, as the store takes them (dates in stored form)."""
        return {
            "subject": self.subject.text().strip(),
            "predicate": self.predicate.currentText().strip(),
            "object": self.object.text().strip(),
            "valid_from": self.valid_from.value(),
            "valid_to": self.valid_to.value(),
            "confidence": self.confidence.value(),
            **self.provenance_values(),
        }

    def changes(self) -> dict:
        """For an edit: only the fields that differ from the fact (names as typed)."""
        values = self.values()
        fact = self._fact or {}
        current = {
            "subject": fact.get("subject_name"),
            "predicate": fact.get("predicate"),
            "object": fact.get("object_name"),
        }
        changed = {}
        for key, value in values.items():
            before = current.get(key, fact.get(key))
            if key == "confidence":
                if before is None or abs(float(before) - value) > 1e-9:
                    changed[key] = value
            elif value != before:
                changed[key] = value
        return changed

    def validate(self) -> str | None:
        for label, text in (
            ("Subject", self.subject.text()),
            ("Predicate", self.predicate.currentText()),
            ("Object", self.object.text()),
        ):
            if not text.strip():
                return f"{label} is required"
        try:
            values = self.values()
            temporal.check_interval(values["valid_from"], values["valid_to"])
        except Refused as exc:  # TimeValueError
            return str(exc)
        return None


class ReplaceDialog(_ProvenanceMixin, _FormDialog):
    """Replace an open fact's object from one instant on (supersede)."""

    def __init__(self, fact: dict, names: list[str], at: str, parent=None):
        super().__init__("Replace with…", parent)
        self.setObjectName("replaceDialog")
        self._fact = fact
        intro = QLabel(
            f"<b>{fact['subject_name']}</b> {fact['predicate']} <b>{fact['object_name']}</b> "
            f"(since {fact['valid_from'] or 'an unknown date'}) ends at the instant below, and "
            "the new fact starts at the same instant.",
            self,
        )
        intro.setWordWrap(True)
        self.form.addRow(intro)
        self.new_object = QLineEdit(self)
        self.new_object.setObjectName("newObjectEdit")
        self.new_object.setCompleter(name_completer(names, self))
        self.at = DateField("at", at, "", self)
        self.confidence = _confidence_box(1.0, self)
        self.form.addRow("New object", self.new_object)
        self.form.addRow("At", self.at)
        self.form.addRow("Confidence", self.confidence)
        # The successor is new evidence, entered by hand: it does not inherit the old source.
        self._add_provenance(None)
        self.new_object.setFocus()

    def values(self) -> dict:
        return {
            "new_object": self.new_object.text().strip(),
            "at": self.at.value(),
            "confidence": self.confidence.value(),
            **self.provenance_values(),
        }

    def validate(self) -> str | None:
        if not self.new_object.text().strip():
            return "New object is required"
        try:
            values = self.values()
            if values["at"] is None:
                return f"at is required; expected {temporal.EXPECTED_FORMS}"
            temporal.check_interval(
                self._fact["valid_from"], temporal.boundary(values["at"]), to_field="at"
            )
        except Refused as exc:  # TimeValueError
            return str(exc)
        return None


class EndFactDialog(_FormDialog):
    """When an open fact stopped being true."""

    def __init__(self, fact: dict, ended: str, parent=None):
        super().__init__("End fact", parent)
        self.setObjectName("endFactDialog")
        self._fact = fact
        intro = QLabel(
            f"<b>{fact['subject_name']}</b> {fact['predicate']} <b>{fact['object_name']}</b> "
            f"holds since {fact['valid_from'] or 'an unknown date'}. It stops being true on:",
            self,
        )
        intro.setWordWrap(True)
        self.form.addRow(intro)
        self.ended = DateField("ended", ended, "", self)
        self.form.addRow("Ended", self.ended)

    def validate(self) -> str | None:
        try:
            ended = self.ended.value()
            if ended is None:
                return f"ended is required; expected {temporal.EXPECTED_FORMS}"
            temporal.check_interval(self._fact["valid_from"], ended, to_field="ended")
        except Refused as exc:  # TimeValueError
            return str(exc)
        return None


class NameDialog(_FormDialog):
    """One name: a new display name, or the entity to merge into (with completion)."""

    def __init__(
        self, title: str, prompt: str, label: str, value: str, names: list[str], parent=None
    ):
        super().__init__(title, parent)
        self.setObjectName("nameDialog")
        intro = QLabel(prompt, self)
        intro.setWordWrap(True)
        self.form.addRow(intro)
        self.name = QLineEdit(value, self)
        self.name.setObjectName("nameEdit")
        if names:
            self.name.setCompleter(name_completer(names, self))
        self.name.selectAll()
        self.form.addRow(label, self.name)

    def value(self) -> str:
        return self.name.text().strip()

    def validate(self) -> str | None:
        return None if self.value() else "A name is required"


class SingleValuedDialog(_FormDialog):
    """Which predicates allow one object per subject at a time: their overlaps are conflicts."""

    def __init__(self, predicates: list[str], marked: list[str], parent=None):
        super().__init__("Single-valued predicates", parent)
        self.setObjectName("singleValuedDialog")
        intro = QLabel(
            "A subject can have only one object of a single-valued predicate at any instant "
            "(someone lives in one place, a project has one lead). Two such facts of one "
            "subject whose windows overlap are shown as a conflict.",
            self,
        )
        intro.setWordWrap(True)
        self.form.addRow(intro)
        self.list = QListWidget(self)
        self.list.setObjectName("singleValuedList")
        self.list.setMinimumHeight(380)
        for predicate in sorted(set(predicates) | set(marked)):
            item = QListWidgetItem(predicate, self.list)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if predicate in marked else Qt.CheckState.Unchecked
            )
        self.form.addRow(self.list)

    def values(self) -> list[str]:
        """The predicates ticked."""
        return [
            self.list.item(row).text()
            for row in range(self.list.count())
            if self.list.item(row).checkState() == Qt.CheckState.Checked
        ]
