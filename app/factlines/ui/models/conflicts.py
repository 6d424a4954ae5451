"""Every conflict in the graph as table rows, in words; and what can be done about each.

The rows are ``kg.conflicts()``'s as they came (by subject, predicate, start); the facts they
name are read from the open graph only when a row is shown (a big graph has tens of thousands
of conflicts, and a person looks at a screenful), and kept until the graph changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from PySide6.QtCore import Qt

from factlines.core import temporal
from factlines.core.errors import Refused, Unavailable
from factlines.ui.look import style
from factlines.ui.models.roles import (
    DISPLAY,
    ENTITY_ID_ROLE,
    FACT_ID_ROLE,
    FOREGROUND,
    OTHER_ID_ROLE,
    TOOLTIP,
)
from factlines.ui.models.rows import RowsModel
from factlines.ui.session.state import AppState

KIND_ROLE = Qt.ItemDataRole.UserRole + 20

# Each kind in words: the column's word, and what it means (the tooltip).
KIND_WORDS = {
    "overlap": ("Overlap", "Two facts of a single-valued predicate hold at the same time"),
    "handover": (
        "Same-day handover",
        "One fact ended on a day and the next started that day: a day-only end covers its "
        "whole day, so both hold all that day",
    ),
    "duplicate_open": ("Open twice", "Two open copies of the same fact"),
    "inverted": ("Ends before it starts", "The fact's end is before its start: valid nowhere"),
    "future_end": (
        "Ends in the future",
        "The fact's end is later than now: MemPalace already counts it as ended",
    ),
}
KIND_PLURALS = {
    "overlap": "Overlaps",
    "handover": "Same-day handovers",
    "duplicate_open": "Open twice",
    "inverted": "End before they start",
    "future_end": "End in the future",
}
GONE = "(no longer in the graph)"
# A row of a predicate suggested single-valued but not marked: ``row["likely"]`` says why.
LIKELY_WORDS = {"overlap": "Likely overlap", "handover": "Likely same-day handover"}


def kind_words(row: dict) -> str:
    """The row's kind in the Kind column's words."""
    if row.get("likely"):
        return LIKELY_WORDS[row["kind"]]
    return KIND_WORDS[row["kind"]][0]


def span_words(row: dict) -> str:
    """The row's span: the overlap of a pair, the fact's own dates for a single fact."""
    start = style.show_key(row["start"], "…")
    end = style.show_key(row["end"], "open", as_end=True)
    return f"{start} – {end}"


def inside(row: dict) -> str | None:
    """An as_of value inside the row's span (its start, or the second before an unbounded
    span's end); None when the span is unbounded both ways."""
    if row["start"] is not None:
        return style.show_key(row["start"], "")
    if isinstance(row["end"], str):  # a key; a BLOB stored as the end has no place in time
        return temporal.from_posix(temporal.to_posix(row["end"]) - 1)
    return None


def fact_words(fact: dict | None) -> str:
    """The fact's object and dates (its subject and predicate have columns of their own)."""
    if fact is None:
        return GONE
    start = style.show_time(fact["valid_from"], "…")
    end = style.show_time(fact["valid_to"], "open")
    return f"{style.cell_text(fact['object_name'])} ({start} – {end})"


@dataclass
class Fix:
    """One edit that resolves a conflict: its words, and why it cannot be done (or None)."""

    text: str
    reason: str | None
    triple_id: str = ""
    changes: dict | None = None  # update_fact's fields; None: end the open fact at ``ended``
    ended: str | None = None


def _day_or_instant(value: str | None) -> bool:
    """A day or an instant (not unknown, not MemPalace's ``""``, not stray text)."""
    return temporal.is_dated(value) and (temporal.is_date(value) or value.endswith("Z"))


def _day_before(value: str) -> str:
    return (date.fromisoformat(value) - timedelta(days=1)).isoformat()


def _day_after(value: str) -> str:
    return (date.fromisoformat(value) + timedelta(days=1)).isoformat()


def _name(fact: dict) -> str:
    subject, predicate, thing = (
        style.stored_text(fact[key]) for key in ("subject_name", "predicate", "object_name")
    )
    return f"“{subject} {predicate} {thing}”"


def end_first(row: dict, a: dict | None, b: dict | None) -> Fix:
    """The earlier fact gives way: it ends just before the later one starts (a day-only
    start ``D``: the earlier ends on the day before, so ``D`` is the later one's alone). On
    an open fact this is what superseding it does."""
    verb = "Supersede" if a is not None and a["valid_to"] is None else "End"
    if row["b"] is None or a is None or b is None:
        return Fix(f"{verb}: end the first where the second starts", "this is a single fact")
    start = b["valid_from"]
    if not _day_or_instant(start):
        return Fix(f"{verb} {_name(a)}", f"{_name(b)} has no known start")
    ended = _day_before(start) if temporal.is_date(start) else start
    text = (
        f"{verb}: end {_name(a)} on {ended}, the day before {_name(b)} starts"
        if temporal.is_date(start)
        else f"{verb}: end {_name(a)} at {style.show_time(start)}, when {_name(b)} starts"
    )
    a_start = temporal.start_key(a["valid_from"])
    if a_start is not None and temporal.end_key(ended) < a_start:
        return Fix(text, f"{_name(a)} starts on {style.show_time(a['valid_from'])}, too late")
    if a["valid_to"] is None:
        return Fix(text, None, a["id"], None, ended)
    return Fix(text, None, a["id"], {"valid_to": ended})


def start_second(row: dict, a: dict | None, b: dict | None) -> Fix:
    """The earlier fact stands: the later one starts once it has ended."""
    if row["b"] is None or a is None or b is None:
        return Fix("Start the second where the first ends", "this is a single fact")
    end = a["valid_to"]
    if not _day_or_instant(end):
        return Fix(f"Start {_name(b)} later", f"{_name(a)} has no known end")
    start = _day_after(end) if temporal.is_date(end) else end
    text = f"Start {_name(b)} on {style.show_time(start)}, after {_name(a)} ends"
    b_end = temporal.end_key(b["valid_to"]) if b["valid_to"] else None
    if b_end is not None and b_end < temporal.start_key(start):
        return Fix(text, f"{_name(b)} ends before that")
    return Fix(text, None, b["id"], {"valid_from": start})


def swap_dates(row: dict, a: dict | None) -> Fix:
    """An interval stored backwards is put the right way round."""
    if row["kind"] != "inverted" or a is None:
        return Fix("Swap start and end", "only for a fact that ends before it starts")
    text = f"Swap the start and end of {_name(a)}"
    return Fix(text, None, a["id"], {"valid_from": a["valid_to"], "valid_to": a["valid_from"]})


def mark_predicate(row: dict) -> Fix:
    """A likely overlap is a conflict once its predicate is marked single-valued."""
    text = f"Mark {row['predicate']} single-valued"
    if not row.get("likely"):
        return Fix(text, "only for a likely overlap, whose predicate is not marked yet")
    return Fix(text, None)


class ConflictsModel(RowsModel):
    """Conflict rows: kind, subject, predicate, the two facts in words, the span."""

    COLUMNS = ("Kind", "Subject", "Predicate", "First fact", "Second fact", "Span")

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self._state = state
        self._rows: list[dict] = []
        self._facts: dict[str, dict | None] = {}
        self._names: dict[str, str] = {}

    def set_rows(self, rows: list[dict]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._facts.clear()
        self._names.clear()
        self.endResetModel()

    def forget_facts(self) -> None:
        """The graph was written: read the facts shown again when next painted."""
        self._facts.clear()
        self._names.clear()
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 5))

    @property
    def rows(self) -> list[dict]:
        return self._rows

    def row_at(self, row: int) -> dict | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def fact(self, triple_id: str | None) -> dict | None:
        """The fact as the open graph has it now (None: gone, or unreadable for now)."""
        if triple_id is None:
            return None
        if triple_id not in self._facts:
            kg = self._state.kg
            try:
                self._facts[triple_id] = kg.get_fact(triple_id) if kg is not None else None
            except (Refused, Unavailable):
                return None  # not kept: asked again at the next paint
        return self._facts[triple_id]

    def _subject_name(self, row: dict) -> object:
        fact = self.fact(row["a"])
        if fact is not None:
            return fact["subject_name"]
        subject = row["subject"]
        if subject not in self._names:
            kg = self._state.kg
            entity = kg.get_entity(subject) if kg is not None and not kg.closed else None
            self._names[subject] = entity["name"] if entity else subject
        return self._names[subject]

    # Model
    def _value(self, row: dict, column: int, role: int):
        if role == DISPLAY:
            if column == 0:
                return kind_words(row)
            if column == 1:  # a name or predicate may be any stored value
                return style.cell_text(self._subject_name(row))
            if column == 2:
                return style.cell_text(row["predicate"])
            if column == 3:
                return fact_words(self.fact(row["a"]))
            if column == 4:
                return "" if row["b"] is None else fact_words(self.fact(row["b"]))
            return span_words(row)
        if role == TOOLTIP:
            if column == 0 and row.get("likely"):
                return (
                    f"{row['predicate']} is not marked single-valued, but it looks so: "
                    f"{row['likely']}. Mark it to count these as conflicts."
                )
            if column == 0:
                return KIND_WORDS[row["kind"]][1]
            if column in (3, 4):
                fact = self.fact(row["a"] if column == 3 else row["b"])
                return None if fact is None else self._tooltip(fact)
            return None
        if role == FOREGROUND and column == 0:
            return style.theme().conflict
        if role == ENTITY_ID_ROLE:
            return row["subject"]
        if role == FACT_ID_ROLE:
            return row["a"]
        if role == OTHER_ID_ROLE:
            return row["b"]
        if role == KIND_ROLE:
            return row["kind"]
        return None

    @staticmethod
    def _tooltip(fact: dict) -> str:
        start = style.show_time(fact["valid_from"], "unknown")
        end = style.show_time(fact["valid_to"], "open")
        source = fact["source_file"] or fact["source_closet"] or ""
        said = f"{_name(fact)}\nfrom {start} to {end}"
        return f"{said}\nsource: {source}" if source else said
