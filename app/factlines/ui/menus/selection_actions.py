"""The commands on the selected fact and entity, as one set of QActions.

Each action has one rule for whether it can work now (a graph is open and may be written, a
fact or an entity is selected, the fact is still open, as_of is not before its start) and one
wording. An action that cannot work is disabled and its tooltip (and status tip) says why. The
Edit menu, the facts table's buttons and context menu, and the chart's context menu all show
these same actions; the chart selects the bar under the mouse first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from factlines.core import temporal
from factlines.core.errors import Refused, TimeValueError, Unavailable
from factlines.core.store import describe
from factlines.ui.look import style

if TYPE_CHECKING:
    from factlines.ui.menus.edits import FactActions


# ── The rules, for any fact and time (the chart asks them for the day clicked too) ──


def ended_words(fact: dict) -> str:
    if fact["valid_to"] == "":
        return "it already ended, on a date nobody knows"
    return f"it already ended on {style.show_time(fact['valid_to'])}"


def starts_after(fact: dict, when: str | None, when_words: str) -> str | None:
    """Why ``fact`` cannot end at the stored time value ``when`` (it starts later), or None."""
    try:
        temporal.check_interval(fact["valid_from"], when, to_field="ended")
    except TimeValueError:
        return f"it starts on {style.show_time(fact['valid_from'])}, after {when_words}"
    return None


def why_not_end(fact: dict, when: str | None, when_words: str) -> str | None:
    """Why ``fact`` cannot be ended at ``when`` (described as ``when_words``), or None."""
    if fact["valid_to"] is not None:
        return ended_words(fact)
    return starts_after(fact, when, when_words)


def mirror(action: QAction, menu: QMenu, name: str) -> QAction:
    """An entry of ``menu`` named ``name`` that is ``action`` as it stands now: its words, its
    state and its reason; choosing it triggers ``action``. For a menu built for one moment
    (a context menu) whose entries keep names of their own."""
    entry = menu.addAction(action.text())
    entry.setObjectName(name)
    entry.setEnabled(action.isEnabled())
    entry.setToolTip(action.toolTip())
    entry.setStatusTip(action.statusTip())
    entry.triggered.connect(lambda _checked=False: action.trigger())
    return entry


class SelectionActions(QObject):
    """The QActions on the selected fact (add, edit, end at as_of, end at…, replace, delete) and
    entity (rename, merge), with their object names and shortcuts, owned by ``owner`` (the
    window). ``read_only()`` says whether the open graph may not be written (a graph the store
    opened read-only is taken as such too); :meth:`update` follows it, and the window calls it
    when the document's read-only state changes."""

    def __init__(self, facts: FactActions, owner: QObject, read_only: Callable[[], bool]):
        super().__init__(facts)
        self._facts = facts
        self._state = state = facts.state
        self._read_only = read_only
        self._fact: dict | None = None  # the selected fact as read
        self._unreadable = False  # the selected fact could not be read now
        make = self._make
        self.add = make(owner, "actionAddFact", "&Add fact…", "Add…", self._add, "Ctrl+Shift+N")
        self.edit = make(
            owner, "actionEditFact", "&Edit fact…", "Edit…", facts.edit_selected, "Ctrl+Return"
        )
        self.end = make(owner, "actionEndFact", "E&nd fact", "End", facts.end_selected, "Ctrl+E")
        self.end_at = make(
            owner,
            "actionEndFactAt",
            "End fact &at…",
            "End at…",
            facts.end_selected_at,
            "Ctrl+Shift+E",
        )
        self.replace = make(
            owner,
            "actionReplaceFact",
            "&Replace with…",
            "Replace…",
            facts.replace_selected,
            "Ctrl+R",
        )
        self.delete = make(
            owner,
            "actionDeleteFact",
            "&Delete fact…",
            "Delete…",
            facts.delete_selected,
            QKeySequence.StandardKey.Delete,
        )
        self.rename = make(
            owner, "actionRenameEntity", "Re&name entity…", "Rename…", self._rename, "Ctrl+Shift+R"
        )
        self.merge = make(
            owner,
            "actionMergeEntity",
            "&Merge entity into…",
            "Merge…",
            self._merge,
            "Ctrl+Shift+M",
        )
        # Bound methods, not lambdas: Qt drops them with this object.
        for signal in (state.graphChanged, state.factChanged, state.dataChanged):
            signal.connect(self._reread)
        state.entityChanged.connect(self.update)
        state.asOfChanged.connect(self.update)
        self._reread()

    @staticmethod
    def _make(owner: QObject, name: str, text: str, short: str, slot, keys) -> QAction:
        action = QAction(text, owner)
        action.setObjectName(name)
        action.setIconText(short)
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(slot)
        return action

    def fact_actions(self) -> list[QAction]:
        """The selected fact's actions, in menu order."""
        return [self.edit, self.end, self.end_at, self.replace, self.delete]

    # ── The rules ─────────────────────────────────────────────────────────

    def end_time(self) -> tuple[str, str]:
        """Where "End" ends the selected fact, and that time in words: as_of, else today."""
        as_of = self._state.as_of
        if as_of is not None:
            return as_of, f"as_of ({style.show_time(as_of)})"
        today = temporal.today()
        return today, f"today ({today})"

    def blocked(self) -> str | None:
        """Why no edit can be made now (no graph, or one that may not be written), or None."""
        if self._state.kg is None:
            return "no graph is open"
        return self.read_only_reason()

    def read_only_reason(self) -> str | None:
        """Why the open graph may not be written, in words (with the store's own reason when
        it gives one: asked for, or the file or its folder not writable), or None."""
        kg = self._state.kg
        if kg is None or not (self._read_only() or getattr(kg, "read_only", False)):
            return None
        why = getattr(kg, "read_only_reason", None)
        return f"the graph is open read-only ({why})" if why else "the graph is open read-only"

    def _reread(self, *_changed) -> None:
        """Read the selected fact again (another was selected, or the rows changed)."""
        self._fact, self._unreadable = None, False
        triple_id = self._state.fact
        if self._state.kg is not None and triple_id is not None:
            self._fact = self._read(triple_id)
        self.update()

    def _read(self, triple_id: str) -> dict | None:
        # Usually a fact of the selected entity: its row is already read, for every view.
        for row in self._state.entity_facts():
            if row["id"] == triple_id:
                return row
        try:
            return self._state.kg.get_fact(triple_id)
        except Refused:  # gone
            return None
        except Unavailable:
            self._unreadable = True
            return None

    def update(self, *_changed) -> None:
        """Enable each action as its rule says, with its words for this fact and time."""
        state, fact = self._state, self._fact
        blocked = self.blocked()
        when, when_words = self.end_time()
        date_words = style.show_time(when)
        # The menus say the time; a button says which (its width stays as as_of moves).
        if state.as_of is None:
            self.end.setText(f"E&nd fact today ({date_words})")
            self.end.setIconText("End today")
        else:
            self.end.setText(f"E&nd fact at {date_words}")
            self.end.setIconText("End at as_of")

        self._rule(self.add, "add a fact", blocked, "Add a fact (the selected entity as subject)")
        if fact is None:
            missing = blocked or (
                "the selected fact cannot be read now; try again"
                if self._unreadable
                else "select a fact first"
            )
            for action, verb in (
                (self.edit, "edit"),
                (self.end, "end"),
                (self.end_at, "end"),
                (self.replace, "replace"),
                (self.delete, "delete"),
            ):
                self._rule(action, verb, missing, "")
        else:
            said = f"“{describe(fact)}”"
            still_open = ended_words(fact) if fact["valid_to"] is not None else None
            self._rule(self.edit, f"edit {said}", blocked, f"Edit every field of {said}")
            self._rule(
                self.end,
                f"end {said} at {date_words}",
                blocked or why_not_end(fact, when, when_words),
                f"End {said} at {when_words}",
            )
            self._rule(
                self.end_at,
                f"end {said}",
                blocked or still_open,
                f"End {said} at a time you choose",
            )
            self._rule(
                self.replace,
                f"replace {said}",
                blocked or still_open,
                f"End {said} and start its successor, with another object, at one instant",
            )
            self._rule(
                self.delete,
                f"delete {said}",
                blocked,
                f"Delete {said} for good (for mistakes; a fact that stopped being true is ended)",
            )
        no_entity = blocked or (None if state.entity is not None else "select an entity first")
        self._rule(
            self.rename,
            "rename",
            no_entity,
            "Give the selected entity another display name (its id stays)",
        )
        self._rule(
            self.merge,
            "merge",
            no_entity,
            "Move every fact of the selected entity to another one, and remove it",
        )

    @staticmethod
    def _rule(action: QAction, verb: str, reason: str | None, tip: str) -> None:
        action.setEnabled(reason is None)
        if reason is None:
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({keys})" if keys else tip)
            action.setStatusTip(tip)
        else:
            said = f"Cannot {verb}: {reason}"
            action.setToolTip(said)
            action.setStatusTip(said)

    # ── The entity's and the graph's slots (the fact's are FactActions') ──

    def _add(self, _checked: bool = False) -> None:
        self._facts.add_fact_dialog()

    def _rename(self, _checked: bool = False) -> None:
        if self._state.entity is not None:
            self._facts.rename_entity_dialog(self._state.entity)

    def _merge(self, _checked: bool = False) -> None:
        if self._state.entity is not None:
            self._facts.merge_entity_dialog(self._state.entity)
