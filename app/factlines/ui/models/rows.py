"""A flat table of rows for the panels (counts, headers, one call per painted cell), and the
read-only view they are shown in.

A subclass names its ``COLUMNS``, keeps its rows in ``_rows`` and answers
``_value(item, column, role)`` for the item :meth:`RowsModel._item` gives of a row.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from factlines.ui.models.roles import ROOT, Index, clear_span, column_header, fill_span


class RowsModel(QAbstractTableModel):
    COLUMNS: tuple[str, ...] = ()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list = []

    def _item(self, row: int):
        """What :meth:`_value` is asked about for ``row`` (the row itself by default)."""
        return self._rows[row]

    def _value(self, item, column: int, role: int):
        raise NotImplementedError

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        return column_header(self.COLUMNS, section, orientation, role)

    def data(self, index: Index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        return self._value(self._item(index.row()), index.column(), int(role))

    def multiData(self, index: Index, roles) -> None:
        # The view's delegate asks several roles per painted cell: one call into Python.
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            clear_span(roles)
            return
        fill_span(roles, self._value, self._item(index.row()), index.column())


def rows_view(
    parent: QWidget,
    name: str,
    model: QAbstractTableModel,
    widths: tuple[int, ...],
    alternating: bool = True,
) -> QTableView:
    """A panel's table: whole rows selected one at a time, nothing edited in place, compact
    rows, ``widths`` for the first columns and the last one stretched."""
    view = QTableView(parent)
    view.setObjectName(name)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(alternating)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    header = view.horizontalHeader()
    for column, width in enumerate(widths):
        header.resizeSection(column, width)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    return view
