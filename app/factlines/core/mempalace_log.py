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
only what was appended since; it may be large, it is never loaded whole. The process shares
one reader per file (:meth:`WriteLog.shared`): a store opened for each read of the window's
workers would otherwise parse the whole log again after every write (2.3 s of CPU for
200,000 lines).
"""

from __future__ import annotations

import json
import os
import threading
from bisect import bisect_right
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeGuard

from factlines.core import temporal
from factlines.core.names import entity_id, predicate_id

OPERATIONS = ("kg_add", "kg_invalidate", "kg_supersede")
# Seconds between the logged time of a write and the times the write stored (the intent is
# logged just before the write; clocks are read to the second).
TOLERANCE = 5
_MARK = b'"kg_'
_TAIL = 64  # bytes of the log read again at each look, to see that it is the same log
_NAMED = ("subject", "object", "old_object", "new_object")  # the params that name entities


class WriteLogEntry:
    """One knowledge-graph write of MemPalace's log: its intent line, and its outcome."""

    __slots__ = (
        "at",
        "ids",
        "line",
        "logged_at",
        "operation",
        "params",
        "predicate_id",
        "result",
        "seconds",
    )

    def __init__(self, line: int, logged_at: object, operation: str, params: dict[str, Any]):
        self.line = line
        self.logged_at = logged_at
        self.at = _utc(logged_at)
        self.operation = operation
        self.params = params
        self.result: dict[str, Any] | None = None
        # Worked out once (a log is read once per process, and matched at every read): the
        # write's time in POSIX seconds, its predicate's id and the ids of the entities it
        # names (those named by text).
        self.seconds = _seconds(self.at)
        predicate = params.get("predicate")
        self.predicate_id = predicate_id(predicate) if isinstance(predicate, str) else None
        self.ids = {
            name: entity_id(value) for name in _NAMED if isinstance(value := params.get(name), str)
        }

    def __repr__(self) -> str:
        return f"WriteLogEntry(line {self.line}, {self.operation}, {self.params})"


_SHARED: dict[Path, WriteLog] = {}  # WriteLog.shared's readers, by the log's absolute path
_SHARED_LOCK = threading.Lock()


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


def _is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """``value`` is a JSON object (its keys are text)."""
    return isinstance(value, dict)


class WriteLog:
    """MemPalace's write log at ``path`` (which may not exist), read incrementally; safe to
    share between threads."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._reset()

    @classmethod
    def shared(cls, path: str | os.PathLike[str]) -> WriteLog:
        """The process's reader of the log at ``path``: what it read stays read."""
        key = Path(os.path.abspath(path))
        with _SHARED_LOCK:
            log = _SHARED.get(key)
            if log is None:
                log = _SHARED[key] = cls(key)
            return log

    def _reset(self) -> None:
        self._offset = 0
        self._lines = 0
        self._file: tuple[int, int] | None = None  # the device and inode read
        self._tail: bytes = b""  # the last bytes read: a log rewritten in place differs there
        self._entries: list[WriteLogEntry] = []
        # The entries whose time reads, and their times: in order while no line went back in
        # time (a clock set back, or local time's hour repeated in autumn).
        self._timed: list[WriteLogEntry] = []
        self._times: list[str] = []
        self._in_order = True
        self._pending: dict[str, list[WriteLogEntry]] = {}
        self._by_subject: dict[str, list[WriteLogEntry]] = {}

    def entries(self) -> list[WriteLogEntry]:
        """Every knowledge-graph write logged so far, in the log's order."""
        with self._lock:
            self._refresh()
            return list(self._entries)

    def between(self, after: str, until: str | None = None) -> list[WriteLogEntry]:
        """The writes logged after the UTC instant ``after`` and, when given, not after
        ``until``, in the log's order (found by halving while the log's times are in order: a
        week's share of a long log without a look at the rest)."""
        with self._lock:
            self._refresh()
            if not self._in_order:
                return [
                    e
                    for e in self._timed
                    if e.at is not None and after < e.at and (until is None or e.at <= until)
                ]
            end = len(self._times) if until is None else bisect_right(self._times, until)
            return self._timed[bisect_right(self._times, after) : end]

    def lines(self) -> int:
        """How many lines the log holds now (read up to its end)."""
        with self._lock:
            self._refresh()
            return self._lines

    def about(self, subject_id: str) -> list[WriteLogEntry]:
        """The logged writes whose subject is ``subject_id`` (by MemPalace's id rule)."""
        with self._lock:
            self._refresh()
            return list(self._by_subject.get(subject_id, ()))

    def subjects(self) -> set[str]:
        """The subjects (by MemPalace's id rule) of the logged writes."""
        with self._lock:
            self._refresh()
            return set(self._by_subject)

    def _refresh(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                found = os.fstat(handle.fileno())
                if (found.st_dev, found.st_ino) != self._file or found.st_size < self._offset:
                    self._reset()  # another file (rotated), or truncated: read from the start
                    self._file = (found.st_dev, found.st_ino)
                if found.st_size == self._offset and not self._tail:
                    return
                handle.seek(self._offset - len(self._tail))
                data = handle.read(found.st_size - self._offset + len(self._tail))
        except OSError:
            return
        if not data.startswith(self._tail):  # written anew in place: read it again
            self._reset()
            self._refresh()
            return
        data = data[len(self._tail) :]
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
        for raw in data[:end].split(b"\n")[:-1]:
            self._lines += 1
            if _MARK in raw:
                self._take(raw)
        self._offset += end
        if end:
            self._tail = data[max(0, end - _TAIL) : end]

    def _take(self, raw: bytes) -> None:
        try:
            item = json.loads(raw)
        except ValueError:
            return
        if not _is_object(item) or item.get("operation") not in OPERATIONS:
            return
        operation = item["operation"]
        params = item.get("params")
        if _is_object(params):
            entry = WriteLogEntry(self._lines, item.get("timestamp"), operation, params)
            self._entries.append(entry)
            if entry.at is not None:
                self._in_order = self._in_order and (not self._times or self._times[-1] <= entry.at)
                self._timed.append(entry)
                self._times.append(entry.at)
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


def _ids(entry: WriteLogEntry, *names: str) -> tuple[str, ...] | None:
    """The ids of the entities the write names as ``names`` (None unless each is text)."""
    ids = entry.ids
    if not all(name in ids for name in names):
        return None
    return tuple(ids[name] for name in names)


def _extracted(fact: dict[str, Any]) -> str | None:
    stamp = fact.get("extracted_at")
    return stamp.replace(" ", "T") + "Z" if isinstance(stamp, str) and len(stamp) == 19 else None


def asserted_since(
    log: WriteLog, facts: Iterable[dict[str, Any]], since: str | None, slack: float
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
    by_subject: dict[str, dict[tuple[str, str | None], str]] = {}
    for fact in facts:
        if fact["subject"] not in logged:
            continue
        key = (fact["predicate"], fact["object"])
        by_subject.setdefault(fact["subject"], {})[key] = fact["id"]
    earliest = _seconds(since)
    first: WriteLogEntry | None = None
    hits: set[str] = set()
    for subject, wanted in by_subject.items():
        for entry in log.about(subject):
            if entry.operation != "kg_add" or entry.predicate_id is None:
                continue
            ids = _ids(entry, "object")
            key = (entry.predicate_id, ids[0] if ids else None)
            result = entry.result or {}
            if key not in wanted or result.get("success") is False:
                continue
            if result.get("triple_id") not in (None, wanted[key]):
                continue
            logged = entry.seconds
            if earliest is not None and logged is not None and logged < earliest - slack:
                continue
            hits.add(wanted[key])
            if first is None or entry.line < first.line:
                first = entry
    return None if first is None else (first, len(hits) - 1)


def events_for_fact(fact: dict[str, Any], entries: list[WriteLogEntry]) -> list[dict[str, Any]]:
    """What MemPalace's logged writes did to ``fact`` (a row as ``get_fact`` returns it).

    Each event: ``{at, tool, did, what, reason, source, details}``; ``did`` is ``added`` (the
    write made this row), ``confirmed`` (an add that found the fact already open) or ``ended``
    (an invalidate or a supersede closed it); ``at`` the logged time in UTC; ``details`` the
    ``operation``, its ``params``, its outcome line's ``result`` (None when it has none) and
    the ``line`` of the intent in the log.
    """
    events: list[dict[str, Any]] = []
    for entry in entries:
        if not _about(entry, fact):
            continue
        did = _did(entry, fact)
        if did is not None:
            events.append(
                {
                    "at": entry.at,
                    "tool": "MemPalace",
                    "did": did,
                    "what": _what(entry, did),
                    "reason": None,
                    "source": "MemPalace's write log",
                    "details": {
                        "operation": entry.operation,
                        "params": entry.params,
                        "result": entry.result,
                        "line": entry.line,
                    },
                }
            )
    return events


def made(entry: WriteLogEntry, fact: dict[str, Any]) -> bool:
    """Whether the logged write made ``fact`` (an ``added`` of :func:`events_for_fact`)."""
    return _about(entry, fact) and _did(entry, fact) == "added"


def _about(entry: WriteLogEntry, fact: dict[str, Any]) -> bool:
    """The write names the fact's subject and predicate."""
    subject = entry.ids.get("subject")
    return (
        subject is not None
        and subject == fact["subject"]
        and (entry.predicate_id is not None and entry.predicate_id == fact["predicate"])
    )


def _did(entry: WriteLogEntry, fact: dict[str, Any]) -> str | None:
    """What the write did to the fact it is about (:func:`_about`): added, confirmed, ended
    or None (nothing)."""
    params, op = entry.params, entry.operation
    if op == "kg_add":
        ids = _ids(entry, "object")
        if ids is None or ids[0] != fact["object"]:
            return None
        result = entry.result or {}
        if result.get("success") is False:
            return None
        if result.get("triple_id") is not None:
            if result["triple_id"] != fact["id"]:
                return None
        elif not (
            _same(params.get("valid_from"), fact["valid_from"])
            and _same(params.get("valid_to"), fact["valid_to"])
            and _near(entry.at, _extracted(fact))
        ):
            return None
        recorded, logged = _seconds(_extracted(fact)), entry.seconds
        older = recorded is not None and logged is not None and recorded < logged - TOLERANCE
        return "confirmed" if older else "added"
    if op == "kg_invalidate":
        ids = _ids(entry, "object")
        if ids is None or ids[0] != fact["object"] or not fact["valid_to"]:
            return None
        return "ended" if _same(params.get("ended"), fact["valid_to"]) else None
    if op == "kg_supersede":
        ids = _ids(entry, "old_object", "new_object")
        if ids is None:
            return None
        at = params.get("at")
        boundary = temporal.start_key(at) if isinstance(at, str) and at else None

        def at_boundary(value: str | None) -> bool:
            if boundary is not None:
                return value == boundary
            return value is not None and len(value) == 20 and _near(value, entry.at)

        if ids[0] == fact["object"] and at_boundary(fact["valid_to"]):
            return "ended"
        if ids[1] == fact["object"] and at_boundary(fact["valid_from"]):
            return "added"
    return None


def _what(entry: WriteLogEntry, did: str) -> str:
    """The write in words (it did ``did`` to a fact)."""
    params, op = entry.params, entry.operation
    words = f"{params.get('subject')} {params.get('predicate')}"
    if op == "kg_add":
        return f"{words} {params['object']} (kg_add)"
    if op == "kg_invalidate":
        return f"{words} {params['object']} ended {params.get('ended')} (kg_invalidate)"
    old, new = params["old_object"], params["new_object"]
    if did == "ended":
        return f"{words} {old} replaced by {new} (kg_supersede)"
    return f"{words} {new} replacing {old} (kg_supersede)"
