"""The selected entity as it was recorded by an instant ("why did my assistant say that last
Tuesday?"): the "recorded by" field beside as_of, and the "As recorded" tab listing the
entity's facts at as_of as the graph held them then (``kg.query_entity(...,
recorded_as_of=…)``), each beside what it says now.

The read goes through both logs, so it runs off the UI thread (:mod:`.background`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.ui.jobs.whole_graph import BackgroundRead
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.session.state import AppState

UNKNOWN_END = "ended, recorded when unknown"
FACT_ID_ROLE = Qt.ItemDataRole.UserRole + 11


def read_as_recorded(name: str, as_of: str | None, recorded: str):
    """The read for the worker: the rows as recorded, and the facts as they are now."""

    def read(kg, _progress) -> dict:
        then = kg.query_entity(name, as_of=as_of, direction="both", recorded_as_of=recorded)
        now = {row["id"]: row for row in kg.query_entity(name, direction="both")}
        return {"name": name, "as_of": as_of, "recorded": recorded, "rows": then, "now": now}

    return read


class RecordedAsOfField(QWidget):
    """ "recorded by [field]" for the time bar: ``changed(value)`` with a checked instant, or
    None when emptied (the view as it is now)."""

    changed = Signal(object)

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.value: str | None = None
        self.field = QLineEdit(self)
        self.field.setObjectName("recordedAsOf")
        self.field.setPlaceholderText("recorded: now")
        self.field.setClearButtonEnabled(True)
        self.field.setFixedWidth(170)
        self.field.setToolTip(
            "Show the selected entity as the graph had recorded it by this instant "
            f"(the As recorded tab): {temporal.EXPECTED_FORMS}; empty: as it is now"
        )
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 0, 0)
        layout.addWidget(QLabel("recorded by", self))
        layout.addWidget(self.field)
        self.field.editingFinished.connect(self._typed)

    def set_value(self, value: str | None) -> None:
        """Type ``value`` (None: empty) and take it, as the person would."""
        self.field.setText(value or "")
        self._typed()

    def _typed(self) -> None:
        text = self.field.text().strip()
        try:
            value = temporal.parse(text, "recorded by") if text else None
        except Refused as exc:
            self._state.message.emit(f"recorded by not changed: {in_words(exc)}")
            return
        if value != self.value:
            self.value = value
            self.changed.emit(value)


class AsRecordedPanel(QWidget):
    """The tab (the view is ``asRecordedPanel``) over the field's instant."""

    wanted = Signal()  # an instant was set: the tab should be seen

    def __init__(self, state: AppState, field: RecordedAsOfField, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("asRecordedPanelBox")
        self._state = state
        self._field = field
        self.summary = QLabel(self)
        self.summary.setObjectName("asRecordedSummary")
        self.summary.setWordWrap(True)
        self.view = QTreeWidget(self)
        self.view.setObjectName("asRecordedPanel")
        self.view.setRootIsDecorated(False)
        self.view.setAlternatingRowColors(True)
        self.view.setHeaderLabels(["Fact", "From", "To (as recorded)", "End recorded", "Now"])
        for column, width in enumerate((300, 150, 150, 230)):
            self.view.header().resizeSection(column, width)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        self.reader = BackgroundRead(self)
        self.reader.answered.connect(self._show)
        self.reader.failed.connect(lambda words: self.summary.setText(f"Not shown: {words}"))
        self.view.itemActivated.connect(self._activated)
        field.changed.connect(self._instant_changed)
        state.entityChanged.connect(lambda _entity: self.refresh())
        state.asOfChanged.connect(lambda _value: self.refresh())
        state.graphChanged.connect(self.refresh)
        state.dataChanged.connect(lambda _touched: self.refresh())
        self.refresh()

    @property
    def busy(self) -> bool:
        return self.reader.busy

    def _instant_changed(self, value) -> None:
        self.refresh()
        if value is not None:
            self.wanted.emit()

    def refresh(self) -> None:
        self.reader.forget()
        kg, recorded = self._state.kg, self._field.value
        record = self._state.entity_record()
        problem = None
        if recorded is None:
            problem = "Type an instant in “recorded by” (beside as_of) to see what was recorded"
        elif kg is None or kg.closed:
            problem = "No graph is open"
        elif record is None:
            problem = "Select an entity"
        if problem is not None:
            self.view.clear()
            self.summary.setText(problem)
            return
        self.summary.setText(f"Reading {record['name']} as recorded by {recorded}…")
        read = read_as_recorded(record["name"], self._state.as_of, recorded)
        self.reader.start(str(kg.db_path), read)

    def _show(self, answer: dict) -> None:
        self.view.clear()
        rows, now = answer["rows"], answer["now"]
        later = 0
        for row in rows:
            current = now.get(row["id"], row)
            if row["valid_to"] is None and current["valid_to"] is not None:
                later += 1
            if row["end_recorded_unknown"]:
                recorded = UNKNOWN_END
            else:
                recorded = style.show_time(row["end_recorded"])
            item = QTreeWidgetItem(
                self.view,
                [
                    f"{row['subject']} {row['predicate']} {row['object']}",
                    style.show_time(row["valid_from"], "…"),
                    style.show_time(row["valid_to"], "open"),
                    recorded,
                    _now_words(row, current),
                ],
            )
            item.setData(0, FACT_ID_ROLE, row["id"])
        at = f" at as_of {answer['as_of']}" if answer["as_of"] else ""
        ended_since = f"; {later:,} ended since" if later else ""
        self.summary.setText(
            f"{answer['name']} as recorded by {answer['recorded']}{at}: "
            f"{len(rows):,} fact{'' if len(rows) == 1 else 's'}{ended_since}"
        )

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        self._state.select_fact(item.data(0, FACT_ID_ROLE))

    def stop(self) -> None:
        """Closing: the read running now stops, none waits."""
        self.reader.stop()


def _now_words(then: dict, now: dict) -> str:
    if (then["valid_from"], then["valid_to"]) == (now["valid_from"], now["valid_to"]):
        return "the same"
    if then["valid_to"] is None and now["valid_to"] is not None:
        return f"ended {now['valid_to']}"
    return f"{style.show_time(now['valid_from'], '…')} → {style.show_time(now['valid_to'], 'open')}"
