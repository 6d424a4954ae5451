"""The forms behind the edits, as :class:`~factlines.ui.menus.edits.FactActions` offers them.

Each form collects values; its OK applies them through the undo stack, and a refusal (or a
store unavailable now) is said in the form, which stays open with everything typed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from factlines.core.errors import DuplicateFact, Refused, Unavailable
from factlines.core.names import predicate_id
from factlines.core.store import KnowledgeGraph, describe, rename_words, report_words
from factlines.ui.look.wording import in_words
from factlines.ui.session.document import ReasonMemory

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack
    from PySide6.QtWidgets import QWidget

    from factlines.ui.session.state import AppState

# What a form's edit returns when the form changed nothing: no write, no undo step.
NOTHING = object()
# A merge of an entity with more facts than this is written on a worker, in short
# transactions (~0.25 ms a fact in one transaction would hold the window and MemPalace).
LONG_MERGE_FACTS = 500


class FactForms:
    """The dialogs of :class:`~factlines.ui.menus.edits.FactActions` (a part of it)."""

    state: AppState
    stack: QUndoStack
    reasons: ReasonMemory
    _dialog_parent: QWidget | None
    # ``long_edit(text, work, reason, done)``: runs a long edit off the UI thread (the
    # window's); None: every edit runs here.
    long_edit: Callable | None = None

    # Also uses, from FactActions: _run, _fact, _open_fact, default_end, set_single_valued,
    # commands.

    def may_write(self, verb: str) -> bool:
        """Whether the open graph may be written; if not (read-only), say why and open no form.
        Views that offer an edit of their own (a double-click, a key, a context menu) ask
        this first."""
        reason = self.commands.read_only_reason()
        if reason is None:
            return True
        self.state.message.emit(f"Cannot {verb}: {reason}")
        return False

    def _exec(self, dialog) -> bool:
        """Show a form modally; tests and scripts may replace this to fill it in."""
        return dialog.exec() == dialog.DialogCode.Accepted

    def _exec_applying(
        self,
        dialog,
        text: Callable[[], str],
        edit: Callable[[], Callable[[KnowledgeGraph], object] | None],
        run: Callable[[str, Callable[[KnowledgeGraph], object], str | None], object] | None = None,
    ) -> object:
        """Show ``dialog``; its OK runs ``edit()`` (the store call built from the form, or None
        when there is nothing to do) through the undo stack under ``text()``. A refusal, or a
        store unavailable now, is said in the dialog, which stays open with what was typed.

        Returns the edit's result, :data:`NOTHING` when there was nothing to do, or None
        (cancelled, or refused when the form was filled in without OK). ``run(text, work,
        reason)`` runs it instead of the undo stack here."""
        done: list = []

        def apply() -> str | None:
            try:
                work = edit()
                reason = dialog.reason_value()
                done[:] = [NOTHING if work is None else (run or self._run)(text(), work, reason)]
                if dialog.reason is not None:
                    self.reasons.last = reason or ""
            except DuplicateFact as exc:
                self.state.select_fact(exc.fact_id)  # the one it would duplicate
                return in_words(exc)
            except (Refused, Unavailable) as exc:
                return in_words(exc)
            return None

        dialog.apply = apply
        if not self._exec(dialog):
            return None
        if not done:  # accepted by a test or a script without pressing OK: apply now
            reason = apply()
            if reason is not None:
                self.state.message.emit(f"{text()} not done: {reason}")
                return None
        return done[0]

    def _names(self) -> list[str]:
        kg = self.state.kg
        return kg.entity_names() if kg is not None else []

    def known_entity(self, name: str) -> bool:
        """Whether ``name`` is an entity of the open graph (by id or display name); True when
        that cannot be told now, so that nothing is said."""
        kg = self.state.kg
        if kg is None:
            return True
        try:
            return kg.resolve_entity(name) is not None
        except (Refused, Unavailable):
            return True

    def add_fact_dialog(self, subject: str | None = None) -> str | None:
        """Ask for a new fact (subject prefilled with the selection) and add it."""
        from factlines.ui.forms.dialogs import FactDialog

        kg = self.state.kg
        if kg is None:
            self.state.message.emit("Add refused: no knowledge graph is open")
            return None
        if not self.may_write("add a fact"):
            return None
        if subject is None and self.state.entity is not None:
            entity = kg.get_entity(self.state.entity)
            subject = entity["name"] if entity else None
        dialog = FactDialog(
            self._names(),
            kg.predicates(),
            subject=subject,
            parent=self._dialog_parent,
            known=self.known_entity,
        )

        def text() -> str:
            values = dialog.values()
            return f"Add {values['subject']} {values['predicate']} {values['object']}"

        def edit():
            values = dialog.values()
            subject, predicate, obj = (values.pop(k) for k in ("subject", "predicate", "object"))
            return lambda kg: kg.add_fact(subject, predicate, obj, **values)

        new_id = self._exec_applying(dialog, text, edit)
        if new_id is not None:
            self.state.select_fact(new_id)
        return new_id

    def edit_fact_dialog(self, triple_id: str) -> bool:
        """Open the fact's every field in a form; apply what changed as one undoable edit."""
        from factlines.ui.forms.dialogs import FactDialog

        fact = self._fact(triple_id)
        if fact is None or not self.may_write("edit"):
            return False
        dialog = FactDialog(
            self._names(),
            self.state.kg.predicates(),
            fact=fact,
            parent=self._dialog_parent,
            known=self.known_entity,
        )

        def text() -> str:
            return f"Edit {', '.join(sorted(dialog.changes()))} of {describe(fact)}"

        def edit():
            changes = dialog.changes()
            return (lambda kg: kg.update_fact(triple_id, **changes)) if changes else None

        done = self._exec_applying(dialog, text, edit)
        if done is NOTHING:
            self.state.message.emit(f"Nothing changed in {describe(fact)}")
        return done is not None and done is not NOTHING

    def replace_fact_dialog(self, triple_id: str) -> bool:
        """Ask for the new object and the instant; supersede the fact through the undo stack."""
        from factlines.ui.forms.dialogs import ReplaceDialog

        fact = self._open_fact(triple_id, "Replace")
        if fact is None or not self.may_write("replace"):
            return False
        dialog = ReplaceDialog(
            fact,
            self._names(),
            self.default_end(),
            parent=self._dialog_parent,
            known=self.known_entity,
            reason=self.reasons.last,
        )

        def edit():
            values = dialog.values()
            new_object, at = values.pop("new_object"), values.pop("at")
            return lambda kg: kg.supersede_fact(triple_id, new_object, at=at, **values)

        new_id = self._exec_applying(
            dialog, lambda: f"Replace {describe(fact)} with {dialog.new_object.text()}", edit
        )
        if new_id is not None:
            self.state.select_fact(new_id)
        return new_id is not None

    def end_fact_dialog(self, triple_id: str, at: str | None = None) -> bool:
        """Ask when the fact stopped being true (``at``, else as_of or today), then end it."""
        from factlines.ui.forms.dialogs import EndFactDialog

        fact = self._open_fact(triple_id, "End")
        if fact is None or not self.may_write("end"):
            return False
        dialog = EndFactDialog(
            fact, at or self.default_end(), parent=self._dialog_parent, reason=self.reasons.last
        )

        def edit():
            ended = dialog.ended.value()
            return lambda kg: kg.end_fact(triple_id, ended)

        done = self._exec_applying(
            dialog, lambda: f"End {describe(fact)} at {dialog.ended.text()}", edit
        )
        return done is not None

    def delete_fact_dialog(self, triple_id: str) -> bool:
        """Ask before deleting a fact for good (and why, optionally); then delete it."""
        from factlines.ui.forms.dialogs import DeleteFactDialog

        fact = self._fact(triple_id)
        if fact is None or not self.may_write("delete"):
            return False
        dialog = DeleteFactDialog(fact, parent=self._dialog_parent, reason=self.reasons.last)
        done = self._exec_applying(
            dialog,
            lambda: f"Delete {describe(fact)}",
            lambda: lambda kg: kg.delete_fact(triple_id),
        )
        return done is not None

    def _entity(self, entity: str, verb: str) -> dict | None:
        current = self.state.kg.get_entity(entity) if self.state.kg is not None else None
        if current is None:
            self.state.message.emit(f"{verb} refused: {entity!r} is not in the graph")
        return current

    def rename_entity_dialog(self, entity: str) -> bool:
        from factlines.ui.forms.dialogs import NameDialog

        if (current := self._entity(entity, "Rename")) is None or not self.may_write("rename"):
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

        def edit():
            name = dialog.value()
            if name == current["name"]:
                return None
            return lambda kg: kg.rename_entity(current["id"], name)

        done = self._exec_applying(
            dialog, lambda: f"Rename {current['name']} to {dialog.value()}", edit
        )
        return done is not None and done is not NOTHING

    def merge_entity_dialog(self, entity: str) -> bool:
        from factlines.ui.forms.dialogs import NameDialog

        if (current := self._entity(entity, "Merge")) is None or not self.may_write("merge"):
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

        def edit():
            target = dialog.value()
            return lambda kg: kg.merge_entities(current["id"], target)

        def in_parts(text: str, _work, reason: str | None):
            source, target = current["id"], dialog.value()

            def work(kg, progress):
                return kg.merge_entities(source, target, progress=progress)

            return self.long_edit(text, work, reason, self.state.select_entity)

        long = self.long_edit is not None
        long = long and self.state.kg.fact_count(current["id"]) > LONG_MERGE_FACTS
        merged = self._exec_applying(
            dialog,
            lambda: f"Merge {current['name']} into {dialog.value()}",
            edit,
            in_parts if long else None,
        )
        if merged is not None and not long:
            self.state.select_entity(merged)
        return merged is not None

    def single_valued_dialog(self) -> bool:
        """Choose the single-valued predicates; the change is one undoable step."""
        from factlines.ui.forms.dialogs import SingleValuedDialog

        kg = self.state.kg
        if kg is None:
            self.state.message.emit("No knowledge graph is open")
            return False
        if not self.may_write("mark single-valued predicates"):
            return False
        marked = kg.single_valued_predicates()
        dialog = SingleValuedDialog(kg.predicates(), marked, self._dialog_parent)
        if not self._exec(dialog):
            return False
        return self.set_single_valued(dialog.values())

    def rename_predicate_dialog(
        self, predicate: str, merge: bool = False, suggested: str | None = None
    ) -> dict | None:
        """Rename a predicate (``merge``: into another one), asking whether its history is
        kept: one undoable edit. Returns the store's report, None when not done."""
        from factlines.ui.forms.predicate_form import RenamePredicateDialog

        kg = self.state.kg
        verb = "merge predicates" if merge else "rename predicates"
        if kg is None or not self.may_write(verb):
            return None
        dialog = RenamePredicateDialog(
            predicate, kg.predicates(), merge, suggested, self._dialog_parent
        )

        def text() -> str:
            return rename_words(
                predicate,
                predicate_id(dialog.new_name()),
                keep_history=dialog.keep_history,
                merge=dialog.merges(),
            )

        def edit():
            name, keep = dialog.new_name(), dialog.keep_history
            return lambda kg: kg.rename_predicate(predicate, name, keep_history=keep)

        report = self._exec_applying(dialog, text, edit)
        if report is not None:
            self.state.message.emit(f"{text()}: {report_words(report)} (Undo takes it back)")
        return report
