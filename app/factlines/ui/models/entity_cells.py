"""What the entity list's cells and headings show of an entity read."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from factlines.ui.look import style
from factlines.ui.models.roles import (
    ALIGNMENT,
    DISPLAY,
    ENTITY_ID_ROLE,
    FONT,
    FOREGROUND,
    RIGHT,
    TOOLTIP,
)

NO_ID = (
    "This row of the entities table has no id (a hand edit, or another tool): no fact can "
    "name it and MemPalace cannot look it up. It is listed as stored, and cannot be selected "
    "or edited here."
)


class EntityCells:
    """The entity list's headings, and each cell's value for a role."""

    COLUMNS = ("Name", "Type", "Open", "Ended")
    ORDERS = ("name", "type", "current", "ended")  # the entity's key shown in each column

    def __init__(self):
        self._italic = QFont()
        self._italic.setItalic(True)

    def header(self, section: int, role: int):
        """The column ``section``'s heading, or its tooltip."""
        if not 0 <= section < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                "Display name (id in the tooltip)",
                "Entity type",
                "Open: facts with no end (valid_to empty), both directions;"
                " not as of as_of (some may start later)",
                "Ended: facts with an end (valid_to set), both directions; not as of as_of",
            )[section]
        return None

    def value(self, entity: dict, column: int, role: int):
        """What the cell of ``entity`` at ``column`` shows for ``role``."""
        nameless = entity["id"] is None
        if role == DISPLAY:
            if column == 0:
                name = style.cell_text(entity["name"])
                return f"{style.MARK} {name}" if nameless else name
            if column == 1:
                return style.cell_text(entity["type"])
            return entity[self.ORDERS[column]]
        if role == ENTITY_ID_ROLE:
            return entity["id"]
        if role == FONT:
            return self._italic if nameless else None
        if column >= 2:
            if role == ALIGNMENT:
                return RIGHT
            if role == FOREGROUND and not entity[self.ORDERS[column]]:
                return style.theme().dim_brush
        elif role == FOREGROUND and nameless:
            return style.theme().dim_brush
        elif role == TOOLTIP and column == 0:
            name = style.tip_text(entity["name"])
            kind = f"type: {entity['type']}\n" if entity["type"] else ""
            return (
                f"{name}\n{kind}{style.MARK} {NO_ID}"
                if nameless
                else f"{name}\n{kind}id: {entity['id']}"
            )
        elif role == TOOLTIP and column == 1 and len(style.stored_text(entity["type"])) > 40:
            return style.tip_text(entity["type"])
        return None
