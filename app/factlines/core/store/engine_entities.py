"""The rows of ``entities`` both engines read and write alike, but for SQL's parameter marker
(the connection's ``MARK``) and a few statements each engine spells its own way."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic

from factlines.core.names import entity_id
from factlines.core.store.engine_common import escape_like, update_row
from factlines.core.store.engine_connection import DB, SQLConnection
from factlines.core.store.rows import ENTITY_COLUMNS, ENTITY_ROW_KEYS

# A name shorter than this has no candidates (MemPalace 3.11's rule).
_MIN_CANDIDATE_LEN = 3
# An entity's row in the listing is looked for this many rows at a time (off the UI thread:
# 100,000 entities are ten reads).
POSITION_PAGE = 10_000


class EntityRows(Generic[DB]):
    """Rows of ``entities``: one by id, a name resolved, candidates for a name (the engine's
    ``_same_name`` and ``_like`` compare as SQLite's NOCASE and LIKE do), and plain writes in
    the caller's transaction."""

    _db: DB
    page: Callable[..., list[dict[str, Any]]]  # the engine's listing (see the protocol)

    # The engine's SQL: a column compared with a parameter as NOCASE does, or matched as LIKE
    # does (escaped with a backslash); (id, name, type) of some ids; and some ids' counts of
    # current and ended facts.
    @staticmethod
    def _same_name(column: str) -> str:
        raise NotImplementedError

    @staticmethod
    def _like(column: str) -> str:
        raise NotImplementedError

    @staticmethod
    def _rows_of(conn: SQLConnection, ids: list[str]) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    @staticmethod
    def _counts_of(conn: SQLConnection, ids: list[str]) -> dict[str, tuple[int, int]]:
        raise NotImplementedError

    def _rows_with_counts(
        self, conn: SQLConnection, page: Sequence[str | tuple[Any, ...]], counts: bool = True
    ) -> list[dict[str, Any]]:
        """Entity rows with their counts (None without ``counts``), in the order of ``page``:
        ids to read, or (id, name, type) rows already read; ids no longer in the table are
        left out. A row whose id is NULL (a hand-edited file) is listed with no facts: no fact
        can name it."""
        found = {
            row[0]: row
            for row in self._rows_of(conn, [item for item in page if not isinstance(item, tuple)])
        }
        rows = [
            item if isinstance(item, tuple) else found[item]
            for item in page
            if isinstance(item, tuple) or item in found
        ]
        if not counts:  # read for the rows shown (a long list read to find one entity)
            return [dict(zip(ENTITY_ROW_KEYS, (*row, None, None))) for row in rows]
        by_id = self._counts_of(conn, [row[0] for row in rows if row[0] is not None])
        return [dict(zip(ENTITY_ROW_KEYS, (*row, *by_id.get(row[0], (0, 0))))) for row in rows]

    def listed(self, ids: list[str]) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            return self._rows_with_counts(conn, list(ids))

    def position(
        self,
        eid: str,
        search: str,
        entity_type: str | None,
        valid_at_key: str | None,
        order: str,
        descending: bool,
    ) -> int | None:
        """The row of ``eid`` in :meth:`page`'s listing (None: not listed), whatever its
        filters and order: the listing itself, read in long pages until it is met."""
        offset = 0
        while True:
            rows = self.page(
                search, entity_type, valid_at_key, order, descending, POSITION_PAGE, offset, False
            )
            for row, entity in enumerate(rows):
                if entity["id"] == eid:
                    return offset + row
            if len(rows) < POSITION_PAGE:
                return None
            offset += len(rows)

    def every(self) -> list[tuple[Any, ...]]:
        """(id, name, type) of every entity, in no order."""
        with self._db.read() as conn:
            return conn.execute("SELECT id, name, type FROM entities").fetchall()

    def get(self, eid: str) -> dict[str, Any] | None:
        """The row of ``eid`` as stored (``properties`` is the stored JSON text)."""
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {', '.join(ENTITY_COLUMNS)} FROM entities WHERE id = {self._db.MARK}",
                (eid,),
            ).fetchone()
        if row is None:
            return None
        return dict(zip(ENTITY_COLUMNS, row))

    def resolve(self, ref: str, rule_first: bool = False) -> str | None:
        """The id of the entity ``ref`` names: the id itself, MemPalace's id of the name, or a
        display name (a renamed entity keeps its old id). ``rule_first`` asks MemPalace's rule
        before the literal id, as MemPalace's own name lookups do. None when nothing matches."""
        by_id = f"id = {self._db.MARK}"
        steps = [(by_id, ref), (by_id, entity_id(ref))]
        if rule_first:
            steps.reverse()
        steps.append((self._same_name("name"), ref.strip()))
        with self._db.read() as conn:
            for where, value in steps:
                row = conn.execute(
                    f"SELECT id FROM entities WHERE {where} LIMIT 1", (value,)
                ).fetchone()
                if row is not None:
                    return row[0]
        return None

    def candidates(self, name: str) -> list[dict[str, Any]]:
        """Token and prefix matches of a name that is not an entity (MemPalace 3.11's rule)."""
        if not name or len(name.strip()) < _MIN_CANDIDATE_LEN:
            return []
        eid = entity_id(name)
        name_esc, id_esc = escape_like(name.strip()), escape_like(eid)
        mark = self._db.MARK
        like = " OR ".join([self._like("name")] * 3 + [self._like("id")] * 3)
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT id, name FROM entities WHERE id = {mark} OR name = {mark} OR {like} "
                "LIMIT 5",
                (
                    eid,
                    name,
                    f"{name_esc} %",
                    f"% {name_esc}",
                    f"% {name_esc} %",
                    f"{id_esc}\\_%",
                    f"%\\_{id_esc}",
                    f"%\\_{id_esc}\\_%",
                ),
            ).fetchall()
        return [{"id": rid, "name": rname} for rid, rname in rows if rid != eid]

    def ensure(self, eid: str, name: str) -> None:
        """Create the entity ``eid`` named ``name`` unless it exists."""
        mark = self._db.MARK
        with self._db.transaction() as conn:
            if conn.execute(f"SELECT 1 FROM entities WHERE id = {mark}", (eid,)).fetchone() is None:
                self._db.touch(conn, "entities", eid)
                conn.execute(
                    f"INSERT INTO entities (id, name) VALUES ({mark}, {mark})", (eid, name)
                )

    def update(self, eid: str, **values: Any) -> None:
        """Set some of ``name``, ``type``, ``properties`` (JSON text) on one row."""
        unknown = set(values) - {"name", "type", "properties"}
        if unknown:
            raise TypeError(f"not entity columns: {sorted(unknown)}")
        update_row(self._db, "entities", eid, values)

    def delete(self, eid: str) -> None:
        with self._db.transaction() as conn:
            self._db.touch(conn, "entities", eid)
            conn.execute(f"DELETE FROM entities WHERE id = {self._db.MARK}", (eid,))
