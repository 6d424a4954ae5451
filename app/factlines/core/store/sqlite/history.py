"""The history queries in SQLite: conflicts' raw material, changes between two instants, the
events in order, and counts of keys for the histogram.

Everything here reads through MemPalace's ``idx_triples_valid`` (valid_from, valid_to),
``idx_triples_subject``, ``idx_triples_object`` and ``idx_triples_predicate``, and through an
index whose first column is ``valid_to`` when the file has one (the app's ``fl_triples_to``):
without it, ends are counted from one sorted read instead of by index ranges.

Comparisons are made on the stored text wherever that is the key order (see
:func:`timesql.valid_at`): a start's text order is its key order, and an end's differs only for
a day-only end, whose key is its day's last second.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from factlines.core import temporal
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection
from factlines.core.store.sqlite.entities import rows_for_ids
from factlines.core.store.sqlite.facts import _FACT_COLUMNS, _FACT_LEFT_JOIN

_SK = timesql.start_key("valid_from")
_EK = timesql.end_key("valid_to")
# A fact whose end key is before its start key (MemPalace's "" end is "ended, unknown when").
_INVERTED = (
    "(valid_from IS NOT NULL AND valid_from != '' AND valid_to IS NOT NULL "
    f"AND valid_to != '' AND {_EK} < {_SK})"
)
_DATED = {col: timesql.well_formed(col) for col in ("valid_from", "valid_to")}
_STREAMS = (("valid_from", "start"), ("valid_to", "end"))
# Dated values start with a digit: the whole dated range is ["0", ":").
_FIRST, _LAST = "0", ":"
_LEVELS = (4, 7, 10)  # year, month, day prefixes of a dated value


def _day_of(key: str) -> str | None:
    """The day whose day-only end key is above ``key`` although its text is not (None when
    ``key`` is its day's last second): see :func:`timesql.valid_at_params`."""
    return key[:10] if key[10:] < temporal.DAY_END_SUFFIX else None


class SQLiteHistory:
    def __init__(self, db: Connection):
        self._db = db

    # ── Conflicts ─────────────────────────────────────────────────────────

    def interval_rows(
        self, predicates: list[str] | None, eid: str | None, touching: bool = False
    ) -> list[tuple]:
        """(subject, predicate, start_key, end_key, id, object, valid_to) of the facts of
        ``predicates`` (all when None). With ``eid``: those whose subject is ``eid``, or with
        ``touching`` also those of the subjects of such facts pointing at ``eid``."""
        where, params = [], []
        if predicates is not None:
            where.append(f"predicate IN ({', '.join('?' * len(predicates))})")
            params += predicates
        if eid is not None and touching:
            where.append(
                f"subject IN (SELECT ? UNION SELECT subject FROM triples WHERE object = ?"
                f"{' AND ' + where[0] if where else ''})"
            )
            params += [eid, eid, *(predicates or [])]
        elif eid is not None:
            where.append("subject = ?")
            params.append(eid)
        sql = f"SELECT subject, predicate, {_SK}, {_EK}, id, object, valid_to FROM triples"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._db.read() as conn:
            return conn.execute(sql, params).fetchall()

    def irregular(self, now_key: str, eid: str | None) -> list[tuple]:
        """(kind, id, subject, predicate, object, start_key, end_key) of every fact that is
        one of two or more open copies (``duplicate_open``), has an inverted interval
        (``inverted``), or ends after ``now_key`` (``future_end``; never an inverted one)."""
        subject, params = ("", []) if eid is None else (" AND subject = ?", [eid])
        columns = f"id, subject, predicate, object, {_SK}, {_EK}"
        sql = (
            f"SELECT 'duplicate_open', {columns} FROM triples WHERE valid_to IS NULL{subject} "
            "AND (subject, predicate, object) IN (SELECT subject, predicate, object FROM triples "
            f"WHERE valid_to IS NULL{subject} GROUP BY 1, 2, 3 HAVING COUNT(*) > 1) "
            f"UNION ALL SELECT 'inverted', {columns} FROM triples WHERE rowid IN "
            f"(SELECT rowid FROM triples WHERE {_INVERTED}){subject} "
            f"UNION ALL SELECT 'future_end', {columns} FROM triples "
            f"WHERE valid_to >= ? AND (valid_to > ? OR valid_to = ?) AND NOT {_INVERTED}{subject}"
        )
        with self._db.snapshot() as conn:
            return conn.execute(
                sql, [*params, *params, *params, now_key[:10], now_key, _day_of(now_key), *params]
            ).fetchall()

    # ── What changed ──────────────────────────────────────────────────────

    def changes(self, start_key: str, end_key: str, eid: str | None) -> tuple[list, list]:
        """Fact rows (``rows.FACT_FIELDS``) that started in ``(start_key, end_key]`` and those
        that ended in it, by key then id; inverted intervals in neither."""
        started = "t.valid_from > :s AND t.valid_from <= :e AND NOT " + _INVERTED.replace(
            "valid_", "t.valid_"
        )
        # end_key(v) > s  iff  v > s or v is s's own day (unless s is its last second).
        ended = (
            "t.valid_to >= :s10 AND (t.valid_to > :s OR t.valid_to = :ds) AND t.valid_to <= :e "
            "AND (:de IS NULL OR t.valid_to != :de) AND NOT "
            + _INVERTED.replace("valid_", "t.valid_")
        )
        params = {
            "s": start_key,
            "e": end_key,
            "s10": start_key[:10],
            "ds": _day_of(start_key),
            "de": _day_of(end_key),
            "x": eid,
        }
        with self._db.snapshot() as conn:
            out = []
            for where, key in ((started, temporal.start_key), (ended, temporal.end_key)):
                if eid is None:
                    sql = f"SELECT {_FACT_COLUMNS} {_FACT_LEFT_JOIN} WHERE {where}"
                else:
                    sql = (
                        f"SELECT {_FACT_COLUMNS} {_FACT_LEFT_JOIN} WHERE t.subject = :x "
                        f"AND {where} UNION ALL SELECT {_FACT_COLUMNS} {_FACT_LEFT_JOIN} "
                        f"WHERE t.object = :x AND t.subject != :x AND {where}"
                    )
                rows = conn.execute(sql, params).fetchall()
                column = 6 if key is temporal.start_key else 7
                rows.sort(key=lambda r, c=column, k=key: (k(r[c]), r[0]))
                out.append(rows)
        return out[0], out[1]

    # ── The events in order ───────────────────────────────────────────────

    def event_count(self, eid: str | None) -> int:
        """Every fact has a start event (dated or not); every fact with a valid_to an end."""
        with self._db.read() as conn:
            if eid is None:
                row = conn.execute("SELECT COUNT(*) + COUNT(valid_to) FROM triples").fetchone()
            else:
                row = conn.execute(
                    "SELECT COUNT(*) + COUNT(valid_to) FROM triples WHERE subject = ?1 "
                    "OR object = ?1",
                    (eid,),
                ).fetchone()
        return row[0]

    def events(self, eid: str | None, limit: int, offset: int) -> list[tuple]:
        """(at, kind, fact row) of the events at ``offset`` .. ``offset + limit`` in order:
        dated events by (key, start before end, id); then the undated ones (an unknown
        start, or a stored value that is no date or instant, like MemPalace's ``""`` end) by
        (start before end, id)."""
        with self._db.snapshot() as conn:
            if eid is not None:
                page = self._entity_events(conn, eid, limit, offset)
            else:
                page = self._graph_events(conn, limit, offset)
            ids = list({tid for tid, _, _ in page})
            facts = {
                row[0]: row
                for row in rows_for_ids(
                    conn, f"SELECT {_FACT_COLUMNS} {_FACT_LEFT_JOIN} WHERE t.id IN", ids
                )
            }
        return [(at, kind, facts[tid]) for tid, kind, at in page]

    @staticmethod
    def _entity_events(conn, eid: str, limit: int, offset: int) -> list[tuple]:
        rows = conn.execute(
            "SELECT id, valid_from, valid_to FROM triples WHERE subject = ?1 UNION ALL "
            "SELECT id, valid_from, valid_to FROM triples WHERE object = ?1 AND subject != ?1",
            (eid,),
        ).fetchall()
        events = []
        for tid, vf, vt in rows:
            events.append((_order(vf, 0, tid), tid, "start", vf))
            if vt is not None:
                events.append((_order(vt, 1, tid), tid, "end", vt))
        events.sort()
        return [(tid, kind, at) for _, tid, kind, at in events[offset : offset + limit]]

    def _graph_events(self, conn, limit: int, offset: int) -> list[tuple]:
        """The page from the dated events, found by counting them per year, month and day on
        the indexes (no row read before the page's first day), then from the undated ones."""
        page: list[tuple] = []
        lo, before = self._day_of_position(conn, offset)
        if lo is not None:
            # Extend the window day by day until it holds the whole page.
            total, cursor = before, lo
            while total < offset + limit:
                value = self._next_dated(conn, cursor, _LAST)
                if value is None:
                    break
                day = value[:10]
                total += self._count_dated(conn, day, day + "~")
                cursor = day + "~"
            window = []
            for column, kind in _STREAMS:
                dated = _DATED[column]
                for tid, value in conn.execute(
                    f"SELECT id, {column} FROM triples WHERE {column} >= ? AND {column} < ? "
                    f"AND {dated}",
                    (lo, cursor),
                ):
                    window.append((_order(value, kind == "end", tid), tid, kind, value))
            window.sort()
            skip = offset - before
            page = [(tid, kind, at) for _, tid, kind, at in window[skip : skip + limit]]
            offset, before = max(offset, total), total
        if len(page) < limit:
            page += self._undated(conn, offset - before, limit - len(page))
        return page

    def _day_of_position(self, conn, offset: int) -> tuple[str | None, int]:
        """(the day holding dated event number ``offset``, how many dated events come before
        that day); (None, how many dated events there are) when there are not that many."""
        lo, hi, before = _FIRST, _LAST, 0
        for width in _LEVELS:
            cursor = lo
            while True:
                value = self._next_dated(conn, cursor, hi)
                if value is None:
                    return None, before
                prefix = value[:width]
                n = self._count_dated(conn, prefix, prefix + "~")
                if before + n > offset:
                    lo, hi = prefix, prefix + "~"
                    break
                before += n
                cursor = prefix + "~"
        return lo, before

    @staticmethod
    def _next_dated(conn, lo: str, hi: str) -> str | None:
        """The smallest dated start or end value in ``[lo, hi)`` (as text)."""
        found = [
            row[0]
            for column in ("valid_from", "valid_to")
            for row in conn.execute(
                f"SELECT {column} FROM triples WHERE {column} >= ? AND {column} < ? "
                f"AND {_DATED[column]} ORDER BY {column} LIMIT 1",
                (lo, hi),
            )
        ]
        return min(found) if found else None

    @staticmethod
    def _count_dated(conn, lo: str, hi: str) -> int:
        return sum(
            conn.execute(
                f"SELECT COUNT(*) FROM triples WHERE {column} >= ? AND {column} < ? "
                f"AND {_DATED[column]}",
                (lo, hi),
            ).fetchone()[0]
            for column in ("valid_from", "valid_to")
        )

    @staticmethod
    def _undated(conn, offset: int, limit: int) -> list[tuple]:
        """Undated events: unknown starts by id, then undated ends by id."""
        page: list[tuple] = []
        starts = f"valid_from IS NULL OR NOT {_DATED['valid_from']}"
        ends = f"valid_to IS NOT NULL AND NOT {_DATED['valid_to']}"
        for where, kind, column in ((starts, "start", 1), (ends, "end", 2)):
            if limit <= 0:
                break
            if offset > 0:
                n = conn.execute(f"SELECT COUNT(*) FROM triples WHERE {where}").fetchone()[0]
                if offset >= n:
                    offset -= n
                    continue
            rows = conn.execute(
                f"SELECT id, valid_from, valid_to FROM triples WHERE {where} "
                "ORDER BY id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            page += [(row[0], kind, row[column]) for row in rows]
            limit -= len(rows)
            offset = 0
        return page

    # ── Counts of keys, for the histogram ─────────────────────────────────

    def time_counts(self, keys: list[str]) -> tuple[list[int], list[int], int, list[tuple]]:
        """For sorted instant keys: how many facts' start key is at or before each (a stored
        start, ``""`` included), how many facts' end key is, how many facts have no start
        (NULL), and the (start key, end key) of the facts whose end key is before their
        start key (inverted, or ended at an unknown time: ``""``), which are valid nowhere."""
        with self._db.snapshot() as conn:
            starts = self._counts_at(conn, "valid_from", keys)
            if self._has_index_on(conn, "valid_to"):
                ends = self._counts_at(conn, "valid_to", keys)
                days = {}
                for i, key in enumerate(keys):
                    day = _day_of(key)
                    if day is not None:
                        if day not in days:
                            days[day] = conn.execute(
                                "SELECT COUNT(*) FROM triples WHERE valid_to = ?", (day,)
                            ).fetchone()[0]
                        ends[i] -= days[day]
            else:
                ends = self._end_counts_read(conn, keys)
            unknown = conn.execute(
                "SELECT COUNT(*) FROM triples WHERE valid_from IS NULL"
            ).fetchone()[0]
            nowhere = conn.execute(
                f"SELECT {_SK}, {_EK} FROM triples WHERE valid_from IS NOT NULL "
                f"AND valid_to IS NOT NULL AND {_EK} < {_SK}"
            ).fetchall()
        return starts, ends, unknown, nowhere

    @staticmethod
    def _counts_at(conn, column: str, keys: list[str]) -> list[int]:
        """How many ``column`` values are at or before each key as text, by index ranges."""
        first = f"SELECT COUNT(*) FROM triples WHERE {column} <= ?"
        step = f"SELECT COUNT(*) FROM triples WHERE {column} > ? AND {column} <= ?"
        counts, previous = [], None
        for key in keys:
            if previous is None:
                counts.append(conn.execute(first, (key,)).fetchone()[0])
            else:
                counts.append(conn.execute(step, (previous, key)).fetchone()[0])
            previous = key
        return list(accumulate(counts))

    @staticmethod
    def _end_counts_read(conn, keys: list[str]) -> list[int]:
        """The end counts without an index on valid_to: one sorted read, then bisection."""
        values = [
            row[0] for row in conn.execute(f"SELECT {_EK} FROM triples WHERE valid_to IS NOT NULL")
        ]
        values.sort()
        return [bisect_right(values, key) for key in keys]

    @staticmethod
    def _has_index_on(conn, column: str) -> bool:
        for row in conn.execute("PRAGMA index_list(triples)"):
            first = conn.execute(f"PRAGMA index_info({row[1]!r})").fetchone()
            if first is not None and first[2] == column:
                return True
        return False


def _order(value: str | None, end: bool, tid: str) -> tuple:
    """An event's place: dated events by (key, start before end, id), then undated ones."""
    if value is not None and temporal.is_well_formed(value):
        return (0, temporal.end_key(value) if end else temporal.start_key(value), end, tid)
    return (1, "", end, tid)
