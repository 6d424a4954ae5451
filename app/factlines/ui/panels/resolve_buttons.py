"""Contradictions resolved from where they are seen (the conflicts panel, the review inbox): a
"Resolve" button whose menu holds "Keep the newer", "Keep the older" and "Both were true:
split the time", each one undo step with the choice logged as its reason
(``kg.resolve_conflict``)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from factlines.ui.menus.edits import FactActions

CHOICES = {
    "newer": (
        "Keep the newer",
        "The fact recorded later holds; the other gives way where they overlap",
    ),
    "older": ("Keep the older", "The fact recorded first holds; the newer one gives way"),
    "split": (
        "Both were true: split the time",
        "One after the other: the one that started first ends where the other starts, and goes "
        "on after it ends",
    ),
}


class ResolveButton(QPushButton):
    """ "Resolve" for the pair ``pair()`` gives (two fact ids, or None: nothing to resolve);
    :meth:`update_buttons` when that may have changed. Its menu's actions are in
    :attr:`choices`, by ``newer``, ``older``, ``split`` (object names ``resolve_…``)."""

    def __init__(
        self,
        actions: FactActions,
        pair: Callable[[], tuple[str, str] | None],
        parent: QWidget | None = None,
    ):
        super().__init__("Resolve", parent)
        self.setObjectName("resolveContradiction")
        self.setToolTip("Settle the contradiction: keep the newer, the older, or split the time")
        self._actions = actions
        self._pair = pair
        menu = QMenu(self)
        self.choices = {}
        for keep, (words, tip) in CHOICES.items():
            action = menu.addAction(words)
            action.setObjectName(f"resolve_{keep}")
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.triggered.connect(lambda _checked=False, k=keep: self.resolve(k))
            self.choices[keep] = action
        self.setMenu(menu)
        self.update_buttons()

    def update_buttons(self) -> None:
        self.setEnabled(self._pair() is not None and self._actions.commands.blocked() is None)

    def resolve(self, keep: str) -> bool:
        """Settle the pair as ``keep`` says: one undo step."""
        pair = self._pair()
        if pair is None:
            return False
        return self._actions.resolve_conflict(*pair, keep, CHOICES[keep][0])
