"""The entities table in PostgreSQL: rows by id, name resolution, listing and searching, with
the SQLite engine's answers (SQLite's NOCASE for names, its LIKE's ASCII case folding)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factlines.core.search import EntitySearchIndex
from factlines.core.store.engine_entities import EntityRows
from factlines.core.store.postgres.connection import PGConnection
from factlines.core.store.postgres.timesql import C, nocase, valid_at, valid_at_params
from factlines.core.store.postgres.timesql import order as order_sql
from factlines.core.store.rows import ENTITY_ROW_KEYS
from factlines.core.store.sqlite.entities import index_entries
from factlines.core.store.sqlite.ranking import counts_of

# Every entity's open and ended facts, both directions, a fact about itself once.
_ALL_COUNTS = (
    "(SELECT e, SUM(o) AS current, SUM(n) AS ended FROM ("
    "SELECT subject AS e, COUNT(*) - COUNT(valid_to) AS o, COUNT(valid_to) AS n FROM triples "
    "GROUP BY subject UNION ALL SELECT object, COUNT(*) - COUNT(valid_to), COUNT(valid_to) "
    "FROM triples WHERE object != subject GROUP BY object) x GROUP BY e)"
)


class PGEntities(EntityRows[PGConnection]):
    @staticmethod
    def _same_name(column: str) -> str:
        return f"{nocase(column)} = {nocase('%s')}"

    @staticmethod
    def _like(column: str) -> str:
        return f"{nocase(column)} LIKE {nocase('%s')}"

    def __init__(self, db: PGConnection):
        self._db = db
        self._search_index: EntitySearchIndex | None = None
        self._search_index_generation = -1
        self._forgotten = 0  # times the index was dropped after a write of ours
        self._rankings: dict[tuple[str, bool], tuple[int, list[tuple[Any, ...]]]] = {}

    # ── Writes (the others: EntityRows) ─────────────────────────────────

    def put(self, eid: str, name: str, entity_type: str, properties: str) -> None:
        """Insert or replace the whole row (MemPalace's ``add_entity``: SQLite's INSERT OR
        REPLACE, so the columns not given take their defaults again)."""
        with self._db.transaction() as conn:
            self._db.touch(conn, "entities", eid)
            conn.execute("DELETE FROM entities WHERE id = %s", (eid,))
            conn.execute(
                "INSERT INTO entities (id, name, type, properties) VALUES (%s, %s, %s, %s)",
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
        with self._db.snapshot() as conn:
            ids = None
            if search:
                index = self._index(conn)
                hits = index.matches(search, entity_type)
                if order == "name":
                    if valid_at_key is not None:
                        valid = self._valid_ids(conn, [index.ids[i] for i in hits], valid_at_key)
                        hits = [i for i in hits if index.ids[i] in valid]
                    hits = hits[::-1] if descending else hits
                    page = index_entries(index, hits[offset : offset + limit])
                    return self._rows_with_counts(conn, page, counts)
                ids = [index.ids[i] for i in hits]
            if order in ("current", "ended"):
                rows = self._ranked(conn, order, descending, ids, entity_type, valid_at_key)
                return [dict(zip(ENTITY_ROW_KEYS, row)) for row in rows[offset : offset + limit]]
            where, params = _filter(ids, entity_type, valid_at_key)
            if order == "type":
                sort = (
                    f"{order_sql(nocase('e.type'), descending)}, {order_sql(nocase('e.name'))}, "
                    f"{order_sql('e.id ' + C)}"
                )
            else:
                sort = (
                    f"{order_sql(nocase('e.name'), descending)}, "
                    f"{order_sql('e.id ' + C, descending)}"
                )
            rows = conn.execute(
                f"SELECT e.id, e.name, e.type FROM entities e {where} "
                f"ORDER BY {sort} LIMIT %s OFFSET %s",
                [*params, limit, offset],
            ).fetchall()
            return self._rows_with_counts(conn, rows, counts)

    def _ranked(
        self,
        conn: Any,
        order_by: str,
        descending: bool,
        ids: list[str] | None,
        entity_type: str | None,
        valid_at_key: str | None,
    ) -> list[tuple[Any, ...]]:
        """Every matching entity as (id, name, type, current, ended), ranked by ``order_by``
        (a count), then name and id as SQLite orders them. Without a time filter the whole
        ranking is kept until this client learns of a change (paging it costs no query)."""
        if valid_at_key is not None or self._db.writing:
            where, params = _filter(ids, entity_type, valid_at_key)
            return _ranking(conn, order_by, descending, where, params)
        self._db.poll()
        kept = self._rankings.get((order_by, descending))
        if kept is None or kept[0] != self._db.generation:
            kept = (self._db.generation, _ranking(conn, order_by, descending, "", []))
            self._rankings[(order_by, descending)] = kept
        rows = kept[1]
        if ids is not None:
            allowed = set(ids)
            rows = [row for row in rows if row[0] in allowed]
        if entity_type is not None:
            rows = [row for row in rows if row[2] == entity_type]
        return rows

    @staticmethod
    def _valid_ids(conn: Any, ids: list[str], valid_at_key: str) -> set[str]:
        where, params = _filter(ids, None, valid_at_key)
        return {r[0] for r in conn.execute(f"SELECT e.id FROM entities e {where}", params)}

    @staticmethod
    def _rows_of(conn: Any, ids: list[str]) -> list[tuple[Any, ...]]:
        sql = "SELECT id, name, type FROM entities WHERE id = ANY(%s)"
        return conn.execute(sql, (ids,)).fetchall()

    @staticmethod
    def _counts_of(conn: Any, ids: list[str]) -> dict[str, tuple[int, int]]:
        where = counts_of(lambda column: f"{column} = ANY(%s)")
        return {eid: (current, ended) for eid, current, ended in conn.execute(where, (ids, ids))}

    def count(self, search: str, entity_type: str | None, valid_at_key: str | None) -> int:
        with self._db.snapshot() as conn:
            ids = None
            if search:
                index = self._index(conn)
                hits = index.matches(search, entity_type)
                if valid_at_key is None:
                    return len(hits)
                ids = [index.ids[i] for i in hits]
            where, params = _filter(ids, entity_type, valid_at_key)
            return conn.execute(f"SELECT COUNT(*) FROM entities e {where}", params).fetchone()[0]

    def prepare_search(self) -> None:
        with self._db.snapshot() as conn:
            self._index(conn)

    def search_index_stamp(self) -> tuple[int, int] | None:
        self._db.poll()
        if self._search_index is not None and self._search_index_generation == self._db.generation:
            return None
        return self._db.generation, self._forgotten

    def read_search_index(self) -> EntitySearchIndex:
        with self._db.snapshot() as conn:
            return EntitySearchIndex(self._search_rows(conn))

    def adopt_search_index(self, index: EntitySearchIndex, stamp: object) -> bool:
        self._db.poll()
        if (self._db.generation, self._forgotten) != stamp:
            return False
        self._search_index, self._search_index_generation = index, self._db.generation
        return True

    def _index(self, conn: Any) -> EntitySearchIndex:
        """The in-memory search index, built again once this client learns of a change."""
        self._db.poll()
        if self._search_index is None or self._search_index_generation != self._db.generation:
            self._search_index = EntitySearchIndex(self._search_rows(conn))
            self._search_index_generation = self._db.generation
        return self._search_index

    @staticmethod
    def _search_rows(conn: Any) -> list[tuple[str, str, str | None]]:
        return conn.execute(
            "SELECT id, name, type FROM entities "
            f"ORDER BY {order_sql(nocase('name'))}, {order_sql('id ' + C)}"
        ).fetchall()

    def forget_index(self) -> None:
        self._search_index = None
        self._forgotten += 1

    def forget_kept(self) -> None:
        self.forget_index()
        self._rankings.clear()

    def types(self) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT DISTINCT type {C} FROM entities WHERE type IS NOT NULL ORDER BY 1"
            ).fetchall()
        return [r[0] for r in rows]

    def names(self) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute(f"SELECT name FROM entities ORDER BY {order_sql(nocase('name'))}")
            return [r[0] for r in rows]


def _ranking(
    conn: Any, order_by: str, descending: bool, where: str, params: list[Any]
) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT e.id, e.name, e.type, COALESCE(c.current, 0), COALESCE(c.ended, 0) "
        f"FROM entities e LEFT JOIN {_ALL_COUNTS} c ON c.e = e.id {where} "
        f"ORDER BY {order_sql('COALESCE(c.' + order_by + ', 0)', descending)}, "
        f"{order_sql(nocase('e.name'))}, {order_sql('e.id ' + C)}",
        params,
    ).fetchall()


def _filter(
    ids: Sequence[str | None] | None, entity_type: str | None, valid_at_key: str | None
) -> tuple[str, list[Any]]:
    """A WHERE clause over ``entities e``: among ``ids`` (a search's), of a type, valid then."""
    clauses: list[str] = []
    params: list[Any] = []
    if ids is not None:
        nameless = " OR e.id IS NULL" if None in ids else ""
        clauses.append(f"(e.id = ANY(%s){nameless})")
        params.append([i for i in ids if i is not None])
    if entity_type is not None:
        clauses.append("e.type IS NOT DISTINCT FROM %s")
        params.append(entity_type)
    if valid_at_key is not None:
        valid = valid_at("t")
        clauses.append(
            f"(EXISTS (SELECT 1 FROM triples t WHERE t.subject = e.id AND {valid}) OR "
            f"EXISTS (SELECT 1 FROM triples t WHERE t.object = e.id AND {valid}))"
        )
        params += valid_at_params(valid_at_key) * 2
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params
