"""What a SQLite file may hold that PostgreSQL cannot: said in words, never a crash.

SQLite keeps any value in any column; PostgreSQL's columns are typed (§10.2 of the contract):
a ``confidence`` is a number, a text holds no NUL character, and binary data in a text column
would silently become its hex spelling. A row carrying such a value, copied, imported or
replicated from a SQLite file, is refused naming the row and the value, before anything of
it is written.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from factlines.core.errors import Refused

_NOUN = {"triples": "fact", "entities": "entity"}
_NOT_FINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan"}


def _why_not(column: str, value: object) -> str | None:
    """Why PostgreSQL cannot hold ``value`` in ``column``, None when it can."""
    if isinstance(value, bytes | bytearray | memoryview):
        return "binary data, which PostgreSQL's text columns cannot hold"
    if isinstance(value, str):
        if "\x00" in value:
            return "a NUL character, which PostgreSQL's text cannot hold"
        if column == "confidence":
            try:
                number = float(value)
            except ValueError:
                number = None
            if number is None or not (
                math.isfinite(number) or value.strip().lower() in _NOT_FINITE
            ):
                return f"{value[:40]!r}, not a number (PostgreSQL keeps a confidence as a number)"
    return None


def _why_not_extra(column: str, kind: str, value: object) -> str | None:
    """Why PostgreSQL cannot hold ``value`` in a newer MemPalace's ``column`` of ``kind``
    (extra_columns; held as PG_TYPES says: a whole number, a floating point one, or text)."""
    if value is None:
        return None
    if kind == "INTEGER":
        if isinstance(value, int) and not isinstance(value, bool):
            return None
        held = "whole numbers"
    elif kind == "REAL":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return None
        held = "numbers"
    else:
        if isinstance(value, str):
            return _why_not(column, value)
        held = "text"
    shown = "binary data" if isinstance(value, bytes | bytearray | memoryview) else repr(value)[:40]
    return f"{shown}, where PostgreSQL keeps only {held} in {column}"


def refuse_unstorable(
    table: str,
    columns: tuple[str, ...],
    rows: Iterable[tuple[Any, ...]],
    extras: dict[str, str] | None = None,
) -> None:
    """Refuse the first row PostgreSQL cannot hold (see the module), naming it; ``extras``
    gives the kind of each of a newer MemPalace's columns (extra_columns)."""
    plain = (type(None), int, float)
    extras = extras or {}
    for row in rows:
        for column, value in zip(columns, row, strict=False):
            if column in extras:
                why = _why_not_extra(column, extras[column], value)
            elif isinstance(value, plain):
                continue
            else:
                why = _why_not(column, value)
            if why is not None:
                raise Refused(
                    f"{_NOUN.get(table, table)} {row[0]!r} cannot go into PostgreSQL: its "
                    f"{column} is {why}; nothing was written (correct it in the source first, "
                    "or keep the graph in a SQLite file)"
                )
