"""Finding facts by text: their predicate, their entities' names and their provenance."""

from __future__ import annotations

from typing import Any

from factlines.core.columns import COLUMNS
from factlines.core.store.engine_common import escape_like
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection

# What a search text is looked for in, as SQL over the fact and its two entities.
SEARCHED = tuple(column.sql for column in COLUMNS if column.searched)
_FROM = (
    "FROM triples t LEFT JOIN entities s ON t.subject = s.id "
    "LEFT JOIN entities o ON t.object = o.id"
)


def like_pattern(text: str) -> str:
    """``text`` anywhere, as a LIKE pattern with ``\\`` escaping its wildcards."""
    return f"%{escape_like(text)}%"


def where(text: str, predicate: str | None, as_of_key: str | None) -> tuple[str, list[str | None]]:
    """The WHERE clause (with its parameters) of a fact search; empty text matches every fact."""
    clauses: list[str] = []
    params: list[str | None] = []
    if predicate is not None:
        clauses.append("t.predicate = ?")
        params.append(predicate)
    if text:
        pattern = like_pattern(text)
        clauses.append(
            "(" + " OR ".join(f"{column} LIKE ? ESCAPE '\\'" for column in SEARCHED) + ")"
        )
        params += [pattern] * len(SEARCHED)
    if as_of_key is not None:
        clauses.append(timesql.valid_at("t"))
        params += timesql.valid_at_params(as_of_key)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


class SQLiteFactSearch:
    def __init__(self, db: Connection, columns: str):
        self._db = db
        self._columns = columns

    def search(
        self, text: str, predicate: str | None, as_of_key: str | None, limit: int, offset: int
    ) -> list[tuple[Any, ...]]:
        """Fact rows (``rows.FACT_FIELDS``) matching, by id (the primary key's order)."""
        clause, params = where(text, predicate, as_of_key)
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT {self._columns} {_FROM}{clause} ORDER BY t.id LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()

    def search_count(self, text: str, predicate: str | None, as_of_key: str | None) -> int:
        clause, params = where(text, predicate, as_of_key)
        with self._db.read() as conn:
            return conn.execute(f"SELECT COUNT(*) {_FROM}{clause}", params).fetchone()[0]
