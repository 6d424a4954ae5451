"""What an import file holds, and a row of it that cannot be imported."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from factlines.core.transfer.repeats import RepeatedIds


@dataclass(frozen=True)
class Problem:
    """A row not imported: the file's line it starts on (the header is line 1), and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass
class ImportFile:
    """What a file holds: its ``kind`` (``json``, ``csv`` or ``seed``) and its rows as
    ``(line, value)``: for ``csv`` one list (``facts``) of lists of fields, whose positions
    ``columns`` gives by name, for ``seed`` one (``seed``) of ``(key, facts)``; for ``json``
    (any size) none in memory: ``batches(table, size)`` reads the file again for the row
    objects of ``entities`` or ``triples``, ``size`` at a time, ``counts`` says how many.
    ``problems`` are rows that could not be read at all. ``extras`` are the columns of each
    table beyond MemPalace's the rows carry (a newer MemPalace's), as checked (name, kind)
    pairs. ``repeats`` knows which ids the file may give twice."""

    kind: str
    rows: dict[str, list[tuple[int, object]]]
    problems: list[Problem]
    columns: dict[str, int] | None = None
    extras: dict[str, list[tuple[str, str]]] = field(
        default_factory=dict[str, list[tuple[str, str]]]
    )
    # A row's value is as ``kind`` makes it (fields, an object, a seed's (key, facts)).
    batches: Callable[[str, int], Iterator[list[tuple[int, Any]]]] = field(kw_only=True)
    counts: dict[str, int] = field(default_factory=dict[str, int])
    repeats: RepeatedIds = field(kw_only=True)

    def row_count(self) -> int:
        return sum(self.counts.values()) + sum(len(rows) for rows in self.rows.values())
