"""The review inbox: what the assistant (MemPalace, an adapter, a colleague) recorded since the
person last looked, newest first, grouped by entity; each row kept, ended, corrected or shown
on the chart, and everything marked reviewed at once.

The inbox is read off the UI thread (:mod:`.background`), again after every write. How far the
person reviewed is kept in the graph (``kg.mark_reviewed``): it travels with the file, and on
PostgreSQL each role has its own. The status bar says how many rows wait; opening a graph with
some says so once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from factlines.core import temporal
from factlines.core.errors import Refused, Unavailable
from factlines.core.store import describe
from factlines.ui.jobs.whole_graph import WholeGraphQuestion
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.menus.edits import FactActions
from factlines.ui.panels.conflicts import CountLabel
from factlines.ui.panels.duplicates import DuplicatesSection
from factlines.ui.panels.resolve_buttons import ResolveButton
from factlines.ui.session.state import AppState

# Rows in the tree (the newest): building a row costs ~0.13 ms on the UI thread, so 500 keep a
# refresh after a write under 100 ms; "mark all reviewed" still covers every one.
SHOWN_AT_MOST = 500
ITEM_ROLE = Qt.ItemDataRole.UserRole + 10
KIND_WORDS = {"added": "Added", "ended": "Ended"}


def read_inbox(kg, _progress) -> dict:
    """What waits for review; ``whole`` is the last second wholly past when it was read (what
    is recorded later in the same second may still come)."""
    now = datetime.strptime(temporal.now_instant(), "%Y-%m-%dT%H:%M:%SZ")
    whole = (now - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    since = kg.review_since()
    never = kg.reviewed_up_to() is None
    # Only what the panel shows crosses to the UI thread (a week of a busy graph is 90,000
    # rows, and even dropping those there took 175 ms); "mark all" needs only the later ones.
    inbox = {"since": since, "whole": whole, "never": never}
    inbox.update(kg.waiting_summary(SHOWN_AT_MOST, whole))
    return inbox


class ReviewInbox(WholeGraphQuestion):
    """``answered(inbox)`` with :func:`read_inbox`'s answer, read again after writes."""

    answered = Signal(object)
    failed = Signal(str)

    def __init__(self, state: AppState, panel: QWidget):
        # Asked again after writes only while the panel is in sight (a week can hold 90,000
        # rows); at every open all the same: the status bar says how many rows wait.
        super().__init__(state, panel, panel)
        self.reader.answered.connect(self.answered)
        self.reader.failed.connect(self.failed)

    def refresh_now(self) -> None:
        self.stale = False
        kg = self._state.kg
        if kg is None or kg.closed:
            self.answered.emit(None)
            return
        self.reader.start(str(kg.db_path), read_inbox)


class ReviewPanel(QWidget):
    """The inbox (the view is ``reviewPanel``), its row actions and "Mark all reviewed"."""

    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("reviewPanelBox")
        self._state = state
        self._actions = actions
        self._inbox: dict | None = None
        self._told_once = False
        self._tree_stale = False  # an answer came while the tree was out of sight
        self.inbox = ReviewInbox(state, self)

        self.summary = QLabel("Reading what was recorded…", self)
        self.summary.setObjectName("reviewSummary")
        self.summary.setWordWrap(True)
        self.count_label = CountLabel(self)
        self.count_label.setObjectName("reviewCountLabel")
        self.count_label.setToolTip("Recorded since you last reviewed: click to see them")
        self.view = QTreeWidget(self)
        self.view.setObjectName("reviewPanel")
        self.view.setColumnCount(4)
        self.view.setHeaderLabels(["Fact", "What", "Recorded", "By"])
        self.view.setAlternatingRowColors(True)
        self.view.setUniformRowHeights(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        header = self.view.header()
        for column, width in enumerate((330, 70, 170)):
            header.resizeSection(column, width)

        self.buttons = {
            "keep": QPushButton("Keep", self),
            "end": QPushButton("End…", self),
            "correct": QPushButton("Correct…", self),
            "show": QPushButton("Show on chart", self),
            "all": QPushButton("Mark all reviewed", self),
        }
        tips = {
            "keep": "The selected rows are right as recorded: they leave the inbox",
            "end": "End the selected fact (it stops being true at an instant you choose)",
            "correct": "Correct the selected fact's fields (one undoable edit)",
            "show": "Select the fact and its entity on the chart",
            "all": "Everything listed is reviewed: the inbox starts after it",
        }
        self._contradicted: tuple[str, str] | None = None
        self.resolve = ResolveButton(actions, lambda: self._contradicted, self)
        row = QHBoxLayout()
        for name, button in self.buttons.items():
            button.setObjectName(f"review_{name}")
            button.setToolTip(tips[name])
            if name == "all":
                row.addWidget(self.resolve)
                row.addStretch(1)
            row.addWidget(button)
        self.buttons["keep"].clicked.connect(self.keep_selected)
        self.buttons["end"].clicked.connect(lambda: self._on_fact(self._actions.end_fact_dialog))
        self.buttons["correct"].clicked.connect(
            lambda: self._on_fact(self._actions.edit_fact_dialog)
        )
        self.buttons["show"].clicked.connect(lambda: self._on_fact(self.show_fact))
        self.buttons["all"].clicked.connect(self.mark_all_reviewed)

        inbox = QWidget(self)
        inbox_layout = QVBoxLayout(inbox)
        inbox_layout.setContentsMargins(0, 0, 0, 0)
        inbox_layout.setSpacing(4)
        inbox_layout.addWidget(self.summary)
        inbox_layout.addWidget(self.view, 1)
        inbox_layout.addLayout(row)
        self.duplicates = DuplicatesSection(state, actions, self)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(inbox)
        split.addWidget(self.duplicates)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        # In a scroll area: the panel must not hold the docks (and the chart) to its full
        # height on a small screen.
        area = QScrollArea(self)
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setWidget(split)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(area)

        self.view.itemActivated.connect(lambda item, _column: self._activated(item))
        self.view.itemSelectionChanged.connect(self._update_buttons)
        self.inbox.answered.connect(self._show)
        self.inbox.failed.connect(lambda words: self.summary.setText(f"Not shown: {words}"))
        state.graphChanged.connect(self._graph_changed)
        self._update_buttons()
        self.inbox.refresh_now()

    # ── The answer ────────────────────────────────────────────────────────

    @property
    def items(self) -> list[dict]:
        """The rows waiting for review that the tree shows, newest first (the newest
        :data:`SHOWN_AT_MOST`)."""
        return self._inbox["items"] if self._inbox else []

    def _graph_changed(self) -> None:
        self._told_once = False

    def _show(self, inbox: dict | None) -> None:
        self._inbox = inbox
        if inbox is None:
            self.view.clear()
            self.summary.setText("No graph is open")
            self.count_label.setText("")
            self._update_buttons()
            return
        self.summary.setText(_summary(inbox))
        total = inbox["total"]
        self.count_label.setText(f"{total:,} to review" if total else "")
        self._update_buttons()
        # The tree is built when it is in sight: behind another tab, a write costs nothing here.
        self._tree_stale = True
        if not self.visibleRegion().isEmpty():
            self._fill_tree()
        if not self._told_once:
            self._told_once = True
            if total:
                self._state.message.emit(
                    f"{total:,} recorded since you last reviewed: see the Review panel"
                )

    def in_sight(self, shown: bool) -> None:
        """The panel's tab came to the front (``shown``) or went behind another."""
        self.duplicates.finder.in_sight(shown)
        if shown and self.inbox.stale:
            self.inbox.refresh_now()
        elif shown and self._tree_stale:
            self._fill_tree()

    def _fill_tree(self) -> None:
        self._tree_stale = False
        self.view.clear()
        items = self._inbox["items"] if self._inbox else []
        groups: dict[str, QTreeWidgetItem] = {}
        for item in items:
            fact = item["fact"]
            subject = style.cell_text(fact.get("subject_name") or fact["subject"])
            group = groups.get(fact["subject"])
            if group is None:  # the newest first, as the rows come
                group = groups[fact["subject"]] = QTreeWidgetItem(self.view, [subject])
                group.setData(0, ITEM_ROLE, None)
            child = QTreeWidgetItem(
                group,
                [
                    _words(fact),
                    KIND_WORDS[item["kind"]],
                    style.show_time(item["recorded_at"]),
                    item["by"] or "not known",
                ],
            )
            child.setData(0, ITEM_ROLE, item)
            child.setToolTip(0, _tip(item))
        for group in groups.values():
            group.setText(1, f"{group.childCount():,} new")
        if len(items) <= 300:
            self.view.expandAll()
        self._update_buttons()

    # ── The rows ──────────────────────────────────────────────────────────

    def selected_items(self) -> list[dict]:
        """The inbox rows selected (an entity's row stands for all of its rows)."""
        chosen, seen = [], set()
        for tree_item in self.view.selectedItems():
            rows = [tree_item] if tree_item.parent() is not None else _children(tree_item)
            for row in rows:
                item = row.data(0, ITEM_ROLE)
                if id(row) not in seen and item is not None:
                    seen.add(id(row))
                    chosen.append(item)
        return chosen

    def _current_fact(self) -> dict | None:
        tree_item = self.view.currentItem()
        item = tree_item.data(0, ITEM_ROLE) if tree_item is not None else None
        return item["fact"] if item is not None else None

    def _update_buttons(self) -> None:
        kg = self._state.kg
        writable = kg is not None and not kg.closed and not kg.read_only
        fact = self._current_fact()
        self.buttons["keep"].setEnabled(writable and bool(self.selected_items()))
        self.buttons["end"].setEnabled(writable and fact is not None and not fact["valid_to"])
        self.buttons["correct"].setEnabled(writable and fact is not None)
        self.buttons["show"].setEnabled(fact is not None)
        self._contradicted = self._contradiction(fact) if writable and fact is not None else None
        self.resolve.update_buttons()
        self.buttons["all"].setEnabled(writable and bool(self.items))
        if kg is not None and kg.read_only:
            self.buttons["all"].setToolTip(
                f"Not kept: {kg.read_only_reason} (the mark is kept in the graph)"
            )

    def _contradiction(self, fact: dict) -> tuple[str, str] | None:
        """The selected fact and the first fact it contradicts, if any."""
        try:
            rows = self._state.kg.conflicts_touching(fact["subject"])
        except (Refused, Unavailable):
            return None
        for row in rows:
            if row["kind"] in ("overlap", "handover") and fact["id"] in (row["a"], row["b"]):
                return row["a"], row["b"]
        return None

    def _activated(self, tree_item: QTreeWidgetItem) -> None:
        item = tree_item.data(0, ITEM_ROLE)
        if item is not None:
            self.show_fact(item["fact"]["id"])

    def _on_fact(self, action) -> None:
        fact = self._current_fact()
        if fact is not None:
            action(fact["id"])

    def show_fact(self, triple_id: str) -> None:
        """Select the fact (and its subject) on the chart."""
        item = next((i for i in self.items if i["fact"]["id"] == triple_id), None)
        if item is not None:
            self._state.select_entity(item["fact"]["subject"])
        self._state.select_fact(triple_id)

    # ── Reviewed ──────────────────────────────────────────────────────────

    def keep_selected(self) -> bool:
        """The selected rows are right as recorded: they leave the inbox (kept in the graph)."""
        chosen = self.selected_items()
        return bool(chosen) and self._write(
            lambda kg: kg.keep_reviewed(chosen), f"{len(chosen):,} kept as recorded"
        )

    def mark_all_reviewed(self) -> bool:
        """Everything listed is reviewed: the mark goes to the last second wholly past when it
        was read, and the rows of the second after it are kept one by one (more may come in
        that second)."""
        inbox = self._inbox
        if not inbox or not inbox["total"]:
            return False
        whole, later = inbox["whole"], inbox["later"]

        def mark(kg) -> None:
            with kg.transaction():
                kg.mark_reviewed(whole)
                if later:
                    kg.keep_reviewed(later)

        return self._write(mark, f"{inbox['total']:,} marked reviewed")

    def _write(self, write, done_words: str) -> bool:
        kg = self._state.kg
        if kg is None or kg.closed:
            return False
        try:
            write(kg)
        except (Refused, Unavailable) as exc:
            self._state.message.emit(f"Not marked reviewed: {in_words(exc)}")
            return False
        self._state.message.emit(done_words)
        self.inbox.refresh_now()
        return True

    @property
    def busy(self) -> bool:
        return self.inbox.busy or self.duplicates.finder.busy

    def stop(self) -> None:
        """Closing: the inbox's and the duplicates' reads stop, none waits."""
        self.inbox.stop()
        self.duplicates.stop()


def _children(group: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [group.child(i) for i in range(group.childCount())]


def _words(fact: dict) -> str:
    if "subject_name" in fact:
        words = describe(fact)
    else:  # deleted since: the edit log's image, by ids
        words = f"{fact['subject']} {fact['predicate']} {fact['object']}"
    span = ""
    if fact.get("valid_from") or fact.get("valid_to"):
        span = f"  ({style.show_time(fact.get('valid_from'), '…')} → "
        span += f"{style.show_time(fact.get('valid_to'), 'now')})"
    return words + span


def _tip(item: dict) -> str:
    fact = item["fact"]
    source = fact.get("source_file") or fact.get("source_closet")
    return "\n".join(
        part
        for part in (
            f"{KIND_WORDS[item['kind']]} {style.show_time(item['recorded_at'])}",
            f"by {item['by']}" if item["by"] else "by: not known",
            f"from {source}" if source else "",
            "Double-click: show it on the chart",
        )
        if part
    )


def _summary(inbox: dict) -> str:
    total = inbox["total"]
    since = style.show_time(inbox["since"])
    start = (
        f"in the last week (never reviewed; from {since})"
        if inbox["never"]
        else (f"since you last reviewed ({since})")
    )
    if not total:
        return f"Nothing recorded {start}"
    added = inbox["added"]
    more = f"; the newest {SHOWN_AT_MOST:,} shown" if total > SHOWN_AT_MOST else ""
    return f"{total:,} recorded {start}: {added:,} added, {total - added:,} ended{more}"
