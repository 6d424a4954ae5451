"""The forms behind the edits: add, edit, replace or end a fact; rename or merge an entity;
mark single-valued predicates.

Each dialog collects and validates values: a bad value keeps the dialog open with the reason,
in the words of the form. Applying them through the undo stack is
:class:`~factlines.ui.menus.edits.FactActions`' job; it hands the dialog an ``apply`` that writes
on OK, so a refusal by the store (a duplicate open fact…) is said in the dialog too, which stays
open with everything typed.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from factlines.core import temporal
from factlines.core.columns import BY_NAME, PROVENANCE, Provenance
from factlines.core.errors import Refused
from factlines.ui.forms.fields import (
    ConfidenceField,
    DateField,
    NameCompleter,
    NewEntityHint,
)
from factlines.ui.look import style
from factlines.ui.look.wording import HOW_TO_WRITE_A_TIME, REASON_HINT, fact_in_words, refusal

REASON_CHARS = 200


class _FormDialog(QDialog):
    """A form with an error line; ``validate`` returns None or the reason to stay open, and
    ``apply`` (when set) does the edit on OK and returns None or the refusal, in words.

    The dialog grows to show its whole error; once one is shown it is checked again as the
    form is edited, and goes away when the form is right."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.apply: Callable[[], str | None] | None = None
        # By the name field's object name: its completer, and its "new entity" note.
        self.completers: dict[str, NameCompleter] = {}
        self.hints: dict[str, NewEntityHint] = {}
        self.reason: QLineEdit | None = None  # a field for why, on the forms that ask
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.error = QLabel(self)
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.theme().conflict.name()};")
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def validate(self) -> str | None:
        return None

    def add_reason(self, last: str) -> None:
        """A field for why (optional, logged with the edit), holding ``last``: the reason typed
        last this session, selected so that typing replaces it."""
        self.reason = QLineEdit(last, self)
        self.reason.setObjectName("reasonEdit")
        self.reason.setMaxLength(REASON_CHARS)
        self.reason.setPlaceholderText("optional")
        self.reason.setToolTip(REASON_HINT)
        self.reason.selectAll()
        self.form.addRow("Why", self.reason)

    def reason_value(self) -> str | None:
        """The reason typed (None when none, or when the form has no such field)."""
        return (self.reason.text().strip() or None) if self.reason is not None else None

    def accept(self) -> None:
        reason = self.validate()
        if reason is None and self.apply is not None:
            reason = self.apply()
        if reason:
            self.show_error(reason)
            return
        super().accept()

    def show_error(self, reason: str) -> None:
        self.error.setText(reason)
        self.error.show()
        self.fit()

    def fit(self) -> None:
        """Make the dialog at least as tall as its content at its width (wrapped text too)."""
        layout = self.layout()
        layout.activate()
        need = layout.totalMinimumSize().height()
        if layout.hasHeightForWidth():
            need = max(need, layout.totalHeightForWidth(self.width()))
        if need > self.height():
            self.resize(self.width(), need)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.fit()

    def recheck(self, *_edited) -> None:
        """After an edit: an error shown is said again as it now stands, or goes away."""
        if self.error.isHidden():
            return
        reason = self.validate()
        if reason:
            self.error.setText(reason)
            self.fit()
        else:
            self.error.hide()

    def watch(self, *edits: QWidget) -> None:
        """Check the form again (:meth:`recheck`) whenever one of ``edits`` changes."""
        for edit in edits:
            if isinstance(edit, QLineEdit):
                edit.textChanged.connect(self.recheck)
            elif isinstance(edit, QComboBox):
                edit.currentTextChanged.connect(self.recheck)
            elif isinstance(edit, (DateField, ConfidenceField)):
                edit.edit.textChanged.connect(self.recheck)

    def name_field(
        self,
        name: str,
        text: str,
        names: list[str],
        known: Callable[[str], bool] | None = None,
    ) -> tuple[QLineEdit, QWidget]:
        """An entity's name: completed as typed (names that start with the text first), and
        "new entity" said under it, with the closest names, when it is none yet."""
        holder = QWidget(self)
        edit = QLineEdit(text, holder)
        edit.setObjectName(name)
        self.completers[name] = NameCompleter(edit, names)
        self.hints[name] = NewEntityHint(edit, names, known, holder)
        self.hints[name].said.connect(self.fit)
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(edit)
        layout.addWidget(self.hints[name])
        return edit, holder


def _time_required(field_label: str) -> str:
    return f"{field_label} is required. {HOW_TO_WRITE_A_TIME}"


class _ProvenanceMixin:
    def _add_provenance(self, fact: dict | None) -> None:
        self.provenance: dict[str, QLineEdit] = {}
        for key in PROVENANCE:
            edit = QLineEdit((fact or {}).get(key) or "", self)
            edit.setObjectName(f"{key}Edit")
            edit.setPlaceholderText("optional")
            self.provenance[key] = edit
            self.form.addRow(BY_NAME[key].label, edit)

    def provenance_values(self) -> Provenance:
        return Provenance(*(edit.text().strip() or None for edit in self.provenance.values()))


class FactDialog(_ProvenanceMixin, _FormDialog):
    """Add a fact (``fact`` None) or edit every field of one (``fact`` a ``get_fact`` dict).

    ``known(name)`` tells whether a name is an entity of the graph (by default: one of
    ``names``)."""

    def __init__(
        self,
        names: list[str],
        predicates: list[str],
        fact: dict | None = None,
        subject: str | None = None,
        parent=None,
        known: Callable[[str], bool] | None = None,
    ):
        super().__init__("Edit fact" if fact else "Add fact", parent)
        self.setObjectName("factDialog")
        self._fact = fact
        fields = fact or {}
        self.subject, subject_row = self.name_field(
            "subjectEdit", fields.get("subject_name") or subject or "", names, known
        )
        self.predicate = QComboBox(self)
        self.predicate.setObjectName("predicateEdit")
        self.predicate.setEditable(True)
        self.predicate.addItems(predicates)
        self.predicate.setCurrentText(fields.get("predicate") or "")
        self.predicate.completer().setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.predicate.completer().setFilterMode(Qt.MatchFlag.MatchContains)
        self.object, object_row = self.name_field(
            "objectEdit", fields.get("object_name") or "", names, known
        )
        self.valid_from = DateField("valid_from", fields.get("valid_from"), "unknown", self)
        self.valid_to = DateField("valid_to", fields.get("valid_to"), "still open", self)
        self.confidence = ConfidenceField(fields.get("confidence"), self)
        self.form.addRow("Subject", subject_row)
        self.form.addRow("Predicate", self.predicate)
        self.form.addRow("Object", object_row)
        self.form.addRow("Valid from", self.valid_from)
        self.form.addRow("Valid to", self.valid_to)
        self.form.addRow("Confidence", self.confidence)
        self._add_provenance(fact)
        self.watch(
            self.subject,
            self.predicate,
            self.object,
            self.valid_from,
            self.valid_to,
            self.confidence,
        )
        if fact is None and subject:
            self.predicate.setFocus()

    def values(self) -> dict:
        """Every field, as the store takes them (dates in stored form); raises Refused (a
        TimeValueError for a date) when one is not right."""
        return {
            "subject": self.subject.text().strip(),
            "predicate": self.predicate.currentText().strip(),
            "object": self.object.text().strip(),
            "valid_from": self.valid_from.value(),
            "valid_to": self.valid_to.value(),
            "confidence": self.confidence.value(),
            **self.provenance_values()._asdict(),
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
                if not _same_number(before, value):
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
        except Refused as exc:  # a TimeValueError, or the confidence
            return refusal(exc)
        return None


def _same_number(before: object, value: float) -> bool:
    try:
        return abs(float(before) - value) <= 1e-9
    except (TypeError, ValueError):  # none stored, or text MemPalace passed through
        return False


class ReplaceDialog(_ProvenanceMixin, _FormDialog):
    """Replace an open fact's object from one instant on (supersede)."""

    def __init__(
        self,
        fact: dict,
        names: list[str],
        at: str,
        parent=None,
        known: Callable[[str], bool] | None = None,
        reason: str = "",
    ):
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
        self.new_object, object_row = self.name_field("newObjectEdit", "", names, known)
        self.at = DateField("at", at, "", self)
        self.confidence = ConfidenceField(1.0, self)
        self.form.addRow("New object", object_row)
        self.form.addRow("At", self.at)
        self.form.addRow("Confidence", self.confidence)
        # The successor is new evidence, entered by hand: it does not inherit the old source.
        self._add_provenance(None)
        self.add_reason(reason)
        self.watch(self.new_object, self.at, self.confidence)
        self.new_object.setFocus()

    def values(self) -> dict:
        return {
            "new_object": self.new_object.text().strip(),
            "at": self.at.value(),
            "confidence": self.confidence.value(),
            "provenance": self.provenance_values(),
        }

    def validate(self) -> str | None:
        if not self.new_object.text().strip():
            return "New object is required"
        try:
            values = self.values()
            if values["at"] is None:
                return _time_required("At")
            temporal.check_interval(
                self._fact["valid_from"], temporal.boundary(values["at"]), to_field="at"
            )
        except Refused as exc:  # a TimeValueError, or the confidence
            return refusal(exc)
        return None


class EndFactDialog(_FormDialog):
    """When an open fact stopped being true."""

    def __init__(self, fact: dict, ended: str, parent=None, reason: str = ""):
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
        self.add_reason(reason)
        self.watch(self.ended)

    def validate(self) -> str | None:
        try:
            ended = self.ended.value()
            if ended is None:
                return _time_required("Ended")
            temporal.check_interval(self._fact["valid_from"], ended, to_field="ended")
        except Refused as exc:  # TimeValueError
            return refusal(exc)
        return None


class DeleteFactDialog(_FormDialog):
    """Delete a fact for good, after saying what delete is for; with a reason (optional)."""

    def __init__(self, fact: dict, parent=None, reason: str = ""):
        super().__init__("Delete fact", parent)
        self.setObjectName("deleteFactDialog")
        intro = QLabel(
            f"Delete “{html.escape(fact_in_words(fact))}” for good?<br><br>Delete is for "
            "mistakes. A fact that stopped being true should be ended instead, so its history "
            "stays.",
            self,
        )
        intro.setTextFormat(Qt.TextFormat.RichText)
        intro.setWordWrap(True)
        self.form.addRow(intro)
        self.add_reason(reason)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Delete")
        # Enter in the reason field must not delete: Cancel is the default.
        ok.setAutoDefault(False)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setDefault(True)


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
            self.completers["nameEdit"] = NameCompleter(self.name, names)
        self.name.selectAll()
        self.form.addRow(label, self.name)
        self.watch(self.name)

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
