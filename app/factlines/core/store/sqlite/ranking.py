"""Entities ranked by their open or ended fact counts, without our indexes over the facts.

With the covering speed indexes SQLite counts each entity's facts from an index; without them
every entity's facts are read from the table, which takes seconds on a million facts. So:

- the entity with the most facts by a count (the app opens on the one with the most open facts)
  comes from each entity's total number of facts, read off MemPalace's subject and object
  indexes alone: taken most first, with their exact counts read, until the next total is below
  the best count (a count is at most the total). On a million facts: 0.96 s, against 7-9 s for
  the full ranking below. For a page of more it seldom settles (a page of 16 or 100 did not on
  the 1M benchmark graph) and cost 1.2 s more than ranking all, so it is asked for one only;
- otherwise every entity's counts are read in one pass, SQLite orders them, and the ranking is
  kept (see :mod:`.kept`) until the file changes.

Both give the order SQLite's ``ORDER BY count, name COLLATE NOCASE, id`` gives.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection
from typing import Any

from factlines.core.store.engine_connection import SQLConnection

# An entity's open and ended facts, both directions, a fact about itself once.
COUNTS = (
    "(SELECT COUNT(*) FROM triples WHERE subject = e.id AND valid_to IS NULL) + "
    "(SELECT COUNT(*) FROM triples WHERE object = e.id AND subject != e.id AND valid_to IS NULL)",
    "(SELECT COUNT(*) FROM triples WHERE subject = e.id AND valid_to IS NOT NULL) + "
    "(SELECT COUNT(*) FROM triples WHERE object = e.id AND subject != e.id "
    "AND valid_to IS NOT NULL)",
)


def counts_of(among: Callable[[str], str]) -> str:
    """(id, open, ended) of the entities ``among(column)`` names (an SQL condition on a
    column of ``triples``), as :data:`COUNTS` counts them, in one walk of each index per
    entity (not four: a hub of 20,000 facts is counted in half the time)."""
    return (
        "SELECT e, CAST(SUM(o) AS INTEGER), CAST(SUM(n) AS INTEGER) FROM (SELECT subject AS e, "
        "COUNT(*) - COUNT(valid_to) AS o, "
        f"COUNT(valid_to) AS n FROM triples WHERE {among('subject')} GROUP BY subject "
        "UNION ALL SELECT object, COUNT(*) - COUNT(valid_to), COUNT(valid_to) FROM triples "
        f"WHERE {among('object')} AND object != subject GROUP BY object) x GROUP BY e"
    )


# Entities whose exact counts are read at a time, and how many at most before reading them all.
CHUNK = 256
MOST_CHECKED = 8 * CHUNK


def totals(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(id, facts in either direction) of every entity with facts, most first: read off
    MemPalace's subject and object indexes alone. An upper bound of both counts."""
    return conn.execute(
        "SELECT e, SUM(n) FROM (SELECT subject AS e, COUNT(*) AS n FROM triples "
        "GROUP BY subject UNION ALL SELECT object, COUNT(*) FROM triples GROUP BY object) "
        "GROUP BY e ORDER BY 2 DESC"
    ).fetchall()


def most(
    conn: sqlite3.Connection,
    totals_: list[tuple[str, int]],
    order: str,
    allowed: Collection[str | None] | None,
    entity_type: str | None,
) -> list[tuple[Any, ...]] | None:
    """The entity with the most facts by ``order``, as one (id, name, type, current, ended)
    row, from ``totals_`` (those of this snapshot); None when the bound does not settle it
    after :data:`MOST_CHECKED` entities, or entities without facts may rank."""
    column = 1 if order == "current" else 2
    found: list[tuple[Any, ...]] = []
    best = -1
    position = 0
    while position < len(totals_):
        if found and totals_[position][1] < best:
            break
        if position >= MOST_CHECKED:
            return None
        chunk = [
            eid
            for eid, _ in totals_[position : position + CHUNK]
            if allowed is None or eid in allowed
        ]
        position += CHUNK
        found += [
            row[:3]
            for row in rows_for_ids(
                conn,
                f"SELECT e.id, {COUNTS[0]}, {COUNTS[1]}, e.type FROM entities e WHERE e.id IN",
                chunk,
            )
            if entity_type is None or row[3] == entity_type
        ]
        best = max((row[column] for row in found), default=-1)
    else:
        if best <= 0:
            return None
    # SQLite orders the candidates, so ties fall exactly as in a full sort.
    return conn.execute(
        "SELECT e.id, e.name, e.type, json_extract(c.value, '$[1]') AS current, "
        "json_extract(c.value, '$[2]') AS ended FROM json_each(?) c "
        "JOIN entities e ON e.id = json_extract(c.value, '$[0]') "
        f"ORDER BY {order} DESC, e.name COLLATE NOCASE, e.id LIMIT 1",
        (json.dumps(found),),
    ).fetchall()


def ranked(conn: sqlite3.Connection, order: str, descending: bool) -> list[tuple[Any, ...]]:
    """Every entity as (id, name, type, current, ended), ordered by ``order`` (a count), then
    name under NOCASE, then id: counted in one pass over the table, ordered by SQLite."""
    direction = "DESC" if descending else "ASC"
    return conn.execute(
        "SELECT e.id, e.name, e.type, COALESCE(c.current, 0) AS current, "
        "COALESCE(c.ended, 0) AS ended FROM entities e LEFT JOIN ("
        "SELECT e, SUM(o) AS current, SUM(n) AS ended FROM ("
        "SELECT subject AS e, COUNT(*) - COUNT(valid_to) AS o, COUNT(valid_to) AS n "
        "FROM triples NOT INDEXED GROUP BY subject UNION ALL "
        "SELECT object, COUNT(*) - COUNT(valid_to), COUNT(valid_to) FROM triples NOT INDEXED "
        "WHERE object != subject GROUP BY object) GROUP BY e) c ON c.e = e.id "
        f"ORDER BY {order} {direction}, e.name COLLATE NOCASE, e.id"
    ).fetchall()


def rows_for_ids(
    conn: SQLConnection, select_where_in: str, ids: list[str]
) -> list[tuple[Any, ...]]:
    """Run ``select_where_in (?, ?, ...)`` over ``ids`` in chunks SQLite accepts."""
    rows: list[tuple[Any, ...]] = []

    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows += conn.execute(f"{select_where_in} ({', '.join('?' * len(chunk))})", chunk)
    return rows
