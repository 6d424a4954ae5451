"""Who changed a fact, and why: Factlines' own edit log and MemPalace's write log, joined.

Edits made in Factlines are logged when the app's command runs them inside :meth:`logged`
(``with kg.logged("End Kai works_on Nova", reason="left the team"): kg.end_fact(...)``): one
entry, written in the edit's own transaction, with the rows as they were and as they became.
MemPalace logs its own agents' writes in ``<config folder>/wal/write_log.jsonl``
(:mod:`factlines.core.mempalace_log`). :meth:`fact_history` tells one fact's story from both.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Iterable
from contextlib import contextmanager, nullcontext
from itertools import islice
from typing import Any, TypeVar

from factlines.core import temporal
from factlines.core.collector import collector_paused
from factlines.core.errors import Refused, WrittenSince
from factlines.core.mempalace_log import WriteLog, asserted_since, events_for_fact
from factlines.core.mempalace_paths import mempalace_write_log
from factlines.core.progress import Progress
from factlines.core.store.changes import Change
from factlines.core.store.giving_way import HOLD_S, GiveWay
from factlines.core.store.protocol import MEMPALACE_WAIT, GraphStore
from factlines.core.store.replay import taken_facts
from factlines.core.store.wiring import Part, writes

TOOL = "factlines"
T = TypeVar("T")
_HISTORY_LIMIT = 10_000
# Within one second (the clocks' resolution), events in the order a fact lives them.
_LIFE = {"recorded": 0, "added": 1, "confirmed": 2, "changed": 3, "ended": 4, "deleted": 5}


class EditHistory(Part):
    """Writes as one logged step or as short transactions, undo and redo, and who did what."""

    def __init__(self, store: GraphStore):
        super().__init__(store)
        self._logging = False  # inside a logged block
        self._give_way: GiveWay | None = None  # inside a batched block: its lock time
        self._write_log: WriteLog | None = None  # MemPalace's, read once it is asked for

    @writes
    @contextmanager
    def logged(self, what: str, reason: str | None = None) -> Generator[None, None, None]:
        """Run the block as one write and log it in Factlines' edit log, in the same write:
        ``what`` (the undo step's words), ``reason`` (optional, the person's why), the time
        (UTC) and every row the block wrote, before and after. Works inside
        :meth:`recording` (the log entry itself is not part of the undo step). Nothing is
        logged when the block changed nothing, and nothing at all when it fails. A logged
        block inside another (an edit that logs itself, run by a command that logs) is part of
        the outer one's entry."""
        entry = _entry(what, reason)
        self._store.refuse_writes()
        with self._store.transaction():  # holds the lock: no other thread logs meanwhile
            if self._logging:
                yield
                return
            self._logging = True
            try:
                with self._store.recording() as change:
                    yield
                    entry["at"] = temporal.now_instant()
                    self._store.edit_log.write(entry, change)
            finally:
                self._logging = False

    @writes
    @contextmanager
    def batched(
        self, what: str | None = None, reason: str | None = None
    ) -> Generator[None, None, None]:
        """Run the block as one write made of several short transactions (each of its
        :meth:`batch` blocks, and each write outside one), so that other programs write in
        between and none waits long; all or nothing still, as far as their writes allow:
        when the block fails (a refusal, a lock, a cancel), what its transactions wrote is
        taken back, each row only while it is still exactly as written (a row another program
        changed since is left as they made it). With ``what``, the block is logged as one
        entry of the edit log (:meth:`logged`'s), written in a last short transaction whose
        failure takes the block back too. Works inside :meth:`recording` (one undo step);
        inside a caller's transaction it is part of that write (and of its log entry)."""
        entry = _entry(what, reason) if what is not None else None
        self._store.refuse_writes()
        with self._store.lock:  # (the recording holds it too) no other thread writes between
            if self._store.writing:  # part of the caller's write: all or nothing with it
                with self.logged(what, reason) if what is not None else nullcontext():
                    yield
                return
            change, outer = None, self._give_way
            self._give_way = GiveWay()
            try:
                with self._store.recording() as change:
                    # Never undone: only taken back, or read for the edit log's entry.
                    change.compact = entry is None
                    yield
                    if entry is not None:
                        self._log_committed({**entry, "at": temporal.now_instant()}, change)
            except BaseException:
                if change is not None:
                    self._store.take_back(change)
                raise
            finally:
                self._give_way = outer

    def _log_committed(self, entry: dict[str, Any], change: Change) -> None:
        """Log a batched block's rows: the entry made without the lock, then written."""
        logged = self._store.edit_log.committed(entry, change)
        if logged is not None:
            with self.batch():
                self._store.edit_log.append([logged])

    @contextmanager
    def batch(self) -> Generator[None, None, None]:
        """One of a :meth:`batched` block's transactions (elsewhere, just a transaction):
        after it, the block gives way to other programs' writes once it has held the write
        lock long enough (:mod:`~factlines.core.store.giving_way`)."""
        give_way = self._give_way
        began = time.monotonic()
        with self._store.transaction():
            yield
        if give_way is not None:
            give_way.after(began, self._store.settle)

    def write_in_parts(
        self,
        parts: Iterable[T],
        write: Callable[[T], None],
        written: Callable[[T], None] = lambda _part: None,
    ) -> None:
        """Call ``write(part)`` for each of ``parts`` (a list or a stream), several to one
        transaction while it has held the write lock under
        :data:`~factlines.core.store.giving_way.HOLD_S` (a commit costs a flush to disk: one
        per part would be slow), each transaction one of a :meth:`batched` block's; then
        ``written(part)`` for each, once its transaction is committed (outside it: progress
        and cancel, another program's write)."""
        parts = iter(parts)
        ahead: list[T] = []
        fitted = 1  # the parts the last transaction wrote in its time
        while True:
            # Read (a file, another graph) before the transaction as much as the last one
            # wrote, not while holding the lock that MemPalace waits for.
            ahead += islice(parts, max(1, fitted - len(ahead)))
            if not ahead:
                return
            done: list[T] = []
            with self.batch():
                began = time.monotonic()
                while not done or time.monotonic() - began < HOLD_S:
                    if ahead:
                        part = ahead.pop(0)
                    else:
                        try:
                            part = next(parts)
                        except StopIteration:
                            break
                    write(part)
                    done.append(part)
            fitted = len(done)
            for each in done:
                written(each)

    def edit_log(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """Factlines' logged edits, newest first: ``{id, at, what, reason, tool, facts,
        entities, rows_total, before, after}``; ``before``/``after`` list ``{table, id, row}``
        (``row`` None: no such row), for at most the first 200 rows of a large edit, whose
        ``rows_total`` says how many it wrote."""
        return self._store.edit_log.read(None, max(1, int(limit)), max(0, int(offset)))

    @writes
    def add_edit_log_entries(self, entries: list[dict[str, Any]]) -> None:
        """Add another graph's logged edits (as :meth:`edit_log` gives them, oldest first)
        after this graph's own, unchanged: for a copy of that graph, whose rows they are
        about. One write (or part of the caller's)."""
        with self._store.transaction():
            self._store.edit_log.append(list(entries))

    def mempalace_write_log(self) -> WriteLog:
        """MemPalace's write log where MemPalace itself would write it (it may not exist)."""
        if self._write_log is None:
            self._write_log = WriteLog.shared(mempalace_write_log())
        return self._write_log

    def replay_step(
        self,
        change: Change,
        to_before: bool,
        force: bool,
        log: str | None,
        progress: Progress | None = None,
    ) -> None:
        """Undo (``to_before``) or redo ``change`` (a big one in short writes, see
        :mod:`~factlines.core.store.replay`, which says what ``progress`` hears), logged as
        ``log`` in the write that finishes it.
        Refused first when MemPalace's write log shows an add of a fact it would take away:
        read before the write, and again inside each part when MemPalace logged more
        meanwhile (its intent is logged before it waits for the lock)."""
        # A big step's images, the facts it takes away, and the recording for the edit log:
        # hundreds of thousands of objects, none in a cycle. The collector's full passes over
        # them held the interpreter's lock 0.5-0.8 s at a time at 150k rows, inside a part's
        # write (MemPalace waited) and, in the window, keeping the UI thread from running.
        with collector_paused():
            self._replay_step(change, to_before, force, log, progress)

    def _replay_step(
        self,
        change: Change,
        to_before: bool,
        force: bool,
        log: str | None,
        progress: Progress | None,
    ) -> None:
        entry = _entry(log, None) if log is not None else None
        if self._logging:
            entry = None  # part of the surrounding entry
        self._store.refuse_writes()
        write_log = self.mempalace_write_log()
        if not force:
            self.refuse_when_asserted_since(change, to_before)
        read = [write_log.lines()]

        def within(last: bool) -> None:
            if not force and write_log.lines() != read[0]:
                self.refuse_when_asserted_since(change, to_before)
                read[0] = write_log.lines()
            if last and entry is not None:
                entry["at"] = temporal.now_instant()
                self._store.edit_log.write(entry, recorded)

        replay = self._store.revert if to_before else self._store.reapply
        with self._store.recording() if entry is not None else nullcontext() as recorded:
            replay(change, force=force, within=within, progress=progress)

    def refuse_when_asserted_since(self, change: Change, to_before: bool) -> None:
        """Refuse (:class:`WrittenSince`) to undo (``to_before``) or redo ``change`` when
        MemPalace's write log shows a ``kg_add`` of a fact that would be deleted or ended, since
        the step (or its last undo or redo) committed: MemPalace found it open and relies on
        it, though its write left no trace in the graph. An add logged up to MemPalace's wait
        before counts: its intent is logged before it waits for the lock."""
        taken = (image.values for image in taken_facts(change, to_before))
        found = asserted_since(self.mempalace_write_log(), taken, change.at, MEMPALACE_WAIT)
        if found is not None:
            entry, more = found
            params = entry.params
            words = f"{params['subject']} {params['predicate']} {params['object']}"
            also = f" (and {more:,} more of its facts)" if more else ""
            verb = "undoing" if to_before else "redoing"
            raise WrittenSince(
                f"MemPalace asserted “{words}” since this step (its write log, at "
                f"{entry.at or entry.logged_at}){also}; {verb} it would delete or end that "
                "fact, which MemPalace relies on, so nothing was changed"
            )

    def fact_history(
        self, triple_id: str, write_log: WriteLog | str | os.PathLike[str] | None = None
    ) -> list[dict[str, Any]]:
        """The story of one fact, oldest first: each event ``{at, tool, did, what, reason,
        source, details}``.

        - ``recorded``: the row itself (``at`` its extracted_at, ``tool`` its adapter_name);
        - from Factlines' edit log (``tool`` ``Factlines``): ``added``, ``ended``, ``changed``
          or ``deleted``, with ``what`` and ``reason`` as logged and ``details`` holding the
          row ``before`` and ``after``;
        - from MemPalace's write log (``tool`` ``MemPalace``; ``write_log`` a path or a
          :class:`~factlines.core.mempalace_log.WriteLog`, default MemPalace's own):
          ``added``, ``confirmed`` or ``ended``, ``details`` holding the operation, its params
          and its line in the log.

        ``at`` is a UTC instant (None when not known). A deleted fact keeps its story from
        Factlines' log.
        """
        # Checked at run time: a caller outside the type checker may pass any id.
        is_text = isinstance(triple_id, str)  # pyright: ignore[reportUnnecessaryIsInstance]
        fact = self._store.facts.get(triple_id) if is_text else None
        entries = self._store.edit_log.read(triple_id, _HISTORY_LIMIT, 0)
        events = [_edit_event(entry, triple_id) for entry in reversed(entries)]
        known = fact or _last_image(entries, triple_id)
        if known is not None:
            if fact is not None:
                events.insert(0, _recorded(fact))
            if isinstance(write_log, WriteLog):
                log = write_log
            elif write_log is not None:
                log = WriteLog.shared(write_log)
            else:
                log = self.mempalace_write_log()
            events += events_for_fact(_with_defaults(known), log.about(known["subject"]))
        events.sort(key=lambda event: (event["at"] or "", _LIFE[event["did"]]))
        return events


def _recorded(fact: dict[str, Any]) -> dict[str, Any]:
    stamp = fact.get("extracted_at")
    at = stamp.replace(" ", "T") + "Z" if isinstance(stamp, str) and len(stamp) == 19 else None
    return {
        "at": at,
        "tool": fact.get("adapter_name"),
        "did": "recorded",
        "what": "the fact was recorded",
        "reason": None,
        "source": "the fact's row",
        "details": {
            key: fact.get(key) for key in ("source_closet", "source_file", "source_drawer_id")
        },
    }


def _images(
    entry: dict[str, Any], triple_id: str
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, bool]:
    def find(images: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, bool]:
        for image in images:
            if image["table"] == "triples" and image["id"] == triple_id:
                return image["row"], True
        return None, False

    before, seen = find(entry["before"])
    after, _ = find(entry["after"])
    return before, after, seen


def _edit_event(entry: dict[str, Any], triple_id: str) -> dict[str, Any]:
    before, after, seen = _images(entry, triple_id)
    if not seen:
        did = "changed"
    elif before is None:
        did = "added"
    elif after is None:
        did = "deleted"
    elif before.get("valid_to") is None and after.get("valid_to") is not None:
        did = "ended"
    else:
        did = "changed"
    return {
        "at": entry["at"],
        "tool": "Factlines",
        "did": did,
        "what": entry["what"],
        "reason": entry["reason"],
        "source": "Factlines' edit log",
        "details": {"before": before, "after": after, "entry": entry["id"]},
    }


def _last_image(entries: list[dict[str, Any]], triple_id: str) -> dict[str, Any] | None:
    """The fact as the newest logged edit saw it last (for a fact deleted since)."""
    for entry in entries:  # newest first
        before, after, seen = _images(entry, triple_id)
        if seen:
            return after or before
    return None


def _with_defaults(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row.get("id"),
        "subject": row.get("subject"),
        "predicate": row.get("predicate"),
        "object": row.get("object"),
        "valid_from": row.get("valid_from"),
        "valid_to": row.get("valid_to"),
        "extracted_at": row.get("extracted_at"),
    }


def _entry(what: object, reason: object) -> dict[str, Any]:
    """An edit log entry's words, checked: what the edit does, and the person's why."""
    if not isinstance(what, str) or not what.strip():
        raise Refused("an edit needs words saying what it does")
    if reason is not None and not isinstance(reason, str):
        raise Refused("a reason must be text")
    return {"what": what.strip(), "reason": (reason or "").strip() or None, "tool": TOOL}
