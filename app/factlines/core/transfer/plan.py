"""What every kind of import shares: the report, progress over the rows, inserts in chunks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from factlines.core.errors import Refused
from factlines.core.progress import Progress, report
from factlines.core.transfer.rows_file import Problem

if TYPE_CHECKING:
    from factlines.core.store.facade import KnowledgeGraph

# Rows checked again and inserted at once (a few such chunks to each short write): small, so
# that a write ends soon after its time is up (``write_in_parts``) even on a busy machine.
CHUNK = 200
PLAN_BATCH = 2000  # rows checked against the file and the graph at once
# A row to insert: a dict of columns, or a tuple of the columns given with it.
_Row = TypeVar("_Row", dict[str, Any], tuple[Any, ...])


@dataclass
class ImportReport:
    """What an import did: ``written`` is False when nothing was (a rejected row without
    ``good_rows``); ``rejected`` and ``skipped`` list the rows not imported, by line."""

    kind: str
    rejected: list[Problem] = field(default_factory=list[Problem])
    skipped: list[Problem] = field(default_factory=list[Problem])
    entities_added: int = 0
    facts_added: int = 0
    unchanged: int = 0  # rows of a copy the graph already holds exactly as they are
    written: bool = False

    def lines(self) -> list[str]:
        """Every row not imported, ``line N: reason``, in the file's order."""
        return [str(p) for p in sorted(self.rejected + self.skipped, key=lambda p: p.line)]

    def summary(self) -> str:
        """One sentence on the outcome, for a status line or the command line."""
        if not self.written:
            good = "" if not self.rejected else f"{len(self.rejected)} rows were rejected; "
            return f"{good}nothing was written"
        parts = [f"{self.facts_added:,} facts and {self.entities_added:,} entities imported"]
        if self.rejected:
            parts.append(f"{len(self.rejected):,} rows rejected")
        if self.skipped:
            parts.append(f"{len(self.skipped):,} rows already in the graph")
        if self.unchanged:
            parts.append(f"{self.unchanged:,} rows the graph already holds as they are")
        return "; ".join(parts)


class Steps:
    """Progress over two passes of the rows: checking them, then writing them."""

    def __init__(self, progress: Progress | None, rows: int):
        self.progress, self.total, self.done = progress, 2 * rows, 0

    def add(self, rows: int) -> None:
        self.done = min(self.total, self.done + rows)
        report(self.progress, self.done, self.total)


def insert(
    kg: KnowledgeGraph,
    table: str,
    rows: Iterable[_Row],
    steps: Steps,
    columns: tuple[str, ...] | None = None,
) -> int:
    """Insert ``rows`` (dicts, or tuples of ``columns``) in chunks, a few to each short write
    (:meth:`write_in_parts`, inside the import's :meth:`batched`: MemPalace writes in between),
    counting progress.

    Each chunk is checked again inside its write against what other programs wrote since the
    plan was made: an entity made meanwhile is kept as they made it (not inserted again); a
    fact id taken meanwhile refuses the import (what it wrote is taken back). Returns the rows
    inserted."""
    written = 0

    def write(chunk: list[_Row]) -> None:
        nonlocal written
        fresh = still_new(kg, table, chunk, columns)
        kg.insert_rows(table, fresh, columns=columns)
        written += len(fresh)

    rows = iter(rows)
    chunks = iter(lambda: list(islice(rows, CHUNK)), [])
    kg.write_in_parts(chunks, write, lambda chunk: steps.add(len(chunk)))
    return written


def still_new(
    kg: KnowledgeGraph, table: str, rows: list[_Row], columns: tuple[str, ...] | None
) -> list[_Row]:
    """``rows`` less the entities the graph has now (inside the write that inserts them);
    refused when the id of one of the facts is taken now."""
    position: dict[str, int] = {name: i for i, name in enumerate(columns or ())}
    ids: list[Any] = [
        row.get("id") if isinstance(row, dict) else row[position["id"]] for row in rows
    ]
    there = kg.rows_with_ids(table, ids)
    if table == "entities":
        return [row for row, row_id in zip(rows, ids) if row_id not in there]
    if there:
        raise Refused(
            f"another program added a fact with the id {next(iter(there))!r} meanwhile; "
            "nothing was written"
        )
    return rows


def describe(row: dict[str, Any]) -> str:
    return f"{row.get('subject')} {row.get('predicate')} {row.get('object')}"
