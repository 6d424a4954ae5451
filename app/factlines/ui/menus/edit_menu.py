"""The Edit menu: undo and redo, the selected fact's edits, the selected entity's, and the
single-valued predicates. The fact's and the entity's are the one shared set
(:class:`~factlines.ui.menus.selection_actions.SelectionActions`), made the window's here so that
their shortcuts work wherever it is."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QUndoStack
from PySide6.QtWidgets import QMenu, QWidget

from factlines.ui.actions import make_action
from factlines.ui.menus.edits import FactActions
from factlines.ui.session.state import AppState

SINGLE_VALUED_TIP = "Mark predicates that allow one object at a time; their overlaps are conflicts"


class EditActions(QObject):
    def __init__(
        self,
        state: AppState,
        fact_actions: FactActions,
        undo_stack: QUndoStack,
        window: QWidget,
        facts_table: QWidget,
    ):
        super().__init__(window)
        self.state = state
        self._commands = fact_actions.commands
        undo = undo_stack.createUndoAction(window, "&Undo")
        undo.setObjectName("actionUndo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = undo_stack.createRedoAction(window, "&Redo")
        redo.setObjectName("actionRedo")
        redo.setShortcut(QKeySequence.StandardKey.Redo)
        window.addAction(undo)
        window.addAction(redo)
        self.action_undo, self.action_redo = undo, redo
        shared = fact_actions.commands
        self.action_add_fact = shared.add
        self.action_edit_fact = shared.edit
        self.action_end_fact = shared.end
        self.action_end_fact_at = shared.end_at
        self.action_replace_fact = shared.replace
        self.action_delete_fact = shared.delete
        self.action_rename = shared.rename
        self.action_merge = shared.merge
        for action in (
            shared.add,
            shared.edit,
            shared.end,
            shared.end_at,
            shared.replace,
            shared.rename,
            shared.merge,
        ):
            window.addAction(action)
        # Delete is a key many widgets use: it deletes a fact only from the facts table.
        self.action_delete_fact.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        facts_table.addAction(self.action_delete_fact)
        self.action_single_valued = make_action(
            window,
            "actionSingleValued",
            "&Single-valued predicates…",
            fact_actions.single_valued_dialog,
            tip=SINGLE_VALUED_TIP,
        )
        # Bound methods, not lambdas: Qt drops them with this object.
        state.graphChanged.connect(self.update)
        self.update()

    def fill(self, menu: QMenu) -> None:
        """Put the edits in ``menu``, in groups; a disabled one says why when pointed at."""
        menu.setToolTipsVisible(True)
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
        """Follow the open graph: on a read-only one, undo and redo (the stack is empty: no
        edit was made) and the predicates' form say why nothing can be changed."""
        read_only = self._commands.read_only_reason()
        single = self.action_single_valued
        single.setEnabled(self.state.kg is not None and read_only is None)
        tip = SINGLE_VALUED_TIP if read_only is None else f"Cannot mark predicates: {read_only}"
        single.setToolTip(tip)
        single.setStatusTip(tip)
        for action, verb in ((self.action_undo, "undo"), (self.action_redo, "redo")):
            # An empty tip shows the action's own text ("Undo End …"), as Qt keeps it.
            said = "" if read_only is None else f"Cannot {verb}: {read_only}"
            action.setToolTip(said)
            action.setStatusTip(said)
