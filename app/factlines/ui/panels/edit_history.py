"""The edit history: the recent edits of Factlines' edit log and of MemPalace's write log, newest
first, read a page at a time as the list scrolls.

Factlines' entries say what was done, when and why (the reason typed in the form); MemPalace's
say which of its tools wrote (``kg_add``, ``kg_invalidate``, ``kg_supersede``), what it was
asked (the intent line) and, for an add, how it went (the outcome line). MemPalace keeps one
write log for all its graphs: a write about an entity this graph does not hold is shown dimmed.
Choosing an edit selects its fact (and its subject) and moves as_of to the time the edit wrote:
the end it set, the start it gave; else the moment of the edit.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QTimer
from PySide6.QtWidgets import QHeaderView, QLabel, QVBoxLayout, QWidget

from factlines.core import temporal
from factlines.core.errors import Refused, Unavailable
from factlines.core.mempalace_log import WriteLogEntry, events_for_fact
from factlines.core.names import entity_id
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.models.roles import DISPLAY, FOREGROUND, ROOT, TOOLTIP, Index
from factlines.ui.models.rows import RowsModel, rows_view
from factlines.ui.session.state import AppState

RELOAD_MS = 200
_ASKED = {
    "kg_add": "add {subject} {predicate} {object}",
    "kg_invalidate": "end {subject} {predicate} {object} at {ended}",
    "kg_supersede": "replace {subject} {predicate} {old_object} with {new_object}",
}


def _said(params: dict, operation: str) -> str:
    """What MemPalace's tool was asked to do (its intent line), in words."""
    values = {key: params.get(key) or "?" for key in ("subject", "predicate", "object")}
    values.update({key: value for key, value in params.items() if value is not None})
    values.setdefault("ended", "today")
    text = _ASKED[operation].format_map(_Missing(values))
    if operation == "kg_add" and params.get("valid_from"):
        text += f" from {params['valid_from']}"
    if operation == "kg_supersede":
        text += f" at {params['at']}" if params.get("at") else " now"
    return text[0].upper() + text[1:]


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def mempalace_row(entry: WriteLogEntry) -> dict:
    """A row of the list for one of MemPalace's logged writes."""
    what = _said(entry.params, entry.operation)
    subject = entry.params.get("subject")
    result = entry.result
    if isinstance(result, dict):
        what += " — done" if result.get("success") else f" — failed: {result.get('error')}"
    return {
        "at": entry.at,
        "tool": f"MemPalace · {entry.operation}",
        "what": what,
        "reason": None,
        "entry": entry,
        "subject": entity_id(subject) if isinstance(subject, str) else None,
    }


def factlines_row(entry: dict) -> dict:
    """A row of the list for one of Factlines' logged edits."""
    images = [image for image in entry["before"] + entry["after"] if image["row"] is not None]
    subject = next(
        (image["row"].get("subject") for image in images if image["table"] == "triples"),
        entry["entities"][0] if entry["entities"] else None,
    )
    return {
        "at": entry["at"],
        "tool": "Factlines",
        "what": entry["what"],
        "reason": entry["reason"],
        "entry": entry,
        "subject": subject,
    }


class _Sources:
    """Both logs, merged newest first, a page at a time (Factlines' log is read by pages;
    MemPalace's is held by its reader, read as it grows)."""

    def __init__(self, kg):
        self._kg = kg
        entries = kg.mempalace_write_log().entries() if kg else []
        # Newest first by the logged time (a log may hold lines out of order: several writers)
        self._mempalace = sorted(entries, key=lambda e: (e.at or "", e.line), reverse=True)
        self._own: list[dict] = []
        self._own_offset = 0
        self._own_done = kg is None
        self._next_mempalace = 0
        self.total_mempalace = len(self._mempalace)

    def _own_head(self) -> dict | None:
        if not self._own and not self._own_done:
            page = self._kg.edit_log(limit=EditHistoryModel.PAGE, offset=self._own_offset)
            self._own_offset += len(page)
            self._own_done = len(page) < EditHistoryModel.PAGE
            self._own = page
        return self._own[0] if self._own else None

    @property
    def done(self) -> bool:
        return self._next_mempalace >= len(self._mempalace) and self._own_head() is None

    def take(self, count: int) -> list[dict]:
        rows = []
        while len(rows) < count:
            own = self._own_head()
            theirs = (
                self._mempalace[self._next_mempalace]
                if self._next_mempalace < len(self._mempalace)
                else None
            )
            if own is None and theirs is None:
                break
            if theirs is None or (own is not None and own["at"] >= (theirs.at or "")):
                rows.append(factlines_row(self._own.pop(0)))
            else:
                rows.append(mempalace_row(theirs))
                self._next_mempalace += 1
        return rows


class EditHistoryModel(RowsModel):
    COLUMNS = ("When (UTC)", "By", "What", "Why")
    PAGE = 100

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self._state = state
        self._sources: _Sources | None = None
        self._known: set[str] = set()  # subjects this graph holds, of the rows read
        self.problem: str | None = None

    @property
    def total_mempalace(self) -> int:
        return self._sources.total_mempalace if self._sources else 0

    def reload(self) -> None:
        kg = self._state.kg
        self.beginResetModel()
        self._rows, self._known, self.problem = [], set(), None
        self._sources = _Sources(kg) if kg is not None and not kg.closed else None
        self.endResetModel()
        if self._sources is not None:
            self.fetchMore(ROOT)

    def canFetchMore(self, parent: Index = ROOT) -> bool:
        if parent.isValid() or self._sources is None or self.problem:
            return False
        try:
            return not self._sources.done
        except (Refused, Unavailable) as exc:
            self.problem = in_words(exc)
            return False

    def fetchMore(self, parent: Index = ROOT) -> None:
        if parent.isValid() or self._sources is None:
            return
        try:
            rows = self._sources.take(self.PAGE)
            subjects = [row["subject"] for row in rows if row["subject"]]
            self._known |= set(self._state.kg.rows_with_ids("entities", subjects))
        except (Refused, Unavailable) as exc:
            self.problem = in_words(exc)
            return
        if rows:
            first = len(self._rows)
            self.beginInsertRows(ROOT, first, first + len(rows) - 1)
            self._rows += rows
            self.endInsertRows()

    def row_at(self, row: int) -> dict | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def in_graph(self, row: dict) -> bool:
        """Whether the edit is about this graph (Factlines' log is the file's own)."""
        return row["tool"] == "Factlines" or row["subject"] in self._known

    def _value(self, row: dict, column: int, role: int):
        if role == DISPLAY:
            if column == 0:
                return style.show_instant(row["at"]) if row["at"] else "?"
            value = (row["tool"], row["what"], row["reason"] or "")[column - 1]
            return style.cell_text(value)
        if role == FOREGROUND and not self.in_graph(row):
            return style.theme().dim_brush
        if role == TOOLTIP:
            return _tooltip(row, self.in_graph(row))
        return None


def _tooltip(row: dict, in_graph: bool) -> str:
    entry = row["entry"]
    lines = [style.tip_text(row["what"])]
    if row["reason"]:
        lines.append(f"Why: {style.tip_text(row['reason'])}")
    if isinstance(entry, WriteLogEntry):
        lines.append(f"Logged by MemPalace's {entry.operation} at {entry.logged_at} (its clock)")
        lines.append(f"Line {entry.line} of MemPalace's write log")
        if entry.result is None and entry.operation == "kg_add":
            lines.append("No outcome line: the write may not have finished")
    else:
        total = entry["rows_total"]
        lines.append(f"An edit in Factlines of {total:,} row{'s' if total != 1 else ''}")
    if not in_graph:
        lines.append("About an entity this graph does not hold (another of MemPalace's graphs?)")
    else:
        lines.append("Choose it to select its fact and move as_of to the time it wrote")
    return "\n".join(lines)


# ── What choosing an edit shows ───────────────────────────────────────────


def _accepted(value) -> str | None:
    return value if isinstance(value, str) and temporal.is_accepted(value) else None


def target(kg, row: dict) -> tuple[str | None, str | None, str | None]:
    """The entity, fact and as_of an edit is about (each None when not known)."""
    entry = row["entry"]
    if isinstance(entry, WriteLogEntry):
        return _mempalace_target(kg, row, entry)
    fact_id, as_of = None, None
    for before, after in zip(entry["before"], entry["after"]):
        if before["table"] != "triples":
            continue
        old, new = before["row"] or {}, after["row"] or {}
        fact_id = before["id"]
        if old and new:
            changed = [k for k in ("valid_to", "valid_from") if old.get(k) != new.get(k)]
            as_of = _accepted(new.get(changed[0])) if changed else None
        else:
            as_of = _accepted((new or old).get("valid_from"))
        break
    if fact_id is not None and not kg.has_fact(fact_id):
        fact_id = None
    return row["subject"], fact_id, as_of or _accepted(row["at"])


def _mempalace_target(kg, row: dict, entry: WriteLogEntry):
    params, subject = entry.params, row["subject"]
    if subject is None or kg.get_entity(subject) is None:
        return None, None, None
    for fact in kg.intervals(subject):
        if fact["subject"] == subject and events_for_fact(fact, [entry]):
            break
    else:
        fact = None
    as_of = {
        "kg_add": params.get("valid_from"),
        "kg_invalidate": params.get("ended"),
        "kg_supersede": params.get("at"),
    }[entry.operation]
    return subject, fact["id"] if fact else None, _accepted(as_of) or _accepted(row["at"])


class EditHistoryPanel(QWidget):
    """The list, and a line saying where the edits come from."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("editHistoryPanel")
        self._state = state
        self._visible = False
        self._stale = True
        self.model = EditHistoryModel(state, self)
        self.summary = QLabel(self)
        self.summary.setObjectName("editHistorySummary")
        self.summary.setWordWrap(True)
        self.view = rows_view(self, "editHistoryTable", self.model, (150, 90, 320, 110))
        # What takes the room left, so that it shows at any width; Why keeps its own.
        header = self.view.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.view.clicked.connect(self._chosen)
        self.view.activated.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RELOAD_MS)
        self._timer.timeout.connect(self.reload)
        state.graphChanged.connect(self.reload_soon)
        state.dataChanged.connect(self.reload_soon)

    def set_visible_in_window(self, visible: bool) -> None:
        """Reading waits while the panel is hidden (a tab behind another)."""
        self._visible = visible
        if visible and self._stale:
            self.reload()

    def reload_soon(self, *_changed) -> None:
        self._stale = True
        if self._visible:
            self._timer.start()

    def reload(self) -> None:
        self._stale = False
        self.model.reload()
        kg = self._state.kg
        if kg is None:
            self.summary.setText("No graph is open")
            return
        log = kg.mempalace_write_log()
        count = self.model.total_mempalace
        theirs = (
            f"{count:,} graph write{'s' if count != 1 else ''} in its write log"
            if log.path.exists()
            else "no write log of it on this machine"
        )
        said = f"Newest first: edits made in Factlines, and MemPalace's ({theirs})"
        if self.model.problem:
            said += f". Cannot read on: {self.model.problem}"
        self.summary.setText(said)
        self.summary.setToolTip(f"MemPalace's write log: {log.path}")

    def _chosen(self, index: QModelIndex) -> None:
        row = self.model.row_at(index.row())
        kg = self._state.kg
        if row is None or kg is None:
            return
        try:
            entity, fact, as_of = target(kg, row)
        except (Refused, Unavailable) as exc:
            self._state.message.emit(f"Cannot show that edit: {in_words(exc)}")
            return
        if entity is None or kg.get_entity(entity) is None:
            self._state.message.emit(
                "That edit changed a setting of the graph, not a fact"
                if row["tool"] == "Factlines" and entity is None
                else "That edit is about an entity this graph does not hold (now)"
            )
            return
        self._state.select_entity(entity)
        if as_of is not None:
            self._state.set_as_of(as_of)
        self._state.select_fact(fact)
        if fact is None:
            self._state.message.emit("The fact of that edit is not in the graph now")
