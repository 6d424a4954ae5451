"""A fact's story in a person's words: who wrote it (one of MemPalace's tools, or an edit in
Factlines), when it ended, by whom and why.

The events come from ``kg.fact_history`` (contract §9.3): the row itself, MemPalace's write log
(``kg_add``, ``kg_invalidate``, ``kg_supersede``: its intent line and, for an add, its outcome)
and Factlines' edit log (each edit with the reason typed for it). They are told in the fact's
tooltips (the facts table, the chart) and in the History section beside the facts table
(:class:`~factlines.ui.views.fact_history.FactHistory`).
"""

from __future__ import annotations

import html

from factlines.core.errors import Refused, Unavailable
from factlines.ui.look import style
from factlines.ui.look.wording import in_words

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
    subtle = style.theme().subtle_text.name()
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
