"""The history queries in PostgreSQL, with the SQLite engine's answers (see its
:mod:`factlines.core.store.sqlite.history` for what each returns). PostgreSQL's planner and
the key expression indexes (:data:`.schema.DEFAULT_INDEXES`) answer in one statement what
the SQLite engine finds by walking its indexes."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from itertools import accumulate
from typing import Any

from factlines.core.store.engine_common import (
    FACT_COLUMNS,
    FACT_LEFT_JOIN,
    change_params,
    changed_facts,
    whole_subjects,
)
from factlines.core.store.postgres.connection import PGConnection
from factlines.core.store.postgres.timesql import C, dated, end_key, start_key

# What time_counts answers: starts and ends at or before each key, unknown starts, and the
# facts valid nowhere.
_TimeCounts = tuple[list[int], list[int], int, list[tuple[Any, ...]]]
_INTERVAL_ROWS = "SELECT subject, predicate, object, id, valid_from, valid_to FROM triples"
_SK = start_key("valid_from")
_EK = end_key("valid_to")
_INVERTED = (
    "(valid_from IS NOT NULL AND valid_from != '' AND valid_to IS NOT NULL "
    f"AND valid_to != '' AND valid_to {C} < valid_from || 'T00:00:00Z' AND {_EK} < {_SK})"
)


def _events_sql(where: str) -> str:
    """Every event of the facts ``where`` selects, in order: dated by (key, start before end,
    id), then undated by (start before end, id); rows (id, kind, at)."""
    return (
        "SELECT id, kind, at FROM ("
        f"SELECT id, 'start' AS kind, valid_from AS at, 0 AS e, "
        f"CASE WHEN {dated('valid_from')} THEN 0 ELSE 1 END AS u, "
        f"CASE WHEN {dated('valid_from')} THEN {_SK} ELSE '' END AS k "
        f"FROM triples t {where} UNION ALL "
        f"SELECT id, 'end', valid_to, 1, CASE WHEN {dated('valid_to')} THEN 0 ELSE 1 END, "
        f"CASE WHEN {dated('valid_to')} THEN {_EK} ELSE '' END "
        f"FROM triples t {where}{' AND' if where else ' WHERE'} valid_to IS NOT NULL) x "
        f"ORDER BY u, k {C}, e, id {C} LIMIT %s OFFSET %s"
    )


class PGHistory:
    def __init__(self, db: PGConnection):
        self._db = db
        self._counted: tuple[tuple[int, tuple[str, ...]], _TimeCounts] | None = None

    def interval_rows(
        self, predicates: list[str] | None, eid: str | None, touching: bool = False
    ) -> list[tuple[Any, ...]]:
        where: list[str] = []
        params: list[Any] = []
        if predicates is not None:
            where.append("predicate = ANY(%s)")
            params.append(list(predicates))
        if eid is not None and touching:
            also = " AND predicate = ANY(%s)" if predicates is not None else ""
            where.append(
                f"subject IN (SELECT %s UNION SELECT subject FROM triples WHERE object = %s{also})"
            )
            params += [eid, eid] + ([list(predicates)] if predicates is not None else [])
        elif eid is not None:
            where.append("subject = %s")
            params.append(eid)
        with self._db.read() as conn:
            return conn.execute(
                _INTERVAL_ROWS + (" WHERE " + " AND ".join(where) if where else ""), params
            ).fetchall()

    def subject_parts(
        self, predicate: str, rows_at_once: int
    ) -> Generator[list[tuple[Any, ...]], None, None]:
        # The answer waits in libpq's compact buffer; its Python rows are made a part at a time.
        with self._db.read() as conn:
            cursor = conn.execute(
                f"{_INTERVAL_ROWS} WHERE predicate = %s ORDER BY subject", [predicate]
            )
            yield from whole_subjects(cursor, rows_at_once)

    def irregular(
        self, now_key: str, today: str, eid: str | None, skip: Sequence[str] = ()
    ) -> list[tuple[Any, ...]]:
        subject, params = ("", []) if eid is None else (" AND subject = %s", [eid])
        others = " AND NOT (predicate = ANY(%s))" if skip else ""
        columns = f"id, subject, predicate, object, {_SK}, {_EK}"
        with self._db.snapshot() as conn:
            rows = conn.execute(
                f"SELECT 'duplicate_open', {columns} FROM triples WHERE valid_to IS NULL AND "
                "(subject, predicate, object) IN (SELECT subject, predicate, object FROM "
                f"triples WHERE valid_to IS NULL{subject}{others} GROUP BY 1, 2, 3 "
                "HAVING COUNT(*) > 1)",
                [*params, *([list(skip)] if skip else [])],
            ).fetchall()
            rows += conn.execute(
                f"SELECT CASE WHEN {_INVERTED} THEN 'inverted' ELSE 'future_end' END, "
                f"{columns} FROM triples WHERE ({_INVERTED} OR (valid_to {C} > %s "
                f"AND (valid_to {C} > %s OR length(valid_to) != 10))){subject}",
                [now_key, today, *params],
            ).fetchall()
        return rows

    def changes(self, start_key: str, end_key: str, eid: str | None) -> tuple[list[Any], list[Any]]:
        inverted = _INVERTED.replace("valid_", "t.valid_")
        started = f"t.valid_from {C} > %(s)s AND t.valid_from {C} <= %(e)s AND NOT {inverted}"
        ended = (
            f"t.valid_to {C} >= %(s10)s AND (t.valid_to {C} > %(s)s OR t.valid_to = %(ds)s) "
            f"AND t.valid_to {C} <= %(e)s AND (%(de)s::text IS NULL OR t.valid_to != %(de)s) "
            f"AND NOT {inverted}"
        )
        with self._db.snapshot() as conn:
            return changed_facts(
                conn, started, ended, change_params(start_key, end_key, eid), eid, "%({})s".format
            )

    def event_count(self, eid: str | None) -> int:
        where, params = (
            ("", []) if eid is None else (" WHERE subject = %s OR object = %s", [eid] * 2)
        )
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT COUNT(*) + COUNT(valid_to) FROM triples{where}", params
            ).fetchone()[0]

    def events(self, eid: str | None, limit: int, offset: int) -> list[tuple[Any, ...]]:
        """(at, kind, fact row) of the events at ``offset`` .. ``offset + limit`` in order."""
        where, params = "", []
        if eid is not None:
            where, params = "WHERE (t.subject = %s OR t.object = %s)", [eid, eid]
        with self._db.snapshot() as conn:
            page = conn.execute(_events_sql(where), [*params, *params, limit, offset]).fetchall()
            ids = list({tid for tid, _, _ in page})
            facts = {
                row[0]: row
                for row in conn.execute(
                    f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE t.id = ANY(%s)", (ids,)
                )
            }
        return [(at, kind, facts[tid]) for tid, kind, at in page]

    def time_counts(self, keys: list[str]) -> _TimeCounts:
        """See the SQLite engine's: starts and ends at or before each key, unknown starts,
        and the facts valid nowhere."""
        self._db.poll()
        asked = (self._db.generation, tuple(keys))
        if self._counted is not None and self._counted[0] == asked and not self._db.writing:
            return self._counted[1]
        with self._db.snapshot() as conn:
            starts = _at_or_before(conn, "valid_from", keys)
            ends = _at_or_before(conn, _EK, keys)
            unknown = conn.execute(
                "SELECT COUNT(*) FROM triples WHERE valid_from IS NULL"
            ).fetchone()[0]
            nowhere = conn.execute(
                f"SELECT {_SK}, {_EK} FROM triples WHERE valid_from IS NOT NULL "
                f"AND valid_to {C} < valid_from || 'T00:00:00Z' AND {_EK} < {_SK}"
            ).fetchall()
        counted = (starts, ends, unknown, nowhere)
        if not self._db.writing:  # the views ask twice on a change: once is enough
            self._counted = (asked, counted)
        return counted


def _at_or_before(conn: Any, value: str, keys: list[str]) -> list[int]:
    """How many facts' ``value`` (a column, or a key's SQL) is at or before each key, in one
    pass: each value falls in the bucket of the keys it is not after (``v <= k`` is
    ``v < k + chr(1)``: no text lies between), and the buckets add up."""
    buckets = [0] * (len(keys) + 1)
    for bucket, count in conn.execute(
        f"SELECT width_bucket(({value}) {C}, %s::text[]), COUNT(*) FROM triples "
        f"WHERE {value} IS NOT NULL GROUP BY 1",
        ([key + "\x01" for key in keys],),
    ):
        buckets[bucket] = count
    return list(accumulate(buckets))[: len(keys)]
