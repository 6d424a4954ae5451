"""Entities ranked by their open or ended fact counts, without our indexes over the facts.

With the covering speed indexes SQLite counts each entity's facts from an index; without them
every entity's facts are read from the table, which takes seconds on a million facts. So:

- the first few by a count, descending (the app opens on the entity with the most open facts),
  come from each entity's total number of facts, read off MemPalace's subject and object
  indexes alone: taken most first, with their exact counts read, until the next total is below
  the last count that ranks (a count is at most the total);
- otherwise every entity's counts are read in one pass and the ranking is kept (see
  :mod:`.kept`) until the file changes.

Both give the order SQLite's ``ORDER BY count, name COLLATE NOCASE, id`` gives.
"""

from __future__ import annotations

import json

# An entity's open and ended facts, both directions, a fact about itself once.
COUNTS = (
    "(SELECT COUNT(*) FROM triples WHERE subject = e.id AND valid_to IS NULL) + "
    "(SELECT COUNT(*) FROM triples WHERE object = e.id AND subject != e.id AND valid_to IS NULL)",
    "(SELECT COUNT(*) FROM triples WHERE subject = e.id AND valid_to IS NOT NULL) + "
    "(SELECT COUNT(*) FROM triples WHERE object = e.id AND subject != e.id "
    "AND valid_to IS NOT NULL)",
)
# Entities whose exact counts are read at a time, and how many at most before reading them all.
CHUNK = 256
MOST_CHECKED = 8 * CHUNK

_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def totals(conn) -> list[tuple[str, int]]:
    """(id, facts in either direction) of every entity with facts, most first: read off
    MemPalace's subject and object indexes alone. An upper bound of both counts."""
    return conn.execute(
        "SELECT e, SUM(n) FROM (SELECT subject AS e, COUNT(*) AS n FROM triples "
        "GROUP BY subject UNION ALL SELECT object, COUNT(*) FROM triples GROUP BY object) "
        "GROUP BY e ORDER BY 2 DESC"
    ).fetchall()


def top(conn, totals_, order, allowed, entity_type, wanted) -> list[tuple] | None:
    """The first ``wanted`` entities by ``order`` descending, as (id, name, type, current,
    ended) rows, from ``totals_`` (those of this snapshot); None when the bound does not settle
    it after :data:`MOST_CHECKED` entities, or entities without facts may rank."""
    column = 1 if order == "current" else 2
    found: list[tuple] = []
    best: list[int] = []  # the ``wanted`` best counts so far, highest first
    position = 0
    while position < len(totals_):
        if len(best) >= wanted and totals_[position][1] < best[wanted - 1]:
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
            for row in _rows_for_ids(
                conn, f"SELECT e.id, {COUNTS[0]}, {COUNTS[1]}, e.type FROM entities e", chunk
            )
            if entity_type is None or row[3] == entity_type
        ]
        best = sorted((row[column] for row in found), reverse=True)[:wanted]
    else:
        if len(best) < wanted or best[wanted - 1] <= 0:
            return None
    # SQLite orders the candidates, so ties fall exactly as in a full sort.
    return conn.execute(
        "SELECT e.id, e.name, e.type, json_extract(c.value, '$[1]') AS current, "
        "json_extract(c.value, '$[2]') AS ended FROM json_each(?) c "
        "JOIN entities e ON e.id = json_extract(c.value, '$[0]') "
        f"ORDER BY {order} DESC, e.name COLLATE NOCASE, e.id LIMIT ?",
        (json.dumps(found), wanted),
    ).fetchall()


def ranked(conn, order: str, descending: bool) -> list[tuple]:
    """Every entity as (id, name, type, current, ended), ordered by ``order`` (a count), then
    name as SQLite's NOCASE compares it (ASCII letters folded, then code points, which is
    UTF-8's byte order), then id; NULL first as SQLite sorts it."""
    counts: dict[str, list[int]] = {}
    for eid, open_, ended in conn.execute(
        "SELECT e, SUM(o), SUM(n) FROM (SELECT subject AS e, COUNT(*) - COUNT(valid_to) AS o, "
        "COUNT(valid_to) AS n FROM triples NOT INDEXED GROUP BY subject UNION ALL "
        "SELECT object, COUNT(*) - COUNT(valid_to), COUNT(valid_to) FROM triples NOT INDEXED "
        "WHERE object != subject GROUP BY object) GROUP BY e"
    ):
        counts[eid] = [open_, ended]
    column = 0 if order == "current" else 1
    sign = -1 if descending else 1
    rows = [
        (eid, name, kind, *counts.get(eid, (0, 0)))
        for eid, name, kind in conn.execute("SELECT id, name, type FROM entities")
    ]
    rows.sort(key=lambda r: (sign * r[3 + column], _sqlite_order(r[1], True), _sqlite_order(r[0])))
    return rows


def _sqlite_order(value, nocase: bool = False) -> tuple:
    """A key that sorts values of any storage class as SQLite does: NULL, numbers, text,
    blobs; text under NOCASE with ASCII letters folded."""
    if value is None:
        return (0, 0)
    if isinstance(value, (int, float)):
        return (1, value)
    if isinstance(value, str):
        return (2, value.translate(_ASCII_FOLD) if nocase else value)
    return (3, bytes(value))


def _rows_for_ids(conn, select: str, ids: list[str]) -> list[tuple]:
    rows: list[tuple] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows += conn.execute(f"{select} WHERE e.id IN ({', '.join('?' * len(chunk))})", chunk)
    return rows
