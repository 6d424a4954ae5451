"""The time rules of :mod:`factlines.core.temporal` as SQL over PostgreSQL's text columns:
the SQLite engine's expressions (:mod:`factlines.core.store.sqlite.timesql`) ported, every
comparison and order on bytes (``COLLATE "C"``, SQLite's BINARY for UTF-8 text) whatever the
database's default collation, and SQLite's NULL order (first ascending, last descending)."""

from __future__ import annotations

from factlines.core.store.sqlite import timesql as sqlite_timesql
from factlines.core.store.sqlite.timesql import dated, valid_at_params

C = 'COLLATE "C"'
_UPPER, _LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"


def as_text(column: str) -> str:
    """A time column as text: here every one already is (SQLite's may hold numbers)."""
    return column


def start_key(column: str) -> str:
    return f"{sqlite_timesql.start_key(column)} {C}"


def end_key(column: str) -> str:
    return f"{sqlite_timesql.end_key(column)} {C}"


def nocase(expr: str) -> str:
    """``expr`` as SQLite's NOCASE compares it: ASCII letters folded, then bytes."""
    return f"translate({expr}, '{_UPPER}', '{_LOWER}') {C}"


def order(expr: str, descending: bool = False) -> str:
    """An ORDER BY term sorting as SQLite does: bytes, NULL first ascending, last descending."""
    return f"{expr} DESC NULLS LAST" if descending else f"{expr} ASC NULLS FIRST"


def valid_at(alias: str = "t") -> str:
    """The validity rule over the raw columns (see the SQLite engine's ``valid_at`` for why it
    is the rule over the keys); its three parameters are :func:`valid_at_params`."""
    return (
        f"({alias}.valid_from IS NULL OR {alias}.valid_from {C} <= %s) "
        f"AND ({alias}.valid_to IS NULL OR {alias}.valid_to {C} > %s "
        f"OR {alias}.valid_to = %s)"
    )


def overlaps(alias: str = "t") -> str:
    """The fact's interval meets ``[range_start, range_end)``; parameters: range end key (or
    NULL for open), the same again, range start key (or NULL), the same again."""
    return (
        f"(%s::text IS NULL OR {alias}.valid_from IS NULL "
        f"OR {start_key(alias + '.valid_from')} < %s) "
        f"AND (%s::text IS NULL OR {alias}.valid_to IS NULL "
        f"OR {end_key(alias + '.valid_to')} > %s)"
    )


__all__ = [
    "C",
    "dated",
    "end_key",
    "nocase",
    "order",
    "overlaps",
    "start_key",
    "valid_at",
    "valid_at_params",
]
