"""What every engine's connection does around its writes, whatever its SQL dialect: note the
rows a write touches (ids for listeners, images for recordings), and replay a recorded change
(undo and redo, :mod:`factlines.core.store.replay`).

An engine's connection subclasses :class:`RowWrites` and supplies its transaction, its
parameter marker (:attr:`RowWrites.MARK`), and how a row's image is read and put back (where it
keeps rows at a physical position, the image carries it).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.progress import Progress
from factlines.core.store.changes import TRIPLES, Change, RowImage, RowPrint, Touched
from factlines.core.store.replay import StepReplay, take_back

KEY_COLUMN = {"entities": "id", "triples": "id", "fl_meta": "key"}
_FIRST = object()  # a row a recording notes for the first time (it had no "after" yet)


class RowWrites:
    """Recordings, listeners and replay over an engine's connection (see the module)."""

    # The engine's parameter marker in SQL (``?`` for sqlite3, ``%s`` for psycopg).
    MARK: str = "?"
    # Who else writes the graph, as a refusal names them.
    OTHERS: str = "another program"

    def __init__(self) -> None:
        self._depth = 0
        self._recorders: list[Change] = []
        # The rows the open write added to each recording (a long recording's earlier writes
        # are not walked again at every commit).
        self._recorded_now: list[tuple[Change, tuple[str, str], object]] = []
        self._touched = Touched.noting_before()
        self.listeners: list[Callable[[Touched], None]] = []
        # The steps this write replays, and each step's mark once it commits.
        self.replayed: list[Change] = []
        self._marks: list[tuple[Change, object, bool]] = []
        # Writes made past the store on this connection (MemPalace's code on ``kg._conn()``).
        self.unknown_writes = 0

    # ── What the engine supplies ──────────────────────────────────────────

    lock: AbstractContextManager[Any]  # held by every read and write of the connection

    def transaction(self, wait: float | None = None) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def snapshot(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def row_image(self, conn: Any, table: str, row_id: str) -> RowImage | None:
        raise NotImplementedError

    def put_row(self, conn: Any, table: str, row_id: str, image: RowImage | None) -> None:
        raise NotImplementedError

    def write_mark(self, conn: Any) -> object:
        """Inside a write: a mark of where the graph stands as to other writers' writes."""
        raise NotImplementedError

    def written_since(self, conn: Any, mark: object) -> bool:
        """Inside a write: whether anyone but this connection wrote the graph since ``mark``."""
        raise NotImplementedError

    def open_ids(self, conn: Any, sid: str, pred: str, oid: str) -> list[tuple[Any, ...]]:
        """(id, valid_from) of the open facts (subject, predicate, object); an engine may
        steer its planner to a better index."""
        mark = self.MARK
        return conn.execute(
            f"SELECT id, valid_from FROM triples WHERE subject = {mark} AND predicate = {mark} "
            f"AND object = {mark} AND valid_to IS NULL",
            (sid, pred, oid),
        ).fetchall()

    def settle(self) -> None:
        """Between the transactions of a long write: put what they wrote where the engine
        keeps it for good, outside any lock, so that another program's next commit does not
        do that work (and wait on it). Nothing to do for an engine without such a step."""

    # ── Noting writes ─────────────────────────────────────────────────────

    @property
    def writing(self) -> bool:
        """Whether a write transaction of this connection is open."""
        return self._depth > 0

    def _tell(self, touched: Touched) -> None:
        for listener in list(self.listeners):
            listener(touched)

    def note_unknown_write(self) -> None:
        """Rows were written past the store (raw SQL): tell listeners that anything may have
        changed, at the end of the write it joined or now. For undo, it is another writer's."""
        self.unknown_writes += 1
        if self._depth:
            self._touched.everything = True
            return
        self._tell(Touched.all_rows())

    def note_assertion(self) -> None:
        """Inside a write: an add found its fact already open and wrote nothing. Where the
        engine can count it as a write (a server's clients are all Factlines), it does, so
        another client's undo knows someone may rely on that fact."""

    def touch(self, conn: Any, table: str, row_id: str, new: bool = False) -> None:
        """Note a row about to be written: its id for the listeners, its image for recordings
        (``new``: the row is about to be inserted, so there is none to read)."""
        self._touched.add(table, row_id)
        image = before = None
        key = (table, row_id)
        read = False
        for change in self._recorders:
            if key not in change.rows:
                if image is None:
                    image = [None if new else self.row_image(conn, table, row_id)]
                change.rows[key] = [image[0], None]
                change.pending.add(key)
                self._recorded_now.append((change, key, _FIRST))
            before_now, after = change.rows[key]
            now = before_now if key in change.pending else after
            if key not in change.pending:
                # Written by an earlier transaction of the recording: the row now is its
                # "after", read again when this one commits (kept, should it roll back).
                change.pending.add(key)
                self._recorded_now.append((change, key, after))
            if not isinstance(now, RowPrint):
                before, read = now, True
        if table == TRIPLES:
            # Only a recorded write reads the row before writing it: else it is not known.
            self._touched.note_before(row_id, before, read=read)

    @contextmanager
    def recording(self) -> Generator[Change, None, None]:
        """Record the row images of every write inside the block, for :meth:`replay`."""
        change = Change()
        with self.lock:
            self._recorders.append(change)
            try:
                yield change
            finally:
                self._recorders.remove(change)

    def _forget_uncommitted(self) -> None:
        for change, key, earlier in self._recorded_now:
            if key in change.pending:
                change.pending.discard(key)
                if earlier is _FIRST:
                    del change.rows[key]
                else:
                    change.rows[key][1] = earlier
        self._recorded_now = []
        self._touched = Touched.noting_before()
        self.replayed, self._marks = [], []

    def _row_images(self, conn: Any, table: str, row_ids: list[str]) -> dict[str, RowImage]:
        """The images of many rows of ``table`` by id (a row not there is left out); an engine
        may read them in fewer statements."""
        images = {row_id: self.row_image(conn, table, row_id) for row_id in row_ids}
        return {row_id: image for row_id, image in images.items() if image is not None}

    def _fill_after_images(self, conn: Any) -> None:
        """Before the commit: each recording's rows as the write leaves them, and where the
        graph stands for each step written or replayed here."""
        wanted: dict[str, set[str]] = {}
        for change, (table, row_id), _ in self._recorded_now:
            if (table, row_id) in change.pending:
                wanted.setdefault(table, set()).add(row_id)
        now = {table: self._row_images(conn, table, list(ids)) for table, ids in wanted.items()}
        for change, (table, row_id), _ in self._recorded_now:
            if (table, row_id) in change.pending:
                change.pending.discard((table, row_id))
                after = now[table].get(row_id)
                change.rows[(table, row_id)][1] = RowPrint.of(after) if change.compact else after
                if table == TRIPLES:
                    self._touched.note_after(row_id, after)
        self._recorded_now = []
        steps = [change for change in self._recorders if change.recorded]
        if not steps and not self.replayed:
            return
        mark = self.write_mark(conn)
        for change in steps:
            # Another writer between the step's own transactions: it may rely on its rows.
            interleaved = change.interleaved or (
                change.mark is not None and self.written_since(conn, change.mark)
            )
            self._marks.append((change, mark, interleaved))
        self._marks += [(change, mark, False) for change in self.replayed]
        self.replayed = []

    def _take_touched(self) -> Touched:
        """After the commit: what it touched; the steps' marks hold from now on."""
        at = temporal.now_instant()
        for change, mark, interleaved in self._marks:
            change.mark, change.at, change.interleaved = mark, at, interleaved
        for change in self._recorders:
            change.committed()
        self._marks = []
        touched, self._touched = self._touched, Touched.noting_before()
        return touched

    # ── Undo and redo ─────────────────────────────────────────────────────

    def adopt(self, change: Change) -> None:
        """``change`` was recorded on another connection to this graph (a worker's) and is to
        be replayed through this one: where the graph stands as to other writers is this
        connection's view now (a write of another program between its end and now is taken
        as before it)."""
        with self.snapshot() as conn:
            change.mark = self.write_mark(conn)

    def hand_over(self, change: Change) -> None:
        """Keep in ``change`` whether anyone but this connection wrote the graph since its mark
        (as :meth:`adopt` by another connection would forget it)."""
        if change.mark is None:
            return
        with self.snapshot() as conn:
            if self.written_since(conn, change.mark):
                change.interleaved = True

    def replay(
        self,
        change: Change,
        to_before: bool,
        conflict: type[Refused],
        force: bool = False,
        within: Callable[[bool], None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Put back the rows' images from before (undo) or after (redo) the change: see
        :class:`~factlines.core.store.replay.StepReplay` for the rules."""
        StepReplay(self, change, to_before, conflict, force, within, progress).run()

    def take_back(self, change: Change, rows_per_write: int) -> None:
        """Remove again what ``change`` wrote, for a write of several transactions that failed
        part-way: see :func:`~factlines.core.store.replay.take_back`."""
        take_back(self, change, rows_per_write)
