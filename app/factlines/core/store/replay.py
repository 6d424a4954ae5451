"""Undo and redo: a recorded step's rows put back (undo) or written again (redo), over any
engine's connection (:class:`~factlines.core.store.row_writes.RowWrites`), with the rules that
keep another writer's work safe, and in short writes so that MemPalace never waits long.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, overload

from factlines.core.errors import Refused, Unavailable, WrittenSince
from factlines.core.progress import Progress, report
from factlines.core.store.changes import TRIPLES, Change, RowImage, RowPrint
from factlines.core.store.engine_connection import SQLConnection
from factlines.core.store.giving_way import HOLD_S, GiveWay

if TYPE_CHECKING:  # row_writes imports this module
    from factlines.core.store.row_writes import RowWrites

_ROW_LABEL = {"entities": "the entity", "triples": "the fact", "fl_meta": "the setting"}
# Facts first: whether an entity the step would remove is still referred to depends on them.
_REPLAY_ORDER = {"triples": 0, "entities": 1, "fl_meta": 2}
# A step of at most this many rows is undone in one write (well under 0.2 s).
ONE_WRITE = 500
# One part of a bigger undo or redo: at most this many rows, written in one transaction that
# ends once it has held the write lock giving_way.HOLD_S; then it gives way as every long write
# does (measured in bench_undo_lock.py).
PART = 5_000
# Rows written between two looks at the clock.
_CLOCK_EVERY = 50


class StepReplay:
    """One undo (``to_before``) or redo of ``change``. Another program may have written the
    graph since (MemPalace keeps writing it), so:

    - where the step would delete or end a fact and anyone else wrote the graph since the step
      (or between its own transactions), it is refused (:class:`WrittenSince`) unless
      ``force``: the other writer may have asserted that fact meanwhile, and asserting an open
      fact writes nothing, so the rows cannot tell;
    - a row already as wanted is left alone;
    - a fact or setting no longer as the change left it refuses the whole step (``conflict``):
      writing over it would throw away what the other program wrote;
    - an entity the step would remove, but which a fact outside the step now refers to (or
      which someone else rewrote), is kept and the rest of the step is carried out. The person
      undoing "Ann mentors Zoe" wants that fact gone; the entity ``zoe`` was only made on the
      way, and since MemPalace added "Zoe works_on Nova" it is MemPalace's too: deleting it
      would hide MemPalace's fact from MemPalace's own queries (they join on entities), while
      refusing would leave the person no way to take back their fact. Keeping an entity harms
      nobody: MemPalace itself never deletes one. Likewise an entity the step would create that
      exists again is taken as it is, not overwritten;
    - a fact the step would open while another writer has meanwhile opened the identical fact
      refuses the whole step: two identical open facts are what MemPalace itself never writes.

    A step of up to :data:`ONE_WRITE` rows, or one replayed inside a caller's write, is one
    write. A bigger one is checked first without the write lock (a refusal writes nothing and
    holds no lock), then written in parts (:data:`PART` rows or what fits in
    :data:`~.giving_way.HOLD_S`, giving way between them as every long write does), each its own
    transaction checking its rows again.
    All or nothing still, as a person sees it: when a part is refused or fails (a row changed
    meanwhile, another writer wrote between the parts of a step that takes facts away, a lock,
    a full disk), the parts written are put back before the error is raised; should even that
    fail, the error says so, and the same undo or redo tried again carries on where it stopped
    (rows already as wanted are left alone).

    ``change``'s rows are never modified, so the same step can be replayed later; its mark
    moves to the replay once it commits. ``within(last)`` runs inside each part's write, after
    its rows (the caller's own checks; ``last`` for the part that finishes the step).

    ``progress(done, total)`` hears how far a big step is: ``(0, 0)`` while it is being
    checked, then the rows written of all of them, after each part; returning False cancels
    (``Cancelled``) before the next part, and the parts written are put back as for a failure
    (``progress`` then hears the rows left to put back, counting down; it cannot be cancelled).
    A cancel never comes after the last part: a step replayed whole stays replayed.
    """

    def __init__(
        self,
        db: RowWrites,
        change: Change,
        to_before: bool,
        conflict: type[Refused],
        force: bool,
        within: Callable[[bool], None] | None,
        progress: Progress | None = None,
    ):
        self.db, self.change, self.to_before = db, change, to_before
        self.conflict, self.force, self.within = conflict, force, within
        self.progress = progress
        # (table, id, the row as the step left it, the row wanted), a long step's read from
        # its file as they are needed
        self.rows = _Wanted(change.in_order(_REPLAY_ORDER), to_before)
        self.verb = "undoing" if to_before else "redoing"
        # The rows the open part has written (indexes into ``rows``), to put back on failure.
        self._written: list[int] = []

    def run(self) -> None:
        db, rows = self.db, self.rows
        if db.writing or len(rows) <= ONE_WRITE:
            with db.transaction() as conn:
                self._write(conn, 0, len(rows), deadline=None)
            return
        self._check(rows[i : i + PART] for i in range(0, len(rows), PART))
        change = self.change
        saved = change.mark, change.at, change.interleaved
        done: list[list[int]] = []
        give_way = GiveWay()
        try:
            mark, start = None, 0
            report(self.progress, 0, len(rows))
            while start < len(rows):
                self._written = []
                began = time.monotonic()
                with db.transaction() as conn:
                    if mark is not None and not self.force and db.written_since(conn, mark):
                        left = (rows[n] for n in range(start, len(rows)))
                        self._refuse_between_parts(conn, left)
                    deadline = began + HOLD_S
                    end = self._write(conn, start, min(start + PART, len(rows)), deadline)
                    mark = db.write_mark(conn)
                done.append(self._written)
                start = end
                if start < len(rows):  # the lock is free: a waiting writer gets in
                    report(self.progress, start, len(rows))
                    give_way.after(began, db.settle)
        except BaseException as exc:
            change.mark, change.at, change.interleaved = saved
            if done:
                self._put_back(done, exc)
            raise

    # ── Checking ──────────────────────────────────────────────────────────

    def _check(self, parts: Iterable[list[WantedRow]]) -> None:
        """The refusals a big step meets, said before any of it is written: read part by part
        (the connection is free in between), without the write lock."""
        for part in parts:
            report(self.progress, 0, 0)
            with self.db.snapshot() as conn:
                for table, row_id, expected, wanted in part:
                    self._needs_writing(conn, table, row_id, expected, wanted)
            self.db.settle()  # its pages given back: the check holds one part's, not the cache
        if not self.force:
            with self.db.snapshot() as conn:
                refusal = self._written_since_refusal(conn)
            if refusal is not None:
                raise refusal

    def _needs_writing(
        self,
        conn: SQLConnection,
        table: str,
        row_id: str,
        expected: RowImage | None,
        wanted: RowImage | None,
    ) -> tuple[bool, RowImage | None]:
        """Whether the step writes the row (not when it is as wanted, or an entity kept), and
        the row now. Refused (``conflict``) when someone else changed it since the step."""
        current = self.db.row_image(conn, table, row_id)
        if current == wanted or _keeps_entity(
            self.db, conn, table, row_id, current, expected, wanted
        ):
            return False, current
        if current != expected:
            raise self.conflict(self._changed_since(conn, table, row_id, current or expected))
        return True, current

    def _written_since_refusal(self, conn: SQLConnection) -> Refused | None:
        change = self.change
        if (
            change.mark is not None
            and not change.interleaved
            and not self.db.written_since(conn, change.mark)
        ):
            return None
        taken = taken_facts(change, self.to_before)
        first = next(taken, None)
        if first is None:
            return None
        others = sum(1 for _ in taken)
        more = f" and {others:,} more" if others else ""
        return WrittenSince(
            f"{self.db.OTHERS} wrote the graph since this step and may have asserted "
            f"“{self._in_words(conn, first.values)}”{more}, which {self.verb} it would delete "
            "or end (asserting a fact that is already there leaves no trace in the graph); "
            "nothing was changed"
        )

    def _refuse_between_parts(self, conn: SQLConnection, left: Iterable[WantedRow]) -> None:
        """Another writer wrote between two parts: refused when what is left takes a fact away
        (the parts written are then put back)."""
        taken = next((e for t, _, e, w in left if t == TRIPLES and _opens(w, e)), None)
        if taken is not None:
            raise WrittenSince(
                f"{self.db.OTHERS} wrote the graph while this step was being "
                f"{'undone' if self.to_before else 'redone'} and may have asserted "
                f"“{self._in_words(conn, taken.values)}”, which {self.verb} it would delete "
                "or end; what was done was put back, so nothing was changed"
            )

    # ── Writing ───────────────────────────────────────────────────────────

    def _write(self, conn: SQLConnection, start: int, stop: int, deadline: float | None) -> int:
        """Write rows ``start`` to ``stop`` in the open write, or as many of them as
        ``deadline`` (monotonic seconds) leaves time for; the index after the last written."""
        db = self.db
        # Said after the rows are checked: a row changed since refuses the step for good.
        first = start == 0 and not self.force
        refusal = self._written_since_refusal(conn) if first else None
        opened: list[tuple[str, dict[str, Any]]] = []
        end = stop
        for n in range(start, stop):
            looks = n > start and not (n - start) % _CLOCK_EVERY
            if looks and deadline is not None and time.monotonic() > deadline:
                end = n
                break
            table, row_id, expected, wanted = self.rows[n]
            write, current = self._needs_writing(conn, table, row_id, expected, wanted)
            if not write:
                continue
            db.touch(conn, table, row_id)
            db.put_row(conn, table, row_id, wanted)
            self._written.append(n)
            if table == TRIPLES and wanted is not None and _opens(current, wanted):
                opened.append((row_id, wanted.values))
        for row_id, values in opened:
            if self._open_twin(conn, row_id, values):
                raise self.conflict(
                    f"“{self._in_words(conn, values)}” is already an open fact again (another "
                    f"program added it since); {self.verb} this step would make it twice, so "
                    "nothing was changed"
                )
        if refusal is not None:
            raise refusal
        if self.within is not None:
            self.within(end == len(self.rows))
        db.replayed.append(self.change)
        return end

    def _put_back(self, done: list[list[int]], failure: BaseException) -> None:
        """Write back, newest part first, the rows the parts ``done`` wrote, where each is
        still as they wrote it (a fact another writer has opened again meanwhile stays
        theirs)."""
        db = self.db
        left = sum(map(len, done))
        try:
            for part in reversed(done):
                if self.progress is not None:
                    self.progress(left, len(self.rows))
                left -= len(part)
                with db.transaction() as conn:
                    for n in reversed(part):
                        table, row_id, expected, wanted = self.rows[n]
                        if db.row_image(conn, table, row_id) != wanted:
                            continue
                        if (
                            table == TRIPLES
                            and expected is not None
                            and _opens(wanted, expected)
                            and self._open_twin(conn, row_id, expected.values)
                        ):
                            continue
                        db.touch(conn, table, row_id)
                        db.put_row(conn, table, row_id, expected)
        except (Refused, Unavailable) as exc:
            raise Unavailable(
                f"{self.verb.capitalize()} this step stopped part way ({failure}), and what it "
                f"had done could not be put back ({exc}); the step is kept: try again, it "
                "carries on where it stopped"
            ) from failure

    # ── Rules ─────────────────────────────────────────────────────────────

    def _open_twin(self, conn: SQLConnection, row_id: str, values: dict[str, Any]) -> bool:
        """Whether a fact outside the step is open with the same subject, predicate, object."""
        twins = self.db.open_ids(conn, values["subject"], values["predicate"], values["object"])
        return any(twin != row_id and not self.change.holds(TRIPLES, twin) for twin, _ in twins)

    def _changed_since(
        self, conn: SQLConnection, table: str, row_id: str, image: RowImage | None
    ) -> str:
        if table == TRIPLES and image is not None:
            what = f"the fact “{self._in_words(conn, image.values)}”"
        elif table == "entities" and image is not None:
            what = f"the entity “{image.values.get('name') or row_id}”"
        else:
            what = f"{_ROW_LABEL[table]} {row_id!r}"
        return (
            f"{what} was changed by another program since this step; nothing was changed, so "
            "as not to overwrite their edit (reload to see the graph as it is)"
        )

    def _in_words(self, conn: SQLConnection, values: dict[str, Any]) -> str:
        """A fact row as a person reads it: its entities' names and the predicate."""

        def name(eid: str | None) -> str | None:
            row = conn.execute(
                f"SELECT name FROM entities WHERE id = {self.db.MARK}", (eid,)
            ).fetchone()
            return row[0] if row and row[0] else eid

        subject, obj = name(values.get("subject")), name(values.get("object"))
        return f"{subject} {values.get('predicate')} {obj}"


# (table, id, the row as the step left it, the row wanted)
WantedRow = tuple[str, str, RowImage | None, RowImage | None]


class _Wanted(Sequence[WantedRow]):
    """A step's rows as a replay writes them: (table, id, the row as the step left it, the
    row wanted), from the change's rows in replay order (read as they are needed)."""

    def __init__(
        self, rows: Sequence[tuple[tuple[str, str], list[RowImage | None]]], to_before: bool
    ):
        self._rows, self._to_before = rows, to_before

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> WantedRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[WantedRow]: ...
    def __getitem__(self, index: int | slice) -> WantedRow | list[WantedRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        (table, row_id), (before, after) = self._rows[index]
        if self._to_before:
            return table, row_id, after, before
        return table, row_id, before, after


def _keeps_entity(
    db: RowWrites,
    conn: SQLConnection,
    table: str,
    row_id: str,
    current: RowImage | None,
    expected: RowImage | RowPrint | None,
    wanted: RowImage | None,
) -> bool:
    """Whether an entity row stays as it is although the step would remove or create it:
    removed, when a fact still refers to it or someone else rewrote it; created, when it
    exists again."""
    if table != "entities" or current is None:
        return False
    if wanted is not None:
        return expected is None
    if current != expected:
        return True
    mark = db.MARK
    used = conn.execute(
        f"SELECT 1 FROM triples WHERE subject = {mark} UNION ALL "
        f"SELECT 1 FROM triples WHERE object = {mark} LIMIT 1",
        (row_id, row_id),
    ).fetchone()
    return used is not None


def take_back(db: RowWrites, change: Change, rows_per_write: int) -> None:
    """Remove again what ``change`` wrote, for a write made of several transactions that failed
    part-way: each row goes back to its image from before, in transactions of
    ``rows_per_write`` rows (giving way to other programs' writes in between, as
    :mod:`.giving_way` says), but only while it is still exactly as the change left it: a row
    another program changed since is theirs now and stays, and so does an entity the step made
    that a fact outside it now refers to."""
    rows = change.to_take_back(_REPLAY_ORDER)
    give_way = GiveWay()
    while part := list(islice(rows, rows_per_write)):
        began = time.monotonic()
        with db.transaction() as conn:
            for (table, row_id), (before, after) in part:
                current = db.row_image(conn, table, row_id)
                if current != after or current == before:
                    continue
                if _keeps_entity(db, conn, table, row_id, current, after, before):
                    continue
                db.touch(conn, table, row_id)
                db.put_row(conn, table, row_id, before)
        give_way.after(began, db.settle)


def taken_facts(change: Change, to_before: bool) -> Iterator[RowImage]:
    """The open facts, as the step (or its last replay) left them, that undoing
    (``to_before``) or redoing it would delete, end or turn into another fact (read as they
    are asked for: a long step's are many)."""
    for (table, _row_id), (before, after) in change.items():
        current, wanted = (after, before) if to_before else (before, after)
        if table == TRIPLES and _opens(wanted, current):
            yield current


def _opens(current: RowImage | None, wanted: RowImage | None) -> bool:
    """Whether writing ``wanted`` over ``current`` opens a fact (subject, predicate, object)
    that was not open as this row before."""
    if wanted is None or wanted.values.get("valid_to") is not None:
        return False
    if current is None or current.values.get("valid_to") is not None:
        return True
    keys = ("subject", "predicate", "object")
    return any(current.values.get(k) != wanted.values.get(k) for k in keys)
