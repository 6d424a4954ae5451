"""Every predicate of the graph as table rows: its figures and MemPalace's audit signals
(``kg.predicate_stats()``), sortable by any column."""

from __future__ import annotations

from PySide6.QtCore import Qt

from factlines.ui.look import style
from factlines.ui.models.roles import ALIGNMENT, DISPLAY, FOREGROUND, RIGHT, TOOLTIP
from factlines.ui.models.rows import RowsModel

SORT_ROLE = Qt.ItemDataRole.UserRole + 30
PREDICATE_ROLE = Qt.ItemDataRole.UserRole + 31
DECORATION = int(Qt.ItemDataRole.DecorationRole.value)

# (header, the row's key, what the column counts)
COLUMNS = (
    ("Predicate", "predicate", "The predicate, in its colour in the chart and the graph"),
    ("Valid now", "current", "Facts valid at this moment, by their dates"),
    ("Ended", "ended", "Facts with an end date"),
    ("Subjects", "subjects", "Distinct entities it starts from"),
    ("Objects", "objects", "Distinct entities it points at"),
    ("Signals", "signals", "What MemPalace's audit would flag, and how it is marked"),
)
SIGNAL_WORDS = {
    "one-off": "a single fact ever used it: a graph of one-off predicates cannot be asked by "
    "relation (MemPalace's audit counts these)",
    "near-duplicate": "spelled like another predicate but for case, separators or an ending "
    "(-s, -ing, -ed): probably one relation written twice; Merge into… makes it one",
    "ended only": "no open fact carries it any more (what a rename keeping history leaves)",
    "single-valued": "marked single-valued: a subject's overlapping facts are conflicts",
}


def signal_tip(signals: list[str]) -> str:
    return "\n".join(
        f"{signal}: {SIGNAL_WORDS[word]}"
        for signal in signals
        for word in SIGNAL_WORDS
        if signal.startswith(word)
    )


class PredicatesModel(RowsModel):
    COLUMNS = tuple(header for header, _, _ in COLUMNS)

    def set_rows(self, rows: list[dict]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    @property
    def rows(self) -> list[dict]:
        return self._rows

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if (
            role == Qt.ItemDataRole.ToolTipRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section][2]
        return super().headerData(section, orientation, role)

    def _value(self, row: dict, column: int, role: int):
        key = COLUMNS[column][1]
        value = row[key]
        if role == DISPLAY:
            if key == "signals":
                return ", ".join(value)
            return f"{value:,}" if isinstance(value, int) else style.cell_text(value)
        if role == SORT_ROLE:
            return ", ".join(value) if key == "signals" else value
        if role == PREDICATE_ROLE:
            return row["predicate"]
        if column == 0:
            if role == DECORATION:
                return style.predicate_color(row["predicate"])
            if role == FOREGROUND:
                return style.predicate_brush(row["predicate"])
            if role == TOOLTIP:
                return (
                    f"{style.tip_text(row['predicate'])}: {row['facts']:,} facts, "
                    f"{row['open']:,} open (no end date), {row['current']:,} valid now"
                )
        if key == "signals" and role == TOOLTIP:
            return signal_tip(value) or None
        if role == ALIGNMENT and isinstance(value, int):
            return RIGHT
        return None
