"""A fact's story in a person's words: who wrote it (one of MemPalace's tools, or an edit in
Factlines), when it ended, by whom and why.

The events come from ``kg.fact_history`` (contract §9.3): the row itself, MemPalace's write log
(``kg_add``, ``kg_invalidate``, ``kg_supersede``: its intent line and, for an add, its outcome)
and Factlines' edit log (each edit with the reason typed for it). They are told in the fact's
tooltips (the facts table, the chart) and in the History section beside the facts table
(:class:`FactHistory`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from factlines.core.errors import Refused, Unavailable
from factlines.ui.errors import in_words
from factlines.ui.look import style
from factlines.ui.session.state import AppState
from factlines.ui.views import fact_memory

TIP_EVENTS = 6  # a tooltip tells the latest events; the History section tells them all
_DID = {
    "added": "Added",
    "confirmed": "Found already open",
    "changed": "Changed",
    "ended": "Ended",
    "deleted": "Deleted",
}


def fact_story(kg, triple_id: str | None) -> tuple[list[dict], str | None]:
    """The fact's events, oldest first, and why they could not be read (None when they were)."""
    if kg is None or kg.closed or triple_id is None:
        return [], None
    try:
        return kg.fact_history(triple_id), None
    except (Refused, Unavailable) as exc:
        return [], f"Its history cannot be read now: {in_words(exc)}"


def when(event: dict) -> str:
    return style.show_instant(event["at"]) if event["at"] else "when unknown"


def who(event: dict) -> str:
    """Which tool did it, as the person knows them: ``by MemPalace`` (its tool is in the
    event's words), ``in Factlines``, ``by adapter mine`` for the row's own writer."""
    if event["did"] == "recorded":
        return f"by adapter {event['tool']}" if event["tool"] else ""
    return "by MemPalace" if event["tool"] == "MemPalace" else "in Factlines"


def outcome(event: dict) -> str | None:
    """What MemPalace's outcome line said of its write (only adds have one)."""
    result = event["details"].get("result") if event["tool"] == "MemPalace" else None
    if not isinstance(result, dict):
        return None
    if result.get("success"):
        return "it reported success"
    return f"it reported a failure: {result.get('error') or 'no reason given'}"


def headline(event: dict) -> str:
    """What happened and by whom: ``Ended in Factlines``, ``Added by MemPalace``."""
    did = "Recorded" if event["did"] == "recorded" else _DID.get(event["did"], event["did"])
    return f"{did} {who(event)}".strip()


def event_line(event: dict) -> str:
    """The event on one line, with its why when one was given (plain text)."""
    line = f"{when(event)} · {headline(event)}"
    if event["did"] != "recorded":
        line += f": {style.elide(event['what'], 120)}"
    if event["reason"]:
        line += f" — why: “{style.elide(event['reason'], 200)}”"
    return line


def story_lines(events: list[dict], limit: int = TIP_EVENTS) -> list[str]:
    """The latest ``limit`` events as lines (plain text), for a tooltip; [] for no events."""
    if not events:
        return []
    lines = ["History:"]
    if len(events) > limit:
        lines.append(f"  … {len(events) - limit} earlier (see History beside the facts)")
    lines += [f"  {event_line(event)}" for event in events[-limit:]]
    return lines


def _details(event: dict) -> list[str]:
    """The event's particulars, for the History section (plain text)."""
    details = event["details"]
    if event["did"] == "recorded":
        return [f"{key}: {details[key]}" for key in details if details.get(key)]
    if event["tool"] == "MemPalace":
        said = f"line {details['line']} of MemPalace's write log"
        return [said + (f"; {outcome(event)}" if outcome(event) else "")]
    before, after, parts = details.get("before") or {}, details.get("after") or {}, []
    if before and after:
        for key in ("valid_from", "valid_to", "predicate", "object", "confidence"):
            if before.get(key) != after.get(key):
                empty = {"valid_from": "unknown", "valid_to": "open"}.get(key, "none")
                old, new = (style.show_time(row.get(key), empty) for row in (before, after))
                parts.append(f"{key}: {old} → {new}")
    return parts


def story_html(events: list[dict]) -> str:
    """Every event, newest first, as rich text for the History section."""
    subtle = style.SUBTLE_TEXT.name()
    blocks = []
    for event in reversed(events):
        # The why first: in a narrow pane it is what should not be scrolled to.
        lines = [f"<b>{html.escape(headline(event))}</b>"]
        if event["reason"]:
            lines.append(f"Why: <i>{html.escape(style.elide(event['reason'], 300))}</i>")
        lines.append(f"<span style='color:{subtle}'>{html.escape(when(event))}</span>")
        if event["did"] != "recorded":
            lines.append(html.escape(style.elide(event["what"], 300)))
        lines += [
            f"<span style='color:{subtle}'>{html.escape(style.elide(part, 300))}</span>"
            for part in _details(event)
        ]
        blocks.append(f"<p style='margin-bottom:6px'>{'<br>'.join(lines)}</p>")
    return "".join(blocks)


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
