"""The time rules of :mod:`factlines.core.temporal` as SQL over SQLite's text columns.

Each expression is the Python rule written for the engine, so SQLite filters with exactly the
keys and the validity rule the rest of the app computes in Python.
"""

from __future__ import annotations

from factlines.core.temporal import (
    DATE_DASHES,
    DAY_END_SUFFIX,
    DAY_LENGTH,
    DAY_START_SUFFIX,
    INSTANT_LENGTH,
)


def dated(column: str, fixed: int = 0) -> str:
    """SQL: the value is dated (:func:`temporal.is_dated`), checking only the dashes a range
    whose values share their first ``fixed`` characters leaves open."""
    return _shaped(column, f"IN ({DAY_LENGTH}, {INSTANT_LENGTH})", fixed)


def _shaped(column: str, length: str, fixed: int) -> str:
    checks = [f"length({column}) {length}"]
    checks += [f"substr({column}, {at + 1}, 1) = '-'" for at in DATE_DASHES if fixed <= at]
    return " AND ".join(checks)


def day_or(column: str, suffix: str) -> str:
    """SQL: a day (:func:`temporal.is_date`) with ``suffix``, any other value as it is."""
    day = _shaped(column, f"= {DAY_LENGTH}", 0)
    return f"(CASE WHEN {day} THEN {column} || '{suffix}' ELSE {column} END)"


def start_key(column: str) -> str:
    return day_or(column, DAY_START_SUFFIX)


def end_key(column: str) -> str:
    return day_or(column, DAY_END_SUFFIX)


def well_formed(column: str) -> str:
    """True when the column holds a value the time rules accept in its stored form: a day or
    a ``Z`` instant that exists (not MemPalace's ``""`` pass-through, a partial date,
    ``2025-02-30`` or ``0000-00-00``). SQLite's date functions normalise an impossible day
    (``2025-02-30`` becomes ``2025-03-02``) and refuse a month 13, so a value is well formed
    when it reads back unchanged."""
    return (
        f"({column} >= '0001' AND ((length({column}) = 10 AND "
        f"strftime('%Y-%m-%d', {column}, '+0 days') = {column}) OR (length({column}) = 20 AND "
        f"strftime('%Y-%m-%dT%H:%M:%SZ', {column}, '+0 days') = {column})))"
    )


def valid_at(alias: str = "t") -> str:
    """A WHERE fragment of the validity rule; its three ``?`` are :func:`valid_at_params`.

    It is the rule over the comparison keys, written over the raw columns so that SQLite
    compares plain text (and can use an index) instead of building a key per row. For a
    well-formed instant key ``K`` and any stored text ``v`` the two are the same test:

    - ``start_key(v) <= K``  iff  ``v <= K``: a date ``D`` is a prefix of ``D + "T00:00:00Z"``,
      and no instant of day ``D`` sorts before ``D + "T00:00:00Z"``;
    - ``end_key(v) > K``  iff  ``v > K`` or ``v = K[:10]`` while ``K`` is before that day's
      last second: the only values whose key is above ``K`` but whose text is not are the
      date of ``K``'s own day, whose key is ``K[:10] + "T23:59:59Z"``.
    """
    return (
        f"({alias}.valid_from IS NULL OR {alias}.valid_from <= ?) "
        f"AND ({alias}.valid_to IS NULL OR {alias}.valid_to > ? OR {alias}.valid_to = ?)"
    )


def valid_at_params(key: str) -> list[str | None]:
    """The parameters of :func:`valid_at` for an instant key (a :func:`start_key`)."""
    day = key[:10] if key[10:] < DAY_END_SUFFIX else None
    return [key, key, day]


def overlaps(alias: str = "t") -> str:
    """A WHERE fragment: the fact's interval meets ``[range_start, range_end)``.

    Parameters, in order: range end key (or NULL for open), the same again, range start key
    (or NULL), the same again.
    """
    return (
        f"(? IS NULL OR {alias}.valid_from IS NULL OR {start_key(alias + '.valid_from')} < ?) "
        f"AND (? IS NULL OR {alias}.valid_to IS NULL OR {end_key(alias + '.valid_to')} > ?)"
    )


def as_text(column: str) -> str:
    """A time column as text Python can compare with keys, standing for where SQLite sorts what
    a raw edit may leave there: a number sorts before every text (``""``: an unknown start, an
    end nobody knows), a BLOB after every text (``"~"``, after every key)."""
    return (
        f"(CASE typeof({column}) WHEN 'text' THEN {column} WHEN 'null' THEN NULL "
        f"WHEN 'blob' THEN '~' ELSE '' END)"
    )
