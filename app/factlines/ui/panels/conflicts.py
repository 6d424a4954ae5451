"""The conflicts panel: every contradiction in the graph, a jump to each, and its fixes.

A click on a row selects the subject, puts as_of inside the overlap and selects the first
fact. The fixes are edits through the window's one edit path, each one undo step. Below the
list, the predicates that look single-valued, with the figures, each marked with one click
(undoable too). Until a person marks any, the overlaps of those predicates are listed as
likely (not counted as conflicts), so a new graph's real contradictions show at first open;
same-day handovers are listed only when asked.
"""

from __future__ import annotations

import contextlib
from collections import Counter

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from factlines.core.analysis import plural
from factlines.core.errors import Refused
from factlines.ui.menus.edits import FactActions
from factlines.ui.models.conflicts import (
    KIND_PLURALS,
    KIND_WORDS,
    ConflictsModel,
    Fix,
    end_first,
    inside,
    mark_predicate,
    start_second,
    swap_dates,
)
from factlines.ui.models.rows import rows_view
from factlines.ui.painting import lay_out_now
from factlines.ui.panels.conflict_finder import ConflictFinder
from factlines.ui.panels.resolve_buttons import ResolveButton
from factlines.ui.session.state import AppState


def count_words(rows: list[dict]) -> str:
    """``5 conflicts: 3 overlaps, 2 same-day handovers`` (or ``No conflicts``)."""
    if not rows:
        return "No conflicts"
    kinds = Counter(row["kind"] for row in rows)
    parts = [
        f"{n:,} {(KIND_WORDS[kind][0] if n == 1 else KIND_PLURALS[kind]).lower()}"
        for kind, n in kinds.most_common()
    ]
    total = len(rows)
    return f"{total:,} conflict{'' if total == 1 else 's'}: " + ", ".join(parts)


def likely_rows(suggestions: list[dict], marked: list[str]) -> list[dict]:
    """The overlaps and handovers of the suggested predicates not marked single-valued (rows
    that say why: ``likely``, the suggestion's figures, as the finder gives them)."""
    return [
        pair
        for suggestion in suggestions
        if not suggestion["marked"] and suggestion["predicate"] not in marked
        for pair in suggestion["pairs"]
    ]


class CountLabel(QLabel):
    """The status bar's count (``conflictCountLabel``); a click shows the panel."""

    clicked = Signal()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


class ConflictsPanel(QWidget):
    """The list (the view is ``conflictsPanel``), the fixes for its current row, and the
    suggested single-valued predicates."""

    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("conflictsPanelBox")
        self._state = state
        self._actions = actions
        self.model = ConflictsModel(state, self)
        self.finder = ConflictFinder(state, self)

        self.summary = QLabel(self)
        self.summary.setObjectName("conflictsSummary")
        self.summary.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("conflictsProgress")
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("conflictsCancel")
        self.cancel_button.setToolTip("Stop counting the conflicts")
        self.cancel_button.hide()
        self.recount_button = QPushButton("Count again", self)
        self.recount_button.setObjectName("conflictsRecount")
        self.recount_button.setToolTip("Find every conflict in the whole graph")
        self.recount_button.hide()
        self.count_label = CountLabel(self)
        self.count_label.setObjectName("conflictCountLabel")
        self.count_label.setToolTip("Conflicts in the whole graph: click to list them")

        self.show_handovers = QCheckBox("Show same-day handovers", self)
        self.show_handovers.setObjectName("conflictsShowHandovers")
        self.show_handovers.setToolTip(
            "A fact ended on a day and the next one started that day (how MemPalace writes a "
            "change): both hold all that day, but it is no mistake. Not counted as conflicts."
        )
        self._conflicts: list[dict] = []
        self._suggestions: list[dict] = []

        self.view = rows_view(self, "conflictsPanel", self.model, (110, 95, 80, 210, 210, 180))
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

        self.fix_buttons = {
            "end_first": QPushButton("End first where second starts", self),
            "start_second": QPushButton("Start second after first", self),
            "swap": QPushButton("Swap dates", self),
            "mark": QPushButton("Mark single-valued", self),
        }
        fixes = QHBoxLayout()
        fixes.addWidget(QLabel("Fix:", self))
        for name, button in self.fix_buttons.items():
            button.setObjectName(f"conflictFix_{name}")
            button.clicked.connect(lambda _checked=False, n=name: self.apply_fix(n))
            fixes.addWidget(button)
        self.resolve = ResolveButton(actions, self._resolvable, self)
        fixes.addWidget(self.resolve)
        fixes.addStretch(1)

        self.suggestions = QGroupBox("Single-valued predicates", self)
        self.suggestions.setObjectName("singleValuedSuggestions")
        self._suggestion_rows = QVBoxLayout(self.suggestions)
        self._suggestion_rows.setContentsMargins(6, 4, 6, 4)
        self._suggestion_rows.setSpacing(2)

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.show_handovers)
        top.addWidget(self.progress)
        top.addWidget(self.cancel_button)
        top.addWidget(self.recount_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.view, 3)
        layout.addLayout(fixes)
        # In a scroll area: the suggestions must not hold the docks (and the chart) to their
        # full height on a small screen; in a big panel they take their share of it, and
        # their lines wrap rather than scroll sideways (the Mark button stays in view).
        self.suggestions_area = QScrollArea(self)
        self.suggestions_area.setWidgetResizable(True)
        self.suggestions_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.suggestions_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.suggestions_area.setMinimumHeight(22)
        self.suggestions_area.setWidget(self.suggestions)
        layout.addWidget(self.suggestions_area, 2)

        self.view.activated.connect(self.jump)
        self.view.clicked.connect(self.jump)
        self.show_handovers.toggled.connect(lambda _on: self._show_rows())
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._update_fixes())
        self.model.modelReset.connect(lambda: lay_out_now(self.view))
        self.cancel_button.clicked.connect(self.cancel)
        self.recount_button.clicked.connect(self.finder.refresh_now)
        self.finder.running.connect(self._running)
        self.finder.progressed.connect(self._progressed)
        self.finder.suggested.connect(self._show_suggestions)
        self.finder.found.connect(self._found)
        self.finder.failed.connect(self._failed)
        state.dataChanged.connect(self._written)
        self.finder.refresh_now()

    # ── The answer ────────────────────────────────────────────────────────

    def _running(self, words: str) -> None:
        self.progress.setRange(0, 0)  # busy until the first step is told
        self.progress.show()
        self._show_buttons(running=True)
        self.summary.setText(words)
        self.count_label.setText("Counting conflicts…")

    def _progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def cancel(self) -> None:
        """Stop counting (the answer of a run going on is dropped)."""
        self.finder.cancel()
        self.cancel_button.setEnabled(False)
        self.summary.setText("Cancelling…")

    def _show_buttons(self, running: bool = False, stopped: bool = False) -> None:
        self.cancel_button.setEnabled(True)
        self.cancel_button.setVisible(running)
        self.recount_button.setVisible(stopped)

    def _found(self, conflicts: list, suggestions: list) -> None:
        self.progress.hide()
        self._show_buttons()
        self._conflicts = conflicts
        self._show_suggestions(suggestions)

    def _show_rows(self) -> None:
        """The conflicts, then the likely ones; handovers only when asked, never counted."""
        kg = self._state.kg
        marked = kg.single_valued_predicates() if kg is not None and not kg.closed else []
        likely = likely_rows(self._suggestions, marked)
        counted = [row for row in self._conflicts if row["kind"] != "handover"]
        handovers = len(self._conflicts) - len(counted)
        overlaps = [row for row in likely if row["kind"] != "handover"]
        handovers += len(likely) - len(overlaps)
        shown = self._conflicts + likely if self.show_handovers.isChecked() else counted + overlaps
        current = self.model.row_at(self.view.currentIndex().row())
        self.model.set_rows(shown)
        words = [count_words(counted) + ("" if counted else " in the whole graph")]
        if overlaps:
            names = sorted({row["predicate"] for row in overlaps})
            words.append(
                f"{plural(len(overlaps), 'likely overlap')} of {', '.join(names)} "
                "(not marked single-valued)"
            )
        if handovers:
            shown_or_not = "shown" if self.show_handovers.isChecked() else "not shown"
            words.append(f"{plural(handovers, 'same-day handover')} {shown_or_not}")
        self.summary.setText("; ".join(words))
        said = [plural(len(counted), "conflict")] if counted else []
        if overlaps:
            said.append(
                f"{len(overlaps):,} likely" if counted else plural(len(overlaps), "likely conflict")
            )
        self.count_label.setText("⚠ " + ", ".join(said) if said else "No conflicts")
        self.count_label.setStyleSheet("color: #c62828;" if said else "")
        if current is not None:
            self._reselect(current)
        self._update_fixes()

    def _failed(self, words: str) -> None:
        self.progress.hide()
        self._show_buttons(stopped=True)
        self.summary.setText(words)
        self.count_label.setText("Conflicts: not counted")
        self._state.message.emit(words)

    def _written(self, _touched) -> None:
        self.model.forget_facts()
        self._update_fixes()

    def _reselect(self, row: dict) -> None:
        """Keep the same conflict current after a refresh, when it is still there."""
        for number, other in enumerate(self.model.rows):
            if (other["kind"], other["a"], other["b"]) == (row["kind"], row["a"], row["b"]):
                self.view.selectionModel().setCurrentIndex(
                    self.model.index(number, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
                return

    @property
    def count(self) -> int:
        return len(self.model.rows)

    # ── Choosing a row ────────────────────────────────────────────────────

    def jump(self, index: QModelIndex) -> None:
        """Select the conflict's subject, put as_of inside its span, select its first fact."""
        row = self.model.row_at(index.row())
        if row is None:
            return
        state = self._state
        state.select_entity(row["subject"])
        at = inside(row)
        if at is not None:
            # A stored value the rules no longer take: as_of stays where it is.
            with contextlib.suppress(Refused):
                state.set_as_of(at)
        state.select_fact(row["a"])

    # ── Fixes ─────────────────────────────────────────────────────────────

    def _row_number(self, number: int | None) -> int:
        return self.view.currentIndex().row() if number is None else number

    def fixes(self, number: int | None = None) -> dict[str, Fix]:
        """The fixes of row ``number`` (default: the current row), by name."""
        row = self.model.row_at(self._row_number(number))
        if row is None:
            none = Fix("", "choose a conflict first")
            return {name: none for name in self.fix_buttons}
        a, b = self.model.fact(row["a"]), self.model.fact(row["b"])
        return {
            "end_first": end_first(row, a, b),
            "start_second": start_second(row, a, b),
            "swap": swap_dates(row, a),
            "mark": mark_predicate(row),
        }

    def _resolvable(self) -> tuple[str, str] | None:
        """The current row's two facts, when they contradict (overlap or a handover)."""
        row = self.model.row_at(self.view.currentIndex().row())
        if row is None or row["kind"] not in ("overlap", "handover"):
            return None
        return row["a"], row["b"]

    def _update_fixes(self) -> None:
        self.resolve.update_buttons()
        fixes = self.fixes()
        # A likely overlap is never inverted: one place in the row for either, so the panel
        # (and the window) is no wider for it.
        likely = fixes["mark"].reason is None
        self.fix_buttons["mark"].setVisible(likely)
        self.fix_buttons["swap"].setVisible(not likely)
        for name, fix in fixes.items():
            button = self.fix_buttons[name]
            button.setEnabled(fix.reason is None and self._actions.commands.blocked() is None)
            tip = fix.text if fix.reason is None else f"Cannot: {fix.reason}"
            button.setToolTip(tip)
            button.setStatusTip(tip)

    def apply_fix(self, name: str, number: int | None = None) -> bool:
        """Apply one fix as one undoable edit; False (and said why) when it cannot be."""
        fix = self.fixes(number)[name]
        blocked = self._actions.commands.blocked()
        if fix.reason is not None or blocked is not None:
            self._state.message.emit(f"Cannot fix: {fix.reason or blocked}")
            return False
        if name == "mark":
            return self.mark(self.model.row_at(self._row_number(number))["predicate"])
        if fix.changes is None:
            done = self._actions.end_fact(fix.triple_id, fix.ended)
        else:
            done = self._actions.update_fact(fix.triple_id, **fix.changes)
        if done:
            self._state.message.emit(f"Done: {fix.text} (Undo takes it back)")
        return done

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction("Show it", lambda: self.jump(index))
        menu.addSeparator()
        for name, fix in self.fixes(index.row()).items():
            if fix.text:
                action = menu.addAction(fix.text, lambda n=name: self.apply_fix(n, index.row()))
                action.setEnabled(fix.reason is None)
        menu.exec(self.view.viewport().mapToGlobal(pos))

    # ── Single-valued predicates ──────────────────────────────────────────

    def _show_suggestions(self, suggestions: list[dict]) -> None:
        self._suggestions = suggestions
        self._show_rows()
        rows = self._suggestion_rows
        while rows.count():
            item = rows.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # gone from sight now, deleted when the loop runs
                item.widget().deleteLater()
        kg = self._state.kg
        marked = kg.single_valued_predicates() if kg is not None and not kg.closed else []
        said = QLabel(
            "Marked single-valued: " + (", ".join(marked) if marked else "none yet"),
            self.suggestions,
        )
        said.setObjectName("singleValuedMarked")
        said.setWordWrap(True)
        rows.addWidget(said)
        for suggestion in suggestions:
            if suggestion["marked"]:
                continue
            line = QWidget(self.suggestions)
            box = QHBoxLayout(line)
            box.setContentsMargins(0, 0, 0, 0)
            text = QLabel(suggestion["text"], line)
            text.setWordWrap(True)
            text.setToolTip(
                f"{suggestion['predicate']}: {suggestion['subjects']:,} subjects have it, "
                f"{suggestion['changing']:,} changed object over time, "
                f"{suggestion['overlapping']:,} held two objects at once "
                f"({suggestion['overlaps']:,} overlaps, listed as likely above)"
            )
            button = QPushButton("Mark single-valued", line)
            button.setObjectName(f"markSingleValued_{suggestion['predicate']}")
            button.clicked.connect(lambda _checked=False, p=suggestion["predicate"]: self.mark(p))
            box.addWidget(text, 1)
            box.addWidget(button)
            rows.addWidget(line)

    def mark(self, predicate: str, single: bool = True) -> bool:
        """Mark (or unmark) a predicate single-valued: one undoable edit."""
        return self._actions.mark_single_valued(predicate, single)
