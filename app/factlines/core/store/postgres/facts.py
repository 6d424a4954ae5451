"""The triples table in PostgreSQL: facts by id, by entity, by predicate, in time order, with
the SQLite engine's answers (its SQL where it is the same, :mod:`.timesql` where it is not)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factlines.core import temporal
from factlines.core.store.engine_common import (
    FACT_COLUMNS,
    FACT_LEFT_JOIN,
    TIMELINE_SELECT,
    FactRows,
    PredicateRows,
)
from factlines.core.store.postgres import timesql
from factlines.core.store.postgres.connection import PGConnection
from factlines.core.store.postgres.timesql import C
from factlines.core.store.sqlite.fact_search import SEARCHED, like_pattern

# How many candidates of an extreme are read at a time to find a well-formed one.
_EXTREME_BATCH = 64


class PGFacts(FactRows[PGConnection]):
    _timesql = timesql
    BYTE_ORDER = C

    def __init__(self, db: PGConnection):
        self._db = db
        self._kept: dict[str, tuple[int, Any]] = {}

    # ── One fact ──────────────────────────────────────────────────────────

    def open_ids(self, sid: str, pred: str, oid: str) -> list[tuple[str, str | None]]:
        with self._db.read() as conn:
            return conn.execute(
                "SELECT id, valid_from FROM triples WHERE subject = %s AND predicate = %s "
                f"AND object = %s AND valid_to IS NULL ORDER BY id {C}",
                (sid, pred, oid),
            ).fetchall()

    # ── An entity's facts ─────────────────────────────────────────────────

    # ── Across the graph ──────────────────────────────────────────────────

    def timeline(self, eid: str | None, limit: int, offset: int) -> list[tuple[Any, ...]]:
        """By valid_from ascending, unknown starts last, then id; both entities must exist."""
        where, params = "", []
        if eid is not None:
            where, params = "WHERE t.subject = %s OR t.object = %s ", [eid, eid]
        with self._db.read() as conn:
            return conn.execute(
                TIMELINE_SELECT + where + f"ORDER BY t.valid_from {C} ASC NULLS LAST, "
                f"t.id {C} LIMIT %s OFFSET %s",
                [*params, limit, offset],
            ).fetchall()

    def _search_where(
        self, text: str, predicate: str | None, as_of_key: str | None
    ) -> tuple[str, list[str | None]]:
        clauses: list[str] = []
        params: list[str | None] = []
        if predicate is not None:
            clauses.append("t.predicate = %s")
            params.append(predicate)
        if text:
            # SQLite's LIKE folds ASCII letters only: so does this.
            clauses.append(
                "("
                + " OR ".join(
                    f"{timesql.nocase(column)} LIKE {timesql.nocase('%s')}" for column in SEARCHED
                )
                + ")"
            )
            params += [like_pattern(text)] * len(SEARCHED)
        if as_of_key is not None:
            clauses.append(timesql.valid_at("t"))
            params += timesql.valid_at_params(as_of_key)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def search(
        self, text: str, predicate: str | None, as_of_key: str | None, limit: int, offset: int
    ) -> list[tuple[Any, ...]]:
        clause, params = self._search_where(text, predicate, as_of_key)
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN}{clause} "
                f"ORDER BY t.id {C} LIMIT %s OFFSET %s",
                [*params, limit, offset],
            ).fetchall()

    def search_count(self, text: str, predicate: str | None, as_of_key: str | None) -> int:
        clause, params = self._search_where(text, predicate, as_of_key)
        with self._db.read() as conn:
            return conn.execute(f"SELECT COUNT(*) {FACT_LEFT_JOIN}{clause}", params).fetchone()[0]

    def open_with_drawer(self) -> list[tuple[str, str, str]]:
        with self._db.read() as conn:
            return conn.execute(
                "SELECT COALESCE(s.name, t.subject), COALESCE(o.name, t.object), "
                f"t.source_drawer_id {FACT_LEFT_JOIN} WHERE t.valid_to IS NULL "
                "AND t.source_drawer_id IS NOT NULL AND t.source_drawer_id != '' "
                f"ORDER BY t.id {C}"
            ).fetchall()

    # ── Graph-wide figures, kept until this client learns of a change ─────

    def _keep(self, name: str, compute: Callable[[Any], Any]) -> Any:
        self._db.poll()
        generation = self._db.generation
        kept = self._kept.get(name)
        if kept is not None and kept[0] == generation and not self._db.writing:
            return kept[1]
        with self._db.snapshot() as conn:
            value = compute(conn)
        if not self._db.writing:
            self._kept[name] = (generation, value)
        return value

    def counts(self) -> tuple[int, int, int, list[str]]:
        """(entities, facts, ended facts, predicates), read in one snapshot so they add up."""
        return self._keep("counts", _counts)

    def predicates(self) -> list[str]:
        with self._db.read() as conn:
            return _predicates(conn)

    def time_span(self) -> tuple[str, str] | None:
        """The earliest and latest comparison keys of any dated fact, or None if none is."""
        return self._keep("time_span", _span)


def _counts(conn: Any) -> tuple[int, int, int, list[str]]:
    entities = conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0]
    triples, ended = conn.execute("SELECT COUNT(*), COUNT(valid_to) FROM triples").fetchone()
    return entities, triples, ended, _predicates(conn)


def _predicates(conn: Any) -> list[str]:
    # A skip-scan over the predicate index: one seek per distinct predicate.
    rows = conn.execute(
        f"WITH RECURSIVE p(x) AS (SELECT MIN(predicate {C}) FROM triples UNION ALL "
        f"SELECT (SELECT MIN(predicate {C}) FROM triples WHERE predicate {C} > p.x) FROM p "
        "WHERE p.x IS NOT NULL) SELECT x FROM p WHERE x IS NOT NULL"
    ).fetchall()
    return [r[0] for r in rows]


def _span(conn: Any) -> tuple[str, str] | None:
    """Starts' extremes are their text's; an end's key orders days and instants apart (a day
    ends at its last second), so the extremes of each kind are the candidates."""
    keys = [
        temporal.start_key(_extreme(conn, "valid_from", None, False)),
        temporal.start_key(_extreme(conn, "valid_from", None, True)),
    ]
    for length in (10, 20):
        keys.append(temporal.end_key(_extreme(conn, "valid_to", length, False)))
        keys.append(temporal.end_key(_extreme(conn, "valid_to", length, True)))
    keys = [key for key in keys if key is not None]
    return (min(keys), max(keys)) if keys else None


def _extreme(conn: Any, column: str, length: int | None, descending: bool) -> str | None:
    """The least (greatest) value of ``column`` the time rules accept (of ``length``), read in
    index order and checked here: a value that is not well formed (rare) is stepped over."""
    after: str | None = None
    where = f"{column} {C} >= '0001'" + (f" AND length({column}) = {length}" if length else "")
    while True:
        step = "" if after is None else f" AND {column} {C} {'<' if descending else '>'} %s"
        values: list[str] = [
            row[0]
            for row in conn.execute(
                f"SELECT DISTINCT {column} {C} FROM triples WHERE {where}{step} "
                f"ORDER BY 1 {'DESC' if descending else 'ASC'} LIMIT {_EXTREME_BATCH}",
                [] if after is None else [after],
            )
        ]
        for value in values:
            if len(value) in (10, 20) and temporal.is_accepted(value):
                return value
        if len(values) < _EXTREME_BATCH:
            return None
        after = values[-1]


class PGPredicates(PredicateRows[PGConnection]):
    """The graph's predicates (:class:`PredicateRows`); PostgreSQL keeps no order of writing,
    so its rows come in id order."""

    _timesql = timesql
    ORDER = f"t.id {C}"
