"""The time rules of :mod:`factlines.core.temporal` as SQL over PostgreSQL's text columns:
the SQLite engine's expressions (:mod:`factlines.core.store.sqlite.timesql`) ported, every
comparison and order on bytes (``COLLATE "C"``, SQLite's BINARY for UTF-8 text) whatever the
database's default collation, and SQLite's NULL order (first ascending, last descending)."""

from __future__ import annotations

from factlines.core.store.sqlite.timesql import valid_at_params
from factlines.core.temporal import DAY_END_SUFFIX, DAY_START_SUFFIX

C = 'COLLATE "C"'
_UPPER, _LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"


def _day_or(column: str, suffix: str) -> str:
    return (
        f"(CASE WHEN length({column}) = 10 AND substr({column}, 5, 1) = '-' "
        f"AND substr({column}, 8, 1) = '-' THEN {column} || '{suffix}' "
        f"ELSE {column} END) {C}"
    )


def as_text(column: str) -> str:
    """A time column as text: here every one already is (SQLite's may hold numbers)."""
    return column


def start_key(column: str) -> str:
    return _day_or(column, DAY_START_SUFFIX)


def end_key(column: str) -> str:
    return _day_or(column, DAY_END_SUFFIX)


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
    "end_key",
    "nocase",
    "order",
    "overlaps",
    "start_key",
    "valid_at",
    "valid_at_params",
]
