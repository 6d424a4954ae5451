"""The entities table in SQLite: rows by id, name resolution, listing and searching."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np

from factlines.core.search import EntitySearchIndex
from factlines.core.store.engine_connection import SQLConnection
from factlines.core.store.engine_entities import EntityRows
from factlines.core.store.rows import ENTITY_ROW_KEYS
from factlines.core.store.sqlite import ranking, timesql
from factlines.core.store.sqlite.connection import Connection
from factlines.core.store.sqlite.kept import Kept
from factlines.core.store.sqlite.ranking import COUNTS, rows_for_ids
from factlines.core.store.sqlite.schema import NAME_INDEX

# Past this offset a name-ordered page is sliced from the in-memory name order (loaded once per
# change of the file) rather than sorted by SQLite, when no name index exists.
_DEEP_OFFSET = 2_000
# The entities listed before one named ``?`` with id ``?`` in name order (the listing's ORDER
# BY ``name COLLATE NOCASE, id``, or both descending; NULL sorts first), ascending and descending.
_BEFORE_BY_NAME = (
    "SELECT COUNT(*) FROM entities WHERE name IS NULL OR name < ? COLLATE NOCASE "
    "OR (name = ? COLLATE NOCASE AND (id IS NULL OR id < ?))",
    "SELECT COUNT(*) FROM entities WHERE name > ? COLLATE NOCASE "
    "OR (name = ? COLLATE NOCASE AND id > ?)",
)


def index_entries(
    index: EntitySearchIndex, positions: Iterable[int]
) -> list[str | tuple[None, str, str | None]]:
    """The entities at ``positions`` of the search index, for a page: their ids, or for a row
    with a NULL id (which no id can find again) the row as the index read it."""
    # A hand-edited row's id may be NULL, although the index's type says otherwise.
    ids = cast("Sequence[str | None]", index.ids)

    return [
        eid if (eid := ids[i]) is not None else (None, index.names[i], index.types[i])
        for i in positions
    ]


class SQLiteEntities(EntityRows[Connection]):
    @staticmethod
    def _same_name(column: str) -> str:
        return f"{column} = ? COLLATE NOCASE"

    @staticmethod
    def _like(column: str) -> str:
        return f"{column} LIKE ? ESCAPE '\\'"

    def __init__(self, db: Connection):
        self._db = db
        self._search_index: EntitySearchIndex | None = None
        self._search_index_version: tuple[int, int] | None = None
        self._forgotten = 0  # times the index was dropped after a write of ours
        self._kept = Kept(db)

    # ── Writes (the others: EntityRows) ─────────────────────────────────

    def put(self, eid: str, name: str, entity_type: str, properties: str) -> None:
        """Insert or replace the whole row (MemPalace's ``add_entity``, its very statement:
        the row moves to the end of rowid order as MemPalace's does)."""
        with self._db.transaction() as conn:
            self._db.touch(conn, "entities", eid)
            conn.execute(
                "INSERT OR REPLACE INTO entities (id, name, type, properties) VALUES (?, ?, ?, ?)",
                (eid, name, entity_type, properties),
            )

    # ── Lists ─────────────────────────────────────────────────────────────

    def page(
        self,
        search: str,
        entity_type: str | None,
        valid_at_key: str | None,
        order: str,
        descending: bool,
        limit: int,
        offset: int,
        counts: bool = True,
    ) -> list[dict[str, Any]]:
        """A page of entities with their current and ended fact counts (see the façade)."""
        direction = "DESC" if descending else "ASC"
        if order in ("current", "ended") and valid_at_key is None:
            rows = self._by_count(search, entity_type, order, descending, limit, offset)
            if rows is not None:
                return [dict(zip(ENTITY_ROW_KEYS, row)) for row in rows]
        with self._db.snapshot() as conn:
            if not search and entity_type is None and valid_at_key is None:
                listed = self._listed_in_memory(conn, order, descending, offset)
                if listed is not None:
                    index, positions = listed
                    shown = positions[offset : offset + limit]
                    page = index_entries(index, [int(position) for position in shown])
                    return self._rows_with_counts(conn, page, counts)
            if search and order == "name":
                index = self._index(conn)
                hits = index.matches(search, entity_type)
                if valid_at_key is not None:
                    ids = [index.ids[i] for i in hits]
                    where, params = self._filter(ids, None, valid_at_key)
                    valid = {
                        r[0] for r in conn.execute(f"SELECT e.id FROM entities e {where}", params)
                    }
                    hits = [i for i, eid in zip(hits, ids) if eid in valid]
                if descending:
                    hits = hits[::-1]
                return self._rows_with_counts(
                    conn, index_entries(index, hits[offset : offset + limit]), counts
                )
            ids = self._search_ids(conn, search) if search else None
            where, params = self._filter(ids, entity_type, valid_at_key)
            if order in ("current", "ended"):
                # Ordered by a count: every match's counts are needed before the page is known.
                rows = conn.execute(
                    f"SELECT e.id, e.name, e.type, {COUNTS[0]} AS current, "
                    f"{COUNTS[1]} AS ended FROM entities e {where} "
                    f"ORDER BY {order} {direction}, e.name COLLATE NOCASE, e.id "
                    "LIMIT ? OFFSET ?",
                    [*params, limit, offset],
                ).fetchall()
                return [dict(zip(ENTITY_ROW_KEYS, row)) for row in rows]
            if order == "type":
                sort = f"e.type COLLATE NOCASE {direction}, e.name COLLATE NOCASE, e.id"
            else:
                sort = f"e.name COLLATE NOCASE {direction}, e.id {direction}"
            rows = conn.execute(
                f"SELECT e.id, e.name, e.type FROM entities e {where} "
                f"ORDER BY {sort} LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
            return self._rows_with_counts(conn, rows, counts)

    def _listed_in_memory(
        self, conn: sqlite3.Connection, order: str, descending: bool, offset: int
    ) -> tuple[EntitySearchIndex, range | np.ndarray] | None:
        """Every entity's position in the search index, in the unfiltered listing's order,
        where the index answers a page that SQLite would sort every entity for: by name
        without the name index (deep in the list the index is loaded for it), by type when
        the index is current and every type is text. None: SQLite lists it."""
        if order == "name" and not self._name_indexed(conn):
            index = self._index(conn) if offset >= _DEEP_OFFSET else self._current_index(conn)
            if index is not None:
                positions = range(len(index.ids))
                return index, positions[::-1] if descending else positions
        elif order == "type":
            index = self._current_index(conn)
            in_order = index.type_order(descending) if index is not None else None
            if index is not None and in_order is not None:
                return index, in_order
        return None

    def position(
        self,
        eid: str,
        search: str,
        entity_type: str | None,
        valid_at_key: str | None,
        order: str,
        descending: bool,
    ) -> int | None:
        """By name with no filter (the list as it opens): the entities before it counted, in
        one query (~10 ms at 100,000 entities) instead of the listing read up to it."""
        if order == "name" and not search and entity_type is None and valid_at_key is None:
            with self._db.snapshot() as conn:
                found = conn.execute("SELECT name FROM entities WHERE id = ?", (eid,)).fetchone()
                if found is None:
                    return None
                name = found[0]
                if isinstance(name, str):  # a hand edit's other value: as the listing reads
                    before = _BEFORE_BY_NAME[descending]
                    return conn.execute(before, (name, name, eid)).fetchone()[0]
        return super().position(eid, search, entity_type, valid_at_key, order, descending)

    @staticmethod
    def _rows_of(conn: SQLConnection, ids: list[str]) -> list[tuple[Any, ...]]:
        return rows_for_ids(conn, "SELECT id, name, type FROM entities WHERE id IN", ids)

    @staticmethod
    def _counts_of(conn: SQLConnection, ids: list[str]) -> dict[str, tuple[int, int]]:
        by_id: dict[str, tuple[int, int]] = {}
        for start in range(0, len(ids), 400):  # twice in a statement: within SQLite's 999
            chunk = ids[start : start + 400]
            marks = ", ".join("?" * len(chunk))
            sql = ranking.counts_of(lambda column, marks=marks: f"{column} IN ({marks})")
            by_id.update((eid, (cur, end)) for eid, cur, end in conn.execute(sql, chunk * 2))
        return by_id

    # ── Ranked by counts (see .ranking) ───────────────────────────────────

    def _by_count(
        self,
        search: str,
        entity_type: str | None,
        order: str,
        descending: bool,
        limit: int,
        offset: int,
    ) -> list[tuple[Any, ...]] | None:
        """A page ranked by a count, from figures kept until the file changes; None when the
        file changed meanwhile (the caller then lets SQLite rank)."""
        if limit <= 0:
            return []
        with self._db.read() as conn:
            if conn.in_transaction:
                return None  # inside a write of ours: nothing is kept, let SQLite rank
            covered = conn.execute(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN "
                "('fl_triples_subject_cover', 'fl_triples_object_cover')"
            ).fetchone()[0]
            if covered == 2:
                return None  # the speed indexes count from the index alone: let SQLite rank
        wanted = limit + offset
        name = f"ranked {order} {descending}"
        if descending and wanted == 1 and self._kept.fresh(name) is None:
            totals, key = self._kept.get_with_key("totals", ranking.totals)
            with self._db.snapshot() as conn:
                if self._same_file(conn, key):
                    allowed = set(self._search_ids(conn, search)) if search else None
                    rows = ranking.most(conn, totals, order, allowed, entity_type)
                    if rows is not None:
                        return rows
        full, key = self._kept.get_with_key(
            name, lambda conn: ranking.ranked(conn, order, descending)
        )
        with self._db.snapshot() as conn:
            if not self._same_file(conn, key):
                return None
            if search:
                allowed = set(self._search_ids(conn, search))
                full = [row for row in full if row[0] in allowed]
        if entity_type is not None:
            full = [row for row in full if row[2] == entity_type]
        return full[offset:wanted]

    def _same_file(self, conn: sqlite3.Connection, key: tuple[int, int, int] | None) -> bool:
        """Is this snapshot of the file the one figures kept under ``key`` were read from?"""
        conn.execute("SELECT 1 FROM entities LIMIT 1").fetchone()  # the snapshot starts here
        return key is not None and self._db.version(conn) == key

    def _name_indexed(self, conn: sqlite3.Connection) -> bool:
        return (
            conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                (NAME_INDEX,),
            ).fetchone()
            is not None
        )

    def count(self, search: str, entity_type: str | None, valid_at_key: str | None) -> int:
        with self._db.snapshot() as conn:
            if search and valid_at_key is None:
                return len(self._index(conn).matches(search, entity_type))
            ids = self._search_ids(conn, search, entity_type) if search else None
            where, params = self._filter(ids, entity_type, valid_at_key)
            return conn.execute(f"SELECT COUNT(*) FROM entities e {where}", params).fetchone()[0]

    def prepare_search(self) -> None:
        with self._db.snapshot() as conn:
            self._index(conn)

    def search_index_stamp(self) -> tuple[tuple[int, int], int] | None:
        with self._db.snapshot() as conn:
            if self._current_index(conn) is not None:
                return None
            return self._version(conn), self._forgotten

    def read_search_index(self) -> EntitySearchIndex:
        with self._db.snapshot() as conn:
            return EntitySearchIndex(self._search_rows(conn))

    def adopt_search_index(self, index: EntitySearchIndex, stamp: object) -> bool:
        with self._db.snapshot() as conn:
            version = self._version(conn)
            if (version, self._forgotten) != stamp:
                return False
            self._search_index, self._search_index_version = index, version
            return True

    def _search_ids(
        self, conn: sqlite3.Connection, text: str, entity_type: str | None = None
    ) -> list[str | None]:
        """Ids matching a search, prefix matches first, each part in name order (a hand-edited
        row's id may be NULL)."""
        index = self._index(conn)
        return [index.ids[i] for i in index.matches(text, entity_type)]

    def _version(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """The file's version (:meth:`Connection.version`) without this connection's own
        writes, which :meth:`forget_index` counts instead: only a write of entities drops the
        search index (a rebuild takes ~1 s at 100k entities; a fact's edit leaves it as it is)."""
        return self._db.version(conn)[:2]

    def _current_index(self, conn: sqlite3.Connection) -> EntitySearchIndex | None:
        """The in-memory search index if it is up to date, else None (nothing is built)."""
        if self._search_index is not None and self._search_index_version == self._version(conn):
            return self._search_index
        return None

    def _index(self, conn: sqlite3.Connection) -> EntitySearchIndex:
        """The in-memory search index, rebuilt when the file changed since it was built."""
        version = self._version(conn)
        if self._search_index is None or self._search_index_version != version:
            self._search_index = EntitySearchIndex(self._search_rows(conn))
            self._search_index_version = version
        return self._search_index

    @staticmethod
    def _search_rows(conn: sqlite3.Connection) -> list[tuple[str, str, str | None]]:
        return conn.execute(
            "SELECT id, name, type FROM entities ORDER BY name COLLATE NOCASE, id"
        ).fetchall()

    def forget_index(self) -> None:
        """Our own commit does not change ``data_version``: drop the index after a write (and
        refuse an index read before it)."""
        self._search_index = None
        self._forgotten += 1

    def forget_kept(self) -> None:
        self.forget_index()
        self._kept.clear()

    @staticmethod
    def _filter(
        ids: Sequence[str | None] | None, entity_type: str | None, valid_at_key: str | None
    ) -> tuple[str, list[str | None]]:
        """A WHERE clause over ``entities e``: among ``ids`` (a search's), of a type, valid then."""
        clauses: list[str] = []
        params: list[str | None] = []

        if ids is not None:
            # A matched row with a NULL id (a hand edit) cannot be named by its id: the rows
            # with a NULL id are kept then (there is rarely more than one).
            nameless = " OR e.id IS NULL" if None in ids else ""
            clauses.append(f"(e.id IN (SELECT value FROM json_each(?)){nameless})")
            params.append(json.dumps(ids))
        if entity_type is not None:
            clauses.append("e.type IS ?")
            params.append(entity_type)
        if valid_at_key is not None:
            valid = timesql.valid_at("t")
            clauses.append(
                f"(EXISTS (SELECT 1 FROM triples t WHERE t.subject = e.id AND {valid}) OR "
                f"EXISTS (SELECT 1 FROM triples t WHERE t.object = e.id AND {valid}))"
            )
            params += timesql.valid_at_params(valid_at_key) * 2
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    def types(self) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT type FROM entities WHERE type IS NOT NULL ORDER BY type"
            ).fetchall()
        return [r[0] for r in rows]

    def names(self) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT name FROM entities ORDER BY name COLLATE NOCASE")
            return [r[0] for r in rows]
