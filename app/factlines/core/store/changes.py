"""What a write changed: the ids it touched (for views) and row images (for undo and redo).

An engine fills these in; callers read ids and hand a :class:`Change` back to the engine to
revert or reapply it. Where an engine keeps a row at a physical position (SQLite's rowid, which
MemPalace's replication pages by), the image carries it as an opaque ``position`` that only
that engine reads; it never takes part in comparing images.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias, cast, overload

from factlines.core.spool import Spool

ENTITIES, TRIPLES, META = "entities", "triples", "fl_meta"
# One recorded row: ``((table, id), [before, after])``, each image a RowImage, a RowPrint or None.
RecordedRow: TypeAlias = tuple[tuple[str, str], list[Any]]


@dataclass(frozen=True)
class RowImage:
    """One row's columns as stored, and where the engine kept it."""

    values: dict[str, Any]
    position: object = field(default=None, compare=False)


@dataclass(frozen=True, eq=False)
class RowPrint:
    """A row as a write left it, kept only to tell later whether it is still so (what a long
    write's take-back asks): a digest of its columns, a few bytes instead of the columns."""

    digest: bytes

    @classmethod
    def of(cls, image: RowImage | None) -> RowPrint | None:
        if image is None:
            return None
        text = repr(sorted(image.values.items())).encode("utf-8", "backslashreplace")
        return cls(hashlib.blake2b(text, digest_size=16).digest())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowImage):
            other = RowPrint.of(other)
        if isinstance(other, RowPrint):
            return self.digest == other.digest
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.digest)


class Outline(NamedTuple):
    """What views count of a fact: its ends and its stored times."""

    subject: Any
    object: Any
    valid_from: Any
    valid_to: Any

    @classmethod
    def of(cls, image: RowImage | None) -> Outline | None:
        if image is None:
            return None
        values = image.values
        return cls(*(values.get(name) for name in cls._fields))


@dataclass
class Touched:
    """The ids of the rows one write (or one external change) touched, by kind."""

    facts: set[str] = field(default_factory=set[str])
    entities: set[str] = field(default_factory=set[str])
    settings: set[str] = field(default_factory=set[str])
    everything: bool = False  # another program wrote the file: which rows is not known
    # Hints for views, not part of what was touched: each touched fact's outline by id before
    # the write and after it (None: no such row), where a recorded write read its rows; None,
    # or a fact left out: not known. Views move what they count from them instead of reading.
    before: dict[str, Outline | None] | None = field(default=None, compare=False)
    after: dict[str, Outline | None] = field(
        default_factory=dict[str, "Outline | None"], compare=False
    )

    def add(self, table: str, row_id: str) -> None:
        {TRIPLES: self.facts, ENTITIES: self.entities, META: self.settings}[table].add(row_id)

    @classmethod
    def noting_before(cls) -> Touched:
        """For a write about to start: its facts' former rows are noted as they are read."""
        return cls(before={})

    @property
    def fact_ends(self) -> set[str | None] | None:
        """The entities at either end of the touched facts before the write; None: not known."""
        if self.before is None:
            return None
        return {end for outline in self.before.values() if outline for end in outline[:2]}

    def outlines(self) -> list[tuple[Outline | None, Outline | None]] | None:
        """Each touched fact's outline (before, after) the write; None when the write did not
        note them (not recorded)."""
        before, after = self.before, self.after
        if before is None or not self.facts <= before.keys() & after.keys():
            return None
        return [(before[fact], after[fact]) for fact in self.facts]

    def note_before(self, fact_id: str, before: RowImage | None, read: bool) -> None:
        """A touched fact's row before the write (None: there was none), if it was ``read``;
        a fact whose row was not read leaves the former rows unknown. The first row noted for
        a fact is the one before the write."""
        if self.before is None:
            return
        if not read:
            self.before = None
            return
        self.before.setdefault(fact_id, Outline.of(before))

    def note_after(self, fact_id: str, after: RowImage | None) -> None:
        """A touched fact's row as the write leaves it (None: deleted), read before its
        commit."""
        self.after[fact_id] = Outline.of(after)

    def __bool__(self) -> bool:
        return self.everything or bool(self.facts or self.entities or self.settings)

    @classmethod
    def all_rows(cls) -> Touched:
        return cls(everything=True)


class Change:
    """Row images of one recorded write: each row's ``[before, after]``, each a
    :class:`RowImage` or None (no such row), by ``(table, id)``.

    ``rows`` holds the rows in memory: all of a small change's, and the open transaction's.
    Once a change holds more than :data:`SPILL_ROWS` when a transaction commits (a long write:
    an import, a big merge, their undo), its rows go to a file of its own
    (:class:`RecordFile`) and so do each later transaction's: memory keeps about one
    transaction's rows, however many the step writes. :meth:`items` reads them all."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list[Any]] = {}
        # The rows the open transaction is writing: their "after" is read just before it
        # commits (until then it is None, and means nothing).
        self.pending: set[tuple[str, str]] = set()
        # Kept only to be taken back (a long write's own record, never undone): each row as
        # the change left it is a RowPrint, and each committed transaction's rows go to a
        # spool as they are (read back newest first by :meth:`to_take_back`).
        self.compact = False
        self._spool: Spool | None = None
        self._file: RecordFile | None = None
        # Where the graph stood when the step (or its last undo or redo) committed: the
        # engine's opaque mark of other writers' writes, and the UTC instant; ``interleaved``
        # when another writer wrote between the step's own transactions.
        self.mark: object = None
        self.at: str | None = None
        self.interleaved = False

    @property
    def recorded(self) -> bool:
        """Whether any row was recorded (changed or not)."""
        return bool(self.rows) or self._file is not None or self._spool is not None

    @property
    def in_file(self) -> bool:
        """Whether the change's rows went to its file (a long write's)."""
        return self._file is not None

    def committed(self) -> None:
        """A transaction of the recording has committed: its rows go to the change's file
        when the change is big (a compact change's to its spool), so that memory holds one
        transaction's rows."""
        if not self.rows:
            return
        if self.compact:
            if self._spool is None:
                self._spool = Spool("factlines-take-back-")
            self._spool.append(list(self.rows.items()))
        elif self._file is not None or len(self.rows) > SPILL_ROWS:
            if self._file is None:
                self._file = RecordFile()
            self._file.put(self.rows)
        else:
            return
        self.rows = {}

    def to_take_back(self, rank: dict[str, int]) -> Iterator[RecordedRow]:
        """The rows in the order a take-back puts them back: a compact change's newest first,
        so that a row written in two of its transactions goes back to where it began; any
        other's as :meth:`in_order` gives them."""
        if self._spool is None:
            yield from self.in_order(rank)
            return
        for rows in cast(Iterator[list[RecordedRow]], self._spool.newest_first()):
            yield from reversed(rows)

    def items(self) -> Iterator[RecordedRow]:
        """Every recorded row, ``((table, id), [before, after])``, in the order first written
        (a row in the file and written again by the open transaction: the file's before)."""
        if self._file is None:
            yield from self.rows.items()
            return
        newer = dict(self.rows)
        for key, images in self._file.rows():
            again = newer.pop(key, None)
            yield key, images if again is None else [images[0], again[1]]
        yield from newer.items()

    def holds(self, table: str, row_id: object) -> bool:
        """Whether the change recorded the row ``(table, row_id)``."""
        key = (table, row_id)
        return key in self.rows or (self._file is not None and self._file.holds(key))

    def in_order(self, rank: dict[str, int]) -> Sequence[RecordedRow]:
        """The rows, a table at a time (by ``rank`` of its name), each in the order first
        written: a list, or for a change in its file a sequence read from it a block at a time
        (what replaying and taking back a long write read)."""
        if self._file is None or self.rows:
            return sorted(self.items(), key=lambda item: rank[item[0][0]])
        return self._file.in_order(rank)

    def __bool__(self) -> bool:
        return any(before != after for _, (before, after) in self.items())

    def touched(self) -> Touched:
        """The ids this change wrote (the same for undoing and redoing it)."""
        touched = Touched()
        for (table, row_id), (before, after) in self.items():
            if before != after:
                touched.add(table, row_id)
        return touched

    @property
    def row_count(self) -> int:
        """How many rows it recorded (a row in its file written again counts twice): its size,
        for choosing where to replay it."""
        return len(self.rows) + (len(self._file) if self._file is not None else 0)

    def __repr__(self) -> str:
        return f"Change({self.row_count} rows)"


# A recording holding more rows than this when a transaction commits moves them to its file.
SPILL_ROWS = 2_000
_BLOCK = 1_000  # rows read from a change's file at once


class RecordFile:
    """A big change's rows in a private SQLite database of its own, a temporary file with no
    name (removed when the change is gone): memory keeps SQLite's small page cache. A row put
    again (written by a later transaction of the step) keeps its first "before" and its place."""

    def __init__(self) -> None:
        # "": a temporary database on disk; used by one thread at a time (a step is recorded
        # on a worker's connection, then undone and redone elsewhere).
        self._db = sqlite3.connect("", check_same_thread=False)
        self._db.execute(
            "CREATE TABLE rows (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, id, "
            "before BLOB, after BLOB, UNIQUE (tbl, id))"
        )
        self._db.execute("CREATE INDEX rows_of_table ON rows (tbl, seq)")
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def put(self, rows: dict[tuple[str, str], list[Any]]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT INTO rows (tbl, id, before, after) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (tbl, id) DO UPDATE SET after = excluded.after",
                (
                    (table, row_id, _stored(before), _stored(after))
                    for (table, row_id), (before, after) in rows.items()
                ),
            )
            self._count = self._db.execute("SELECT COUNT(*) FROM rows").fetchone()[0]

    def holds(self, key: tuple[str, object]) -> bool:
        found = self._db.execute("SELECT 1 FROM rows WHERE tbl = ? AND id = ?", key)
        return found.fetchone() is not None

    def rows(self) -> Iterator[RecordedRow]:
        cursor = self._db.execute("SELECT tbl, id, before, after FROM rows ORDER BY seq")
        while block := cursor.fetchmany(_BLOCK):
            yield from (_read(row) for row in block)

    def in_order(self, rank: dict[str, int]) -> Sequence[RecordedRow]:
        counts = dict(self._db.execute("SELECT tbl, COUNT(*) FROM rows GROUP BY tbl"))
        tables = sorted(counts, key=rank.__getitem__)
        return _OrderedRows(self._db, [(table, counts[table]) for table in tables])


class _OrderedRows(Sequence[RecordedRow]):
    """A change file's rows a table at a time, each in the order first written, read a block
    at a time (the last block read is kept: replay reads in order)."""

    def __init__(self, db: sqlite3.Connection, tables: list[tuple[str, int]]):
        self._db = db
        self._tables: list[tuple[str, int, int]] = []
        self._length = 0
        for table, count in tables:  # (table, its first index, how many)
            self._tables.append((table, self._length, count))
            self._length += count
        self._first, self._block = 0, []  # the block read last, and the index of its first

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> RecordedRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[RecordedRow]: ...
    def __getitem__(self, index: int | slice) -> RecordedRow | list[RecordedRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        at = index - self._first
        if 0 <= at < len(self._block):
            return self._block[at]
        if not -self._length <= index < self._length:
            raise IndexError(index)
        index %= self._length
        table, start, _ = next(t for t in reversed(self._tables) if t[1] <= index)
        first = (index - start) - (index - start) % _BLOCK
        rows = self._db.execute(
            "SELECT tbl, id, before, after FROM rows WHERE tbl = ? ORDER BY seq LIMIT ? OFFSET ?",
            (table, _BLOCK, first),
        ).fetchall()
        self._first, self._block = start + first, [_read(row) for row in rows]
        return self._block[index - self._first]


def _stored(image: RowImage | None) -> bytes | None:
    if image is None:
        return None
    return pickle.dumps((image.values, image.position), protocol=pickle.HIGHEST_PROTOCOL)


def _image(data: bytes | None) -> RowImage | None:
    return None if data is None else RowImage(*pickle.loads(data))


def _read(row: tuple[Any, ...]) -> RecordedRow:
    table, row_id, before, after = row
    return (table, row_id), [_image(before), _image(after)]
