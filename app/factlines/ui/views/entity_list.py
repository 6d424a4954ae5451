"""The entity browser: search-as-you-type over the store's entity listing, read a page at a
time."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSignalBlocker, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QFocusEvent, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from factlines.ui.jobs.search_index import SearchIndexBuilder
from factlines.ui.look import style
from factlines.ui.menus.edits import FactActions
from factlines.ui.models.entity_cells import NO_ID
from factlines.ui.models.entity_listing import EntityModel
from factlines.ui.painting import lay_out_now
from factlines.ui.session.state import AppState
from factlines.ui.turns import Turns

SEARCH_DEBOUNCE_MS = 150
ALL_TYPES = "All types"


class EntityTable(QTableView):
    """The list itself: printable keys go to the search field, Enter selects."""

    def __init__(self, browser: EntityBrowser):
        super().__init__(browser)
        self._browser = browser

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._browser.select_current()
            return
        text = event.text()
        if (
            text
            and text.isprintable()
            and not event.modifiers()
            & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
        ):
            self._browser.search_field.setFocus()
            self._browser.search_field.insert(text)
            return
        super().keyPressEvent(event)


class SearchField(QLineEdit):
    """The search box: typing filters, and the arrow and page keys move in the list below."""

    NAVIGATION = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)

    def __init__(self, browser: EntityBrowser):
        super().__init__(browser)
        self._browser = browser

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._browser.prepare_search()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in self.NAVIGATION:
            self._browser.view.setFocus()
            self._browser.view.keyPressEvent(event)
            return
        super().keyPressEvent(event)


class EntityBrowser(QWidget):
    def __init__(self, state: AppState, actions: FactActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("entityBrowserPanel")
        self._state = state
        self._actions = actions
        self.model = EntityModel(state, self)
        self.index_builder = SearchIndexBuilder(self)

        self.search_field = SearchField(self)
        self.search_field.setObjectName("entitySearch")
        self.search_field.setPlaceholderText("Search entities (name or id)…")
        self.search_field.setClearButtonEnabled(True)
        self.type_filter = QComboBox(self)
        self.type_filter.setObjectName("entityTypeFilter")
        self.type_filter.setToolTip("Only entities of this type")
        self.valid_only = QCheckBox("Only with facts valid at as_of", self)
        self.valid_only.setObjectName("entityValidOnly")
        self.valid_only.setToolTip(
            "Keep entities that have at least one fact valid at the time control's instant"
        )
        self.count_label = QLabel(self)
        self.count_label.setObjectName("entityCount")

        self.view = EntityTable(self)
        self.view.setObjectName("entityBrowser")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.view.setWordWrap(False)
        # A scroll bar that came and went with the number of matches would resize the stretched
        # name column while typing, and the list would paint twice per keystroke.
        self.view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 84)
        header.resizeSection(2, 58)
        header.resizeSection(3, 52)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

        filters = QHBoxLayout()
        filters.addWidget(self.type_filter, 1)
        filters.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.search_field)
        layout.addLayout(filters)
        layout.addWidget(self.valid_only)
        layout.addWidget(self.view, 1)

        self._types_asked = 0  # the type lists asked for: only the newest is shown
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply_filter)
        self.search_field.textChanged.connect(lambda _text: self._search_timer.start())
        self.search_field.returnPressed.connect(self._search_entered)
        self.type_filter.currentIndexChanged.connect(lambda _i: self.apply_filter())
        self.valid_only.toggled.connect(lambda _on: self.apply_filter())
        self.view.clicked.connect(self._clicked)
        self.view.activated.connect(self._clicked)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.model.modelReset.connect(lambda: lay_out_now(self.view))
        self.model.modelReset.connect(self._show_selection)
        self.model.modelReset.connect(self._update_count)
        # Finding the row of an entity chosen elsewhere; the person's own filtering stops it
        # (it would otherwise clear what they type).
        self.finding = Turns(self)
        state.reloads.done.connect(self.finding.go_on)
        self.model.listingRead.connect(self.finding.go_on)  # held while the listing was read
        self.search_field.textChanged.connect(self.finding.stop)
        self.type_filter.currentIndexChanged.connect(self.finding.stop)
        self.valid_only.toggled.connect(self.finding.stop)

        state.graphChanged.connect(self._graph_changed)
        state.dataChanged.connect(self._data_changed)
        state.entityChanged.connect(self._entity_changed)
        state.asOfChanged.connect(self._as_of_changed)
        self._graph_changed()
        self._data_changed(None)

    # Below this width the Type column gives way, so that names stay readable (the type is in
    # the type filter above and in the name's tooltip).
    NARROW = 330

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.view.horizontalHeader().setSectionHidden(1, self.width() < self.NARROW)

    def sizeHint(self) -> QSize:
        return QSize(340, 600)

    # Filtering
    def apply_filter(self, then: Callable[[], None] | None = None) -> None:
        """Re-query with the current search text, type and as_of toggle (debounced typing);
        ``then()`` once the list shows it (a slow listing is read off the UI thread)."""
        self._search_timer.stop()
        kg = self._state.kg
        if kg is None or kg.closed:  # a debounced search can fire as the window closes
            return
        entity_type = self.type_filter.currentData()
        valid_at = self._state.as_of if self.valid_only.isChecked() else None
        self.model.set_filter(self.search_field.text().strip(), entity_type, valid_at, then)

    def set_search(self, text: str) -> None:
        """Type ``text`` into the search field and apply it now (for scripts and tests)."""
        self.search_field.setText(text)
        self.apply_filter()

    def _search_entered(self) -> None:
        self.apply_filter(then=self._select_first)

    def _select_first(self) -> None:
        if self.model.rowCount() > 0:
            self.view.setFocus()
            self.view.setCurrentIndex(self.model.index(0, 0))
            self.select_current()

    def _as_of_changed(self, _value) -> None:
        if self.valid_only.isChecked():
            self._search_timer.start()

    def prepare_search(self) -> None:
        """Have the store's search index ready before the first keystroke needs it: built
        off the UI thread."""
        self.index_builder.build(self._state.kg)

    def _graph_changed(self) -> None:
        """Another file: start from a clean filter (the data signal that follows re-queries).

        The search index of the new file is built once the window is idle.
        """
        QTimer.singleShot(0, self.prepare_search)
        self.search_field.blockSignals(True)
        self.search_field.clear()
        self.search_field.blockSignals(False)
        self.type_filter.blockSignals(True)
        self.type_filter.clear()
        self.type_filter.addItem(ALL_TYPES, None)
        self.type_filter.blockSignals(False)

    def _data_changed(self, touched) -> None:
        """Rows were written: the listing follows, in a turn of its own when the state says so
        (a write waiting meanwhile for the same turn may have changed anything)."""
        if self._state.waiting(self):
            touched = None
        self._state.reload_view(self, lambda: self._follow_write(touched))

    def _follow_write(self, touched) -> None:
        """Refresh the type list if entities changed, then the listing (only the rows that
        changed, when the same entities are still listed)."""
        if touched is not None and not (touched.everything or touched.entities):
            self.model.update_rows(touched)
            return
        # Every entity's type is read (~100 ms at 100,000 entities): off the UI thread.
        self._types_asked += 1
        asked = self._types_asked

        def show(types: list) -> None:
            if asked == self._types_asked:  # no newer list asked for since
                self._show_types(types)

        self._state.read_soon(lambda kg: kg.entity_types(), show)
        self._read_again_in_place()

    def _read_again_in_place(self) -> None:
        """The list read again after a write that may have changed anything (another
        program's), kept where the person had it: the pages read, the row at the top of the
        view, the selection (found again where the write moved it)."""
        if self._search_timer.isActive():  # a search typed meanwhile reads from the top
            return
        top_row = self.view.indexAt(self.view.viewport().rect().topLeft()).row()
        top = self.model.id_at(top_row)
        selected = self._state.entity
        shown = selected is not None and self.model.row_of(selected) >= 0
        finding = self.finding.running

        def read() -> None:  # (a slow listing: once read elsewhere)
            if finding:  # a selection was being looked for: in the listing as it is now
                self.finding.run(self._find(selected))
            elif shown and self.model.row_of(selected) < 0:  # moved off the pages read
                self.finding.run(self._back_to(selected, top, top_row))
            else:
                self._scroll_to_top_row(top, top_row)

        self.model.refresh(then=read)

    def _back_to(self, entity_id: str, top: str | None, top_row: int) -> Iterator[None]:
        yield from self._locate(entity_id)
        self._show_selection()
        self._scroll_to_top_row(top, top_row)

    def _scroll_to_top_row(self, entity_id: str | None, row: int) -> None:
        """The row of ``entity_id`` at the top of the view, where it still is among the rows
        read; else the row ``row`` (the same place in the list)."""
        found = self.model.row_of(entity_id)
        row = found if found >= 0 else row
        if row >= 0:
            self.view.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtTop)

    def _show_types(self, types: list) -> None:
        """Offer ``types`` in the type filter; the listing follows when the chosen type is
        not among them any more."""
        current = self.type_filter.currentData()
        # Text types only: a BLOB a raw edit left is shown in the list, not offered here.
        types = [t for t in types if isinstance(t, str)]
        if types == [self.type_filter.itemData(i) for i in range(1, self.type_filter.count())]:
            return
        self.type_filter.blockSignals(True)
        self.type_filter.clear()
        self.type_filter.addItem(ALL_TYPES, None)
        for entity_type in types:
            self.type_filter.addItem(style.elide(entity_type, 60), entity_type)
        self.type_filter.setCurrentIndex(max(0, self.type_filter.findData(current)))
        self.type_filter.blockSignals(False)
        if self.type_filter.currentData() != current:
            self.apply_filter()

    def _update_count(self) -> None:
        if self.model.counting or self.model.unread:
            self.count_label.setText("Reading…" if self.model.counting else "Not read")
            return
        total = self.model.total
        self.count_label.setText(f"{total:,} entit{'y' if total == 1 else 'ies'}")

    # Selection
    def select_current(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self._clicked(index)

    def _clicked(self, index: QModelIndex) -> None:
        entity = self.entity_at(index)
        if entity is None:
            return
        if entity["id"] is None:
            self._state.message.emit(f"{style.elide(entity['name'], 60)}: {NO_ID}")
            return
        self._state.select_entity(entity["id"])

    def _entity_changed(self, entity_id: str | None) -> None:
        """An entity chosen elsewhere (a link, the graph, Back): show it in the list too, once
        found (:attr:`finding`: its row in the listing read off the UI thread, then its page).

        When the list's filter hides it, the search is cleared (then the type), so the list and
        the chart never disagree about what is selected."""
        self.finding.run(self._find(entity_id))

    def _find(self, entity_id: str | None) -> Iterator[None]:
        if entity_id is not None:
            found = yield from self._locate(entity_id)
            if found is False and self.search_field.text():
                with QSignalBlocker(self.search_field):
                    self.search_field.clear()
                self.apply_filter()
                found = yield from self._locate(entity_id)
            if found is False and self.type_filter.currentIndex() > 0:
                with QSignalBlocker(self.type_filter):
                    self.type_filter.setCurrentIndex(0)
                self.apply_filter()
                yield from self._locate(entity_id)
        self._show_selection()

    def _locate(self, entity_id: str) -> Iterator[None]:
        """Read the page of the entity's row in the listing: whether it is listed (None: the
        store is unavailable, or the window closed)."""
        while self.model.row_of(entity_id) < 0:
            while self.model.reading:  # the listing is read elsewhere: its rows once in
                self.finding.hold()
                yield
            if self.model.row_of(entity_id) >= 0:
                break
            if self.model.every_row_read():  # a short list: known at once, not listed
                return False
            generation = self.model.generation
            row = yield from self._position(entity_id)  # read while the views' facts are
            while self._state.reloads.running:  # the views first, not in the same turns:
                self.finding.hold()  # held, not a turn after turn that would keep the UI
                yield  # thread busy while a worker reads the views' facts
            kg = self._state.kg
            if kg is None or kg.closed:  # the window closed meanwhile
                return None
            if self.model.generation != generation:  # another listing meanwhile: ask again
                continue
            if row is None or row < 0:
                return None if row is None else False
            self.model.load_row(row)
            return self.model.row_of(entity_id) >= 0
        return True

    def _position(self, entity_id: str) -> Iterator[None]:
        """The entity's row in the listing (as :meth:`EntityModel.position_soon`), the steps
        held until it is read."""
        answers: list[int | None] = []
        self.model.position_soon(entity_id, lambda row: (answers.append(row), self.finding.go_on()))
        while not answers:
            self.finding.hold()
            yield
        return answers[0]

    def _show_selection(self) -> None:
        row = self.model.row_of(self._state.entity)
        selection = self.view.selectionModel()
        if row < 0:
            selection.clearSelection()
            return
        index = self.model.index(row, 0)
        selection.setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.view.scrollTo(index)

    def entity_at(self, index: QModelIndex) -> dict | None:
        return self.model.entity_at(index.row()) if index.isValid() else None

    def _context_menu(self, pos) -> None:
        """A right-click shows the entity it highlights (as a click would), then its menu."""
        index = self.view.indexAt(pos)
        entity = self.entity_at(index)
        if entity is not None:
            self._clicked(index)
            self.context_menu(entity).exec(self.view.viewport().mapToGlobal(pos))

    def context_menu(self, entity: dict) -> QMenu:
        """Add a fact, rename, merge, copy the id: what a right-click on a row offers (the
        right-click has shown the entity already)."""
        menu = QMenu(self)
        if entity["id"] is None:
            note = menu.addAction("No id: this row cannot be selected or edited")
            note.setToolTip(NO_ID)
            note.setEnabled(False)
            return menu
        menu.addAction("Add fact…", lambda: self._actions.add_fact_dialog(entity["name"]))
        menu.addSeparator()
        menu.addAction("Rename…", lambda: self._actions.rename_entity_dialog(entity["id"]))
        menu.addAction("Merge into…", lambda: self._actions.merge_entity_dialog(entity["id"]))
        menu.addSeparator()
        copy = QAction("Copy id", menu)
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(entity["id"]))
        menu.addAction(copy)
        return menu
