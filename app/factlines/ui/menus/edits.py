"""The edits every view offers, in one place: each goes through the undo stack.

Views (the facts table, the chart, the browser) call these; a refused edit, or one the store
cannot take now, becomes a message on the state (shown in the status bar) and writes nothing.
Any other exception is a bug: it is not caught here, and reaches the app's error handler.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QWidget

from factlines.core import temporal
from factlines.core.errors import DuplicateFact, Refused, Unavailable
from factlines.core.store import KnowledgeGraph, describe
from factlines.ui.forms.fact_forms import FactForms
from factlines.ui.look.wording import in_words
from factlines.ui.menus.selection_actions import SelectionActions
from factlines.ui.session.commands import run_edit
from factlines.ui.session.document import ReasonMemory
from factlines.ui.session.state import AppState


class FactActions(FactForms, QObject):
    """The edits, as methods (for scripts and the views), as forms (:class:`FactForms`) and,
    in :attr:`commands`, as the one set of QActions every menu, button and context menu shows.

    ``read_only()`` tells whether the open graph may not be written (by default it may);
    ``before_write(kg)`` runs before each edit (the window keeps a backup there); ``reasons``
    keeps the last reason typed in a form (the window's document holds it)."""

    def __init__(
        self,
        state: AppState,
        stack: QUndoStack,
        parent: QWidget | None = None,
        read_only: Callable[[], bool] | None = None,
        before_write: Callable[[KnowledgeGraph], None] | None = None,
        reasons: ReasonMemory | None = None,
    ):
        super().__init__(parent)
        self.state = state
        self.stack = stack
        self.reasons = reasons if reasons is not None else ReasonMemory()
        self._before_write = before_write
        self._dialog_parent = parent
        self.commands = SelectionActions(self, parent or self, read_only or (lambda: False))

    def _run(
        self, text: str, work: Callable[[KnowledgeGraph], object], reason: str | None = None
    ) -> object:
        """Run one undoable edit (logged with ``reason``); a refusal, or a store unavailable
        now, propagates."""
        return run_edit(self.state, self.stack, text, work, self._before_write, reason)

    def _edit(self, text: str, edit: Callable[[KnowledgeGraph], object]) -> object | None:
        """Run one undoable edit; a refusal, or a store unavailable now, is said and returns
        None."""
        try:
            return run_edit(self.state, self.stack, text, edit, self._before_write)
        except Refused as exc:
            self.state.message.emit(f"{text} refused: {in_words(exc)}")
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
                self._before_write,
            )
        except DuplicateFact as exc:
            self.state.message.emit(f"{text} refused: {in_words(exc)}")
            self.state.select_fact(exc.fact_id)
        except Refused as exc:
            self.state.message.emit(f"{text} refused: {in_words(exc)}")
        except Unavailable as exc:
            self.state.message.emit(f"{text} not done: {in_words(exc)}")
        return None

    def delete_fact(self, triple_id: str, confirm: bool = True) -> bool:
        """Delete a fact; ``confirm`` asks first (:meth:`delete_fact_dialog`, with a reason)."""
        if confirm:
            return self.delete_fact_dialog(triple_id)
        fact = self._fact(triple_id)
        if fact is None or not self.may_write("delete"):
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

    def merge_duplicates(self, into: str, others: list[str], words: str) -> bool:
        """Merge ``others`` into ``into``, their names kept as its aliases: one undo step
        (``words``: what the step says)."""
        done = self._edit(words, lambda kg: kg.merge_duplicates(into, others))
        if done is not None:
            self.state.select_entity(done)
        return done is not None

    def resolve_conflict(self, first: str, second: str, keep: str, words: str) -> bool:
        """Settle two contradicting facts (``kg.resolve_conflict``): one undo step, logged with
        ``words`` (what the person chose) as its reason."""
        facts = [self._fact(first), self._fact(second)]
        if None in facts:
            return False
        text = f"Resolve {describe(facts[0])} / {facts[1]['object_name']}: {words.lower()}"
        try:
            self._run(text, lambda kg: kg.resolve_conflict(first, second, keep), words)
        except (Refused, Unavailable) as exc:
            self.state.message.emit(f"{text}: not done: {in_words(exc)}")
            return False
        self.state.message.emit(f"{text} (Undo takes it back)")
        return True

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

    def mark_single_valued(self, predicate: str, single: bool = True) -> bool:
        """Mark (or unmark) one predicate single-valued: one undoable edit."""
        verb = "Mark" if single else "Unmark"
        text = f"{verb} {predicate} single-valued"

        def mark(kg: KnowledgeGraph) -> bool:
            kg.set_single_valued(predicate, single)
            return True

        if self._edit(text, mark) is None:
            return False
        said = "its overlaps are conflicts now" if single else "its overlaps are allowed again"
        self.state.message.emit(f"{text}: {said} (Undo takes it back)")
        return True

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
