"""The fields the forms share: a time value, a confidence, an entity's name.

Each says what is wrong with what was typed in words, beside itself, and never rewrites it: a
confidence of 5 stays 5 and is refused, not stored as 1 or 0.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from PySide6.QtCore import QDate, QStringListModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCalendarWidget,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import entity_id
from factlines.ui.look import style
from factlines.ui.look.wording import HOW_TO_WRITE_A_TIME, label

NOTE_COLOR = "#a35200"  # a note, not an error: the name is new, which may be meant
MUTED_COLOR = "#6b7075"

MAX_MATCHES = 50  # names offered while typing
VISIBLE_MATCHES = 7  # rows of the list shown at once: it covers the fields below it
SUGGEST_MS = 200  # "did you mean" is looked up once typing pauses
CLOSE_NAMES = 3


class DateField(QWidget):
    """A time value typed in an accepted form, or picked from a calendar (a whole day)."""

    def __init__(self, field: str, value: str | None = None, placeholder: str = "", parent=None):
        super().__init__(parent)
        self.field = field
        self.edit = QLineEdit(value or "", self)
        self.edit.setObjectName(f"{field}Edit")
        self.edit.setPlaceholderText(placeholder or "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ")
        self.edit.setToolTip(f"{label(field)}: {HOW_TO_WRITE_A_TIME}")
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


class ConfidenceField(QWidget):
    """A confidence between 0 and 1, typed as text: what is typed is kept as typed, and a value
    out of range is said beside the field (and refused by the form), never clamped."""

    def __init__(self, value: object = None, parent=None):
        super().__init__(parent)
        self.edit = QLineEdit(self)
        self.edit.setObjectName("confidenceEdit")
        self.edit.setMaximumWidth(90)
        self.edit.setToolTip("How sure the fact is: a number between 0 and 1")
        self.hint = QLabel(self)
        self.hint.setObjectName("confidenceHint")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.hint, 1)
        self.edit.textChanged.connect(self._say)
        self.setValue(1.0 if value is None else value)

    def setValue(self, value: object) -> None:
        if isinstance(value, (int, float)) and round(float(value), 2) == float(value):
            self.edit.setText(f"{float(value):.2f}")
        else:
            self.edit.setText(str(value))

    def setText(self, text: str) -> None:
        self.edit.setText(text)

    def text(self) -> str:
        return self.edit.text().strip()

    def problem(self) -> str | None:
        """Why what is typed is not a confidence, or None."""
        text = self.text()
        if not text:
            return "Confidence is required: a number between 0 and 1."
        try:
            number = float(text.replace(",", "."))
        except ValueError:
            return f"Confidence is a number between 0 and 1; “{text}” is not a number."
        if not 0.0 <= number <= 1.0:
            return f"Confidence is a number between 0 and 1; {text} is not."
        return None

    def value(self) -> float:
        """The confidence typed; raises Refused, saying why, when it is not one."""
        if (reason := self.problem()) is not None:
            raise Refused(reason)
        return float(self.text().replace(",", "."))

    def _say(self, _text: str = "") -> None:
        if self.problem() is None:
            self.hint.setText("between 0 and 1")
            self.hint.setStyleSheet(f"color: {MUTED_COLOR};")
        else:
            self.hint.setText("must be between 0 and 1")
            self.hint.setStyleSheet(f"color: {style.theme().conflict.name()};")


def name_matches(text: str, names: list[str], limit: int = MAX_MATCHES) -> list[str]:
    """The names that contain ``text`` (any case): those that start with it first, then the
    others, each group in alphabetical order."""
    wanted = text.strip().casefold()
    if not wanted:
        return []
    prefix, inside = [], []
    for name in names:
        folded = name.casefold()
        if folded.startswith(wanted):
            prefix.append(name)
        elif wanted in folded:
            inside.append(name)
    prefix.sort(key=str.casefold)
    inside.sort(key=str.casefold)
    return (prefix + inside)[:limit]


class NameCompleter(QCompleter):
    """Completes an entity's name as it is typed: names that start with the text first, then
    names that contain it. Hidden when the text already is the one name that matches."""

    def __init__(self, edit: QLineEdit, names: list[str]):
        super().__init__(edit)
        self._edit = edit
        self._names = names
        self._model = QStringListModel(self)
        self.setModel(self._model)
        self.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setMaxVisibleItems(VISIBLE_MATCHES)
        self.setWidget(edit)
        edit.textEdited.connect(self._typed)
        self.activated[str].connect(edit.setText)

    def matches(self) -> list[str]:
        """What the list offers now."""
        return self._model.stringList()

    def _typed(self, text: str) -> None:
        matches = name_matches(text, self._names)
        exact = len(matches) == 1 and matches[0].casefold() == text.strip().casefold()
        self._model.setStringList([] if exact else matches)
        if matches and not exact:
            self.complete()
        else:
            self.popup().hide()


class NewEntityHint(QLabel):
    """Says "new entity" under a name field while the name typed is no entity yet, with the
    closest existing names (a click takes one): a typo would otherwise create an entity."""

    said = Signal()  # shown, hidden or reworded: the form may need to grow

    def __init__(
        self,
        edit: QLineEdit,
        names: list[str],
        known: Callable[[str], bool] | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setObjectName(f"{edit.objectName()}Hint")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {NOTE_COLOR};")
        self._edit = edit
        self._names = names
        self._by_fold = {name.casefold(): name for name in names}
        self._ids = None
        self._known = known or self._in_names
        self.suggestions: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SUGGEST_MS)
        self._timer.timeout.connect(self.refresh)
        edit.textChanged.connect(self._changed)
        self.linkActivated.connect(self._take)
        self.hide()

    def _in_names(self, name: str) -> bool:
        if self._ids is None:
            self._ids = {entity_id(n) for n in self._names}
        return name.casefold() in self._by_fold or entity_id(name) in self._ids

    def _changed(self, _text: str = "") -> None:
        if not self._edit.text().strip():
            self._timer.stop()
            self.refresh()  # nothing typed: nothing to say, at once
        else:
            self._timer.start()

    def is_new(self) -> bool:
        name = self._edit.text().strip()
        return bool(name) and not self._known(name)

    def refresh(self) -> None:
        """Say now whether the name typed is new, and what it may have meant."""
        self._timer.stop()
        if not self.is_new():
            self.suggestions = []
            self.hide()
            self.said.emit()
            return
        self.suggestions = self._closest(self._edit.text().strip())
        if self.suggestions:
            links = ", ".join(
                f"<a href='#{i}'>{_escape(name)}</a>" for i, name in enumerate(self.suggestions)
            )
            self.setText(f"New entity. Did you mean {links}?")
        else:
            self.setText("New entity: it will be created.")
        self.show()
        self.said.emit()

    def _closest(self, name: str) -> list[str]:
        folded = name.casefold()
        candidates = self._by_fold.keys()
        if len(self._by_fold) > 5000:  # a large graph: names sharing the first letter only
            candidates = [f for f in candidates if f[:1] == folded[:1]]
        close = difflib.get_close_matches(folded, candidates, n=CLOSE_NAMES, cutoff=0.6)
        return [self._by_fold[f] for f in close]

    def _take(self, link: str) -> None:
        index = int(link.lstrip("#"))
        if 0 <= index < len(self.suggestions):
            self._edit.setText(self.suggestions[index])
            self.refresh()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
