"""How the window's QActions are made: named for automation, a shortcut live wherever the
window is, and a tip that says what an action does or why it cannot now. Menus, panels and
jobs make theirs here."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


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


def enable_or_say_why(action: QAction, reason: str | None, tip: str, verb: str) -> None:
    """Enable ``action`` when there is no ``reason`` against it; its tip says what it does, or
    "Cannot ``verb``: ``reason``"."""
    action.setEnabled(reason is None)
    said = tip if reason is None else f"Cannot {verb}: {reason}"
    action.setToolTip(said)
    action.setStatusTip(said)
