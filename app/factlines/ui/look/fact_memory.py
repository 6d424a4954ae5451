"""The memory behind a fact, in the window: what the assistant read when it recorded the fact.

``kg.source_memory`` (contract §11) gives the drawer's text, read from MemPalace's palace; it is
shown in the fact's History section (the text with the fact's subject and object marked, then
wing / room / file / date, and links to the other facts from this memory and from this file)
and, shorter, in the fact's tooltips. A palace that cannot be read from here (on a server, a
backend Factlines cannot read, a memory being written) says so in words.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import PurePath

from factlines.core.errors import Refused, Unavailable
from factlines.ui.look import style
from factlines.ui.look.wording import in_words

TEXT_CHARS = 4_000  # the History section shows a memory whole up to this length
TIP_CHARS = 300  # a tooltip, its start
# The links of the History section.
SAME_MEMORY = "memory:facts"
SAME_FILE = "memory:file"
ONLY_THIS_MEMORY = "memory:filter"
FACT_LINK = "fact:"


def read_memory(kg, fact_id: str | None) -> tuple[dict | None, str | None]:
    """The fact's memory (None when it names no source) and why it could not be asked for."""
    if kg is None or kg.closed or fact_id is None:
        return None, None
    try:
        return kg.source_memory(fact_id), None
    except (Refused, Unavailable) as exc:
        return None, f"Its memory cannot be read now: {in_words(exc)}"


def memory_ids(memory: dict) -> set[str]:
    """Every id a fact from this memory may name: the drawer's, its group's, its chunks'."""
    return {memory["drawer_id"], memory["group_id"], *memory["chunk_ids"]} - {None, ""}


def where_from(memory: dict) -> str:
    """wing / room · file · date, as far as the drawer's metadata tells them."""
    meta = memory["metadata"]
    place = " / ".join(str(meta[key]) for key in ("wing", "room") if meta.get(key))
    source = meta.get("source_file")
    when = meta.get("content_date") or meta.get("filed_at")
    parts = [place, PurePath(str(source)).name if source else "", str(when)[:10] if when else ""]
    return " · ".join(part for part in parts if part)


def marked(text: str, names: list[str], limit: int = TEXT_CHARS) -> str:
    """``text`` as rich text, the fact's subject and object marked wherever they occur."""
    text = style.elide(text, limit)
    wanted = sorted({n for n in names if n and n.strip()}, key=len, reverse=True)
    if not wanted:
        return html.escape(text)
    pattern = re.compile("|".join(re.escape(name) for name in wanted), re.IGNORECASE)
    background = style.theme().notice_background.name()
    parts, at = [], 0
    for found in pattern.finditer(text):
        parts.append(html.escape(text[at : found.start()]))
        parts.append(f"<b style='background:{background}'>{html.escape(found.group())}</b>")
        at = found.end()
    parts.append(html.escape(text[at:]))
    return "".join(parts).replace("\n", "<br>")


def memory_html(memory: dict, fact: dict, listed: str = "") -> str:
    """The Memory block of the History section: where it is from, the links (and ``listed``,
    what one of them listed), then its text."""
    subtle = style.theme().subtle_text.name()
    lines = ["<b>Memory</b>"]
    if memory["text"] is None:
        lines.append(f"<i>{html.escape(memory['message'])}</i>")
        lines.append(f"<span style='color:{subtle}'>{_named(memory)}</span>")
    elif where := where_from(memory):
        lines.append(f"<span style='color:{subtle}'>{html.escape(where)}</span>")
    lines.append(
        f"<a href='{SAME_MEMORY}'>Other facts from this memory</a> · "
        f"<a href='{SAME_FILE}'>from this file</a> · "
        f"<a href='{ONLY_THIS_MEMORY}'>only this memory's facts in the table</a>"
    )
    shown = f"<p style='margin-bottom:4px'>{'<br>'.join(lines)}</p>{listed}"
    if memory["text"] is not None:
        names = [fact.get("subject_name"), fact.get("object_name")]
        shown += f"<p style='margin-left:8px'>{marked(memory['text'], names)}</p>"
    return shown


def _named(memory: dict) -> str:
    drawer = memory["drawer_id"]
    return html.escape(f"drawer {style.elide(drawer, 120)}" if drawer else "no drawer named")


def related_html(facts: list[dict], heading: str) -> str:
    """A list of facts, each a link that selects it."""
    if not facts:
        return f"<p><b>{html.escape(heading)}</b><br><i>None.</i></p>"
    rows = [
        f"<a href='{FACT_LINK}{urllib.parse.quote(f['id'], safe='')}'>"
        f"{html.escape(style.elide(f['subject_name']))} {html.escape(f['predicate'])} "
        f"{html.escape(style.elide(f['object_name']))}</a>"
        f" <span style='color:{style.theme().subtle_text.name()}'>"
        f"{html.escape(style.show_time(f['valid_from'], 'unknown start'))}</span>"
        for f in facts
    ]
    return f"<p><b>{html.escape(heading)} ({len(facts)})</b><br>{'<br>'.join(rows)}</p>"


def linked_fact(link: str) -> str | None:
    """The fact a link of :func:`related_html` selects (``link`` fully encoded); None for
    another link."""
    if not link.startswith(FACT_LINK):
        return None
    return urllib.parse.unquote(link[len(FACT_LINK) :])


def memory_lines(kg, fact_id: str) -> list[str]:
    """The memory in a few plain lines, for a tooltip; [] for a fact with no source."""
    memory, problem = read_memory(kg, fact_id)
    if problem is not None:
        return [problem]
    if memory is None:
        return []
    if memory["text"] is None:
        return [f"Memory: {memory['message']}"]
    lines = ["Memory" + (f" ({where})" if (where := where_from(memory)) else "") + ":"]
    lines.append("  “" + style.elide(" ".join(memory["text"].split()), TIP_CHARS) + "”")
    return lines
