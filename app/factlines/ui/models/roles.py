"""What every table model of the window shares: the roles, as plain ints, and answering a
view's ``multiData`` span in one call."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()
# Roles as plain ints: data() is called per cell per paint, and int compares are cheapest.
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
EDIT = int(Qt.ItemDataRole.EditRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
BACKGROUND = int(Qt.ItemDataRole.BackgroundRole.value)
FONT = int(Qt.ItemDataRole.FontRole.value)
ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole.value)
RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
ENTITY_ID_ROLE = Qt.ItemDataRole.UserRole + 1
FACT_ID_ROLE = Qt.ItemDataRole.UserRole + 2
VALID_ROLE = Qt.ItemDataRole.UserRole + 3
OTHER_ID_ROLE = Qt.ItemDataRole.UserRole + 4


def fill_span(roles, value, item, column: int) -> None:
    """Answer every role a ``QModelRoleDataSpan`` asks with ``value(item, column, role)``.

    Every role is answered, None included: the view reuses one span for every cell, so a role
    left alone would keep the previous cell's answer.
    """
    for i in range(len(roles)):
        asked = roles[i]
        answer = value(item, column, asked.role())
        if answer is None:
            asked.clearData()
        else:
            asked.setData(answer)


def clear_span(roles) -> None:
    """No such cell: no answer to any role (the span may hold the previous cell's)."""
    for i in range(len(roles)):
        roles[i].clearData()


def column_header(columns, section: int, orientation, role):
    """A table's horizontal header: the text of ``columns[section]``, nothing else."""
    if (
        orientation == Qt.Orientation.Horizontal
        and role == Qt.ItemDataRole.DisplayRole
        and 0 <= section < len(columns)
    ):
        return columns[section]
    return None
