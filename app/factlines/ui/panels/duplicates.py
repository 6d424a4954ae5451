"""Likely duplicate entities, under the review inbox: each group with the reason in words,
"Merge into …" (one undo step, the merged names kept as aliases) and "Not the same"
(remembered in the graph). Found off the UI thread, with progress, again after every write."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from factlines.core.errors import Refused, Unavailable
from factlines.ui.jobs.whole_graph import WholeGraphQuestion
from factlines.ui.look.wording import in_words
from factlines.ui.menus.edits import FactActions
from factlines.ui.session.state import AppState

GROUP_ROLE = Qt.ItemDataRole.UserRole + 12
SURE = {"same name": "Surely", "first words": "Likely", "neighbours": "Perhaps"}


class DuplicateFinder(WholeGraphQuestion):
    """``found(groups)`` with ``kg.duplicate_entities()``'s answer, asked again after writes;
    ``progressed(done, total)`` as it goes."""

    found = Signal(object)
    progressed = Signal(int, int)
    failed = Signal(str)

    def __init__(self, state: AppState, panel: QWidget):
        # Asked only while the review panel is in sight (1.7-1.9 s of a worker at 300,000
        # facts, after every write): its list shows nowhere else.
        super().__init__(state, panel, panel, asked_at_open=False)
        self.reader.answered.connect(self.found)
        self.reader.progressed.connect(self.progressed)
        self.reader.failed.connect(self.failed)

    def refresh_now(self) -> None:
        self.stale = False
        kg = self._state.kg
        if kg is None or kg.closed:
            self.found.emit(None)
            return
        self.reader.start(
            str(kg.db_path), lambda graph, progress: graph.duplicate_entities(progress=progress)
        )


class DuplicatesSection(QWidget):
    """The list (``reviewDuplicates``), its progress, Merge into … and Not the same."""

    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self._actions = actions
        self.finder = DuplicateFinder(state, parent if parent is not None else self)
        self.summary = QLabel("Looking for likely duplicate entities…", self)
        self.summary.setObjectName("duplicatesSummary")
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.view = QTreeWidget(self)
        self.view.setObjectName("reviewDuplicates")
        self.view.setRootIsDecorated(False)
        self.view.setHeaderLabels(["How sure", "Entities", "Why"])
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        for column, width in enumerate((70, 260)):
            self.view.header().resizeSection(column, width)
        self.merge_button = QPushButton("Merge into …", self)
        self.merge_button.setObjectName("duplicatesMerge")
        self.merge_button.setToolTip(
            "Merge the others into the one you choose: one undo step; their names are kept "
            "as its aliases"
        )
        self.merge_menu = QMenu(self)
        self.merge_button.setMenu(self.merge_menu)
        self.not_same_button = QPushButton("Not the same", self)
        self.not_same_button.setObjectName("duplicatesNotSame")
        self.not_same_button.setToolTip("They are different: never suggest them again")
        self.not_same_button.clicked.connect(self.not_the_same)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.progress)
        buttons = QHBoxLayout()
        buttons.addWidget(self.merge_button)
        buttons.addWidget(self.not_same_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        self.view.itemSelectionChanged.connect(self._update)
        self.finder.found.connect(self._show)
        self.finder.progressed.connect(self._progressed)
        self.finder.failed.connect(lambda words: self.summary.setText(f"Not shown: {words}"))
        self._groups: list[dict] = []
        self._update()
        self.finder.refresh_in_sight()

    @property
    def groups(self) -> list[dict]:
        return self._groups

    def _progressed(self, done: int, total: int) -> None:
        self.progress.show()
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _show(self, groups: list | None) -> None:
        self.progress.hide()
        self._groups = groups or []
        self.view.clear()
        for group in self._groups:
            item = QTreeWidgetItem(
                self.view, [SURE[group["rule"]], ", ".join(group["names"]), group["reason"]]
            )
            item.setToolTip(2, group["reason"])
            item.setData(0, GROUP_ROLE, group)
        total = len(self._groups)
        self.summary.setText(
            f"{total:,} group{'' if total == 1 else 's'} of likely duplicate entities"
            if total
            else "No likely duplicate entities"
        )
        self._update()

    def selected(self) -> dict | None:
        item = self.view.currentItem()
        return item.data(0, GROUP_ROLE) if item is not None else None

    def select(self, index: int) -> None:
        self.view.setCurrentItem(self.view.topLevelItem(index))

    def _update(self) -> None:
        kg = self._state.kg
        writable = kg is not None and not kg.closed and not kg.read_only
        group = self.selected()
        self.merge_menu.clear()
        if group is not None:
            for eid, name in zip(group["ids"], group["names"]):
                action = self.merge_menu.addAction(f"Merge into “{name}”")
                action.triggered.connect(lambda _checked=False, e=eid: self.merge_into(e))
        self.merge_button.setEnabled(writable and group is not None)
        self.not_same_button.setEnabled(writable and group is not None)

    def merge_into(self, into) -> bool:
        """Merge the selected group's others into ``into``: one undo step."""
        group = self.selected()
        if group is None or into not in group["ids"]:
            return False
        names = dict(zip(group["ids"], group["names"]))
        others = [eid for eid in group["ids"] if eid != into]
        words = f"Merge {', '.join(names[e] for e in others)} into {names[into]}"
        return self._actions.merge_duplicates(into, others, words)

    def not_the_same(self) -> bool:
        """The selected group is not one entity: never suggested again."""
        group, kg = self.selected(), self._state.kg
        if group is None or kg is None:
            return False
        try:
            kg.mark_not_duplicates(group["ids"])
        except (Refused, Unavailable) as exc:
            self._state.message.emit(f"Not kept: {in_words(exc)}")
            return False
        self._state.message.emit(f"{', '.join(group['names'])}: not the same, kept")
        self.finder.refresh_now()
        return True

    def stop(self) -> None:
        self.finder.stop()
