"""Contradictions resolved from where they are seen (the conflicts panel, the review inbox):
"Keep the newer", "Keep the older", "Both were true: split the time", each one undo step with
the choice logged as its reason (``kg.resolve_conflict``)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from factlines.ui.actions import FactActions

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


class ResolveButtons(QWidget):
    """The three choices for the pair ``pair()`` gives (two fact ids, or None: nothing to
    resolve); :meth:`update_buttons` when that may have changed."""

    def __init__(
        self,
        actions: FactActions,
        pair: Callable[[], tuple[str, str] | None],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self._actions = actions
        self._pair = pair
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Resolve:", self))
        self.buttons = {}
        for keep, (words, tip) in CHOICES.items():
            button = QPushButton(words, self)
            button.setObjectName(f"resolve_{keep}")
            button.setToolTip(tip)
            button.clicked.connect(lambda _checked=False, k=keep: self.resolve(k))
            layout.addWidget(button)
            self.buttons[keep] = button
        layout.addStretch(1)
        self.update_buttons()

    def update_buttons(self) -> None:
        usable = self._pair() is not None and self._actions.commands.blocked() is None
        for button in self.buttons.values():
            button.setEnabled(usable)

    def resolve(self, keep: str) -> bool:
        """Settle the pair as ``keep`` says: one undo step."""
        pair = self._pair()
        if pair is None:
            return False
        return self._actions.resolve_conflict(*pair, keep, CHOICES[keep][0])
