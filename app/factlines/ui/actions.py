"""The edits every view offers, in one place: each goes through the undo stack.

Views (the triple editor, the chart, the browser) call these; a refused edit, or one the store
cannot take now, becomes a message on the state (shown in the status bar) and writes nothing.
Any other exception is a bug: it is not caught here, and reaches the app's error handler.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QMessageBox, QWidget

from factlines.core import temporal
from factlines.core.errors import DuplicateFact, Refused, Unavailable
from factlines.core.store import KnowledgeGraph, describe
from factlines.ui.commands import run_edit
from factlines.ui.errors import in_words
from factlines.ui.state import AppState


def make_action(window: QWidget, name: str, text: str, slot, keys=None, tip: str = "") -> QAction:
    """A window's QAction: named for automation, its shortcut live wherever the window is."""
    action = QAction(text, window)
    action.setObjectName(name)
    if keys is not None:
        action.setShortcut(QKeySequence(keys))
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(slot)
    window.addAction(action)
    return action


class FactActions(QObject):
    def __init__(self, state: AppState, stack: QUndoStack, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.stack = stack
        self._dialog_parent = parent

    def _edit(self, text: str, edit: Callable[[KnowledgeGraph], object]) -> object | None:
        """Run one undoable edit; a refusal, or a store unavailable now, is said and returns
        None."""
        try:
            return run_edit(self.state, self.stack, text, edit)
        except Refused as exc:
            self.state.message.emit(f"{text} refused: {exc}")
        except Unavailable as exc:
            self.state.message.emit(f"{text} not done: {in_words(exc)}")
        return None

    def default_end(self) -> str:
        """Where "End fact" ends by default: at as_of, else today."""
        return self.state.as_of or temporal.today()

    def end_fact(self, triple_id: str, ended: str | None = None) -> bool:
        ended = ended or self.default_end()
        fact = self._fact(triple_id)
        if fact is None:
            return False
        done = self._edit(
            f"End {describe(fact)} at {ended}", lambda kg: kg.end_fact(triple_id, ended)
        )
        return done is not None

    def set_dates(self, triple_id: str, valid_from: str | None, valid_to: str | None) -> bool:
        fact = self._fact(triple_id)
        if fact is None:
            return False
        done = self._edit(
            f"Change dates of {describe(fact)}",
            lambda kg: kg.update_fact(triple_id, valid_from=valid_from, valid_to=valid_to),
        )
        return done is not None

    def update_fact(self, triple_id: str, **changes) -> bool:
        fact = self._fact(triple_id)
        if fact is None:
            return False
        fields = ", ".join(sorted(changes))
        done = self._edit(
            f"Edit {fields} of {describe(fact)}", lambda kg: kg.update_fact(triple_id, **changes)
        )
        return done is not None

    def supersede(self, triple_id: str, new_object: str, at: str | None = None, **extra) -> bool:
        """Replace an open fact's object from ``at`` on (one shared instant)."""
        fact = self._fact(triple_id)
        if fact is None:
            return False
        at = at or self.default_end()
        new_id = self._edit(
            f"Replace {describe(fact)} with {new_object}",
            lambda kg: kg.supersede_fact(triple_id, new_object, at=at, **extra),
        )
        if new_id is not None:
            self.state.select_fact(new_id)
        return new_id is not None

    def add_fact(self, subject: str, predicate: str, obj: str, **fields) -> str | None:
        """Add a fact; a duplicate of an open fact is reported and selected, not merged."""
        text = f"Add {subject} {predicate} {obj}"
        try:
            return run_edit(
                self.state,
                self.stack,
                text,
                lambda kg: kg.add_fact(subject, predicate, obj, **fields),
            )
        except DuplicateFact as exc:
            self.state.message.emit(f"{text} refused: {exc}")
            self.state.select_fact(exc.fact_id)
        except Refused as exc:
            self.state.message.emit(f"{text} refused: {exc}")
        except Unavailable as exc:
            self.state.message.emit(f"{text} not done: {in_words(exc)}")
        return None

    def delete_fact(self, triple_id: str, confirm: bool = True) -> bool:
        fact = self._fact(triple_id)
        if fact is None:
            return False
        if confirm:
            answer = QMessageBox.question(
                self._dialog_parent,
                "Delete fact",
                f"Delete “{describe(fact)}” for good?\n\nDelete is for mistakes. A fact that "
                "stopped being true should be ended instead, so its history stays.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return False
        done = self._edit(f"Delete {describe(fact)}", lambda kg: kg.delete_fact(triple_id))
        return done is not None

    def rename_entity(self, entity: str, new_name: str) -> bool:
        done = self._edit(
            f"Rename {entity} to {new_name}", lambda kg: kg.rename_entity(entity, new_name)
        )
        return done is not None

    def merge_entities(self, source: str, target: str) -> bool:
        done = self._edit(
            f"Merge {source} into {target}", lambda kg: kg.merge_entities(source, target)
        )
        if done is not None:
            self.state.select_entity(done)
        return done is not None

    def _open_fact(self, triple_id: str, verb: str) -> dict | None:
        """The fact if it is still open; else None, and the refusal said."""
        fact = self._fact(triple_id)
        if fact is not None and fact["valid_to"] is not None:
            self.state.message.emit(
                f"{verb} refused: {describe(fact)} already ended on {fact['valid_to']}"
            )
            return None
        return fact

    def _fact(self, triple_id: str) -> dict | None:
        kg = self.state.kg
        if kg is None:
            self.state.message.emit("No knowledge graph is open")
            return None
        try:
            return kg.get_fact(triple_id)
        except (Refused, Unavailable) as exc:
            self.state.message.emit(in_words(exc))
            return None

    # ── Dialogs: collect values, then apply through the methods above ─────

    def _exec(self, dialog) -> bool:
        """Show a form modally; tests and scripts may replace this to fill it in."""
        return dialog.exec() == dialog.DialogCode.Accepted

    def _names(self) -> list[str]:
        kg = self.state.kg
        return kg.entity_names() if kg is not None else []

    def add_fact_dialog(self, subject: str | None = None) -> str | None:
        """Ask for a new fact (subject prefilled with the selection) and add it."""
        from factlines.ui.dialogs import FactDialog

        kg = self.state.kg
        if kg is None:
            self.state.message.emit("Add refused: no knowledge graph is open")
            return None
        if subject is None and self.state.entity is not None:
            entity = kg.get_entity(self.state.entity)
            subject = entity["name"] if entity else None
        dialog = FactDialog(
            self._names(), kg.predicates(), subject=subject, parent=self._dialog_parent
        )
        if not self._exec(dialog):
            return None
        values = dialog.values()
        new_id = self.add_fact(
            values.pop("subject"), values.pop("predicate"), values.pop("object"), **values
        )
        if new_id is not None:
            self.state.select_fact(new_id)
        return new_id

    def edit_fact_dialog(self, triple_id: str) -> bool:
        """Open the fact's every field in a form; apply what changed as one undoable edit."""
        from factlines.ui.dialogs import FactDialog

        fact = self._fact(triple_id)
        if fact is None:
            return False
        dialog = FactDialog(
            self._names(), self.state.kg.predicates(), fact=fact, parent=self._dialog_parent
        )
        if not self._exec(dialog):
            return False
        changes = dialog.changes()
        if not changes:
            self.state.message.emit(f"Nothing changed in {describe(fact)}")
            return False
        return self.update_fact(triple_id, **changes)

    def replace_fact_dialog(self, triple_id: str) -> bool:
        """Ask for the new object and the instant; supersede the fact through the undo stack."""
        from factlines.ui.dialogs import ReplaceDialog

        fact = self._open_fact(triple_id, "Replace")
        if fact is None:
            return False
        dialog = ReplaceDialog(fact, self._names(), self.default_end(), parent=self._dialog_parent)
        if not self._exec(dialog):
            return False
        values = dialog.values()
        return self.supersede(triple_id, values.pop("new_object"), values.pop("at"), **values)

    def end_fact_dialog(self, triple_id: str) -> bool:
        """Ask when the fact stopped being true (default as_of or today), then end it."""
        from factlines.ui.dialogs import EndFactDialog

        fact = self._open_fact(triple_id, "End")
        if fact is None:
            return False
        dialog = EndFactDialog(fact, self.default_end(), parent=self._dialog_parent)
        if not self._exec(dialog):
            return False
        return self.end_fact(triple_id, dialog.ended.value())

    def _entity(self, entity: str, verb: str) -> dict | None:
        current = self.state.kg.get_entity(entity) if self.state.kg is not None else None
        if current is None:
            self.state.message.emit(f"{verb} refused: {entity!r} is not in the graph")
        return current

    def rename_entity_dialog(self, entity: str) -> bool:
        from factlines.ui.dialogs import NameDialog

        if (current := self._entity(entity, "Rename")) is None:
            return False
        dialog = NameDialog(
            "Rename entity",
            f"A new display name for <b>{current['name']}</b>. Its id ({current['id']}) and "
            "every fact pointing at it stay as they are.",
            "New name",
            current["name"],
            [],
            self._dialog_parent,
        )
        if not self._exec(dialog) or dialog.value() == current["name"]:
            return False
        return self.rename_entity(current["id"], dialog.value())

    def merge_entity_dialog(self, entity: str) -> bool:
        from factlines.ui.dialogs import NameDialog

        if (current := self._entity(entity, "Merge")) is None:
            return False
        dialog = NameDialog(
            "Merge entity",
            f"Every fact of <b>{current['name']}</b> moves to the entity below, and "
            f"{current['name']} is removed. Open duplicates are folded together.",
            "Merge into",
            "",
            [n for n in self._names() if n != current["name"]],
            self._dialog_parent,
        )
        if not self._exec(dialog):
            return False
        return self.merge_entities(current["id"], dialog.value())

    def single_valued_dialog(self) -> bool:
        """Choose the single-valued predicates; the change is one undoable step."""
        from factlines.ui.dialogs import SingleValuedDialog

        kg = self.state.kg
        if kg is None:
            self.state.message.emit("No knowledge graph is open")
            return False
        marked = kg.single_valued_predicates()
        dialog = SingleValuedDialog(kg.predicates(), marked, self._dialog_parent)
        if not self._exec(dialog):
            return False
        return self.set_single_valued(dialog.values())

    def set_single_valued(self, predicates: list[str]) -> bool:
        kg = self.state.kg
        wanted, marked = set(predicates), set(kg.single_valued_predicates())
        if wanted == marked:
            return False

        def apply(kg: KnowledgeGraph) -> bool:
            with kg.transaction():
                for predicate in sorted(wanted ^ marked):
                    kg.set_single_valued(predicate, predicate in wanted)
            return True

        return self._edit("Set single-valued predicates", apply) is not None

    # The selected fact's commands, one slot each for the menus, keys and buttons
    def edit_selected(self, _checked: bool = False) -> None:
        self._on_selected("Edit", self.edit_fact_dialog)

    def end_selected(self, _checked: bool = False) -> None:
        self._on_selected("End fact", self.end_fact)

    def end_selected_at(self, _checked: bool = False) -> None:
        self._on_selected("End fact", self.end_fact_dialog)

    def replace_selected(self, _checked: bool = False) -> None:
        self._on_selected("Replace", self.replace_fact_dialog)

    def delete_selected(self, _checked: bool = False) -> None:
        self._on_selected("Delete", self.delete_fact)

    def _on_selected(self, verb: str, method: Callable[[str], object]) -> None:
        """Apply ``method`` to the selected fact, or say that none is selected."""
        if self.state.fact is None:
            self.state.message.emit(f"{verb}: select a fact first")
        else:
            method(self.state.fact)
