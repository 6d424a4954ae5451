"""What every kind of import shares: the report, progress over the rows, bulk inserts."""

from __future__ import annotations

from dataclasses import dataclass, field

from factlines.core.progress import Progress, report
from factlines.core.transfer.readers import Problem

CHUNK = 5000


@dataclass
class ImportReport:
    """What an import did: ``written`` is False when nothing was (a rejected row without
    ``good_rows``); ``rejected`` and ``skipped`` list the rows not imported, by line."""

    kind: str
    rejected: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
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


def insert(kg, table: str, rows: list, steps: Steps, columns: tuple | None = None) -> None:
    """Insert ``rows`` (dicts, or tuples of ``columns``) in chunks, counting progress."""
    with kg.loading(table, len(rows)):
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            kg.insert_rows(table, chunk, columns=columns)
            steps.add(len(chunk))


def first_seen(rows: list[tuple[int, dict]], rep: ImportReport, what: str) -> list:
    """The rows whose id no earlier row of the file has; the others are rejected."""
    seen: dict[str, int] = {}
    kept = []
    for line, row in rows:
        if row["id"] in seen:
            rep.rejected.append(
                Problem(
                    line, f"{what} id {row['id']!r} was already given on line {seen[row['id']]}"
                )
            )
            continue
        seen[row["id"]] = line
        kept.append((line, row))
    return kept


def describe(row: dict) -> str:
    return f"{row.get('subject')} {row.get('predicate')} {row.get('object')}"
