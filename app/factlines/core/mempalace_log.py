"""MemPalace's write log, read, and joined to the facts its writes made or ended.

MemPalace 3.11 (``mempalace/wal.py``) appends one JSON object per line to
``<config folder>/wal/write_log.jsonl`` for every write of its MCP tools:

- an **intent** line before the write: ``{"timestamp", "operation", "params", "result": null}``;
- for ``kg_add`` (and drawer writes) an **outcome** line after it: ``{"timestamp",
  "operation", "result"}``, with no params; for ``kg_add`` the result is
  ``{"success": true, "triple_id", "fact"}`` or ``{"success": false, "error"}``.

``timestamp`` is ``datetime.now().isoformat()``: the writer's local time, without a zone, to
the microsecond. It is read here as this machine's local time and turned into a UTC instant.

The knowledge-graph operations and their params (after MemPalace's own checks):

- ``kg_add``: subject, predicate, object, valid_from, valid_to, source_closet, source_file,
  source_drawer_id;
- ``kg_invalidate``: subject, predicate, object, ended (today when the caller gave none);
- ``kg_supersede``: subject, predicate, old_object, new_object, at (None: now, in UTC).

Only those lines are kept (every drawer write is logged too). The log is read once and then
only what was appended since; it may be large, it is never loaded whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from factlines.core import temporal
from factlines.core.names import entity_id, predicate_id

OPERATIONS = ("kg_add", "kg_invalidate", "kg_supersede")
# Seconds between the logged time of a write and the times the write stored (the intent is
# logged just before the write; clocks are read to the second).
TOLERANCE = 5
_MARK = b'"kg_'


class WriteLogEntry:
    """One knowledge-graph write of MemPalace's log: its intent line, and its outcome."""

    __slots__ = ("at", "line", "logged_at", "operation", "params", "result")

    def __init__(self, line: int, logged_at: str, operation: str, params: dict):
        self.line = line
        self.logged_at = logged_at
        self.at = _utc(logged_at)
        self.operation = operation
        self.params = params
        self.result: dict | None = None

    def __repr__(self) -> str:
        return f"WriteLogEntry(line {self.line}, {self.operation}, {self.params})"


def _utc(stamp: object) -> str | None:
    """A logged timestamp (local, naive, ISO) as a UTC instant to the second; None if unreadable."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _seconds(instant: str | None) -> float | None:
    """POSIX seconds of an instant key (or of MemPalace's ``YYYY-MM-DD HH:MM:SS`` UTC stamp)."""
    if not instant:
        return None
    try:
        moment = datetime.fromisoformat(instant.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _near(a: str | None, b: str | None) -> bool:
    sa, sb = _seconds(a), _seconds(b)
    return sa is not None and sb is not None and abs(sa - sb) <= TOLERANCE


class WriteLog:
    """MemPalace's write log at ``path`` (which may not exist), read incrementally."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._reset()

    def _reset(self) -> None:
        self._offset = 0
        self._lines = 0
        self._entries: list[WriteLogEntry] = []
        self._pending: dict[str, list[WriteLogEntry]] = {}
        self._by_subject: dict[str, list[WriteLogEntry]] = {}

    def entries(self) -> list[WriteLogEntry]:
        """Every knowledge-graph write logged so far, in the log's order."""
        self._refresh()
        return list(self._entries)

    def lines(self) -> int:
        """How many lines the log holds now (read up to its end)."""
        self._refresh()
        return self._lines

    def about(self, subject_id: str) -> list[WriteLogEntry]:
        """The logged writes whose subject is ``subject_id`` (by MemPalace's id rule)."""
        self._refresh()
        return list(self._by_subject.get(subject_id, ()))

    def subjects(self) -> set[str]:
        """The subjects (by MemPalace's id rule) of the logged writes."""
        self._refresh()
        return set(self._by_subject)

    def _refresh(self) -> None:
        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size < self._offset:  # rotated or truncated: read it again from the start
            self._reset()
        if size == self._offset:
            return
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read(size - self._offset)
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
        for raw in data[:end].split(b"\n")[:-1]:
            self._lines += 1
            if _MARK in raw:
                self._take(raw)
        self._offset += end

    def _take(self, raw: bytes) -> None:
        try:
            item = json.loads(raw)
        except ValueError:
            return
        if not isinstance(item, dict) or item.get("operation") not in OPERATIONS:
            return
        operation = item["operation"]
        params = item.get("params")
        if isinstance(params, dict):
            entry = WriteLogEntry(self._lines, item.get("timestamp"), operation, params)
            self._entries.append(entry)
            self._pending.setdefault(operation, []).append(entry)
            subject = params.get("subject")
            if isinstance(subject, str):
                self._by_subject.setdefault(entity_id(subject), []).append(entry)
        elif "params" not in item and isinstance(item.get("result"), dict):
            pending = self._pending.get(operation)
            if pending:  # the outcome of the latest intent of the same operation
                pending.pop().result = item["result"]


# ── Which logged writes made or ended a fact ──────────────────────────────


def _same(value: object, stored: str | None) -> bool:
    """A logged time value and a stored one are the same value (None and "" alike)."""
    return (value or None) == (stored or None)


def _ids(params: dict, *names: str) -> tuple | None:
    values = [params.get(name) for name in names]
    if not all(isinstance(v, str) for v in values):
        return None
    return tuple(entity_id(v) for v in values)


def _extracted(fact: dict) -> str | None:
    stamp = fact.get("extracted_at")
    return stamp.replace(" ", "T") + "Z" if isinstance(stamp, str) and len(stamp) == 19 else None


def asserted_since(
    log: WriteLog, facts: Iterable[dict], since: str | None, slack: float
) -> tuple[WriteLogEntry, int] | None:
    """The first ``kg_add`` in ``log`` that asserted one of ``facts`` (rows: id, subject,
    predicate, object) at or after ``since`` (a UTC instant; None: any time) less ``slack``
    seconds, and how many more of the facts were asserted too; None when none was. An add
    whose outcome names another row is not this fact's; one whose time cannot be read counts.
    Only the facts of subjects the log names are kept while it is read (a long step's facts
    are many)."""
    logged = log.subjects()
    if not logged:
        return None
    by_subject: dict[str, dict[tuple, str]] = {}
    for fact in facts:
        if fact["subject"] not in logged:
            continue
        key = (fact["predicate"], fact["object"])
        by_subject.setdefault(fact["subject"], {})[key] = fact["id"]
    earliest = _seconds(since)
    first, hits = None, set()
    for subject, wanted in by_subject.items():
        for entry in log.about(subject):
            params = entry.params
            if entry.operation != "kg_add" or not isinstance(params.get("predicate"), str):
                continue
            ids = _ids(params, "object")
            key = (predicate_id(params["predicate"]), ids[0] if ids else None)
            result = entry.result or {}
            if key not in wanted or result.get("success") is False:
                continue
            if result.get("triple_id") not in (None, wanted[key]):
                continue
            logged = _seconds(entry.at)
            if earliest is not None and logged is not None and logged < earliest - slack:
                continue
            hits.add(wanted[key])
            if first is None or entry.line < first.line:
                first = entry
    return None if first is None else (first, len(hits) - 1)


def events_for_fact(fact: dict, entries: list[WriteLogEntry]) -> list[dict]:
    """What MemPalace's logged writes did to ``fact`` (a row as ``get_fact`` returns it).

    Each event: ``{at, tool, did, what, reason, source, details}``; ``did`` is ``added`` (the
    write made this row), ``confirmed`` (an add that found the fact already open) or ``ended``
    (an invalidate or a supersede closed it); ``at`` the logged time in UTC; ``details`` the
    ``operation``, its ``params``, its outcome line's ``result`` (None when it has none) and
    the ``line`` of the intent in the log.
    """
    events = []
    for entry in entries:
        params = entry.params
        if not isinstance(params.get("predicate"), str):
            continue
        ids = _ids(params, "subject")
        if ids is None or ids[0] != fact["subject"]:
            continue
        if predicate_id(params["predicate"]) != fact["predicate"]:
            continue
        did, what = _match(entry, fact)
        if did is not None:
            events.append(
                {
                    "at": entry.at,
                    "tool": "MemPalace",
                    "did": did,
                    "what": what,
                    "reason": None,
                    "source": "MemPalace's write log",
                    "details": {
                        "operation": entry.operation,
                        "params": params,
                        "result": entry.result,
                        "line": entry.line,
                    },
                }
            )
    return events


def _match(entry: WriteLogEntry, fact: dict) -> tuple[str | None, str]:
    params, op = entry.params, entry.operation
    words = f"{params.get('subject')} {params.get('predicate')}"
    if op == "kg_add":
        ids = _ids(params, "object")
        if ids is None or ids[0] != fact["object"]:
            return None, ""
        result = entry.result or {}
        if result.get("success") is False:
            return None, ""
        if result.get("triple_id") is not None:
            if result["triple_id"] != fact["id"]:
                return None, ""
        elif not (
            _same(params.get("valid_from"), fact["valid_from"])
            and _same(params.get("valid_to"), fact["valid_to"])
            and _near(entry.at, _extracted(fact))
        ):
            return None, ""
        recorded, logged = _seconds(_extracted(fact)), _seconds(entry.at)
        older = recorded is not None and logged is not None and recorded < logged - TOLERANCE
        return ("confirmed" if older else "added"), f"{words} {params['object']} (kg_add)"
    if op == "kg_invalidate":
        ids = _ids(params, "object")
        if ids is None or ids[0] != fact["object"] or not fact["valid_to"]:
            return None, ""
        if not _same(params.get("ended"), fact["valid_to"]):
            return None, ""
        return "ended", f"{words} {params['object']} ended {params.get('ended')} (kg_invalidate)"
    if op == "kg_supersede":
        ids = _ids(params, "old_object", "new_object")
        if ids is None:
            return None, ""
        at = params.get("at")
        boundary = temporal.start_key(at) if isinstance(at, str) and at else None

        def at_boundary(value: str | None) -> bool:
            if boundary is not None:
                return value == boundary
            return value is not None and len(value) == 20 and _near(value, entry.at)

        old, new = params["old_object"], params["new_object"]
        if ids[0] == fact["object"] and at_boundary(fact["valid_to"]):
            return "ended", f"{words} {old} replaced by {new} (kg_supersede)"
        if ids[1] == fact["object"] and at_boundary(fact["valid_from"]):
            return "added", f"{words} {new} replacing {old} (kg_supersede)"
    return None, ""
