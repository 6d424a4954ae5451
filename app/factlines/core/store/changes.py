"""What a write changed: the ids it touched (for views) and row images (for undo and redo).

An engine fills these in; callers read ids and hand a :class:`Change` back to the engine to
revert or reapply it. Where an engine keeps a row at a physical position (SQLite's rowid, which
MemPalace's replication pages by), the image carries it as an opaque ``position`` that only
that engine reads; it never takes part in comparing images.
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

ENTITIES, TRIPLES, META = "entities", "triples", "fl_meta"


@dataclass(frozen=True)
class RowImage:
    """One row's columns as stored, and where the engine kept it."""

    values: dict
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


@dataclass
class Touched:
    """The ids of the rows one write (or one external change) touched, by kind."""

    facts: set[str] = field(default_factory=set)
    entities: set[str] = field(default_factory=set)
    settings: set[str] = field(default_factory=set)
    everything: bool = False  # another program wrote the file: which rows is not known
    # The entities at either end of the touched facts before the write, where each fact's
    # row was read before it was written (a recorded write); None: not known. A hint for
    # views, not part of what was touched.
    fact_ends: set[str] | None = field(default=None, compare=False)

    def add(self, table: str, row_id: str) -> None:
        {TRIPLES: self.facts, ENTITIES: self.entities, META: self.settings}[table].add(row_id)

    @classmethod
    def noting_ends(cls) -> Touched:
        """For a write about to start: its facts' former ends are noted as they are read."""
        return cls(fact_ends=set())

    def note_ends(self, before: RowImage | None, read: bool) -> None:
        """A touched fact's row before the write (None: there was none), if it was ``read``;
        a fact whose row was not read leaves the ends unknown."""
        if self.fact_ends is None:
            return
        if not read:
            self.fact_ends = None
        elif before is not None:
            self.fact_ends.update((before.values.get("subject"), before.values.get("object")))

    def __bool__(self) -> bool:
        return self.everything or bool(self.facts or self.entities or self.settings)

    @classmethod
    def all_rows(cls) -> Touched:
        return cls(everything=True)


class Change:
    """Row images of one recorded write: ``{(table, id): [before, after]}``, each a
    :class:`RowImage` or None (no such row)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list] = {}
        # The rows the open transaction is writing: their "after" is read just before it
        # commits (until then it is None, and means nothing).
        self.pending: set[tuple[str, str]] = set()
        # Kept only to be taken back (a long write's own record, never undone): each row as
        # the change left it is a RowPrint, and each committed transaction's rows leave
        # ``rows`` for ``spilled``, so that the record of a big import stays out of memory.
        self.compact = False
        self.spilled = SpilledRows()
        # Where the graph stood when the step (or its last undo or redo) committed: the
        # engine's opaque mark of other writers' writes, and the UTC instant; ``interleaved``
        # when another writer wrote between the step's own transactions.
        self.mark: object = None
        self.at: str | None = None
        self.interleaved = False

    def __bool__(self) -> bool:
        return any(before != after for before, after in self.rows.values())

    def touched(self) -> Touched:
        """The ids this change wrote (the same for undoing and redoing it)."""
        touched = Touched()
        for (table, row_id), (before, after) in self.rows.items():
            if before != after:
                touched.add(table, row_id)
        return touched

    def __repr__(self) -> str:
        return f"Change({len(self.rows)} rows)"


class SpilledRows:
    """A compact change's committed rows, a transaction at a time in a temporary file (memory
    keeps an offset per transaction): ``((table, id), (before, after))`` as written, read back
    newest first, the order that takes back a row written twice to where it began."""

    def __init__(self) -> None:
        self._file = None
        self._blocks: list[tuple[int, int]] = []  # (offset, length) of each transaction's

    def add(self, rows: dict) -> None:
        if self._file is None:
            # Open as long as the change lives (the write, and its take-back); nameless.
            self._file = tempfile.TemporaryFile(prefix="factlines-take-back-")  # noqa: SIM115
        data = pickle.dumps(list(rows.items()), protocol=pickle.HIGHEST_PROTOCOL)
        offset = self._file.seek(0, 2)
        self._file.write(data)
        self._blocks.append((offset, len(data)))

    def newest_first(self) -> Iterator[tuple[tuple[str, str], list]]:
        for offset, length in reversed(self._blocks):
            self._file.seek(offset)
            yield from reversed(pickle.loads(self._file.read(length)))
