"""The facts table narrowed to the facts from one memory (a drawer of MemPalace's palace).

The History section's link "only this memory's facts in the table" sets it; a bar above the
table says so and "Show all" ends it, as does selecting another entity. The rows are hidden
in the view, not filtered by the proxy: the proxy's own filter (valid at as_of) stays in Qt's
C++ and costs nothing while this one is off.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTableView, QToolButton, QWidget

from factlines.ui.look import style
from factlines.ui.models.roles import FACT_ID_ROLE


class MemoryFilter(QObject):
    """Hides the rows of ``view`` whose fact names none of a memory's drawer ids."""

    def __init__(self, view: QTableView, model, parent: QWidget):
        super().__init__(parent)
        self._view, self._model = view, model
        self.ids: set[str] | None = None
        self._hiding = False  # whether some row may be hidden now
        self.bar = QWidget(parent)
        self.bar.setObjectName("memoryFilterBar")
        self.note = QLabel(self.bar)
        self.note.setObjectName("memoryFilterNote")
        show_all = QToolButton(self.bar)
        show_all.setObjectName("memoryFilterShowAll")
        show_all.setText("Show all")
        show_all.setToolTip("Show every fact of the entity again")
        show_all.clicked.connect(self.clear)
        layout = QHBoxLayout(self.bar)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note, 1)
        layout.addWidget(show_all)
        self.bar.hide()
        proxy = view.model()
        for signal in (
            proxy.layoutChanged,
            proxy.modelReset,
            proxy.rowsInserted,
            proxy.rowsRemoved,
        ):
            signal.connect(self.apply)

    def set(self, ids: set[str], words: str) -> None:
        """Show only the facts naming one of ``ids`` (the memory described by ``words``)."""
        self.ids = set(ids)
        self.note.setText(f"Only the facts from the memory {style.elide(words, 120)}")
        self.bar.show()
        self.apply()

    def clear(self) -> None:
        if self.ids is not None:
            self.ids = None
            self.bar.hide()
            self.apply()

    def shown(self) -> int:
        """How many rows the view shows now."""
        rows = self._view.model().rowCount()
        return sum(not self._view.isRowHidden(row) for row in range(rows))

    def apply(self, *_args) -> None:
        if self.ids is None and not self._hiding:  # off, and every row shown: 20,000 checks spared
            return
        self._hiding = self.ids is not None
        proxy = self._view.model()
        for row in range(proxy.rowCount()):
            hidden = False
            if self.ids is not None:
                fact = self._model.fact_at(
                    self._model.row_of(proxy.index(row, 0).data(FACT_ID_ROLE))
                )
                hidden = fact is None or fact.get("source_drawer_id") not in self.ids
            if self._view.isRowHidden(row) != hidden:
                self._view.setRowHidden(row, hidden)
