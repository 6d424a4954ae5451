"""Columns a newer MemPalace adds to its two tables (``created_by`` / ``ended_by`` on
``triples``, ``aliases`` on ``entities``): kept by every path that copies rows.

Such a column is known by its name and its kind, SQLite's affinity of its declared type (the
rules of SQLite's datatype page): ``TEXT``, ``INTEGER``, ``REAL``, ``NUMERIC`` or ``BLOB``
(no affinity: values kept as given). A column is created again by its kind, so a value comes
back exactly as SQLite stored it (the declared type's spelling is not kept).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from factlines.core.errors import Refused
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS

KINDS = ("TEXT", "INTEGER", "REAL", "NUMERIC", "BLOB")
MEMPALACE_COLUMNS = {"entities": ENTITY_COLUMNS, "triples": TRIPLE_COLUMNS}
# A plain name: it goes into SQL (quoted) on both engines.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


def column_kind(declared: str | None) -> str:
    """SQLite's affinity of a declared column type."""
    spelled = (declared or "").upper()
    if "INT" in spelled:
        return "INTEGER"
    if any(word in spelled for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in spelled or not spelled.strip():
        return "BLOB"
    if any(word in spelled for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def extras_of(table: str, columns: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    """(name, kind) of the columns of ``table`` (given as (name, declared type), in order)
    beyond MemPalace's."""
    mempalace = {name.lower() for name in MEMPALACE_COLUMNS[table]}
    return [
        (name, column_kind(declared)) for name, declared in columns if name.lower() not in mempalace
    ]


def checked_extras(table: str, extras: Iterable[Sequence[object]]) -> list[tuple[str, str]]:
    """``extras`` as (name, kind) pairs, each a plain name beyond MemPalace's columns and a
    known kind; refused otherwise, in words."""
    if table not in MEMPALACE_COLUMNS:
        raise Refused(f"table must be one of {sorted(MEMPALACE_COLUMNS)}")
    checked: list[tuple[str, str]] = []
    mempalace = {name.lower() for name in MEMPALACE_COLUMNS[table]}
    for pair in extras:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise Refused(f"a column of {table} is given as {pair!r}, not as [name, kind]")
        name, kind = pair
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise Refused(
                f"{table} cannot have a column named {name!r}: a column's name is letters, "
                "digits and _ (at most 63), not starting with a digit"
            )
        if name.lower() in mempalace:
            raise Refused(f"{name!r} is one of MemPalace's own columns of {table}")
        if kind not in KINDS:
            raise Refused(f"the column {table}.{name} has the kind {kind!r}, not one of {KINDS}")
        if name.lower() not in {seen.lower() for seen, _ in checked}:
            checked.append((name, kind))
    return checked
