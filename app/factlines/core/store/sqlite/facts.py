"""The triples table in SQLite: facts by id, by entity, by predicate, in time order."""

from __future__ import annotations

import sqlite3
from typing import Any

from factlines.core import temporal
from factlines.core.store.engine_common import (
    FACT_COLUMNS,
    FACT_LEFT_JOIN,
    TIMELINE_SELECT,
    FactRows,
)
from factlines.core.store.engine_connection import SQLConnection
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection
from factlines.core.store.sqlite.fact_search import SQLiteFactSearch
from factlines.core.store.sqlite.kept import Kept
from factlines.core.store.sqlite.schema import NAMES_BY_ID

_ENTITYFACT_COUNT = (
    "SELECT (SELECT COUNT(*) FROM triples WHERE subject = ?1) + "
    "(SELECT COUNT(*) FROM triples WHERE object = ?1)"
)
# For a hub, the page is chosen from the per-entity indexes and only its rows are read.
_ENTITY_TIMELINE = (
    "SELECT t.id, s.name, t.predicate, o.name, t.valid_from, t.valid_to FROM ("
    "SELECT x.rowid AS r, x.valid_from AS vf, x.id AS tid FROM triples x WHERE x.subject = ?1 "
    "AND EXISTS (SELECT 1 FROM entities e WHERE e.id = x.object) "
    "UNION ALL SELECT y.rowid, y.valid_from, y.id FROM triples y "
    "WHERE y.object = ?1 AND y.subject != ?1 "
    "AND EXISTS (SELECT 1 FROM entities e WHERE e.id = y.subject) "
    "ORDER BY 2 ASC NULLS LAST, 3 ASC LIMIT ?2 OFFSET ?3) p "
    "JOIN triples t ON t.rowid = p.r JOIN entities s ON t.subject = s.id "
    "JOIN entities o ON t.object = o.id WHERE EXISTS (SELECT 1 FROM entities WHERE id = ?1) "
    "ORDER BY p.vf ASC NULLS LAST, p.tid ASC"
)

_HAS_INDEX = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
# FACT_LEFT_JOIN with the names read off the speed index of names by id.
_NAMES_BY_ID_JOIN = (
    f"FROM triples t LEFT JOIN entities s INDEXED BY {NAMES_BY_ID} ON t.subject = s.id "
    f"LEFT JOIN entities o INDEXED BY {NAMES_BY_ID} ON t.object = o.id"
)


def _well_formed(value: str | None) -> bool:
    """The test of :func:`timesql.well_formed` in Python (None is no bound, and fine)."""
    return value is None or (len(value) in (10, 20) and temporal.is_accepted(value))


class SQLiteFacts(FactRows[Connection]):
    _timesql = timesql
    POSITION = "rowid"
    ENTITY_ESTIMATE = "SELECT MAX(rowid) FROM entities"

    def __init__(self, db: Connection):
        self._db = db
        self._kept = Kept(db)
        self._search = SQLiteFactSearch(db, FACT_COLUMNS)

    # ── One fact ──────────────────────────────────────────────────────────

    def open_ids(self, sid: str, pred: str, oid: str) -> list[tuple[str, str | None]]:
        """(id, valid_from) of the open facts (subject, predicate, object)."""
        with self._db.read() as conn:
            return self._db.open_ids(conn, sid, pred, oid)

    def _names_join(self, conn: SQLConnection) -> str:
        # SQLite's planner prefers MemPalace's unique index of ids to a covering one.
        if conn.execute(_HAS_INDEX, (NAMES_BY_ID,)).fetchone() is None:
            return FACT_LEFT_JOIN
        return _NAMES_BY_ID_JOIN

    # ── Across the graph ──────────────────────────────────────────────────

    def timeline(self, eid: str | None, limit: int, offset: int) -> list[tuple[Any, ...]]:
        """(id, subject name, predicate, object name, valid_from, valid_to) by valid_from
        ascending, unknown starts last, then id; a fact is listed when both entities exist."""
        with self._db.snapshot() as conn:
            if eid is not None:
                facts = conn.execute(_ENTITYFACT_COUNT, (eid,)).fetchone()[0]
                if facts > 4 * (limit + offset):
                    return conn.execute(_ENTITY_TIMELINE, (eid, limit, offset)).fetchall()
                return conn.execute(
                    TIMELINE_SELECT + "WHERE t.subject = ? OR t.object = ? "
                    "ORDER BY t.valid_from ASC NULLS LAST, t.id ASC LIMIT ? OFFSET ?",
                    (eid, eid, limit, offset),
                ).fetchall()
            # Dated facts walk the (valid_from, id) index; undated ones follow them.
            rows: list[tuple[Any, ...]] = conn.execute(
                TIMELINE_SELECT + "WHERE t.valid_from IS NOT NULL "
                "ORDER BY t.valid_from, t.id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            if len(rows) < limit:
                undated_offset = 0
                if not rows and offset:
                    # The page starts past the dated facts: skip as many as the join lists.
                    dated = conn.execute(
                        "SELECT COUNT(*) FROM triples t JOIN entities s ON t.subject = s.id "
                        "JOIN entities o ON t.object = o.id WHERE t.valid_from IS NOT NULL"
                    ).fetchone()[0]
                    undated_offset = max(0, offset - dated)
                rows += conn.execute(
                    TIMELINE_SELECT + "WHERE t.valid_from IS NULL ORDER BY t.id LIMIT ? OFFSET ?",
                    (limit - len(rows), undated_offset),
                ).fetchall()
            return rows

    def search(
        self, text: str, predicate: str | None, as_of_key: str | None, limit: int, offset: int
    ) -> list[tuple[Any, ...]]:
        """Fact rows whose predicate, entity names or provenance hold ``text``."""
        return self._search.search(text, predicate, as_of_key, limit, offset)

    def search_count(self, text: str, predicate: str | None, as_of_key: str | None) -> int:
        return self._search.search_count(text, predicate, as_of_key)

    def open_with_drawer(self) -> list[tuple[str, str, str]]:
        """(subject name, object name, source_drawer_id) of the open facts naming a drawer."""
        with self._db.read() as conn:
            return conn.execute(
                "SELECT COALESCE(s.name, t.subject), COALESCE(o.name, t.object), "
                f"t.source_drawer_id {FACT_LEFT_JOIN} WHERE t.valid_to IS NULL "
                "AND t.source_drawer_id IS NOT NULL AND t.source_drawer_id != '' ORDER BY t.rowid"
            ).fetchall()

    # ── Graph-wide figures, kept until the file changes (see .kept) ───────

    def counts(self) -> tuple[int, int, int, list[str]]:
        """(entities, facts, ended facts, predicates), read in one snapshot so they add up."""
        return self._kept.get("figures", self._figures)[0]

    def predicates(self) -> list[str]:
        with self._db.read() as conn:
            return self._predicates(conn)

    @staticmethod
    def _predicates(conn: sqlite3.Connection) -> list[str]:
        # A skip-scan over the predicate index: one seek per distinct predicate.
        rows = conn.execute(
            "WITH RECURSIVE p(x) AS (SELECT MIN(predicate) FROM triples UNION ALL "
            "SELECT (SELECT MIN(predicate) FROM triples WHERE predicate > p.x) FROM p "
            "WHERE p.x IS NOT NULL) SELECT x FROM p WHERE x IS NOT NULL"
        ).fetchall()
        return [r[0] for r in rows]

    def time_span(self) -> tuple[str, str] | None:
        """The earliest and latest comparison keys of any dated fact, or None if none is."""
        return self._kept.get("figures", self._figures)[1]

    def _figures(
        self, conn: sqlite3.Connection
    ) -> tuple[tuple[int, int, int, list[str]], tuple[str, str] | None]:
        """(:meth:`counts`, :meth:`time_span`) of one snapshot. With an index led by valid_to
        (the app's ``fl_triples_to``) every figure is read off an index's ends or a count of
        its entries; without, the ended facts and the extreme ends come from one pass."""
        entities = conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0]
        triples = conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0]
        indexed = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'fl_triples_to'"
        ).fetchone()
        if indexed:
            ended = conn.execute("SELECT COUNT(*) FROM triples WHERE valid_to IS NOT NULL")
            ended, span = ended.fetchone()[0], self._span_from_indexes(conn)
        else:
            ended, span = self._figures_by_pass(conn)
        return (entities, triples, ended, self._predicates(conn)), span

    def _figures_by_pass(self, conn: sqlite3.Connection) -> tuple[int, tuple[str, str] | None]:
        """(ended facts, time span). Starts off the ends of MemPalace's (valid_from, valid_to)
        index; ends and the ended facts from one pass over that index (it holds every
        valid_to): the least and greatest date and instant.

        Dates and instants each sort as their keys do, so the extremes of each kind are the
        candidates; a candidate that is not well formed (rare) sends that kind to an exact pass.
        """
        first_from = self._extreme(conn, "valid_from", "ASC")
        last_from = self._extreme(conn, "valid_from", "DESC")
        ended, *row = conn.execute(
            "SELECT COUNT(*), MIN(valid_to) FILTER (WHERE length(valid_to) = 10), "
            "MAX(valid_to) FILTER (WHERE length(valid_to) = 10), "
            "MIN(valid_to) FILTER (WHERE length(valid_to) = 20), "
            "MAX(valid_to) FILTER (WHERE length(valid_to) = 20) "
            "FROM triples WHERE valid_to IS NOT NULL"
        ).fetchone()
        ends: list[str | None] = []
        for length, low, high in ((10, row[0], row[1]), (20, row[2], row[3])):
            if not (_well_formed(low) and _well_formed(high)):
                low, high = conn.execute(
                    "SELECT MIN(valid_to), MAX(valid_to) FROM triples "
                    f"WHERE length(valid_to) = ? AND {timesql.well_formed('valid_to')}",
                    (length,),
                ).fetchone()
            ends += [temporal.end_key(low), temporal.end_key(high)]
        keys = [
            key
            for key in (temporal.start_key(first_from), temporal.start_key(last_from), *ends)
            if key is not None
        ]
        return ended, (min(keys), max(keys)) if keys else None

    def _span_from_indexes(self, conn: sqlite3.Connection) -> tuple[str, str] | None:
        """With the valid_to speed index: every bound read off an index's ends, not by scanning.
        For starts the text order is the key order; for ends only the day of the extreme value
        can hold a date whose key (its last second) beats an instant, or the other way round.
        """
        first_from = self._extreme(conn, "valid_from", "ASC")
        last_from = self._extreme(conn, "valid_from", "DESC")
        first_to = self._extreme(conn, "valid_to", "ASC")
        if first_to is not None and temporal.is_date(first_to):
            first_to = self._extreme(conn, "valid_to", "ASC", within_day=first_to) or first_to
        last_to = self._extreme(conn, "valid_to", "DESC")
        if last_to is not None and not temporal.is_date(last_to):
            day = last_to[:10]
            if conn.execute("SELECT 1 FROM triples WHERE valid_to = ?", (day,)).fetchone():
                last_to = day
        keys = [
            key
            for key in (
                temporal.start_key(first_from),
                temporal.start_key(last_from),
                temporal.end_key(first_to),
                temporal.end_key(last_to),
            )
            if key is not None
        ]
        return (min(keys), max(keys)) if keys else None

    @staticmethod
    def _extreme(
        conn: sqlite3.Connection, column: str, order: str, within_day: str | None = None
    ) -> str | None:
        """The first well-formed value of ``column`` in index order (an instant of a day)."""
        where = f"{column} >= '0'"
        params: list[str] = []

        if within_day is not None:
            where = f"{column} > ? AND {column} < ?"
            params = [within_day, within_day + "U"]
        row = conn.execute(
            f"SELECT {column} FROM triples WHERE {where} AND {timesql.well_formed(column)} "
            f"ORDER BY {column} {order} LIMIT 1",
            params,
        ).fetchone()
        return row[0] if row else None
