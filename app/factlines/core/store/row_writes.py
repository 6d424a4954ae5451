"""What every engine's connection does around its writes, whatever its SQL dialect: note the
rows a write touches (ids for listeners, images for recordings), and replay a recorded change
(undo and redo) with the safety rules below.

An engine's connection subclasses :class:`RowWrites` and supplies its transaction, its
parameter marker (:attr:`RowWrites.MARK`), and how a row's image is read and put back (where it
keeps rows at a physical position, the image carries it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from factlines.core.errors import Refused
from factlines.core.store.changes import TRIPLES, Change, RowImage, Touched
from factlines.core.store.giving_way import GiveWay

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

    def __init__(self) -> None:
        self._depth = 0
        self._recorders: list[Change] = []
        # The rows the open write added to each recording (a long recording's earlier writes
        # are not walked again at every commit).
        self._recorded_now: list[tuple[Change, tuple[str, str]]] = []
        self._touched = Touched.noting_ends()
        self.listeners: list[Callable[[Touched], None]] = []

    # ── What the engine supplies ──────────────────────────────────────────

    def transaction(self, wait: float | None = None) -> AbstractContextManager:
        raise NotImplementedError

    def _row_image(self, conn, table: str, row_id: str) -> RowImage | None:
        raise NotImplementedError

    def _put_row(self, conn, table: str, row_id: str, image: RowImage | None) -> None:
        raise NotImplementedError

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
        changed, at the end of the write it joined or now."""
        if self._depth:
            self._touched.everything = True
            return
        self._tell(Touched.all_rows())

    def touch(self, conn, table: str, row_id: str, new: bool = False) -> None:
        """Note a row about to be written: its id for the listeners, its image for recordings
        (``new``: the row is about to be inserted, so there is none to read)."""
        self._touched.add(table, row_id)
        image = before = None
        for change in self._recorders:
            if (table, row_id) not in change.rows:
                if image is None:
                    image = [None if new else self._row_image(conn, table, row_id)]
                change.rows[(table, row_id)] = [image[0], None, True]
                self._recorded_now.append((change, (table, row_id)))
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
        for change, key in self._recorded_now:
            if len(change.rows.get(key, ())) == 3:
                del change.rows[key]
        self._recorded_now = []
        self._touched = Touched.noting_ends()

    def _row_images(self, conn, table: str, row_ids: list[str]) -> dict:
        """The images of many rows of ``table`` by id (a row not there is left out); an engine
        may read them in fewer statements."""
        images = {row_id: self._row_image(conn, table, row_id) for row_id in row_ids}
        return {row_id: image for row_id, image in images.items() if image is not None}

    def _fill_after_images(self, conn) -> None:
        """Before the commit: each recording's rows as the write leaves them."""
        wanted: dict[str, set[str]] = {}
        for change, (table, row_id) in self._recorded_now:
            if len(change.rows[(table, row_id)]) == 3:
                wanted.setdefault(table, set()).add(row_id)
        now = {table: self._row_images(conn, table, list(ids)) for table, ids in wanted.items()}
        for change, (table, row_id) in self._recorded_now:
            images = change.rows[(table, row_id)]
            if len(images) == 3:
                change.rows[(table, row_id)] = [images[0], now[table].get(row_id)]
        self._recorded_now = []

    def _take_touched(self) -> Touched:
        touched, self._touched = self._touched, Touched.noting_ends()
        return touched

    # ── Undo and redo ─────────────────────────────────────────────────────

    def replay(self, change: Change, to_before: bool, conflict: type[Refused]) -> None:
        """Put back the rows' images from before (undo) or after (redo) the change, in one write.

        Another program may have written the graph since (MemPalace keeps writing it), so:

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

        Any failure (a refusal, a lock, a full disk) rolls the whole write back; ``change`` is
        never modified, so the same step can be replayed later.
        """
        rows = sorted(change.rows.items(), key=lambda item: _REPLAY_ORDER[item[0][0]])
        with self.transaction() as conn:
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

    def take_back(self, change: Change, rows_per_write: int) -> None:
        """Remove again what ``change`` wrote, for a write made of several transactions that
        failed part-way: each row goes back to its image from before, in transactions of
        ``rows_per_write`` rows (giving way to other programs' writes in between, as
        :mod:`.giving_way` says), but only while it is still exactly as the change left it: a
        row another program changed since is theirs now and stays, and so does an entity the
        step made that a fact outside it now refers to."""
        rows = sorted(change.rows.items(), key=lambda item: _REPLAY_ORDER[item[0][0]])
        give_way = GiveWay()
        for start in range(0, len(rows), rows_per_write):
            began = time.monotonic()
            with self.transaction() as conn:
                for (table, row_id), (before, after) in rows[start : start + rows_per_write]:
                    current = self._row_image(conn, table, row_id)
                    if current != after or current == before:
                        continue
                    if self._keeps_entity(conn, table, row_id, current, after, before):
                        continue
                    self.touch(conn, table, row_id)
                    self._put_row(conn, table, row_id, before)
            held = time.monotonic() - began
            self.settle()
            give_way.held(held)

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


def _opens(current: RowImage | None, wanted: RowImage | None) -> bool:
    """Whether writing ``wanted`` over ``current`` opens a fact (subject, predicate, object)
    that was not open as this row before."""
    if wanted is None or wanted.values.get("valid_to") is not None:
        return False
    if current is None or current.values.get("valid_to") is not None:
        return True
    keys = ("subject", "predicate", "object")
    return any(current.values.get(k) != wanted.values.get(k) for k in keys)
