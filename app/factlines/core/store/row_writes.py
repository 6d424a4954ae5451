"""What every engine's connection does around its writes, whatever its SQL dialect: note the
rows a write touches (ids for listeners, images for recordings), and replay a recorded change
(undo and redo) with the safety rules below.

An engine's connection subclasses :class:`RowWrites` and supplies its transaction, its
parameter marker (:attr:`RowWrites.MARK`), and how a row's image is read and put back (where it
keeps rows at a physical position, the image carries it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from factlines.core import temporal
from factlines.core.errors import Refused, WrittenSince
from factlines.core.store.changes import TRIPLES, Change, RowImage, Touched

KEY_COLUMN = {"entities": "id", "triples": "id", "fl_meta": "key"}
_ROW_LABEL = {"entities": "the entity", "triples": "the fact", "fl_meta": "the setting"}
# Facts first: whether an entity the step would remove is still referred to depends on them.
_REPLAY_ORDER = {"triples": 0, "entities": 1, "fl_meta": 2}


class RowWrites:
    """Recordings, listeners and replay over an engine's connection (see the module)."""

    # The engine's parameter marker in SQL (``?`` for sqlite3, ``%s`` for psycopg).
    MARK = "?"
    # The predicate as the open-twin check compares it: an engine may steer its planner to the
    # subject's index (a predicate's index holds a share of the graph).
    PREDICATE = "predicate"
    # Who else writes the graph, as a refusal names them.
    OTHERS = "another program"

    def __init__(self) -> None:
        self._depth = 0
        self._recorders: list[Change] = []
        self._touched = Touched.noting_ends()
        self.listeners: list[Callable[[Touched], None]] = []
        # The steps this write replays, and each step's mark once it commits.
        self._replayed: list[Change] = []
        self._marks: list[tuple[Change, object, bool]] = []
        # Writes made past the store on this connection (MemPalace's code on ``kg._conn()``).
        self.unknown_writes = 0

    # ── What the engine supplies ──────────────────────────────────────────

    def transaction(self, wait: float | None = None) -> AbstractContextManager:
        raise NotImplementedError

    def _row_image(self, conn, table: str, row_id: str) -> RowImage | None:
        raise NotImplementedError

    def _put_row(self, conn, table: str, row_id: str, image: RowImage | None) -> None:
        raise NotImplementedError

    def _write_mark(self, conn) -> object:
        """Inside a write: a mark of where the graph stands as to other writers' writes."""
        raise NotImplementedError

    def _written_since(self, conn, mark: object) -> bool:
        """Inside a write: whether anyone but this connection wrote the graph since ``mark``."""
        raise NotImplementedError

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

    def touch(self, conn, table: str, row_id: str) -> None:
        """Note a row about to be written: its id for the listeners, its image for recordings."""
        self._touched.add(table, row_id)
        image = before = None
        for change in self._recorders:
            if (table, row_id) not in change.rows:
                if image is None:
                    image = [self._row_image(conn, table, row_id)]
                change.rows[(table, row_id)] = [image[0], None, True]
            images = change.rows[(table, row_id)]
            # [before, None, True] while this transaction writes it; [before, after] when an
            # earlier transaction of the recording did: then "after" is the row now.
            before = images[1] if len(images) == 2 else images[0]
        if table == TRIPLES:
            # Only a recorded write reads the row before writing it: else its ends are unknown.
            self._touched.note_ends(before, read=bool(self._recorders))

    @contextmanager
    def recording(self) -> Iterator[Change]:
        """Record the row images of every write inside the block, for :meth:`replay`."""
        change = Change()
        with self.lock:
            self._recorders.append(change)
            try:
                yield change
            finally:
                self._recorders.remove(change)

    def _forget_uncommitted(self) -> None:
        for change in self._recorders:
            for key in [k for k, v in change.rows.items() if len(v) == 3]:
                del change.rows[key]
        self._touched = Touched.noting_ends()
        self._replayed, self._marks = [], []

    def _fill_after_images(self, conn) -> None:
        """Before the commit: each recording's rows as the write leaves them, and where the
        graph stands for each step written or replayed here."""
        for change in self._recorders:
            for (table, row_id), images in change.rows.items():
                if len(images) == 3:
                    change.rows[(table, row_id)] = [images[0], self._row_image(conn, table, row_id)]
        steps = [change for change in self._recorders if change.rows]
        if not steps and not self._replayed:
            return
        mark = self._write_mark(conn)
        for change in steps:
            # Another writer between the step's own transactions: it may rely on its rows.
            interleaved = change.interleaved or (
                change.mark is not None and self._written_since(conn, change.mark)
            )
            self._marks.append((change, mark, interleaved))
        self._marks += [(change, mark, False) for change in self._replayed]
        self._replayed = []

    def _take_touched(self) -> Touched:
        """After the commit: what it touched; the steps' marks hold from now on."""
        at = temporal.now_instant()
        for change, mark, interleaved in self._marks:
            change.mark, change.at, change.interleaved = mark, at, interleaved
        self._marks = []
        touched, self._touched = self._touched, Touched.noting_ends()
        return touched

    # ── Undo and redo ─────────────────────────────────────────────────────

    def replay(
        self, change: Change, to_before: bool, conflict: type[Refused], force: bool = False
    ) -> None:
        """Put back the rows' images from before (undo) or after (redo) the change, in one write.

        Another program may have written the graph since (MemPalace keeps writing it), so:

        - where the step would delete or end a fact and anyone else wrote the graph since the
          step (or between its own transactions), the whole step is refused
          (:class:`WrittenSince`) unless ``force``: the other writer may have asserted that
          fact meanwhile, and asserting an open fact writes nothing, so the rows cannot tell;
        - a row already as wanted is left alone;
        - a fact or setting no longer as the change left it refuses the whole step
          (``conflict``): writing over it would throw away what the other program wrote;
        - an entity the step would remove, but which a fact outside the step now refers to (or
          which someone else rewrote), is kept and the rest of the step is carried out. The
          person undoing "Ann mentors Zoe" wants that fact gone; the entity ``zoe`` was only
          made on the way, and since MemPalace added "Zoe works_on Nova" it is MemPalace's too:
          deleting it would hide MemPalace's fact from MemPalace's own queries (they join on
          entities), while refusing would leave the person no way to take back their fact.
          Keeping an entity harms nobody: MemPalace itself never deletes one. Likewise an entity
          the step would create that exists again is taken as it is, not overwritten;
        - a fact the step would open while another writer has meanwhile opened the identical
          fact refuses the whole step: two identical open facts are what MemPalace itself never
          writes.

        Any failure (a refusal, a lock, a full disk) rolls the whole write back; ``change``'s
        rows are never modified, so the same step can be replayed later (its mark moves to
        the replay once it commits).
        """
        rows = sorted(change.rows.items(), key=lambda item: _REPLAY_ORDER[item[0][0]])
        with self.transaction() as conn:
            # Said after the rows are checked: a row changed since refuses the step for good.
            refusal = None if force else self._written_since_refusal(conn, change, to_before)
            opened: list[tuple[str, dict]] = []
            for (table, row_id), (before, after) in rows:
                expected, wanted = (after, before) if to_before else (before, after)
                current = self._row_image(conn, table, row_id)
                if current == wanted or self._keeps_entity(
                    conn, table, row_id, current, expected, wanted
                ):
                    continue
                if current != expected:
                    raise conflict(self._changed_since(conn, table, row_id, current or expected))
                self.touch(conn, table, row_id)
                self._put_row(conn, table, row_id, wanted)
                if table == "triples" and _opens(current, wanted):
                    opened.append((row_id, wanted.values))
            ours = {row_id for (table, row_id) in change.rows if table == "triples"}
            for row_id, values in opened:
                self._refuse_a_twin(conn, row_id, values, ours, conflict, to_before)
            if refusal is not None:
                raise refusal
            self._replayed.append(change)

    def _written_since_refusal(self, conn, change: Change, to_before: bool) -> Refused | None:
        taken = taken_facts(change, to_before)
        if not taken:
            return None
        if (
            change.mark is not None
            and not change.interleaved
            and not self._written_since(conn, change.mark)
        ):
            return None
        more = f" and {len(taken) - 1:,} more" if len(taken) > 1 else ""
        verb = "undoing" if to_before else "redoing"
        return WrittenSince(
            f"{self.OTHERS} wrote the graph since this step and may have asserted "
            f"“{self._in_words(conn, taken[0].values)}”{more}, which {verb} it would delete or "
            "end (asserting a fact that is already there leaves no trace in the graph); "
            "nothing was changed"
        )

    def _keeps_entity(self, conn, table: str, row_id: str, current, expected, wanted) -> bool:
        """Whether an entity row stays as it is although the step would remove or create it:
        removed, when a fact still refers to it or someone else rewrote it; created, when it
        exists again."""
        if table != "entities" or current is None:
            return False
        if wanted is not None:
            return expected is None
        if current != expected:
            return True
        mark = self.MARK
        used = conn.execute(
            f"SELECT 1 FROM triples WHERE subject = {mark} UNION ALL "
            f"SELECT 1 FROM triples WHERE object = {mark} LIMIT 1",
            (row_id, row_id),
        ).fetchone()
        return used is not None

    def _refuse_a_twin(self, conn, row_id, values, ours, conflict, to_before) -> None:
        mark = self.MARK
        twins = conn.execute(
            f"SELECT id FROM triples WHERE subject = {mark} AND {self.PREDICATE} = {mark} "
            f"AND object = {mark} AND valid_to IS NULL AND id != {mark}",
            (values["subject"], values["predicate"], values["object"], row_id),
        ).fetchall()
        if any(twin not in ours for (twin,) in twins):
            verb = "undoing" if to_before else "redoing"
            raise conflict(
                f"“{self._in_words(conn, values)}” is already an open fact again (another "
                f"program added it since); {verb} this step would make it twice, so nothing "
                "was changed"
            )

    def _changed_since(self, conn, table: str, row_id: str, image: RowImage | None) -> str:
        if table == "triples" and image is not None:
            what = f"the fact “{self._in_words(conn, image.values)}”"
        elif table == "entities" and image is not None:
            what = f"the entity “{image.values.get('name') or row_id}”"
        else:
            what = f"{_ROW_LABEL[table]} {row_id!r}"
        return (
            f"{what} was changed by another program since this step; nothing was changed, so "
            "as not to overwrite their edit (reload to see the graph as it is)"
        )

    def _in_words(self, conn, values: dict) -> str:
        """A fact row as a person reads it: its entities' names and the predicate."""

        def name(eid):
            row = conn.execute(
                f"SELECT name FROM entities WHERE id = {self.MARK}", (eid,)
            ).fetchone()
            return row[0] if row and row[0] else eid

        subject, obj = name(values.get("subject")), name(values.get("object"))
        return f"{subject} {values.get('predicate')} {obj}"


def taken_facts(change: Change, to_before: bool) -> list[RowImage]:
    """The open facts, as the step (or its last replay) left them, that undoing
    (``to_before``) or redoing it would delete, end or turn into another fact."""
    taken = []
    for (table, _row_id), (before, after) in change.rows.items():
        current, wanted = (after, before) if to_before else (before, after)
        if table == TRIPLES and _opens(wanted, current):
            taken.append(current)
    return taken


def _opens(current: RowImage | None, wanted: RowImage | None) -> bool:
    """Whether writing ``wanted`` over ``current`` opens a fact (subject, predicate, object)
    that was not open as this row before."""
    if wanted is None or wanted.values.get("valid_to") is not None:
        return False
    if current is None or current.values.get("valid_to") is not None:
        return True
    keys = ("subject", "predicate", "object")
    return any(current.values.get(k) != wanted.values.get(k) for k in keys)
