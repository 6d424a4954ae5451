"""What changed between two instants, as a tree: entity → predicate → the facts that started,
ended, or both within the span (``kg.changes_between``'s two lists, grouped by subject)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from factlines.core.turns import let_go, sort_in_turns
from factlines.ui.jobs.progress import let_go_elsewhere
from factlines.ui.look import style
from factlines.ui.look.wording import fact_in_words
from factlines.ui.models.roles import (
    DISPLAY,
    ENTITY_ID_ROLE,
    FACT_ID_ROLE,
    FONT,
    FOREGROUND,
    ROOT,
    TOOLTIP,
    Index,
    clear_span,
    column_header,
    fill_span,
)

CHANGE_ROLE = Qt.ItemDataRole.UserRole + 21  # "started", "ended" or "both", on fact rows
STARTED_COLOR = QColor("#2e7d32")
ENDED_COLOR = QColor("#c62828")


class Node(NamedTuple):
    """A row of the tree: an entity, a predicate under it, or a fact under that (read from
    the tree's columns when asked for)."""

    kind: str  # "entity", "predicate", "fact"
    parent: int  # the parent's node number, -1 at the top
    row: int  # the row under the parent
    text: str
    fact: dict | None
    change: str  # a fact's: "started", "ended", "both"
    entity: str | None
    started: int
    ended: int
    first: int  # the first child's node number: a node's children are numbered in a run
    count: int  # how many children

    @property
    def children(self) -> range:
        return range(self.first, self.first + self.count)


def change_words(started: int, ended: int) -> str:
    parts = []
    if started:
        parts.append(f"{started:,} started")
    if ended:
        parts.append(f"{ended:,} ended")
    return ", ".join(parts)


class Tree(NamedTuple):
    """``changes_between``'s answer as the panel shows it (see :func:`build`): the nodes held
    column-wise, a column per field of :class:`Node`, none of them a list. A wide span of the
    whole graph at a million facts is 500,000 nodes: as objects, Python's cycle collector
    walked them all on the UI thread (100-450 ms, each time it looked at the older objects);
    as lists of values, it still read every item of each list (70-130 ms); numbers are kept
    in arrays (``array``) and the rest in numpy arrays of objects, which it does not look into."""

    kind: Sequence[str]
    parent: Sequence[int]
    row: Sequence[int]
    text: Sequence[str]
    fact: Sequence[dict | None]
    change: Sequence[str]
    entity: Sequence[str | None]
    started: Sequence[int]
    ended: Sequence[int]
    first: Sequence[int]
    count: Sequence[int]
    top: Sequence[int]  # the top level's node numbers
    facts: int  # fact rows
    # The ids of the facts that started, and of those that ended: sets, made with the tree
    # (the chart and the graph look ids up in them; a wide span has hundreds of thousands).
    started_ids: frozenset[str]
    ended_ids: frozenset[str]

    def node(self, number: int) -> Node:
        return Node(*(column[number] for column in self[:11]))


# Entities listed at first, and then each time the list is scrolled to its end: a view asks
# Python a few questions about every row it lays out (100,000 entities: ~1 s).
TOP_ROWS_AT_ONCE = 500
# Nodes of a tree replaced that are freed on a worker: the whole graph's changes over a long
# span at a million facts are hundreds of thousands of rows, each a node and a fact.
LET_GO_ELSEWHERE_FROM = 20_000


def build(changes: dict) -> Tree:
    """The tree of ``changes_between``'s answer (pure Python: the whole graph's is made on the
    worker that read it)."""
    # (fact, how it changed); a fact both started and ended once, by id. A fact without an id
    # (MemPalace's table can hold one) cannot be matched, so it is listed for each change.
    listed: list[tuple[dict, str]] = []
    where: dict[object, int] = {}
    for kind in ("started", "ended"):
        for fact in changes[kind]:
            tid = fact["id"]
            if tid is not None and tid in where:
                listed[where[tid]] = (fact, "both")
                continue
            if tid is not None:
                where[tid] = len(listed)
            listed.append((fact, kind))
    groups: dict[tuple, dict[str, list[tuple[dict, str]]]] = {}
    for fact, kind in listed:
        subject = fact["subject"]
        by_predicate = groups.setdefault(
            (style.order_key(fact["subject_name"]), style.order_key(subject), subject), {}
        )
        by_predicate.setdefault(fact["predicate"], []).append((fact, kind))
    columns: tuple[list, ...] = tuple([] for _ in Node._fields)
    kinds, started, ended, firsts, counts = (columns[i] for i in (0, 7, 8, 9, 10))
    top: list[int] = []

    def add(*values) -> int:
        for column, value in zip(columns, values):
            column.append(value)
        return len(kinds) - 1

    entities = list(groups.items())
    sort_in_turns(entities, key=lambda g: g[0][:2])  # on a worker: the UI thread takes turns
    for (_name, _key, subject), by_predicate in entities:
        predicates = sorted(by_predicate, key=style.order_key)
        first = next(iter(by_predicate.values()))[0][0]
        text = style.cell_text(first["subject_name"])
        # The entity, then its predicates in a run, then each one's facts in a run.
        entity = add("entity", -1, len(top), text, None, "", subject, 0, 0, 0, 0)
        firsts[entity], counts[entity] = entity + 1, len(predicates)
        top.append(entity)
        for under, predicate in enumerate(predicates):
            text = style.cell_text(predicate)
            add("predicate", entity, under, text, None, "", subject, 0, 0, 0, 0)
        for under, predicate in enumerate(predicates):
            number = entity + 1 + under
            facts = sorted(by_predicate[predicate], key=_when_key)
            firsts[number], counts[number] = len(kinds), len(facts)
            for row, (fact, kind) in enumerate(facts):
                name = f"→ {style.cell_text(fact['object_name'])}"
                add("fact", number, row, name, fact, kind, subject, 0, 0, 0, 0)
                for counted in (number, entity):
                    started[counted] += kind in ("started", "both")
                    ended[counted] += kind in ("ended", "both")
    ids = {kind: frozenset(f["id"] for f in changes[kind]) for kind in ("started", "ended")}
    held = [_held(name, column) for name, column in zip(Tree._fields, (*columns, top))]
    tree = Tree(*held, len(listed), ids["started"], ids["ended"])
    # The groupings let go of here, in turns: freed with the frame as it returns, a wide span
    # at a million facts held the interpreter's lock 180-250 ms in one call. (``groups`` only
    # drops references, ``entities`` holds the same; ``where``'s ints go at once, ~5 ms.)
    groups.clear()
    where.clear()
    for rows in (listed, entities, *columns, top):
        let_go(rows)
    return tree


OF_OBJECTS = ("kind", "text", "fact", "change", "entity")  # the columns not of numbers
# Items copied into a column at once: a column of 420,000 copied in one call held the
# interpreter's lock ~100 ms.
HELD_AT_ONCE = 20_000


def _held(name: str, column: list) -> Sequence:
    """A column as the tree holds it (see :class:`Tree`): numbers in an ``array``, anything
    else in a numpy array of objects; copied a slice at a time."""
    objects = name in OF_OBJECTS
    held = np.empty(len(column), dtype=object) if objects else array("q")
    for start in range(0, len(column), HELD_AT_ONCE):
        part = column[start : start + HELD_AT_ONCE]
        if objects:
            held[start : start + len(part)] = part
        else:
            held.fromlist(part)
    return held


def _when_key(listed: tuple[dict, str]) -> tuple:
    fact = listed[0]
    start = fact["start"] if fact["start"] is not None else float("-inf")
    return (start, style.order_key(fact["id"]))


class ChangesModel(QAbstractItemModel):
    """The tree; an index's internal id is its node number plus one (0: the root)."""

    COLUMNS = ("Entity / predicate / fact", "Change", "When")

    def __init__(self, parent=None):
        super().__init__(parent)
        self._tree = build({"started": [], "ended": []})
        self._listed = 0  # top-level rows listed so far (see TOP_ROWS_AT_ONCE)
        self._bold = QFont()
        self._bold.setBold(True)

    def set_changes(self, changes: dict | None, tree: Tree | None = None) -> None:
        """Show ``changes`` (``changes_between``'s answer): ``tree``, its :func:`build`, when
        made already (on a worker). A big tree replaced is freed on a worker, in turns."""
        tree = tree or build(changes or {"started": [], "ended": []})
        replaced = self._tree
        self.beginResetModel()
        self._tree = tree
        self._listed = min(len(tree.top), TOP_ROWS_AT_ONCE)
        self.endResetModel()
        if len(replaced.kind) >= LET_GO_ELSEWHERE_FROM:  # its numbers hold no object
            let_go_elsewhere([getattr(replaced, name) for name in OF_OBJECTS], self)

    @property
    def fact_count(self) -> int:
        """Fact rows."""
        return self._tree.facts

    @property
    def started(self) -> frozenset[str]:
        """The ids of the facts that started in the span."""
        return self._tree.started_ids

    @property
    def ended(self) -> frozenset[str]:
        """The ids of the facts that ended in the span."""
        return self._tree.ended_ids

    def node(self, index: Index) -> Node | None:
        if not index.isValid():
            return None
        number = index.internalId() - 1
        return self._tree.node(number) if 0 <= number < len(self._tree.kind) else None

    def fact_index(self, triple_id: str) -> QModelIndex:
        """The row of a fact (column 0), invalid when it is not in the tree; its entity's row
        is listed first if it was not yet."""
        tree = self._tree
        for number, fact in enumerate(tree.fact):
            if fact is not None and fact["id"] == triple_id:
                entity = tree.parent[tree.parent[number]]
                while tree.row[entity] >= self._listed:
                    self.fetchMore()
                return self.createIndex(tree.row[number], 0, number + 1)
        return QModelIndex()

    def canFetchMore(self, parent: Index = ROOT) -> bool:
        return not parent.isValid() and self._listed < len(self._tree.top)

    def fetchMore(self, parent: Index = ROOT) -> None:
        if not self.canFetchMore(parent):
            return
        more = min(TOP_ROWS_AT_ONCE, len(self._tree.top) - self._listed)
        self.beginInsertRows(ROOT, self._listed, self._listed + more - 1)
        self._listed += more
        self.endInsertRows()

    # Model
    def _number(self, index: Index) -> int:
        """The node number of ``index``, -1 for the root (or an index of no node)."""
        number = index.internalId() - 1 if index.isValid() else -1
        return number if number < len(self._tree.kind) else -1

    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        if column < 0 or column >= len(self.COLUMNS) or row < 0:
            return QModelIndex()
        tree = self._tree
        if not parent.isValid():
            if row >= self._listed:
                return QModelIndex()
            return self.createIndex(row, column, tree.top[row] + 1)
        number = self._number(parent)
        if number < 0 or parent.column() != 0 or row >= tree.count[number]:
            return QModelIndex()
        return self.createIndex(row, column, tree.first[number] + row + 1)

    def parent(self, index: Index = ROOT) -> QModelIndex:  # type: ignore[override]
        number = self._number(index)
        up = self._tree.parent[number] if number >= 0 else -1
        if up < 0:
            return QModelIndex()
        return self.createIndex(self._tree.row[up], 0, up + 1)

    def rowCount(self, parent: Index = ROOT) -> int:
        if not parent.isValid():
            return self._listed
        if parent.column() != 0:
            return 0
        number = self._number(parent)
        return self._tree.count[number] if number >= 0 else 0

    def columnCount(self, parent: Index = ROOT) -> int:
        return len(self.COLUMNS)

    def hasChildren(self, parent: Index = ROOT) -> bool:
        return self.rowCount(parent) > 0

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        return column_header(self.COLUMNS, section, orientation, role)

    def data(self, index: Index, role=Qt.ItemDataRole.DisplayRole):
        node = self.node(index)
        return None if node is None else self._value(node, index.column(), int(role))

    def multiData(self, index: Index, roles) -> None:
        node = self.node(index)
        if node is None:
            clear_span(roles)
            return
        fill_span(roles, self._value, node, index.column())

    def _value(self, node: Node, column: int, role: int):
        if role == DISPLAY:
            if column == 0:
                return node.text
            if node.kind != "fact":
                return change_words(node.started, node.ended) if column == 1 else ""
            fact = node.fact
            if column == 1:
                return {"started": "started", "ended": "ended", "both": "started and ended"}[
                    node.change
                ]
            start = style.show_time(fact["valid_from"], "…")
            end = style.show_time(fact["valid_to"], "")
            return {"started": start, "ended": end, "both": f"{start} → {end}"}[node.change]
        if role == FACT_ID_ROLE:
            return node.fact["id"] if node.fact is not None else None
        if role == ENTITY_ID_ROLE:
            return node.entity
        if role == CHANGE_ROLE:
            return node.change or None
        if role == TOOLTIP and node.fact is not None:
            return fact_in_words(node.fact)
        if role == FOREGROUND and node.kind == "fact" and column == 1:
            return ENDED_COLOR if node.change == "ended" else STARTED_COLOR
        if role == FONT and node.kind == "entity" and column == 0:
            return self._bold
        return None
