"""Finding facts, not only entities: by predicate, entity names and provenance text (source
file, closet, drawer), as of as_of; and, in the entity search, a hint that what was typed is a
predicate ("facts with this predicate") or names no entity ("search facts instead").
"""

from __future__ import annotations

from PySide6.QtCore import (
    QModelIndex,
    QTimer,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from factlines.core.columns import PROVENANCE
from factlines.core.errors import Refused, Unavailable
from factlines.ui.look import style
from factlines.ui.look.wording import fact_in_words, in_words
from factlines.ui.models.roles import (
    DISPLAY,
    ENTITY_ID_ROLE,
    FACT_ID_ROLE,
    ROOT,
    TOOLTIP,
    Index,
)
from factlines.ui.models.rows import RowsModel, rows_view
from factlines.ui.painting import lay_out_now
from factlines.ui.session.state import AppState

SEARCH_MS = 200


def provenance_words(fact: dict) -> str:
    parts = [style.stored_text(fact[key]) for key in PROVENANCE if fact[key]]
    return " · ".join(parts)


class FoundFactsModel(RowsModel):
    """The facts found, a page at a time as the list scrolls."""

    COLUMNS = ("Subject", "Predicate", "Object", "Valid from", "Valid to", "Source")
    PAGE = 100

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self._state = state
        self._rows: list[dict] = []
        self._total = 0
        self.text = ""
        self.predicate: str | None = None
        self.as_of: str | None = None

    def _page(self, offset: int, limit: int) -> list[dict]:
        kg = self._state.kg
        if kg is None or kg.closed:
            return []
        return kg.find_facts(self.text, self.predicate, self.as_of, limit=limit, offset=offset)

    def search(self, text: str, predicate: str | None, as_of: str | None) -> None:
        """Find again (raises Refused / Unavailable with the model as it was)."""
        kg = self._state.kg
        old = (self.text, self.predicate, self.as_of)
        self.text, self.predicate, self.as_of = text, predicate, as_of
        try:
            total = kg.count_found_facts(text, predicate, as_of) if kg is not None else 0
            rows = self._page(0, min(self.PAGE, total)) if total else []
        except (Refused, Unavailable):
            self.text, self.predicate, self.as_of = old
            raise
        self.beginResetModel()
        self._rows, self._total = rows, total
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self._rows, self._total = [], 0
        self.endResetModel()

    @property
    def total(self) -> int:
        return self._total

    def fact_at(self, row: int) -> dict | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def canFetchMore(self, parent: Index = ROOT) -> bool:
        return not parent.isValid() and len(self._rows) < self._total

    def fetchMore(self, parent: Index = ROOT) -> None:
        if parent.isValid() or not self.canFetchMore():
            return
        more = self._page(len(self._rows), min(self.PAGE, self._total - len(self._rows)))
        if not more:
            self._total = len(self._rows)
            return
        first = len(self._rows)
        self.beginInsertRows(ROOT, first, first + len(more) - 1)
        self._rows.extend(more)
        self.endInsertRows()

    def _value(self, fact: dict, column: int, role: int):
        if role == DISPLAY:
            if column in (0, 1, 2):  # a name or predicate may be any stored value
                key = ("subject_name", "predicate", "object_name")[column]
                return style.cell_text(fact[key])
            if column == 3:
                return style.show_time(fact["valid_from"], "unknown")
            if column == 4:
                return style.show_time(fact["valid_to"], "open")
            return provenance_words(fact)
        if role == FACT_ID_ROLE:
            return fact["id"]
        if role == ENTITY_ID_ROLE:
            return fact["subject"]
        if role == TOOLTIP:
            source = provenance_words(fact)
            return fact_in_words(fact) + (f"\nsource: {source}" if source else "")
        return None


class FindFactsPanel(QWidget):
    """The search field (``factSearch``), its toggles and the results (``factSearchResults``)."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("findFactsPanel")
        self._state = state
        self.model = FoundFactsModel(state, self)
        self.field = QLineEdit(self)
        self.field.setObjectName("factSearch")
        self.field.setPlaceholderText("Find facts: predicate, entity, source file, closet, drawer…")
        self.field.setClearButtonEnabled(True)
        self.predicate_only = QCheckBox("Exact predicate", self)
        self.predicate_only.setObjectName("factSearchPredicate")
        self.predicate_only.setToolTip("Only facts whose predicate is exactly what is typed")
        self.at_as_of = QCheckBox("Valid at as_of", self)
        self.at_as_of.setObjectName("factSearchAsOf")
        self.at_as_of.setChecked(True)
        self.at_as_of.setToolTip("Only facts valid at as_of (when as_of is set)")
        self.count_label = QLabel(self)
        self.count_label.setObjectName("factSearchCount")
        self.view = rows_view(self, "factSearchResults", self.model, (130, 110, 130, 90, 90))

        row = QHBoxLayout()
        row.addWidget(self.field, 1)
        row.addWidget(self.predicate_only)
        row.addWidget(self.at_as_of)
        row.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_MS)
        self._timer.timeout.connect(self.search)
        self.field.textChanged.connect(lambda _text: self._timer.start())
        self.field.returnPressed.connect(self.search)
        self.predicate_only.toggled.connect(lambda _on: self.search())
        self.at_as_of.toggled.connect(lambda _on: self.search())
        self.view.activated.connect(self.choose)
        self.model.modelReset.connect(lambda: lay_out_now(self.view))
        self.model.modelReset.connect(self._say)
        self.model.rowsInserted.connect(lambda *_: self._say())
        state.graphChanged.connect(self.search)
        state.dataChanged.connect(lambda _touched: self._timer.start())
        state.asOfChanged.connect(self._as_of_changed)
        self._said = ""
        self._say()

    def find(self, text: str, predicate: bool = False) -> None:
        """Type ``text`` (as an exact predicate when ``predicate``) and search now."""
        self.predicate_only.blockSignals(True)
        self.predicate_only.setChecked(predicate)
        self.predicate_only.blockSignals(False)
        self.field.blockSignals(True)
        self.field.setText(text)
        self.field.blockSignals(False)
        self.search()

    def _as_of_changed(self, _value) -> None:
        if self.at_as_of.isChecked() and self.field.text().strip():
            self._timer.start()

    def search(self) -> None:
        self._timer.stop()
        text = self.field.text().strip()
        kg = self._state.kg
        if not text or kg is None or kg.closed:
            self._said = "" if text else "Type a predicate, a name or a source"
            self.model.clear()
            return
        as_of = self._state.as_of if self.at_as_of.isChecked() else None
        predicate = text if self.predicate_only.isChecked() else None
        try:
            self.model.search("" if predicate else text, predicate, as_of)
        except (Refused, Unavailable) as exc:
            self._said = f"Not searched: {in_words(exc)}"
            self.model.clear()
            return
        when = f" valid at {style.show_time(as_of)}" if as_of else ""
        total = self.model.total
        self._said = f"{total:,} fact{'' if total == 1 else 's'}{when}"
        self._say()

    def _say(self) -> None:
        self.count_label.setText(self._said)

    def choose(self, index: QModelIndex) -> None:
        fact = self.model.fact_at(index.row())
        if fact is None:
            return
        state = self._state
        if state.entity not in (fact["subject"], fact["object"]):
            state.select_entity(fact["subject"])
        state.select_fact(fact["id"])


class SearchHint(QPushButton):
    """Under the entity search: "works_at is a predicate: show facts with it", or, when no
    entity matches, "search facts for …". A click opens the fact search."""

    def __init__(self, state: AppState, browser, open_search, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("entitySearchFactHint")
        self.setFlat(True)
        self.setStyleSheet("text-align: left; color: palette(link); padding: 2px 4px;")
        self.hide()
        self._state = state
        self._browser = browser
        self._open_search = open_search
        self._predicates: set[str] | None = None
        self._target: tuple[str, bool] | None = None
        self.clicked.connect(self._clicked)
        browser.model.modelReset.connect(self.update_hint)
        browser.search_field.textChanged.connect(lambda _text: self.update_hint())
        state.dataChanged.connect(self._forget)
        state.graphChanged.connect(self._forget)

    def _forget(self, *_changed) -> None:
        self._predicates = None

    def _known_predicates(self) -> set[str]:
        if self._predicates is None:
            kg = self._state.kg
            try:
                found = kg.predicates() if kg is not None and not kg.closed else []
            except Unavailable:
                found = []
            # Only text can be typed; a raw edit may leave a BLOB or a number as a predicate.
            self._predicates = {p.casefold(): p for p in found if isinstance(p, str)}
        return self._predicates

    def update_hint(self) -> None:
        text = self._browser.search_field.text().strip()
        predicate = self._known_predicates().get(text.casefold()) if text else None
        if predicate is not None:
            self._target = (predicate, True)
            self.setText(f"“{predicate}” is a predicate: facts with this predicate →")
        elif text and self._browser.model.total == 0:
            self._target = (text, False)
            self.setText(f"No entity: search facts for “{text}” →")
        else:
            self._target = None
        self.setVisible(self._target is not None)

    def _clicked(self) -> None:
        if self._target is not None:
            self._open_search(*self._target)
