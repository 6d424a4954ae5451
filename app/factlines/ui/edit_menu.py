"""The Edit menu: undo and redo, the selected fact's edits, the selected entity's, and the
single-valued predicates; each a named QAction of the window with its shortcut, enabled as the
open graph and the selection allow."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QUndoStack
from PySide6.QtWidgets import QMenu, QWidget

from factlines.ui.actions import FactActions, make_action
from factlines.ui.state import AppState


class EditActions(QObject):
    def __init__(
        self,
        state: AppState,
        fact_actions: FactActions,
        undo_stack: QUndoStack,
        window: QWidget,
        triple_editor: QWidget,
    ):
        super().__init__(window)
        self.state = state
        facts = fact_actions
        undo = undo_stack.createUndoAction(window, "&Undo")
        undo.setObjectName("actionUndo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = undo_stack.createRedoAction(window, "&Redo")
        redo.setObjectName("actionRedo")
        redo.setShortcut(QKeySequence.StandardKey.Redo)
        window.addAction(undo)
        window.addAction(redo)
        self.action_undo, self.action_redo = undo, redo
        self.action_add_fact = make_action(
            window, "actionAddFact", "&Add fact…", self._add_fact, "Ctrl+Shift+N"
        )
        self.action_edit_fact = make_action(
            window, "actionEditFact", "&Edit fact…", facts.edit_selected, "Ctrl+Return"
        )
        self.action_end_fact = make_action(
            window,
            "actionEndFact",
            "E&nd fact",
            facts.end_selected,
            "Ctrl+E",
            "End the selected fact at as_of (or today when showing all time)",
        )
        self.action_end_fact_at = make_action(
            window, "actionEndFactAt", "End fact &at…", facts.end_selected_at, "Ctrl+Shift+E"
        )
        self.action_replace_fact = make_action(
            window, "actionReplaceFact", "&Replace with…", facts.replace_selected, "Ctrl+R"
        )
        self.action_delete_fact = make_action(
            window,
            "actionDeleteFact",
            "&Delete fact…",
            facts.delete_selected,
            QKeySequence.StandardKey.Delete,
        )
        # Delete is a key many widgets use: it deletes a fact only from the triple editor.
        self.action_delete_fact.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        window.removeAction(self.action_delete_fact)
        triple_editor.addAction(self.action_delete_fact)
        self.action_rename = make_action(
            window,
            "actionRenameEntity",
            "Re&name entity…",
            self._rename_entity,
            "Ctrl+Shift+R",
        )
        self.action_merge = make_action(
            window,
            "actionMergeEntity",
            "&Merge entity into…",
            self._merge_entity,
            "Ctrl+Shift+M",
        )
        self.action_single_valued = make_action(
            window,
            "actionSingleValued",
            "&Single-valued predicates…",
            facts.single_valued_dialog,
            tip="Mark predicates that allow one object at a time; their overlaps are conflicts",
        )
        self._facts = facts
        # Bound methods, not lambdas: Qt drops them with this object.
        for signal in (state.graphChanged, state.entityChanged, state.dataChanged):
            signal.connect(self.update)
        self.update()

    def fill(self, menu: QMenu) -> None:
        """Put the edits in ``menu``, in groups."""
        menu.addActions([self.action_undo, self.action_redo])
        menu.addSeparator()
        menu.addActions(
            [
                self.action_add_fact,
                self.action_edit_fact,
                self.action_end_fact,
                self.action_end_fact_at,
                self.action_replace_fact,
                self.action_delete_fact,
            ]
        )
        menu.addSeparator()
        menu.addActions([self.action_rename, self.action_merge])
        menu.addSeparator()
        menu.addAction(self.action_single_valued)

    def update(self, *_changed) -> None:
        has_kg = self.state.kg is not None
        has_entity = has_kg and self.state.entity is not None
        self.action_add_fact.setEnabled(has_kg)
        self.action_single_valued.setEnabled(has_kg)
        self.action_rename.setEnabled(has_entity)
        self.action_merge.setEnabled(has_entity)
        # Fact actions stay enabled: with nothing selected they say so in the status bar.

    # ── The selected entity's edits ───────────────────────────────────────

    def _add_fact(self, _checked: bool = False) -> None:
        self._facts.add_fact_dialog()

    def _rename_entity(self, _checked: bool = False) -> None:
        if entity := self._selected_entity("Rename"):
            self._facts.rename_entity_dialog(entity)

    def _merge_entity(self, _checked: bool = False) -> None:
        if entity := self._selected_entity("Merge"):
            self._facts.merge_entity_dialog(entity)

    def _selected_entity(self, verb: str) -> str | None:
        if self.state.entity is None:
            self.state.message.emit(f"{verb}: select an entity first")
        return self.state.entity
