"""The history queries in SQLite: conflicts' raw material, changes between two instants, the
events in order, and counts of keys for the histogram.

Everything here reads through MemPalace's ``idx_triples_valid`` (valid_from, valid_to),
``idx_triples_subject``, ``idx_triples_object`` and ``idx_triples_predicate``, and through an
index whose first column is ``valid_to`` when the file has one (the app's ``fl_triples_to``):
without it, the histogram and the narrative read the dated ends once, in order, instead of
counting them by index ranges (the narrative keeps them until the file changes).

Comparisons are made on the stored text wherever that is the key order (see
:func:`timesql.valid_at`): a start's text order is its key order, and an end's differs only for
a day-only end, whose key is its day's last second.
"""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_left, bisect_right
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from factlines.core import temporal
from factlines.core.store.engine_common import (
    FACT_COLUMNS,
    FACT_LEFT_JOIN,
    change_params,
    changed_facts,
    day_of,
    whole_subjects,
)
from factlines.core.store.rows import FACT_FIELDS
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection
from factlines.core.store.sqlite.ranking import rows_for_ids

_SK = timesql.start_key("valid_from")
_EK = timesql.end_key("valid_to")
# A fact whose end key is before its start key (MemPalace's "" end is "ended, unknown when").
# ``valid_to < valid_from || 'T00:00:00Z'`` first: it holds whenever the keys are inverted
# (an end key is never below its text, a start key never above its text plus that suffix)
# and is cheap, so the keys are built for few rows.
_INVERTED = (
    "(valid_from IS NOT NULL AND valid_from != '' AND valid_to IS NOT NULL "
    f"AND valid_to != '' AND valid_to < valid_from || 'T00:00:00Z' AND {_EK} < {_SK})"
)
# Inverted, or ending after now: an instant after now, a day after today (two parameters:
# :func:`_odd_params`). A day after today sorts after now too, so the index finds both.
_ODD = f"{_INVERTED} OR (valid_to > ? AND (valid_to > ? OR length(valid_to) != 10))"
_STREAMS = (("valid_from", "start"), ("valid_to", "end"))
_INTERVAL_ROWS = (
    "SELECT subject, predicate, object, id, "
    f"{timesql.as_text('valid_from')}, {timesql.as_text('valid_to')}"
)
# A prefix p bounds the values that start with it in [p, p + _TOP): no character is above.
_TOP = "\U0010ffff"
_END = _TOP * 2
_LEVELS = (5, 8, 10)  # the prefixes YYYY-, YYYY-MM- and YYYY-MM-DD of a dated value
# A page starting this few events past the last page's last day is found from that day on.
_ON_FROM = 1_000

# An event's place in the order (see _order).
_Place = tuple[int, str | None, bool, tuple[int, str]]


@dataclass
class _Kept:
    """What pages of the whole graph's events keep of one version of the file, read as
    pages need it (see :meth:`SQLiteHistory._kept_now`)."""

    version: object
    # The years holding dated events (prefixes ``YYYY-``) counted so far; how many dated
    # events, and how many dated starts, the years up to each hold; whether every year is.
    years: list[str] = field(default_factory=list[str])
    counted: list[int] = field(default_factory=list[int])
    started: list[int] = field(default_factory=list[int])
    every_year: bool = False
    # The months' and days' counts of dated events met so far, by prefix.
    buckets: dict[str, int] = field(default_factory=dict[str, int])
    # The last day a page reached, and how many dated events come before it.
    last_day: tuple[str, int] | None = None
    # The undated events of each kind, in order.
    undated: dict[str, list[tuple[Any, ...]]] = field(
        default_factory=dict[str, list[tuple[Any, ...]]]
    )

    # Without an index on valid_to: the dated ends in text order.
    ends: list[str] | None = None

    def add_year(self, year: str, starts: int, ends: int) -> None:
        self.years.append(year)
        self.counted.append((self.counted[-1] if self.counted else 0) + starts + ends)
        self.started.append((self.started[-1] if self.started else 0) + starts)


class SQLiteHistory:
    def __init__(self, db: Connection):
        self._db = db
        self._kept: _Kept | None = None

    def _kept_now(self, conn: sqlite3.Connection) -> _Kept:
        """What is kept for the file as this connection sees it now (by the connection's
        :meth:`~Connection.version`). Inside a write (the store's, or one MemPalace's code began
        on the raw connection), a new one each time, never kept: what is counted there (rows
        not committed, perhaps rolled back) is not for later."""
        if self._db.uncommitted:
            return _Kept(object())
        version = self._db.version(conn)
        if self._kept is None or self._kept.version != version:
            self._kept = _Kept(version)
        return self._kept

    # ── Conflicts ─────────────────────────────────────────────────────────

    def interval_rows(
        self, predicates: list[str] | None, eid: str | None, touching: bool = False
    ) -> list[tuple[Any, ...]]:
        """(subject, predicate, object, id, valid_from, valid_to) of the facts of
        ``predicates`` (all when None). With ``eid``: those whose subject is ``eid``, or with
        ``touching`` also those of the subjects of such facts pointing at ``eid``."""
        where: list[str] = []
        params: list[str] = []
        if predicates is not None:
            # For an entity, by its subject index; the predicate index is for a whole graph.
            plus = "+" if eid is not None else ""
            where.append(f"{plus}predicate IN ({', '.join('?' * len(predicates))})")
            params += predicates
        if eid is not None and touching:
            where.append(
                f"subject IN (SELECT ? UNION SELECT subject FROM triples WHERE object = ?"
                f"{' AND ' + where[0] if predicates is not None else ''})"
            )
            params += [eid, eid, *(predicates or [])]
        elif eid is not None:
            where.append("subject = ?")
            params.append(eid)
        with self._db.read() as conn:
            source = "triples"
            if eid is None and predicates is not None:
                source = _by_predicate(conn, where[0], predicates)
            return conn.execute(
                f"{_INTERVAL_ROWS} FROM {source}{' WHERE ' + ' AND '.join(where) if where else ''}",
                params,
            ).fetchall()

    def subject_parts(
        self, predicate: str, rows_at_once: int
    ) -> Generator[list[tuple[Any, ...]], None, None]:
        """:meth:`interval_rows` of ``predicate`` by subject, in lists of about
        ``rows_at_once`` rows that each hold whole subjects, from one snapshot."""
        with self._db.read() as conn:
            source = _by_predicate(conn, "predicate = ?", [predicate])
            cursor = conn.execute(
                f"{_INTERVAL_ROWS} FROM {source} WHERE predicate = ? ORDER BY subject",
                [predicate],
            )
            yield from whole_subjects(cursor, rows_at_once)

    def irregular(
        self, now_key: str, today: str, eid: str | None, skip: Sequence[str] = ()
    ) -> list[tuple[Any, ...]]:
        """Every fact that is one of two or more open copies (``duplicate_open``, not for the
        predicates in ``skip``), has an inverted interval (``inverted``), or ends after
        ``now_key`` (an instant) or ``today`` (a day) (``future_end``; never an inverted one):
        their rows, (kind, id, subject,
        predicate, object, start_key, end_key), in one read."""
        with self._db.snapshot() as conn:
            odd = _odd_params(now_key, today)
            return _irregular_rows(conn, odd, _irregular_rowids(conn, odd, eid, skip))

    # ── What changed ──────────────────────────────────────────────────────

    def changes(self, start_key: str, end_key: str, eid: str | None) -> tuple[list[Any], list[Any]]:
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
        with self._db.snapshot() as conn:
            return changed_facts(
                conn, started, ended, change_params(start_key, end_key, eid), eid, ":{}".format
            )

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

    def events(self, eid: str | None, limit: int, offset: int) -> list[tuple[Any, ...]]:
        """(at, kind, fact row) of the events at ``offset`` .. ``offset + limit`` in order:
        dated events (:func:`temporal.is_dated`) by (key, start before end, id); then the
        undated ones (an unknown start, MemPalace's ``""`` end, any other stored value that is
        not dated) by (start before end, id)."""
        with self._db.snapshot() as conn:
            if eid is not None:
                page = _entity_events(conn, eid, limit, offset)
            else:
                page = self._graph_events(conn, limit, offset)
            ids = list({tid for tid, _, _ in page})
            facts = {
                row[0]: row
                for row in rows_for_ids(
                    conn, f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE t.id IN", ids
                )
            }
            unnamed = _facts_without_id(conn, eid) if None in ids else []
        return [
            (at, kind, facts[tid] if tid is not None else _unnamed_row(unnamed, kind, at))
            for tid, kind, at in page
        ]

    def _graph_events(
        self, conn: sqlite3.Connection, limit: int, offset: int
    ) -> list[tuple[Any, ...]]:
        """The page from the dated events, found by counting them per year, month and day on
        the indexes (no row read before the page's first day), then from the undated ones."""
        page: list[tuple[Any, ...]] = []
        kept = self._kept_now(conn)
        ends = _sorted_ends(conn, kept)
        last = kept.last_day
        if last is not None and last[1] <= offset < last[1] + _ON_FROM:
            # The list scrolling on: from the last day of the page before, no counting.
            lo, before = last
        else:
            lo, before = self._day_of_position(conn, kept, offset, ends)
        if lo is not None:
            # Extend the window day by day until it holds the whole page.
            total, cursor = before, lo
            while total < offset + limit:
                value = _next_dated(conn, cursor, _END, 0, ends)
                if value is None:
                    break
                day = value[:10]
                kept.last_day = (day, total)
                total += _bucket(conn, kept, day, ends)
                cursor = day + _TOP
            window: list[tuple[_Place, Any, str, Any]] = []
            for column, kind in _STREAMS:
                # The rows by the range on the column's index, or (no index on valid_to) on
                # MemPalace's (valid_from, valid_to) alone before any row is read.
                for tid, value in conn.execute(
                    f"SELECT id, {column} FROM triples WHERE rowid IN (SELECT rowid FROM "
                    f"triples WHERE {column} >= ? AND {column} < ? AND {timesql.dated(column)})",
                    (lo, cursor),
                ):
                    window.append((_order(value, kind == "end", tid), tid, kind, value))
            window.sort()
            skip = offset - before
            page = [(tid, kind, at) for _, tid, kind, at in window[skip : skip + limit]]
            offset, before = max(offset, total), total
        if len(page) < limit:
            page += _undated(conn, kept, offset - before, limit - len(page))
        return page

    def _day_of_position(
        self, conn: sqlite3.Connection, kept: _Kept, offset: int, ends: list[str] | None
    ) -> tuple[str | None, int]:
        """(the day holding dated event number ``offset``, how many dated events come before
        that day); (None, how many dated events there are) when there are not that many.

        Buckets are the prefixes ``YYYY-``, ``YYYY-MM-`` and ``YYYY-MM-DD`` of dated values:
        within one, the dashes a dated value needs are fixed by the range itself. The counts
        are kept until the file changes, so only the first deep page walks the years, and
        a page near one before counts few months and days.
        """
        year, before = self._year_of_position(conn, kept, offset, ends)
        if year is None:
            return None, before
        lo, hi = year, year + _TOP
        for width in _LEVELS[1:]:
            cursor = lo
            while True:
                value = _next_dated(conn, cursor, hi, len(lo), ends)
                assert value is not None  # the bucket holds event number offset
                prefix = value[:width]
                n = _bucket(conn, kept, prefix, ends)
                if before + n > offset:
                    lo, hi = prefix, prefix + _TOP
                    break
                before += n
                cursor = prefix + _TOP
        return lo, before

    def _year_of_position(
        self, conn: sqlite3.Connection, kept: _Kept, offset: int, ends: list[str] | None
    ) -> tuple[str | None, int]:
        counted = kept.counted
        i = bisect_right(counted, offset)
        while i == len(counted) and not kept.every_year:
            # The first year alone (the first pages need no more), then all the others.
            self._count_years(conn, kept, offset, ends, every=bool(counted))
            i = bisect_right(counted, offset)
        if i == len(counted):
            return None, counted[-1] if counted else 0
        return kept.years[i], counted[i - 1] if i else 0

    def _count_years(
        self,
        conn: sqlite3.Connection,
        kept: _Kept,
        offset: int,
        ends: list[str] | None,
        every: bool,
    ) -> None:
        """Count into the kept counts the next year's dated events, or ``every`` year's up
        to the one holding event ``offset`` (and stop there: the rest stays to count)."""
        cursor = kept.years[-1] + _TOP if kept.years else ""
        while (value := _next_dated(conn, cursor, _END, 0, ends)) is not None:
            year = value[: _LEVELS[0]]
            cursor = year + _TOP
            kept.add_year(year, *_count_dated(conn, year, ends))
            if not every or kept.counted[-1] > offset:
                break
        kept.every_year = value is None

    # ── Counts of keys, for the histogram ─────────────────────────────────

    def time_counts(
        self, keys: list[str]
    ) -> tuple[list[int], list[int], int, list[tuple[Any, ...]]]:
        """For sorted instant keys: how many facts' start key is at or before each (a stored
        start, ``""`` included), how many facts' end key is, how many facts have no start
        (NULL), and the (start key, end key) of the facts whose end key is before their
        start key (inverted, or ended at an unknown time: ``""``), which are valid nowhere."""
        with self._db.snapshot() as conn:
            starts = _counts_at(conn, "valid_from", keys)
            if _has_index_on(conn, "valid_to"):
                ends = _counts_at(conn, "valid_to", keys)
                days: dict[str, int] = {}
                for i, key in enumerate(keys):
                    day = day_of(key)
                    if day is not None:
                        if day not in days:
                            days[day] = conn.execute(
                                "SELECT COUNT(*) FROM triples WHERE valid_to = ?", (day,)
                            ).fetchone()[0]
                        ends[i] -= days[day]
            else:
                ends = _end_counts_read(conn, keys)
            unknown = conn.execute(
                "SELECT COUNT(*) FROM triples WHERE valid_from IS NULL"
            ).fetchone()[0]
            nowhere = conn.execute(
                f"SELECT {_SK}, {_EK} FROM triples WHERE valid_from IS NOT NULL "
                f"AND valid_to < valid_from || 'T00:00:00Z' AND {_EK} < {_SK}"
            ).fetchall()
        return starts, ends, unknown, nowhere


def _bucket(conn: sqlite3.Connection, kept: _Kept, prefix: str, ends: list[str] | None) -> int:
    """How many dated events a month's or a day's prefix holds, counted once per version."""
    if prefix not in kept.buckets:
        kept.buckets[prefix] = sum(_count_dated(conn, prefix, ends))
    return kept.buckets[prefix]


def _sorted_ends(conn: sqlite3.Connection, kept: _Kept) -> list[str] | None:
    """None when an index on valid_to serves the ends; else the dated ends in text order,
    read once per version of the file (one pass over MemPalace's index)."""
    if _has_index_on(conn, "valid_to"):
        return None
    if kept.ends is None:
        kept.ends = sorted(
            row[0]
            for row in conn.execute(
                f"SELECT valid_to FROM triples WHERE valid_to >= '' AND {timesql.dated('valid_to')}"
            )
        )
    return kept.ends


def _undated(
    conn: sqlite3.Connection, kept: _Kept, offset: int, limit: int
) -> list[tuple[Any, ...]]:
    """Undated events: unknown starts by id, then undated ends by id (each kept until the
    file changes: every page of them needs all of them in order). A page of ends reads no
    start when the years are all counted: the facts less their dated starts are the undated
    starts."""
    counted = kept.every_year and kept.years
    # With every year counted: the span the dated values are in, and how many of each.
    dated: dict[str, tuple[tuple[str, str], int]] = {}
    if counted:
        span = (kept.years[0], kept.years[-1] + _TOP)
        starts = kept.started[-1]
        dated = {"start": (span, starts), "end": (span, kept.counted[-1] - starts)}
    if "start" not in kept.undated and counted:
        facts = conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0]
        starts = facts - kept.started[-1]
    else:
        starts = len(_undated_of(conn, kept.undated, "start", dated.get("start")))
    page: list[tuple[Any, ...]] = []
    if offset < starts:
        page = _undated_of(conn, kept.undated, "start", dated.get("start"))[offset : offset + limit]
    if len(page) < limit:
        skip = max(0, offset - starts)
        ends = _undated_of(conn, kept.undated, "end", dated.get("end"))
        page += ends[skip : skip + limit - len(page)]
    return page


def _by_predicate(conn: sqlite3.Connection, where: str, predicates: list[str]) -> str:
    """Where to read the facts ``where`` selects by predicate: reading a quarter of the table
    or more by the predicate index costs more than reading it all in order (counted first,
    on the index alone)."""
    share = conn.execute(
        f"SELECT COUNT(*) * 4 > (SELECT MAX(rowid) FROM triples) FROM triples WHERE {where}",
        predicates,
    ).fetchone()[0]
    return "triples NOT INDEXED" if share else "triples"


def _irregular_rowids(
    conn: sqlite3.Connection, odd: list[str], eid: str | None, skip: Sequence[str]
) -> list[list[int]]:
    """The rowids of the facts that are one of two or more open copies of one (subject,
    predicate, object), not of the predicates in ``skip``, and those of the facts inverted
    or ending after now (``odd``: :func:`_odd_params`); in one statement, so that on a
    thread of its own it needs Python only at the end."""
    subject = "" if eid is None else " AND subject = ?"
    params: list[str] = [] if eid is None else [eid]
    others = f" AND predicate NOT IN ({', '.join('?' * len(skip))})" if skip else ""
    # The whole graph in one pass over the table: reading it by an index (valid_to, or
    # subject for the grouping's order) costs a row lookup per fact.
    source = "triples NOT INDEXED" if eid is None else "triples"
    found = conn.execute(
        "SELECT (SELECT group_concat(copies) FROM (SELECT group_concat(rowid) AS copies "
        f"FROM {source} WHERE valid_to IS NULL{subject}{others} "
        "GROUP BY subject, predicate, object HAVING COUNT(*) > 1)), "
        f"(SELECT group_concat(rowid) FROM {source} WHERE ({_ODD}){subject})",
        [*params, *skip, *odd, *params],
    ).fetchone()
    return [[int(rowid) for rowid in rowids.split(",")] if rowids else [] for rowids in found]


def _irregular_rows(
    conn: sqlite3.Connection, odd: list[str], rowids: list[list[int]]
) -> list[tuple[Any, ...]]:
    """The rows :meth:`SQLiteHistory.irregular` gives, of the facts ``rowids`` names (as
    :func:`_irregular_rowids` gives them) that are still what they were."""
    copies, strange = rowids
    columns = f"id, subject, predicate, object, {_SK}, {_EK}"
    rows: list[tuple[Any, ...]] = conn.execute(
        f"SELECT 'duplicate_open', {columns} FROM triples WHERE rowid IN "
        "(SELECT value FROM json_each(?)) AND valid_to IS NULL",
        (json.dumps(copies),),
    ).fetchall()
    rows += conn.execute(
        f"SELECT CASE WHEN {_INVERTED} THEN 'inverted' ELSE 'future_end' END, {columns} "
        f"FROM triples WHERE rowid IN (SELECT value FROM json_each(?)) AND ({_ODD})",
        [json.dumps(strange), *odd],
    ).fetchall()
    return rows


def _odd_params(now_key: str, today: str) -> list[str]:
    return [now_key, today]


def _facts_without_id(conn: sqlite3.Connection, eid: str | None) -> list[tuple[Any, ...]]:
    """The rows with a NULL id (MemPalace's table can hold them; no id finds them again) of
    ``eid`` (of the graph when None)."""
    where = " AND (t.subject = ?1 OR t.object = ?1)" if eid is not None else ""
    return conn.execute(
        f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE t.id IS NULL{where}",
        (eid,) if eid is not None else (),
    ).fetchall()


_VALID_FROM, _VALID_TO = FACT_FIELDS.index("valid_from"), FACT_FIELDS.index("valid_to")


def _unnamed_row(rows: list[tuple[Any, ...]], kind: str, at: object) -> tuple[Any, ...]:
    """The row without an id whose event this is, found by its value (two rows with the same
    value look alike in every view, so either serves)."""
    column = _VALID_FROM if kind == "start" else _VALID_TO
    return next(row for row in rows if row[column] == at)


def _entity_events(
    conn: sqlite3.Connection, eid: str, limit: int, offset: int
) -> list[tuple[Any, ...]]:
    """One entity's page: all its facts (a hub has a few thousand) put in order here."""
    rows = conn.execute(
        "SELECT id, valid_from, valid_to FROM triples WHERE subject = ?1 UNION ALL "
        "SELECT id, valid_from, valid_to FROM triples WHERE object = ?1 AND subject != ?1",
        (eid,),
    ).fetchall()
    events: list[tuple[_Place, Any, str, Any]] = []
    for tid, vf, vt in rows:
        events.append((_order(vf, False, tid), tid, "start", vf))
        if vt is not None:
            events.append((_order(vt, True, tid), tid, "end", vt))
    events.sort()
    return [(tid, kind, at) for _, tid, kind, at in events[offset : offset + limit]]


def _next_dated(
    conn: sqlite3.Connection, lo: str, hi: str, fixed: int, ends: list[str] | None
) -> str | None:
    """The smallest dated start or end value in ``[lo, hi)`` (as text), where the range
    fixes the first ``fixed`` characters; ``ends`` as :func:`_sorted_ends` gives
    them."""
    columns = ("valid_from",) if ends is not None else ("valid_from", "valid_to")
    found = [
        row[0]
        for column in columns
        for row in conn.execute(
            f"SELECT {column} FROM triples WHERE {column} >= ? AND {column} < ? "
            f"AND {timesql.dated(column, fixed)} ORDER BY {column} LIMIT 1",
            (lo, hi),
        )
    ]
    if ends is not None:
        i = bisect_left(ends, lo)
        if i < len(ends) and ends[i] < hi:
            found.append(ends[i])
    return min(found) if found else None


def _count_dated(conn: sqlite3.Connection, prefix: str, ends: list[str] | None) -> tuple[int, int]:
    """How many dated start values and end values begin with ``prefix`` (a bucket's)."""
    columns = ("valid_from",) if ends is not None else ("valid_from", "valid_to")
    counts = [
        conn.execute(
            f"SELECT COUNT(*) FROM triples WHERE {column} >= ? AND {column} < ? "
            f"AND {timesql.dated(column, len(prefix))}",
            (prefix, prefix + _TOP),
        ).fetchone()[0]
        for column in columns
    ]
    if ends is not None:
        counts.append(bisect_left(ends, prefix + _TOP) - bisect_left(ends, prefix))
    return counts[0], counts[1]


def _undated_of(
    conn: sqlite3.Connection,
    kept: dict[str, list[tuple[Any, ...]]],
    kind: str,
    dated: tuple[tuple[str, str], int] | None,
) -> list[tuple[Any, ...]]:
    """(id, kind, at) of every undated start (unknown or not dated) or end, by id; read once
    into ``kept``. ``dated``: the span every dated value of the kind is in, and how many
    there are, when every year is counted."""
    if kind not in kept:
        column = {k: c for c, k in _STREAMS}[kind]
        where = f"{column} IS NOT NULL"
        params: list[str] = []
        if dated is not None and _has_index_on(conn, column):
            (low, high), total = dated
            inside = conn.execute(
                f"SELECT COUNT(*) FROM triples WHERE {column} >= ? AND {column} < ?", (low, high)
            ).fetchone()[0]
            if inside == total:  # as usual: only dated values inside the span, read no more
                where, params = f"({column} < ? OR {column} >= ?)", [low, high]
        # Values that are not dated are found on the index alone; NULL starts by its range.
        rows = conn.execute(
            f"SELECT id, {column} FROM triples WHERE rowid IN (SELECT rowid FROM triples "
            f"WHERE {where} AND NOT ({timesql.dated(column)}))",
            params,
        ).fetchall()
        if kind == "start":
            rows += conn.execute("SELECT id, NULL FROM triples WHERE valid_from IS NULL").fetchall()
        rows.sort()
        kept[kind] = [(tid, kind, value) for tid, value in rows]
    return kept[kind]


def _counts_at(conn: sqlite3.Connection, column: str, keys: list[str]) -> list[int]:
    """How many ``column`` values are at or before each key as text, by index ranges."""
    first = f"SELECT COUNT(*) FROM triples WHERE {column} <= ?"
    step = f"SELECT COUNT(*) FROM triples WHERE {column} > ? AND {column} <= ?"
    counts: list[int] = []
    previous: str | None = None
    for key in keys:
        if previous is None:
            counts.append(conn.execute(first, (key,)).fetchone()[0])
        else:
            counts.append(conn.execute(step, (previous, key)).fetchone()[0])
        previous = key
    return list(accumulate(counts))


def _end_counts_read(conn: sqlite3.Connection, keys: list[str]) -> list[int]:
    """The end counts without an index on valid_to: one sorted read, then bisection."""
    values = [
        row[0]
        for row in conn.execute(
            f"SELECT {_EK} FROM triples WHERE valid_to IS NOT NULL AND typeof(valid_to) = 'text'"
        )
    ]
    values.sort()
    return [bisect_right(values, key) for key in keys]


def _has_index_on(conn: sqlite3.Connection, column: str) -> bool:
    """Whether an index of ``triples`` starts with ``column``."""
    for row in conn.execute("PRAGMA index_list(triples)"):
        first = conn.execute(f"PRAGMA index_info({row[1]!r})").fetchone()
        if first is not None and first[2] == column:
            return True
    return False


def _order(value: str | None, end: bool, tid: object) -> _Place:
    """An event's place: dated events by (key, start before end, id), then undated ones; ids
    in SQLite's order (a NULL first, a BLOB after every text) so any stored id sorts."""
    ident = (0, "") if tid is None else (1, tid) if isinstance(tid, str) else (2, str(tid))
    if temporal.is_dated(value):
        return (0, temporal.end_key(value) if end else temporal.start_key(value), end, ident)
    return (1, "", end, ident)
