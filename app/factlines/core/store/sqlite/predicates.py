"""The graph's predicates in SQLite: figures per predicate, and one predicate's facts at once
(what renaming or merging a predicate reads)."""

from __future__ import annotations

from factlines.core.store.rows import TRIPLE_COLUMNS
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection

_COLUMNS = ", ".join(f"t.{column}" for column in TRIPLE_COLUMNS)
# Whether a fact had begun before an instant: an unknown start has; otherwise its start key
# (stored text as SQLite sorts it, contract §2.8) is before the instant.
_STARTED = f"(t.valid_from IS NULL OR {timesql.start_key(timesql.as_text('t.valid_from'))} < ?)"


class SQLitePredicates:
    def __init__(self, db: Connection):
        self._db = db

    def stats(self, now_key: str) -> list[tuple]:
        """(predicate, facts, open, valid at ``now_key``, ended, subjects, objects) of every
        predicate, by predicate; one pass over the facts, in the predicate index's order."""
        with self._db.read() as conn:
            return conn.execute(
                "SELECT t.predicate, COUNT(*), COUNT(*) - COUNT(t.valid_to), "
                f"SUM(CASE WHEN {timesql.valid_at('t')} THEN 1 ELSE 0 END), COUNT(t.valid_to), "
                "COUNT(DISTINCT t.subject), COUNT(DISTINCT t.object) "
                "FROM triples t GROUP BY t.predicate ORDER BY t.predicate",
                timesql.valid_at_params(now_key),
            ).fetchall()

    def count(self, predicate: str) -> int:
        with self._db.read() as conn:
            return conn.execute(
                "SELECT COUNT(*) FROM triples WHERE predicate = ?", (predicate,)
            ).fetchone()[0]

    def open_rows(self, predicate: str, boundary: str | None) -> list[tuple]:
        """Every column (TRIPLE_COLUMNS) of the predicate's open facts, in rowid order, and
        last whether each had begun before ``boundary`` (always, when it is None)."""
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT {_COLUMNS}, {_STARTED if boundary is not None else '1'} "
                "FROM triples t WHERE t.predicate = ? AND t.valid_to IS NULL ORDER BY t.rowid",
                ([boundary] if boundary is not None else []) + [predicate],
            ).fetchall()

    def ids(self, predicate: str) -> list[str]:
        """The ids of every fact of the predicate, in rowid order."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM triples WHERE predicate = ? ORDER BY rowid", (predicate,)
            ).fetchall()
        return [tid for (tid,) in rows]
