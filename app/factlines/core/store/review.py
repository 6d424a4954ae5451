"""What was recorded in the graph since the person last looked: the review inbox's reads, and
the mark of how far they have reviewed (kept in the graph, per PostgreSQL role).

Three records say when something was written: a fact's own ``extracted_at`` (when it was
added), Factlines' edit log (what the app's edits ended, and who made them) and MemPalace's
write log (what its tools added and ended). :meth:`GraphReview.recorded_since` joins them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

from factlines.core import temporal
from factlines.core.collector import collector_paused
from factlines.core.errors import Refused
from factlines.core.mempalace_log import WriteLog, WriteLogEntry, events_for_fact, made
from factlines.core.store.edit_history import EditHistory
from factlines.core.store.protocol import GraphStore
from factlines.core.store.rows import FACT_FIELDS, fact_dict
from factlines.core.store.wiring import Part, writes
from factlines.core.turns import let_go, sort_in_turns

REVIEWED = "reviewed_up_to"
KEPT = "review_kept"
# Never reviewed: the inbox starts this long before now (everything would be the whole graph).
FIRST_REVIEW_DAYS = 7
_LOG_PAGE = 500
# Past this many facts recorded in the span, the inbox's summary reads only the rows it shows.
LEAN_FROM = 20_000
_NOT_A_FACT_KEY = ("direction", "other", "other_name")
# MemPalace's extracted_at: a day (checked apart) and a time of day that exists.
# Where a fact row holds when it was recorded and by which tool: by name, as a column MemPalace
# adds would come after them.
_RECORDED, _TOOL = FACT_FIELDS.index("extracted_at"), FACT_FIELDS.index("adapter_name")
_STAMP = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}) (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]")


def recorded_instant(stamp: object) -> str | None:
    """MemPalace's ``extracted_at`` (``YYYY-MM-DD HH:MM:SS``, UTC) as an instant; None when
    the stamp has another form or names no real day or time (nothing then says when the fact
    was recorded). Read for every row of a span: a week of a big graph is tens of thousands."""
    if not isinstance(stamp, str):
        return None
    match = _STAMP.fullmatch(stamp)
    if match is None or not _is_day(match[1]):
        return None
    return f"{match[1]}T{stamp[11:]}Z"


@lru_cache(maxsize=1024)
def _is_day(day: str) -> bool:
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return True


def review_key(item: dict[str, Any]) -> str:
    """One row of the inbox, as the mark of a row kept (reviewed) remembers it."""
    return f"{item['kind']} {item['fact']['id']} {item['recorded_at']}"


class GraphReview(Part):
    """What was recorded since the person last looked, and how far they reviewed."""

    def __init__(self, store: GraphStore, log: EditHistory):
        super().__init__(store)
        self._log = log

    def recorded_since(
        self,
        instant: str,
        until: str | None = None,
        *,
        write_log: WriteLog | str | os.PathLike[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Everything recorded after ``instant`` (an as_of value: a day is its first second)
        and, when given, up to ``until`` (included), newest first (then ``ended`` before
        ``added``, then by fact id, descending). Each ``{kind, fact, recorded_at, by}``:

        - ``added``: a fact whose ``extracted_at`` is in the span; ``by`` is ``Factlines``
          (``Factlines (role)`` on PostgreSQL) when Factlines' edit log shows the app adding
          it, ``MemPalace`` when MemPalace's write log does, else the row's ``adapter_name``;
        - ``ended``: an end written in the span, as Factlines' edit log (an entry whose image
          of the fact goes from open to ended; the first 200 rows of a large edit) or
          MemPalace's write log (``kg_invalidate``, ``kg_supersede``, contract §9.2) shows it.

        ``fact`` is the fact as it is now (as :meth:`get_fact` gives it; a fact deleted since
        its end, as the edit log saw it last); ``recorded_at`` a UTC instant; ``by`` a string,
        or None when nothing says who. ``write_log``: MemPalace's write log (a path or a
        :class:`~factlines.core.mempalace_log.WriteLog`), by default MemPalace's own.
        """
        since = _key(instant, "instant")
        last = _key(until, "until") if until is not None else None
        if last is not None and last <= since:
            raise Refused(f"until={until!r} is not after instant={instant!r}")

        def within(at: str | None) -> bool:
            return at is not None and since < at and (last is None or at <= last)

        # A dict per row, none in a cycle: the collector walking the whole heap meanwhile held
        # the interpreter's lock 70-170 ms at the 1M window's start-up (its UI thread waited).
        with collector_paused():
            added = self._added(since, last)
            ended = self._ended_by_factlines(since, within, added)
            logged = _write_log(self._log, write_log).between(since, last)
            ended += self._seen_in_write_log(logged, added)
        found = [*added.values(), *ended]
        # Ids as text: a file may hold a NULL or a BLOB id. One string per row, not a tuple:
        # comparing 90,000 tuples (a week of a busy graph: a few instants, then ids) held the
        # interpreter's lock, and a window reading this on a worker, for 0.2-0.5 s; strings
        # compare in a few ms. In turns: a graph of 1,000,000 facts imported this week is
        # that many rows (one sort held the lock ~0.7 s).
        sort_in_turns(found, key=_order)
        found.reverse()
        return found

    def _added(self, since: str, last: str | None) -> dict[str, dict[str, Any]]:
        """The ``added`` items by fact id: the facts whose ``extracted_at`` is in the span.
        One pass over the span's rows, a dict made only for a row kept (a week of a 1M graph
        is 20,000-40,000 rows: a microsecond a row is a tenth of the 0.2 s it may take)."""
        added: dict[str, dict[str, Any]] = {}
        rows = self._store.facts.recorded_between(_stamp(since), _stamp(last) if last else None)
        for row in rows:
            at = recorded_instant(row[_RECORDED])
            if at is not None and since < at and (last is None or at <= last):
                added[row[0]] = _item("added", fact_dict(row), at, row[_TOOL] or None)
        return added

    def _ended_by_factlines(
        self, since: str, within: Callable[[str], bool], added: dict[str, dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The ends Factlines' edit log shows in the span; who added the facts it added."""
        ended: list[dict[str, Any]] = []
        for entry in self._edit_log_after(since):
            if not within(entry["at"]):
                continue
            by = f"Factlines ({entry['who']})" if entry.get("who") else "Factlines"
            before = {i["id"]: i["row"] for i in entry["before"] if i["table"] == "triples"}
            for image in entry["after"]:
                tid, row = image["id"], image["row"]
                if image["table"] != "triples" or row is None:
                    continue
                was = before.get(tid)
                if was is None and tid in added:
                    added[tid]["by"] = by
                elif was is not None and was.get("valid_to") is None and row.get("valid_to"):
                    fact = self._store.facts.get(tid) or dict(row)
                    ended.append(_item("ended", fact, entry["at"], by))
        return ended

    def _edit_log_after(self, since: str) -> Iterator[dict[str, Any]]:
        """Factlines' edit log, newest first, back to the first entry at or before ``since``
        (its entries are in the order they were written, and so in time order)."""
        offset = 0
        while page := self._store.edit_log.read(None, _LOG_PAGE, offset):
            for entry in page:
                if entry["at"] <= since:
                    return
                yield entry
            offset += len(page)

    def _seen_in_write_log(
        self, logged: list[WriteLogEntry], added: dict[str, dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The ends MemPalace's write log shows in the span (``logged``: its entries there);
        the facts added in the span that it shows it adding."""
        _told_added(logged, added)
        by_subject: dict[str | None, list[WriteLogEntry]] = {}
        for entry in logged:
            if entry.operation != "kg_add":  # an add ends nothing: a week of adds is 20,000
                by_subject.setdefault(_subject_id(entry), []).append(entry)
        by_subject.pop(None, None)
        ended: list[dict[str, Any]] = []
        for subject, entries in by_subject.items():
            for fact in self._store.facts.of_entity(subject, None, None):
                if fact["subject"] != subject:
                    continue
                for key in _NOT_A_FACT_KEY:
                    fact.pop(key, None)
                recorded = recorded_instant(fact["extracted_at"])
                for event in events_for_fact(fact, entries):
                    if event["did"] != "ended":
                        continue
                    if recorded is not None and event["at"] < recorded:
                        continue  # logged before the fact was recorded: another fact's end
                    ended.append(_item("ended", fact, event["at"], "MemPalace"))
        return ended

    # ── How far the person has reviewed ───────────────────────────────────

    def reviewed_up_to(self) -> str | None:
        """The instant up to which this person reviewed what was recorded (None: never); kept
        in the graph (per PostgreSQL role: each person of a team has their own)."""
        return self._store.get_meta(_own(self._store, REVIEWED))

    def review_since(self) -> str:
        """Where the inbox starts: :meth:`reviewed_up_to`, or a week before now when never."""
        mark = self.reviewed_up_to()
        if mark is not None:
            return mark
        week_ago = datetime.now(timezone.utc) - timedelta(days=FIRST_REVIEW_DAYS)
        return week_ago.strftime("%Y-%m-%dT%H:%M:%SZ")

    def waiting_for_review(
        self, write_log: WriteLog | str | os.PathLike[str] | None = None
    ) -> list[dict[str, Any]]:
        """What :meth:`recorded_since` gives from :meth:`review_since` on, but the rows kept
        (:meth:`keep_reviewed`) already."""
        kept = set(self._kept())
        found = self.recorded_since(self.review_since(), write_log=write_log)
        return [item for item in found if review_key(item) not in kept]

    def waiting_summary(
        self,
        shown: int,
        later_than: str,
        write_log: WriteLog | str | os.PathLike[str] | None = None,
    ) -> dict[str, Any]:
        """:meth:`waiting_for_review` summed up: ``items``, its first ``shown`` rows;
        ``total`` and ``added``, how many rows it has and how many of them are ``added``;
        ``later``, its rows recorded after ``later_than`` (an instant). Past
        :data:`LEAN_FROM` facts recorded since the inbox starts, no row is read but those
        (a million facts imported this week took 18 s and 1.6 GB to read whole)."""
        since = _key(self.review_since(), "instant")
        later = _key(later_than, "later_than")
        recorded = sum(
            count
            for stamp, count in self._store.facts.recorded_counts(_stamp(since))
            if (at := recorded_instant(stamp)) is not None and at > since
        )
        if recorded < LEAN_FROM:
            waiting = self.waiting_for_review(write_log)
            summary = {
                "items": waiting[:shown],
                "total": len(waiting),
                "added": sum(1 for item in waiting if item["kind"] == "added"),
                "later": [item for item in waiting if item["recorded_at"] > later],
            }
            let_go(waiting)  # freed in turns: the interpreter's lock is let go between them
            return summary
        kept = set(self._kept())
        with collector_paused():
            added = self._newest_added(since, shown + len(kept))
            added.update(self._added(max(since, later), None))
            ended = self._ended_by_factlines(since, lambda at: since < at, added)
            logged = _write_log(self._log, write_log).between(since, None)
            ended += self._seen_in_write_log(logged, added)
        waiting = [item for item in [*added.values(), *ended] if review_key(item) not in kept]
        waiting.sort(key=_order, reverse=True)
        in_span = recorded - self._kept_added(kept, since)
        return {
            "items": waiting[:shown],
            "total": in_span + sum(1 for item in waiting if item["kind"] == "ended"),
            "added": in_span,
            "later": [item for item in waiting if item["recorded_at"] > later],
        }

    def _newest_added(self, since: str, wanted: int) -> dict[str, dict[str, Any]]:
        """The ``added`` items of the ``wanted`` facts recorded last after ``since`` (stamps
        of another form read past, a read twice as long each time), by fact id."""
        limit = wanted
        while True:
            rows = self._store.facts.newest_recorded(_stamp(since), limit)
            added: dict[str, dict[str, Any]] = {}
            for row in rows:
                at = recorded_instant(row[_RECORDED])
                if at is not None and since < at:
                    added[row[0]] = _item("added", fact_dict(row), at, row[_TOOL] or None)
            if len(added) >= wanted or len(rows) < limit:
                newest = sorted(added.values(), key=_order, reverse=True)[:wanted]
                return {item["fact"]["id"]: item for item in newest}
            limit *= 2

    def _kept_added(self, kept: set[str], since: str) -> int:
        """How many of the facts recorded after ``since`` were kept one by one (``kept``:
        their review keys)."""
        found = 0
        for key in kept:
            kind, _, rest = key.partition(" ")
            tid, _, at = rest.rpartition(" ")
            if kind != "added" or not since < at:
                continue
            fact = self._store.facts.get(tid)
            found += fact is not None and recorded_instant(fact["extracted_at"]) == at
        return found

    @writes
    def mark_reviewed(self, up_to: str) -> None:
        """Everything recorded up to ``up_to`` (an instant) is reviewed: the inbox starts after
        it; rows kept one by one up to it are forgotten (the mark covers them)."""
        mark = _key(up_to, "up_to")
        with self._store.transaction():
            kept = [key for key in self._kept() if key.rsplit(" ", 1)[-1] > mark]
            self._store.set_meta(_own(self._store, REVIEWED), mark)
            self._store.set_meta(_own(self._store, KEPT), json.dumps(kept) if kept else None)

    @writes
    def keep_reviewed(self, items: list[dict[str, Any]]) -> None:
        """These rows of the inbox are reviewed (kept as they are): they leave it."""
        with self._store.transaction():  # read inside the write: another client's stay
            kept = set(self._kept()) | {review_key(item) for item in items}
            self._store.set_meta(_own(self._store, KEPT), json.dumps(sorted(kept)))

    def _kept(self) -> list[str]:
        value = self._store.get_meta(_own(self._store, KEPT))
        return json.loads(value) if value else []


def _own(store: object, key: str) -> str:
    """A setting of this person's: on PostgreSQL, of the role the graph is opened as."""
    role = getattr(store, "role", None)  # only a server's store has roles
    return f"{key}:{role}" if role else key


def _key(value: object, field: str) -> str:
    parsed = temporal.parse(value, field)
    if parsed is None:
        raise Refused(f"{field} must be a day or an instant, not {value!r}")
    return temporal.start_key(parsed)


def _stamp(instant: str) -> str:
    """An instant in MemPalace's ``extracted_at`` form."""
    return instant[:10] + " " + instant[11:19]


def _order(item: dict[str, Any]) -> str:
    """The inbox's order (last first, reversed): instant, then kind, then fact id."""
    return f"{item['recorded_at']}\0{item['kind']}\0{item['fact']['id']}"


def _item(kind: str, fact: dict[str, Any], at: str, by: str | None) -> dict[str, Any]:
    return {"kind": kind, "fact": fact, "recorded_at": at, "by": by}


def _told_added(logged: list[WriteLogEntry], added: dict[str, dict[str, Any]]) -> None:
    """``by`` is MemPalace for each fact added in the span that a logged write in the span
    shows it adding (a ``kg_add`` of it, or a ``kg_supersede`` whose new object it is): each
    write held against the facts of its subject, predicate and object only."""
    making = [entry for entry in logged if entry.operation != "kg_invalidate"]
    if not making:
        return  # the facts need no index (a week of a big graph: 20,000 of them)
    by_key: dict[tuple[Any, Any, Any], list[dict[str, Any]]] = {}
    for item in added.values():
        fact = item["fact"]
        by_key.setdefault((fact["subject"], fact["predicate"], fact["object"]), []).append(fact)
    for entry in making:
        ids = entry.ids
        made_id = ids.get("new_object" if entry.operation == "kg_supersede" else "object")
        if made_id is None or "subject" not in ids:
            continue
        key = (ids["subject"], entry.predicate_id, made_id)
        for fact in by_key.get(key, ()):
            item = added[fact["id"]]
            if item["by"] != "MemPalace" and made(entry, fact):
                item["by"] = "MemPalace"


def _subject_id(entry: WriteLogEntry) -> str | None:
    return entry.ids.get("subject")


def _write_log(log: EditHistory, write_log: WriteLog | str | os.PathLike[str] | None) -> WriteLog:
    if isinstance(write_log, WriteLog):
        return write_log
    return WriteLog.shared(write_log) if write_log is not None else log.mempalace_write_log()
