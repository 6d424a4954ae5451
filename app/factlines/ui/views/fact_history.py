"""The History section beside the facts table: the memory the selected fact was recorded from
and its story, told by :mod:`factlines.ui.look.fact_story` and
:mod:`factlines.ui.look.fact_memory`."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.ui.look import fact_memory, style
from factlines.ui.look.fact_story import fact_story, story_html
from factlines.ui.look.wording import in_words
from factlines.ui.session.state import AppState


class FactHistory(QWidget):
    """The History section: the memory the selected fact was recorded from (when it names one)
    and its story, newest first, kept up to date as the fact is written (here or by
    MemPalace). The text can be selected and copied; its links list the other facts from the
    memory or its file, select one of them, or ask for only the memory's facts in the table
    (``onlyMemory(ids, words)``)."""

    onlyMemory = Signal(object, str)

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("factHistory")
        self._state = state
        self.title = QLabel("<b>History</b>", self)
        self.text = QTextBrowser(self)
        self.text.setObjectName("factHistoryText")
        self.text.setOpenLinks(False)
        self.text.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.text.anchorClicked.connect(self._link)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.text, 1)
        self.events: list[dict] = []
        self.memory: dict | None = None
        self._related: tuple[str, str] | None = None  # (fact, which list) shown below
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        state.factChanged.connect(self._timer.start)
        state.graphChanged.connect(self._timer.start)
        state.dataChanged.connect(self._written)
        self.refresh()

    def _written(self, touched) -> None:
        fact = self._state.fact
        if fact is not None and (touched.everything or fact in touched.facts):
            self._timer.start()

    def refresh(self) -> None:
        triple_id = self._state.fact
        if self._related is not None and self._related[0] != triple_id:
            self._related = None
        if triple_id is None:
            self.events, self.memory = [], None
            self.text.setHtml("<i>Select a fact to see who wrote it, who ended it and why.</i>")
            return
        kg = self._state.kg
        self.events, problem = fact_story(kg, triple_id)
        self.memory, memory_problem = fact_memory.read_memory(kg, triple_id)
        parts = [self._memory_html(kg, triple_id, memory_problem)]
        if problem is not None:
            parts.append(f"<p>{html.escape(problem)}</p>")
        elif not self.events:
            parts.append("<p><i>Nothing is known of this fact's history.</i></p>")
        else:
            parts.append(story_html(self.events))
        self.text.setHtml("".join(parts))

    def _memory_html(self, kg, triple_id: str, problem: str | None) -> str:
        if problem is not None:
            return f"<p>{html.escape(problem)}</p>"
        if self.memory is None:
            return ""
        try:
            fact = kg.get_fact(triple_id)
        except (Refused, Unavailable):
            fact = {}
        listed = "" if self._related is None else self._related_html(kg, triple_id)
        return fact_memory.memory_html(self.memory, fact, listed)

    def _related_html(self, kg, triple_id: str) -> str:
        try:
            related = kg.facts_from_source(triple_id)
        except (Refused, Unavailable) as exc:
            return f"<p>{html.escape(in_words(exc))}</p>"
        if self._related[1] == fact_memory.SAME_MEMORY:
            return fact_memory.related_html(related["memory"], "Other facts from this memory")
        return fact_memory.related_html(related["file"], "Other facts from this file")

    def _link(self, url: QUrl) -> None:
        link, triple_id = url.toEncoded().data().decode("ascii"), self._state.fact
        if link in (fact_memory.SAME_MEMORY, fact_memory.SAME_FILE) and triple_id is not None:
            self._related = (triple_id, link)
            self.refresh()
        elif link == fact_memory.ONLY_THIS_MEMORY and self.memory is not None:
            words = fact_memory.where_from(self.memory) or self.memory["drawer_id"] or ""
            self.onlyMemory.emit(fact_memory.memory_ids(self.memory), words)
        elif (linked := fact_memory.linked_fact(link)) is not None:
            self._select(linked)

    def _select(self, triple_id: str) -> None:
        """Select a fact from a list: its subject first, unless the entity shown has it."""
        kg = self._state.kg
        try:
            fact = kg.get_fact(triple_id)
        except (Refused, Unavailable) as exc:
            self._state.message.emit(in_words(exc))
            return
        if self._state.entity not in (fact["subject"], fact["object"]):
            self._state.select_entity(fact["subject"])
        self._state.select_fact(triple_id)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self.refresh()  # its rich text names colours
