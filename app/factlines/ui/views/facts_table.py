"""The facts table: the selected entity's facts in both directions, editable in place (not on
a read-only graph: then a cell says why when pointed at), and beside them the History of the
selected fact (who wrote it, who ended it, why). Where the editor is too narrow for both, the
fact comes first: the History folds away (its story stays in a row's tooltip) until the
History button brings it back."""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QSignalBlocker,
    QSize,
    Qt,
)
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QSplitter,
    QStyledItemDelegate,
    QTableView,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from factlines.ui.look import style
from factlines.ui.menus.edits import FactActions
from factlines.ui.models import cell_edits
from factlines.ui.models.fact_models import (
    COLUMN,
    FACT_COLUMNS,
    FACT_ID_ROLE,
    OTHER_ID_ROLE,
    FactFilterProxy,
    FactModel,
)
from factlines.ui.painting import lay_out_now
from factlines.ui.session.state import AppState
from factlines.ui.views.fact_history import FactHistory
from factlines.ui.views.memory_filter import MemoryFilter

COLUMN_WIDTHS = {  # at most, for the fact's own columns (see FactColumns)
    "direction": 40,
    "predicate": 120,
    "other_name": 150,
    "valid_from": 150,
    "valid_to": 150,
    "confidence": 48,
    "source_closet": 120,
    "source_file": 190,
    "source_drawer_id": 90,
    "adapter_name": 90,
    "extracted_at": 160,
}


CELL_PADDING = 8  # each side of a cell's text
ROWS_ALWAYS_SHOWN = 5  # the facts table's least height, in rows

EDIT_TRIGGERS = (
    QAbstractItemView.EditTrigger.DoubleClicked
    | QAbstractItemView.EditTrigger.EditKeyPressed
    | QAbstractItemView.EditTrigger.AnyKeyPressed
)


class ValidatingDelegate(QStyledItemDelegate):
    """Checks a typed value as it is typed: the cell turns red and says why it would be refused.
    While ``read_only()`` gives a reason, an editable cell's tooltip says why it cannot be
    edited."""

    def __init__(self, model: FactModel, proxy: FactFilterProxy, read_only, parent=None):
        super().__init__(parent)
        self._model = model
        self._proxy = proxy
        self._read_only = read_only

    def helpEvent(self, event, view, option, index) -> bool:
        reason = self._read_only() if event.type() == QEvent.Type.ToolTip else None
        if reason is None or not index.isValid() or not FACT_COLUMNS[index.column()][2]:
            return super().helpEvent(event, view, option, index)
        shown = index.data(Qt.ItemDataRole.ToolTipRole) or index.data()
        said = f"Cannot edit here: {reason}"
        QToolTip.showText(event.globalPos(), f"{shown}\n\n{said}" if shown else said, view)
        return True

    def createEditor(self, parent, option, index):
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            source = self._proxy.mapToSource(index)
            fact = self._model.fact_at(source.row())
            key = FACT_COLUMNS[source.column()][0]
            editor.textEdited.connect(lambda text: self._check(editor, fact, key, text))
        return editor

    def _check(self, editor: QLineEdit, fact: dict, key: str, text: str) -> None:
        reason = cell_edits.why_not(fact, key, text.strip()) if fact else None
        if reason:
            colours = style.theme()
            editor.setStyleSheet(
                f"background: {colours.conflict_background.name()}; "
                f"color: {colours.conflict.name()};"
            )
            editor.setToolTip(reason)
        else:
            editor.setStyleSheet("")
            editor.setToolTip("")


class FactColumns(QObject):
    """The facts table's column widths: the fact itself (direction to confidence) fits the view,
    its names elided before a date is cut off; the provenance beyond it scrolls into view. Once
    the person resizes a column, the widths are theirs."""

    # As wide as their widest usual text, so that selecting another entity changes no width
    # (and the table paints once); wider where the rows shown need it (an instant).
    FITTED: ClassVar[dict[str, str]] = {
        "direction": "⚠ →",
        "valid_from": "0000-00-00",
        "valid_to": "0000-00-00",
        "confidence": "0.00",
    }
    NAMES = (("predicate", 0.42), ("other_name", 0.58))  # share the rest, elided
    NAME_MIN = 64

    def __init__(self, view: QTableView):
        super().__init__(view)
        self._view = view
        self.sized_by_hand = False
        header = view.horizontalHeader()
        for key, width in COLUMN_WIDTHS.items():
            header.resizeSection(COLUMN[key], width)
        # A column's size hint reads the rows in view only, not 1,000 of a hub's 2,000 facts
        # (Qt's default, a third of the time it takes to select a hub).
        header.setResizeContentsPrecision(0)
        header.sectionResized.connect(self._resized)
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.fit()
        return False

    def _resized(self, *_args) -> None:
        self.sized_by_hand = True  # (the fitting's own resizes are not signalled)

    def fit(self) -> None:
        """Fit the fact's columns to the view's width (the rows shown decide the dates')."""
        # Out of sight (another tab in front) Qt's size hints read every row: fit when shown.
        if self.sized_by_hand or not self._view.isVisible():
            return
        view, header = self._view, self._view.horizontalHeader()
        metrics = view.fontMetrics()
        widths = {
            key: min(
                COLUMN_WIDTHS[key],
                max(
                    header.sectionSizeHint(COLUMN[key]),
                    metrics.horizontalAdvance(sample) + 2 * CELL_PADDING,
                    view.sizeHintForColumn(COLUMN[key]),
                ),
            )
            for key, sample in self.FITTED.items()
        }
        room = view.viewport().width() - sum(widths.values())
        for key, share in self.NAMES:
            widths[key] = max(self.NAME_MIN, min(COLUMN_WIDTHS[key], int(room * share)))
        if all(header.sectionSize(COLUMN[key]) == width for key, width in widths.items()):
            return
        # Quietly, then one update: told column by column, the view repaints the resized
        # columns on a timer of its own, after the paint of the new rows (twice per selection).
        with QSignalBlocker(header):
            for key, width in widths.items():
                header.resizeSection(COLUMN[key], width)
        view.updateGeometries()
        view.viewport().update()


class FactsTable(QWidget):
    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("factsTable")
        self._state = state
        self._actions = actions
        self._entity: dict | None = None
        self.model = FactModel(state, actions.update_fact, self)
        self.proxy = FactFilterProxy(self)  # dynamic: re-tests only the rows a step flips
        self.proxy.setSourceModel(self.model)
        self._restyling = False

        self.title = QLabel(self)
        self.title.setObjectName("tripleTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        # The title may be long (name, counts, conflicts): never let it widen the dock.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setMinimumWidth(120)
        self.show_history = QToolButton(self)
        self.show_history.setObjectName("showHistoryButton")
        self.show_history.setText("History")
        self.show_history.setCheckable(True)
        self.show_history.setToolTip("Show or hide the History of the selected fact beside it")
        self.show_history.clicked.connect(self._choose_history)
        self._history_chosen = False  # until the person clicks, the width decides
        self.hide_invalid = QCheckBox("Hide facts not valid at as_of", self)
        self.hide_invalid.setObjectName("hideInvalidFacts")
        self.hide_invalid.toggled.connect(self._set_hide_invalid)

        # The shared actions (their rules, words and reasons), as buttons.
        commands = actions.commands
        self.buttons: dict[str, QToolButton] = {}
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addStretch(1)
        for key, action in (
            ("add", commands.add),
            ("edit", commands.edit),
            ("end", commands.end),
            ("replace", commands.replace),
            ("delete", commands.delete),
        ):
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setObjectName(f"{key}FactButton")
            bar.addWidget(button)
            self.buttons[key] = button

        self.view = QTableView(self)
        self.view.setObjectName("tripleTable")
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(
            ValidatingDelegate(self.model, self.proxy, actions.commands.read_only_reason, self.view)
        )
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(EDIT_TRIGGERS)
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().setSortIndicator(
            COLUMN["predicate"], Qt.SortOrder.AscendingOrder
        )
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.view.setWordWrap(False)
        self._keep_rows_in_view(ROWS_ALWAYS_SHOWN)
        self.view.setMouseTracking(True)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.columns = FactColumns(self.view)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.clicked.connect(self._clicked)
        self.view.doubleClicked.connect(self._double_clicked)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        heading = QHBoxLayout()
        heading.setContentsMargins(0, 0, 0, 0)
        # The filter beside the title, not beside the buttons: the editor stays narrow enough
        # for a 1024 px screen and one row shorter.
        heading.addWidget(self.title, 1)
        heading.addWidget(self.hide_invalid)
        heading.addWidget(self.show_history)
        layout.addLayout(heading)
        layout.addLayout(bar)
        self.memory_filter = MemoryFilter(self.view, self.model, self)
        layout.addWidget(self.memory_filter.bar)
        self.history = FactHistory(state, self)
        self.history.onlyMemory.connect(self.memory_filter.set)
        self.history.setMinimumWidth(180)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("factsSplitter")
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(self.history)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([700, 300])  # in proportion, whatever the width
        layout.addWidget(self.splitter, 1)

        self.model.refused.connect(self._show_refusal)
        state.graphChanged.connect(self.follow_write_access)
        state.entityChanged.connect(lambda _e: self.memory_filter.clear())
        state.entityChanged.connect(lambda _e: state.reload_view(self, self.reload))
        state.factsChanged.connect(self._facts_changed)
        state.asOfChanged.connect(self._as_of_changed)
        state.factChanged.connect(self._show_fact)
        self.follow_write_access()
        self.reload()

    def sizeHint(self) -> QSize:
        return QSize(900, 340)

    def _keep_rows_in_view(self, rows: int) -> None:
        """The table never shrinks below ``rows`` rows (a dock dragged or a layout kept from a
        bigger screen gives way to it, not the facts)."""
        view = self.view
        scroll = view.horizontalScrollBar().sizeHint().height()
        header = view.horizontalHeader().sizeHint().height()
        frame = 2 * view.frameWidth()
        view.setMinimumHeight(
            header + rows * view.verticalHeader().defaultSectionSize() + scroll + frame
        )

    # The History beside the table: folded away where the fact would not fit beside it
    HISTORY_FROM_WIDTH = 660

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._history_chosen:
            self._set_history_shown(self.width() >= self.HISTORY_FROM_WIDTH)

    def _choose_history(self, shown: bool) -> None:
        self._history_chosen = True
        self._set_history_shown(shown)

    def _set_history_shown(self, shown: bool) -> None:
        self.show_history.setChecked(shown)
        self.history.setVisible(shown)

    # Loading and restyling
    def reload(self) -> None:
        self._entity = self._state.entity_record()
        self.model.reload()  # a reset: the proxy filters the new rows afresh
        lay_out_now(self.view)
        self.columns.fit()
        self._show_fact(self._state.fact)
        self._update_title()

    def _facts_changed(self, patch) -> None:
        """A write touched some of the entity's facts: patch those rows, not the whole table.

        The selected fact stays selected, even when the write hides its row: Qt would move
        the current row to a neighbour, and the next edit would be that fact's."""
        if self._state.waiting(self):
            return
        if patch.reloaded:
            self._state.reload_view(self, self.reload)
            return
        selected = self._state.fact
        shown = self._shown(selected)
        self._restyling = True
        try:
            self.model.apply_patch(patch)
        finally:
            self._restyling = False
        lay_out_now(self.view)
        self._show_fact(selected)
        self._update_title()
        if shown and selected in patch.changed and not self._shown(selected):
            self._say_hidden(selected)

    def _shown(self, triple_id: str | None) -> bool:
        row = self.model.row_of(triple_id)
        return row >= 0 and self.proxy.mapFromSource(self.model.index(row, 0)).isValid()

    def _say_hidden(self, triple_id: str) -> None:
        fact = self.model.fact_at(self.model.row_of(triple_id))
        self._state.message.emit(
            f"{fact['predicate']} {fact['other_name']} is still selected but hidden: it is not "
            f"valid at as_of {self._state.as_of} (View → Hide facts not valid at as_of shows it)"
        )

    def _as_of_changed(self, _value) -> None:
        if self._state.waiting(self):  # the rows are still another entity's
            return
        # Only the rows whose validity flipped are repainted, or (hiding) removed / inserted.
        hiding = self.proxy.hide_invalid
        current = self.view.currentIndex().data(FACT_ID_ROLE) if hiding else None
        self._restyling = True
        try:
            flipped = self.model.restyle()
        finally:
            self._restyling = False
        if flipped and hiding:
            self._no_current_row_if_hidden(current)
            lay_out_now(self.view)  # rows came and went: one paint, not two
        self._update_title()

    def _no_current_row_if_hidden(self, before: str | None) -> None:
        """Removing the current row moves Qt's current index to a neighbour: show no current
        row instead, as a full refilter would (the fact stays selected in the state)."""
        current = self.view.currentIndex()
        if current.isValid() and current.data(FACT_ID_ROLE) != before:
            selection = self.view.selectionModel()
            selection.blockSignals(True)
            selection.clearSelection()
            selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.NoUpdate)
            selection.blockSignals(False)

    def _set_hide_invalid(self, hide: bool) -> None:
        self.proxy.set_hide_invalid(hide)
        self._show_fact(self._state.fact)
        self._update_title()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self._update_title()  # its rich text names colours

    def _update_title(self) -> None:
        entity = self._entity
        if entity is None:
            self.title.setText("<i>Select an entity to see its facts</i>")
            return
        facts = self.model.facts
        valid = self.model.valid_count
        conflicts = self.model.conflict_count
        subtle = style.theme().subtle_text.name()
        # Rich text: the stored name and type escaped (a name may hold "<b>"), and elided.
        name, kind = (
            html.escape(style.elide(entity["name"])),
            html.escape(style.elide(entity["type"])),
        )
        parts = [f"<b>{name}</b> <span style='color:{subtle}'>({kind})</span>"]
        if self._state.as_of is None:
            parts.append(f"{len(facts)} facts")
        else:
            parts.append(f"{valid} of {len(facts)} facts valid at {self._state.as_of}")
        if conflicts:
            parts.append(
                f"<span style='color:{style.theme().conflict.name()}'>⚠ {conflicts} "
                f"conflict{'s' if conflicts != 1 else ''}</span>"
            )
        self.title.setText(" · ".join(parts))

    # Selection
    def selected_fact(self) -> dict | None:
        row = self.model.row_of(self._state.fact)
        return self.model.fact_at(row) if row >= 0 else None

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        # A step that hides the selected row moves Qt's current index: not a user's choice.
        if current.isValid() and not self._restyling:
            self._state.select_fact(current.data(FACT_ID_ROLE))

    def _show_fact(self, triple_id) -> None:
        row = self.model.row_of(triple_id)
        selection = self.view.selectionModel()
        proxy_index = self.proxy.mapFromSource(self.model.index(row, 0)) if row >= 0 else None
        selection.blockSignals(True)
        if proxy_index is None or not proxy_index.isValid():
            selection.clearSelection()
            selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.NoUpdate)
        else:
            selection.setCurrentIndex(
                proxy_index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.view.scrollTo(proxy_index)
        selection.blockSignals(False)
        self.view.viewport().update()

    def _clicked(self, index: QModelIndex) -> None:
        if index.column() == COLUMN["other_name"]:
            other = index.data(OTHER_ID_ROLE)
            if other:
                self._state.select_entity(other)

    def _double_clicked(self, index: QModelIndex) -> None:
        if not FACT_COLUMNS[index.column()][2] and index.column() != COLUMN["other_name"]:
            self._actions.edit_fact_dialog(index.data(FACT_ID_ROLE))
        elif FACT_COLUMNS[index.column()][2]:
            self._actions.may_write("edit in place")  # says why not, on a read-only graph

    # Edits
    def follow_write_access(self) -> None:
        """Cells are edited in place only while the graph may be written."""
        writable = self._actions.commands.read_only_reason() is None
        self.view.setEditTriggers(
            EDIT_TRIGGERS if writable else QAbstractItemView.EditTrigger.NoEditTriggers
        )

    def _show_refusal(self, reason: str) -> None:
        index = self.view.currentIndex()
        rect = self.view.visualRect(index) if index.isValid() else self.view.rect()
        QToolTip.showText(self.view.viewport().mapToGlobal(rect.bottomLeft()), reason, self.view)

    def add_fact(self) -> None:
        self._actions.add_fact_dialog()

    def _context_menu(self, pos) -> None:
        menu = self.context_menu(pos)
        if menu is not None:
            menu.exec(self.view.viewport().mapToGlobal(pos))

    def context_menu(self, pos) -> QMenu | None:
        """The menu at ``pos`` (viewport coordinates): on a row, its fact is selected and the
        shared fact actions are offered for it; elsewhere, adding a fact."""
        commands = self._actions.commands
        index = self.view.indexAt(pos)
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        if not index.isValid():
            menu.addAction(commands.add)
            return menu
        triple_id = index.data(FACT_ID_ROLE)
        self._state.select_fact(triple_id)
        fact = self.selected_fact()
        if fact is None:
            return None
        menu.addActions(commands.fact_actions())
        menu.addSeparator()
        menu.addAction(
            f"Select {fact['other_name']}", lambda: self._state.select_entity(fact["other"])
        )
        copy = QAction("Copy id", menu)
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(triple_id))
        menu.addAction(copy)
        return menu
