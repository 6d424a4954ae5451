"""MemPalace 3.11's replication of a graph (its read replica): page the rows out verbatim in the
order the engine keeps them, fold rows in by id. Only MemPalace's two tables take part."""

from __future__ import annotations

from typing import Any

from factlines.core.errors import Refused
from factlines.core.store.protocol import MEMPALACE_WAIT
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS
from factlines.core.store.wiring import Part, writes

# The columns replicated, in MemPalace's order (its ``_REPLICATION_TABLES``).
REPLICATED = {"entities": ENTITY_COLUMNS, "triples": TRIPLE_COLUMNS}
# What a row cannot lack (NOT NULL in MemPalace's schema).
_REQUIRED = {"entities": ("name",), "triples": ("subject", "predicate", "object")}
_PAGE_MAX = 1000


def replicated_columns(table: object) -> tuple[str, ...]:
    columns = REPLICATED.get(table) if isinstance(table, str) else None
    if columns is None:
        raise Refused(f"table must be one of {sorted(REPLICATED)}")
    return columns


class MemPalaceReplication(Part):
    """``dump_rows`` and ``apply_row`` of :class:`~factlines.core.store.KnowledgeGraph`."""

    def dump_rows(self, table: str, after_rowid: int = 0, limit: int = 500) -> list[dict[str, Any]]:
        """A page of ``table``'s rows, verbatim, in the order the store keeps them.

        Each row is a dict of its columns plus ``_rowid`` (and ``rowid``, as MemPalace gives
        it): the row's position, to pass back as ``after_rowid`` for the next page (0: from the
        start). Rows appended meanwhile come on later pages; a row rewritten in place is seen
        on the next full pass. ``limit`` is kept between 1 and 1000.
        """
        columns = replicated_columns(table)
        limit = max(1, min(int(limit), _PAGE_MAX))
        return [
            {"rowid": position, **dict(zip(columns, values)), "_rowid": position}
            for position, values in self._store.rows_after(table, columns, after_rowid, limit)
        ]

    @writes
    def apply_row(self, table: str, row: dict[str, Any]) -> None:
        """Fold one replicated row in by its id, replacing the row of that id if there is one,
        so that ended facts and entity edits converge when pulled again. Columns the row lacks
        are stored empty; nothing else is checked (rows are replicated, not written anew), and
        nothing is ever deleted."""
        columns = replicated_columns(table)
        if not row.get("id"):
            raise Refused("replicated row is missing 'id'")
        values = {column: row.get(column) for column in columns}
        missing = [column for column in _REQUIRED[table] if values[column] is None]
        if missing:
            raise Refused(
                f"replicated {table} row {values['id']!r} has no {', '.join(missing)}; "
                "nothing was written"
            )
        with self._store.transaction(wait=MEMPALACE_WAIT):
            self._store.replace_row(table, values)
