"""The read-only banner above the chart: that nothing can be changed, and why, in words.

Shown while the open graph is read-only (asked for, or a file or folder this user may not
write); hidden otherwise. When read-only was asked for, a button opens the same file for
editing.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from factlines.ui.look import style
from factlines.ui.session.document import Document

WHAT_STILL_WORKS = "Browse, search, move through time and export as usual; editing is off."


# The store's reasons that read awkwardly after "Read-only:", in the banner's words.
SAID_IN_THE_BANNER = {"opened read-only, as asked": "you asked to open it read-only"}


def banner_text(reason: str | None) -> str:
    """The banner's words for the store's reason, e.g. "Read-only: you may not write this
    file. Browse, …"."""
    said = (reason or "nothing can be changed").strip().rstrip(".")
    said = SAID_IN_THE_BANNER.get(said, said)
    return f"<b>Read-only:</b> {html.escape(said)}. {WHAT_STILL_WORKS}"


class ReadOnlyBanner(QFrame):
    """``readOnlyBanner``: follows ``document.readOnlyChanged``; ``reopen`` opens the file
    again for editing (offered only when read-only was asked for)."""

    def __init__(self, document: Document, reopen: Callable[[], object], parent: QWidget):
        super().__init__(parent)
        self.setObjectName("readOnlyBanner")
        self._document = document
        self.label = QLabel(self)
        self.label.setObjectName("readOnlyReason")
        self.label.setWordWrap(True)
        self.reopen_button = QPushButton("Open for editing", self)
        self.reopen_button.setObjectName("reopenForEditing")
        self.reopen_button.setToolTip("Open this file again, so that it can be edited")
        self.reopen_button.clicked.connect(lambda _checked=False: reopen())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 5, 6, 5)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reopen_button)
        self._restyle()
        document.readOnlyChanged.connect(self.follow)
        self.follow()

    def follow(self, *_read_only) -> None:
        """Show the reason while the graph is read-only; hide otherwise."""
        document = self._document
        if not document.read_only:
            self.hide()
            return
        self.label.setText(banner_text(document.read_only_reason))
        self.setToolTip(f"{document.path} is open read-only: nothing will be written to it")
        self.reopen_button.setVisible(document.asked_read_only)
        self.show()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self._restyle()

    def _restyle(self) -> None:
        colors = style.theme()
        sheet = (
            f"#readOnlyBanner {{ background: {colors.notice_background.name()}; "
            f"border-bottom: 1px solid {colors.notice_border.name()}; }} "
            f"#readOnlyReason {{ color: {colors.notice_text.name()}; }}"
        )
        if sheet != self.styleSheet():  # a new sheet changes the palette: once, not forever
            self.setStyleSheet(sheet)
