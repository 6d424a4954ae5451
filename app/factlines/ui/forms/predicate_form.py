"""The form behind renaming a predicate or merging it into another: the new name (or the
predicate to merge into), and whether the history is kept, each choice said in plain words."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from factlines.core.names import predicate_id
from factlines.ui.forms.dialogs import _FormDialog
from factlines.ui.forms.fields import NOTE_COLOR, NameCompleter

KEEP_WORDS = (
    "Every open fact of {old} ends now, and the same fact opens under {new} at that very "
    "second. Asked about any moment before now, the graph still says {old}; facts that "
    "already ended keep {old}. Choose this when the wording changes from now on."
)
IN_PLACE_WORDS = (
    "Every fact of {old}, ended ones too, is changed to {new} as if it had always been "
    "written so; no trace of {old} is left. Choose this when {old} was simply a mistake."
)


class RenamePredicateDialog(_FormDialog):
    """Rename ``old`` (``merge``: into one of ``predicates``), history kept by default."""

    def __init__(
        self,
        old: str,
        predicates: list[str],
        merge: bool = False,
        suggested: str | None = None,
        parent=None,
    ):
        title = "Merge predicate" if merge else "Rename predicate"
        super().__init__(title, parent)
        self.setObjectName("renamePredicateDialog")
        self.old = old
        self._predicates = set(predicates)
        others = [p for p in predicates if p != old]
        intro = QLabel(self)
        intro.setWordWrap(True)
        if merge:
            intro.setText(
                f"Every fact of <b>{old}</b> joins the predicate below. A fact already open "
                "there is not doubled."
            )
            self.target = QComboBox(self)
            self.target.addItems(others)
            if suggested in others:
                self.target.setCurrentText(suggested)
            self.target.currentTextChanged.connect(self._explain)
            label = "Merge into"
        else:
            intro.setText(f"A new name for the predicate <b>{old}</b>.")
            self.target = QLineEdit(old, self)
            self.target.selectAll()
            self.completers["predicateEdit"] = NameCompleter(self.target, others)
            self.target.textChanged.connect(self._explain)
            label = "New name"
        self.target.setObjectName("predicateEdit")
        self._merge = merge
        # The name and, under it, what it will be stored as or that it merges.
        holder = QWidget(self)
        self.note = QLabel(holder)
        self.note.setObjectName("predicateNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {NOTE_COLOR};")
        self.target.setParent(holder)
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.target)
        column.addWidget(self.note)
        self.form.addRow(intro)
        self.form.addRow(label, holder)

        self.keep = QRadioButton("Keep the history (recommended)", self)
        self.keep.setObjectName("keepHistory")
        self.in_place = QRadioButton("Rewrite in place: the old wording was simply wrong", self)
        self.in_place.setObjectName("rewriteInPlace")
        self.keep.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.keep)
        group.addButton(self.in_place)
        self.keep_words = QLabel(self)
        self.in_place_words = QLabel(self)
        self.form.addRow(self.keep)
        for words in (self.keep_words, self.in_place_words):
            words.setWordWrap(True)
            words.setIndent(22)
        self.form.addRow(self.keep_words)
        self.form.addRow(self.in_place)
        self.form.addRow(self.in_place_words)
        self.watch(self.target)
        self.setMinimumWidth(520)
        self._explain()

    def new_name(self) -> str:
        target = self.target
        return (target.currentText() if isinstance(target, QComboBox) else target.text()).strip()

    @property
    def keep_history(self) -> bool:
        return self.keep.isChecked()

    def merges(self) -> bool:
        """Whether the name chosen is a predicate facts already carry (a merge)."""
        name = self.new_name()
        return bool(name) and predicate_id(name) in self._predicates

    def _explain(self, *_changed) -> None:
        name = self.new_name()
        stored = predicate_id(name) if name else ""
        if not name:
            note = ""
        elif not self._merge and self.merges() and stored != self.old:
            note = f"{stored} is already a predicate: its facts and these become one."
        elif stored != name:
            note = f"Stored as {stored} (lower case, spaces as underscores, as MemPalace does)."
        else:
            note = ""
        self.note.setText(note)
        self.note.setVisible(bool(note))
        shown = stored or "the new name"
        self.keep_words.setText(KEEP_WORDS.format(old=self.old, new=shown))
        self.in_place_words.setText(IN_PLACE_WORDS.format(old=self.old, new=shown))
        if self.isVisible():
            self.fit()

    def validate(self) -> str | None:
        name = self.new_name()
        if not name:
            return "A name is required"
        if predicate_id(name) == self.old:
            return f"The predicate is already called {self.old}"
        return None
