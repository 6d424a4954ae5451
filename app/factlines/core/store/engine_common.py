"""What the engines share where their code is the same but for SQL's parameter marker: the
store's delegation to its connection (transactions, recordings, listeners, read-only), and
the plain row reads and writes of facts (of entities: ``engine_entities``). Each uses its
connection's ``MARK``."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Generic, Protocol

from factlines.core import temporal
from factlines.core.columns import COLUMNS
from factlines.core.errors import ConflictError
from factlines.core.progress import Progress
from factlines.core.store.changes import Change, Touched
from factlines.core.store.engine_connection import (
    DB,
    BatchCursor,
    EngineConnection,
    SQLConnection,
    TimeSQL,
)
from factlines.core.store.intervals import IntervalTable
from factlines.core.store.protocol import EntityStore
from factlines.core.store.rows import TRIPLE_COLUMNS, fact_dict
from factlines.core.turns import sort_in_turns

# A fact row (rows.FACT_FIELDS). A fact whose entity row is missing (MemPalace never deletes
# one, but files get edited) is still readable by id: its names fall back to the ids.
FACT_COLUMNS = ", ".join(column.sql for column in COLUMNS)
FACT_JOIN = "FROM triples t JOIN entities s ON t.subject = s.id JOIN entities o ON t.object = o.id"
FACT_LEFT_JOIN = FACT_JOIN.replace(" JOIN ", " LEFT JOIN ")
TIMELINE_SELECT = (
    "SELECT t.id, s.name, t.predicate, o.name, t.valid_from, t.valid_to FROM triples t "
    "JOIN entities s ON t.subject = s.id JOIN entities o ON t.object = o.id "
)


def changed_facts(
    conn: SQLConnection,
    started: str,
    ended: str,
    params: dict[str, Any],
    eid: str | None,
    mark: Callable[[str], str],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The fact rows matching ``started`` and those matching ``ended`` (SQL terms on ``t``
    over the named ``params``; ``mark(name)`` is the engine's named placeholder), of the
    entity ``eid`` (its id is ``params["x"]``) or of the whole graph, each by key then id."""
    out: list[list[tuple[Any, ...]]] = []
    key: Callable[[str | None], str | None]
    for where, key, column in ((started, temporal.start_key, 6), (ended, temporal.end_key, 7)):
        sql = f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE {where}"
        if eid is not None:
            x = mark("x")
            sql = (
                f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE t.subject = {x} AND {where} "
                f"UNION ALL SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} "
                f"WHERE t.object = {x} AND t.subject != {x} AND {where}"
            )
        rows: list[tuple[Any, ...]] = conn.execute(sql, params).fetchall()
        sort_in_turns(rows, key=lambda r, c=column, k=key: (k(r[c]), r[0]))
        out.append(rows)
    return out[0], out[1]


def whole_subjects(cursor: BatchCursor, rows_at_once: int) -> Iterator[list[tuple[Any, ...]]]:
    """Rows ordered by their first column (a subject), read ``rows_at_once`` at a time and
    handed out in lists that each end with a subject's last row."""
    held: list[tuple[Any, ...]] = []
    batch: list[tuple[Any, ...]]
    while batch := cursor.fetchmany(rows_at_once):
        held += batch
        if len(batch) < rows_at_once:  # the last rows: every subject held is whole
            break
        cut, last = len(held), held[-1][0]
        while cut and held[cut - 1][0] == last:  # the last subject may go on in the next batch
            cut -= 1
        if cut:
            yield held[:cut]
            held = held[cut:]
    if held:
        yield held


def change_params(start_key: str, end_key: str, eid: str | None) -> dict[str, Any]:
    """The named parameters of both engines' ``changes`` SQL."""
    return {
        "s": start_key,
        "e": end_key,
        "s10": start_key[:10],
        "ds": day_of(start_key),
        "de": day_of(end_key),
        "x": eid,
    }


def day_of(key: str) -> str | None:
    """The day whose day-only end key is above ``key`` although its text is not (None when
    ``key`` is its day's last second): see the engines' ``valid_at_params``."""
    return key[:10] if key[10:] < temporal.DAY_END_SUFFIX else None


def escape_like(value: str) -> str:
    """``value`` as plain text in a LIKE pattern that escapes with ``\\``."""
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# Ids per ``IN (…)`` list: within every engine's limit of parameters (SQLite's 999 among them).
CHUNK = 300
# A neighbourhood's ring read in one pass over the facts once its ends are this share of the
# entities (cheaper than as many index searches).
_SCAN_SHARE = 3 / 10
# Rows put back per transaction when a write of several transactions is taken back.
TAKE_BACK_ROWS = 300
# What a fact write may set: every column but the id and the time MemPalace stamps on insert.
WRITABLE_FACT_COLUMNS = set(TRIPLE_COLUMNS) - {"id", "extracted_at"}


class IndexedEntities(EntityStore, Protocol):
    """An engine's entities: the store drops their search index after a write of entities,
    and everything they keep (the index, rankings of every entity) when it closes."""

    def forget_index(self) -> None: ...
    def forget_kept(self) -> None: ...


class EngineStore(Generic[DB]):
    """A :class:`~factlines.core.store.protocol.GraphStore`'s part that is its connection's."""

    _db: DB
    entities: IndexedEntities

    def close(self) -> None:
        self._db.close()
        # The store's parts refer to each other: only the cycle collector frees a closed store,
        # and with it what it kept, on the UI thread (after a worker ranked the entity list at
        # a million facts: 100,000 objects, a 40-120 ms collection). Dropped here at once.
        self.entities.forget_kept()

    @property
    def closed(self) -> bool:
        return self._db.closed

    @property
    def lock(self) -> AbstractContextManager[Any]:
        return self._db.lock

    @property
    def read_only(self) -> bool:
        return self._db.read_only

    def refuse_writes(self) -> None:
        self._db.refuse_writes()

    @property
    def write_wait(self) -> float:
        return self._db.write_wait

    @write_wait.setter
    def write_wait(self, seconds: float) -> None:
        self._db.write_wait = float(seconds)

    @property
    def writing(self) -> bool:
        return self._db.writing

    def settle(self) -> None:
        self._db.settle()

    @contextmanager
    def transaction(self, wait: float | None = None) -> Generator[None, None, None]:
        with self._db.transaction(wait):
            yield

    @contextmanager
    def recording(self) -> Generator[Change, None, None]:
        with self._db.recording() as change:
            yield change

    def note_assertion(self) -> None:
        self._db.note_assertion()

    def adopt(self, change: Change) -> None:
        self._db.adopt(change)

    def hand_over(self, change: Change) -> None:
        self._db.hand_over(change)

    def revert(
        self,
        change: Change,
        force: bool = False,
        within: Callable[[bool], None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self._db.replay(change, True, ConflictError, force, within, progress)

    def reapply(
        self,
        change: Change,
        force: bool = False,
        within: Callable[[bool], None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self._db.replay(change, False, ConflictError, force, within, progress)

    def take_back(self, change: Change) -> None:
        self._db.take_back(change, TAKE_BACK_ROWS)

    def add_listener(self, listener: Callable[[Touched], None]) -> None:
        """Call ``listener(touched)`` after every write this store commits."""
        self._db.listeners.append(listener)

    def remove_listener(self, listener: Callable[[Touched], None]) -> None:
        self._db.listeners.remove(listener)

    def _forget_search_index(self, touched: Touched) -> None:
        if touched.entities or touched.everything:
            self.entities.forget_index()


def _marks(db: EngineConnection, n: int) -> str:
    return ", ".join([db.MARK] * n)


class FactRows(Generic[DB]):
    """Rows of ``triples``: one by id, an entity's, a predicate's (the engine's ``_timesql``
    writes the time rules), a neighbourhood's links, and plain writes in the caller's
    transaction."""

    _db: DB
    _timesql: TimeSQL
    # A row's position in a neighbourhood's links: any value that changes when a fact is
    # replaced by a new row (SQLite's rowid is cheaper to read than the long ids).
    POSITION = "id"
    # About how many entities there are, at once (SQLite: the greatest rowid).
    ENTITY_ESTIMATE = "SELECT COUNT(*) FROM entities"
    # What makes a comparison of text byte by byte (PostgreSQL's default collation may not).
    BYTE_ORDER = ""

    def get(self, tid: str) -> dict[str, Any] | None:
        """One fact with every column, the entities' display names and POSIX start/end."""
        mark = self._db.MARK
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE t.id = {mark}", (tid,)
            ).fetchone()
        return fact_dict(row) if row is not None else None

    def exists(self, tid: str) -> bool:
        mark = self._db.MARK
        with self._db.read() as conn:
            return (
                conn.execute(f"SELECT 1 FROM triples WHERE id = {mark}", (tid,)).fetchone()
                is not None
            )

    def any_fact(self) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM triples LIMIT 1").fetchone() is not None

    def of_entity(self, eid: str, start_key: str | None, end_key: str | None) -> IntervalTable:
        """Every fact of ``eid``, both directions, meeting ``[start_key, end_key)`` if given,
        with ``direction`` and ``other`` / ``other_name`` (the entity at the other end), and
        its position (:meth:`links`'s)."""
        where = ""
        params: list[str | None] = []
        if start_key is not None or end_key is not None:
            where = " AND " + self._timesql.overlaps("t")
            params = [end_key, end_key, start_key, start_key]
        mark, columns = self._db.MARK, f"{FACT_COLUMNS}, t.{self.POSITION}"
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {columns} {FACT_JOIN} WHERE t.subject = {mark}{where} "
                f"UNION ALL SELECT {columns} {FACT_JOIN} "
                f"WHERE t.object = {mark} AND t.subject != {mark}{where}",
                [eid, *params, eid, eid, *params],
            ).fetchall()
        return IntervalTable(eid, rows)

    def of_entity_at(
        self, eid: str, incoming: bool, as_of_key: str | None
    ) -> list[tuple[Any, ...]]:
        """(id, predicate, other's name, valid_from, valid_to, confidence, source_closet) of
        ``eid``'s outgoing (or incoming) facts, only those valid at ``as_of_key`` if given."""
        where = ""
        params: list[str | None] = []
        if as_of_key is not None:
            where, params = (
                " AND " + self._timesql.valid_at("t"),
                self._timesql.valid_at_params(as_of_key),
            )
        this, other = ("object", "subject") if incoming else ("subject", "object")
        mark = self._db.MARK
        with self._db.read() as conn:
            return conn.execute(
                "SELECT t.id, t.predicate, e.name, t.valid_from, t.valid_to, t.confidence, "
                f"t.source_closet FROM triples t JOIN entities e ON t.{other} = e.id "
                f"WHERE t.{this} = {mark}" + where,
                [eid, *params],
            ).fetchall()

    def touching(self, eid: str) -> list[tuple[Any, ...]]:
        """(id, subject, predicate, object, valid_from, valid_to) of every fact of ``eid``."""
        mark = self._db.MARK
        with self._db.read() as conn:
            return conn.execute(
                "SELECT id, subject, predicate, object, valid_from, valid_to FROM triples "
                f"WHERE subject = {mark} OR object = {mark}",
                (eid, eid),
            ).fetchall()

    def of_predicate(self, predicate: str, as_of_key: str | None) -> list[tuple[Any, ...]]:
        """(id, subject name, object name, valid_from, valid_to) of one predicate's facts."""
        mark = self._db.MARK
        sql = (
            "SELECT t.id, s.name, o.name, t.valid_from, t.valid_to FROM triples t "
            "JOIN entities s ON t.subject = s.id JOIN entities o ON t.object = o.id "
            f"WHERE t.predicate = {mark}"
        )
        params: list[str | None] = [predicate]
        if as_of_key is not None:
            sql += " AND " + self._timesql.valid_at("t")
            params += self._timesql.valid_at_params(as_of_key)
        with self._db.read() as conn:
            return conn.execute(sql, params).fetchall()

    def from_sources(self, drawer_ids: list[str], source_file: str | None) -> list[dict[str, Any]]:
        """Fact rows (``fact_dict``) naming one of ``drawer_ids`` as their drawer, or
        ``source_file`` as their file (when given)."""
        mark = self._db.MARK
        found: dict[Any, dict[str, Any]] = {}
        wanted: list[tuple[str, list[str]]] = (
            [("t.source_file = " + mark, [source_file])] if source_file else []
        )
        for start in range(0, len(drawer_ids), 500):
            part = drawer_ids[start : start + 500]
            wanted.append((f"t.source_drawer_id IN ({_marks(self._db, len(part))})", part))
        with self._db.read() as conn:
            for where, params in wanted:
                for row in conn.execute(
                    f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE {where}", params
                ).fetchall():
                    found[row[0]] = fact_dict(row)
        return list(found.values())

    def ends(self) -> list[tuple[Any, ...]]:
        """(subject, object) of every fact, in no order."""
        with self._db.read() as conn:
            return conn.execute("SELECT subject, object FROM triples").fetchall()

    def recorded_between(self, after: str, until: str | None) -> list[tuple[Any, ...]]:
        """Fact rows (tuples of ``rows.FACT_FIELDS``, for ``fact_dict``: the caller makes dicts
        of the rows it keeps only) whose ``extracted_at`` sorts after ``after`` and, when
        given, not after ``until`` (both in MemPalace's ``YYYY-MM-DD HH:MM:SS`` form, compared
        as bytes, so a stamp of another form may be among them: the caller reads each)."""
        mark, order = self._db.MARK, self.BYTE_ORDER
        where, params = f"t.extracted_at {order} > {mark}", [after]
        if until is not None:
            where += f" AND t.extracted_at {order} <= {mark}"
            params.append(until)
        with self._db.snapshot() as conn:  # the join chosen holds for the read
            sql = f"SELECT {FACT_COLUMNS} {self._names_join(conn)} WHERE {where}"
            return conn.execute(sql, params).fetchall()

    def recorded_counts(self, after: str) -> list[tuple[Any, ...]]:
        """(``extracted_at``, how many facts hold it) of each value sorting after ``after``
        (as :meth:`recorded_between` compares): a span's size with none of its rows read (a
        million facts imported this week hold a few dozen values)."""
        mark, order = self._db.MARK, self.BYTE_ORDER
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT extracted_at, COUNT(*) FROM triples WHERE extracted_at {order} > {mark} "
                "GROUP BY extracted_at",
                [after],
            ).fetchall()

    def newest_recorded(self, after: str, limit: int) -> list[tuple[Any, ...]]:
        """The ``limit`` fact rows (as :meth:`recorded_between` gives them) whose
        ``extracted_at`` sorts last after ``after``, then by id, last first; in no order. The
        rows are chosen before their names are read (one join per row kept, not per row)."""
        mark, order = self._db.MARK, self.BYTE_ORDER
        with self._db.snapshot() as conn:
            return conn.execute(
                f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} WHERE t.id IN (SELECT id FROM triples "
                f"WHERE extracted_at {order} > {mark} "
                f"ORDER BY extracted_at {order} DESC, id {order} DESC LIMIT {mark})",
                [after, limit],
            ).fetchall()

    def _names_join(self, conn: SQLConnection) -> str:
        """The join that reads a span of facts' names (the engine's planner picks the index)."""
        return FACT_LEFT_JOIN

    def count(self, eid: str | None = None) -> int:
        mark = self._db.MARK
        with self._db.read() as conn:
            if eid is not None:
                return conn.execute(
                    f"SELECT COUNT(*) FROM triples WHERE subject = {mark} OR object = {mark}",
                    (eid, eid),
                ).fetchone()[0]
            return conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0]

    def insert(self, tid: str, values: dict[str, Any]) -> None:
        """A new row ``tid`` with ``values`` (subject, predicate, object and any others)."""
        _check(values)
        with self._db.transaction() as conn:
            self._db.touch(conn, "triples", tid)
            columns = ["id", *values]
            marks = _marks(self._db, len(columns))
            conn.execute(
                f"INSERT INTO triples ({', '.join(columns)}) VALUES ({marks})",
                [tid, *values.values()],
            )

    def update(self, tid: str, values: dict[str, Any]) -> None:
        _check(values)
        if not values:
            return
        update_row(self._db, "triples", tid, values)

    def update_many(self, tids: list[str], values: dict[str, Any]) -> None:
        """Set the same ``values`` on every row of ``tids`` (one statement, run per row)."""
        _check(values)
        if not values or not tids:
            return
        mark = self._db.MARK
        with self._db.transaction() as conn:
            for tid in tids:
                self._db.touch(conn, "triples", tid)
            assignments = ", ".join(f"{column} = {mark}" for column in values)
            conn.cursor().executemany(
                f"UPDATE triples SET {assignments} WHERE id = {mark}",
                [[*values.values(), tid] for tid in tids],
            )

    def delete(self, tid: str) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "triples", tid)
            conn.execute(f"DELETE FROM triples WHERE id = {self._db.MARK}", (tid,))

    # ── Neighbourhoods ────────────────────────────────────────────────────

    def links(self, eids: list[str]) -> list[tuple[Any, ...]]:
        """(position, subject, object) of every fact with an end in ``eids``, each once.

        A few ids are searched in the per-entity indexes, by the hundred; ids whose facts are a
        good share of the table are found in one pass over it (cheaper than as many searches).
        """
        if not eids:
            return []
        position = self.POSITION
        with self._db.snapshot() as conn:
            # Each fact has two ends: about 2 * len(eids) / entities of the facts are wanted.
            entities = conn.execute(self.ENTITY_ESTIMATE).fetchone()[0] or 0
            if 2 * len(eids) > _SCAN_SHARE * entities:
                wanted = set(eids)
                cursor = conn.execute(f"SELECT {position}, subject, object FROM triples")
                return [row for row in cursor if row[1] in wanted or row[2] in wanted]
            found: list[tuple[Any, ...]] = []
            for start in range(0, len(eids), CHUNK):
                chunk = eids[start : start + CHUNK]
                marks = _marks(self._db, len(chunk))
                for end in ("subject", "object"):
                    found += conn.execute(
                        f"SELECT {position}, subject, object FROM triples WHERE {end} IN ({marks})",
                        chunk,
                    ).fetchall()
        return list({row[0]: row for row in found}.values())  # a fact within eids: once

    def link_positions(self, tids: list[str]) -> list[tuple[Any, ...]]:
        """(id, position, subject, object) of the facts with these ids that exist."""
        found: list[tuple[Any, ...]] = []
        with self._db.snapshot() as conn:
            for start in range(0, len(tids), CHUNK):
                chunk = tids[start : start + CHUNK]
                found += conn.execute(
                    f"SELECT id, {self.POSITION}, subject, object FROM triples "
                    f"WHERE id IN ({_marks(self._db, len(chunk))})",
                    chunk,
                ).fetchall()
        return found

    def among(self, eids: list[str]) -> list[dict[str, Any]]:
        """Every fact whose subject and object are both in ``eids``, with the entities' names
        and POSIX start/end (:func:`fact_dict` rows)."""
        chunks = [eids[start : start + CHUNK] for start in range(0, len(eids), CHUNK)]
        found: list[dict[str, Any]] = []
        with self._db.snapshot() as conn:
            for subjects in chunks:
                for objects in chunks:
                    rows = conn.execute(
                        f"SELECT {FACT_COLUMNS} {FACT_LEFT_JOIN} "
                        f"WHERE t.subject IN ({_marks(self._db, len(subjects))}) "
                        f"AND t.object IN ({_marks(self._db, len(objects))})",
                        [*subjects, *objects],
                    )
                    found += [fact_dict(row) for row in rows]
        return found


def _check(values: dict[str, Any]) -> None:
    unknown = set(values) - WRITABLE_FACT_COLUMNS
    if unknown:
        raise TypeError(f"not fact columns: {sorted(unknown)}")


def update_row(db: EngineConnection, table: str, key: str, values: dict[str, Any]) -> None:
    """Set ``values`` (column: value) on the row ``key`` of ``table``, noted for recordings."""
    with db.transaction() as conn:
        db.touch(conn, table, key)
        assignments = ", ".join(f"{column} = {db.MARK}" for column in values)
        conn.execute(
            f"UPDATE {table} SET {assignments} WHERE id = {db.MARK}", [*values.values(), key]
        )


def bulk_columns(table: str, columns: tuple[str, ...]) -> str:
    """``columns`` of ``table`` as SQL, once they are known to be plain names of MemPalace's
    two tables (the only ones read and written in bulk), quoted: a newer MemPalace's column
    may be named anything plain."""
    if table not in ("entities", "triples") or not columns:
        raise ValueError(f"cannot read or write {table!r} ({', '.join(columns)})")
    if not all(c.isidentifier() and c.isascii() for c in columns):
        raise ValueError(f"cannot read or write {table!r} ({', '.join(columns)})")
    return ", ".join(f'"{c}"' for c in columns)


class RowInserts(Generic[DB]):
    """Rows inserted as given, for import (``entities`` and ``triples``)."""

    _db: DB

    def insert_rows(
        self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]
    ) -> None:
        """Insert rows as given (``id`` first in ``columns``), in the caller's transaction;
        a column left out takes its default. Each row is noted for recordings and listeners."""
        names = bulk_columns(table, columns)
        if columns[0] != "id":
            raise ValueError("the first column of inserted rows must be id")
        with self._db.transaction() as conn:
            for row in rows:
                self._db.touch(conn, table, row[0], new=True)
            cursor = conn.cursor()
            try:
                cursor.executemany(
                    f"INSERT INTO {table} ({names}) VALUES ({_marks(self._db, len(columns))})", rows
                )
            finally:
                cursor.close()


class PredicateRows(Generic[DB]):
    """The graph's predicates: figures per predicate, and one predicate's facts at once (what
    renaming or merging a predicate reads). ``_timesql`` is the engine's time rules in SQL,
    ``ORDER`` the order the rows were written in."""

    _db: DB
    _timesql: TimeSQL
    ORDER: str

    def __init__(self, db: DB):
        self._db = db

    def stats(self, now_key: str) -> list[tuple[Any, ...]]:
        """(predicate, facts, open, valid at ``now_key``, ended, subjects, objects) of every
        predicate, by predicate; one pass over the facts, in the predicate index's order."""
        timesql = self._timesql
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
                f"SELECT COUNT(*) FROM triples WHERE predicate = {self._db.MARK}", (predicate,)
            ).fetchone()[0]

    def open_rows(self, predicate: str, boundary: str | None) -> list[tuple[Any, ...]]:
        """Every column (TRIPLE_COLUMNS) of the predicate's open facts, in the order they were
        written, and last whether each had begun before ``boundary`` (always, when it is None):
        an unknown start has; otherwise its start key (stored text, contract §2.8) is before."""
        mark, timesql = self._db.MARK, self._timesql
        columns = ", ".join(f"t.{column}" for column in TRIPLE_COLUMNS)
        started = (
            f"(t.valid_from IS NULL OR "
            f"{timesql.start_key(timesql.as_text('t.valid_from'))} < {mark})"
            if boundary is not None
            else "1 = 1"
        )
        with self._db.read() as conn:
            return conn.execute(
                f"SELECT {columns}, {started} FROM triples t "
                f"WHERE t.predicate = {mark} AND t.valid_to IS NULL ORDER BY {self.ORDER}",
                ([boundary] if boundary is not None else []) + [predicate],
            ).fetchall()

    def ids(self, predicate: str) -> list[str]:
        """The ids of every fact of the predicate, in the order they were written."""
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT t.id FROM triples t WHERE t.predicate = {self._db.MARK} "
                f"ORDER BY {self.ORDER}",
                (predicate,),
            ).fetchall()
        return [tid for (tid,) in rows]
