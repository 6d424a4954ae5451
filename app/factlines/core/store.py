"""The store: MemPalace's temporal knowledge graph on its own SQLite file, and what the app adds.

The MemPalace-compatible methods keep MemPalace 3.11's names, arguments and result keys (plus
``id`` on every fact row). The rest address facts by id, list and search entities, correct
mistakes and feed the chart. Every write is one ``BEGIN IMMEDIATE`` transaction; every write can
be recorded (:meth:`KnowledgeGraph.recording`) as row images, which is what undo replays.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from factlines.core import temporal
from factlines.core.analysis import find_conflicts
from factlines.core.errors import (
    ConflictError,
    DuplicateFact,
    FactNotFound,
    KnowledgeGraphError,
    NotAKnowledgeGraph,
    TimeValueError,
)
from factlines.core.names import check_name, entity_id, new_triple_id, predicate_id
from factlines.core.schema import open_connection
from factlines.core.search import EntitySearchIndex

DEFAULT_KG_PATH = os.path.expanduser("~/.mempalace/knowledge_graph.sqlite3")
_MIN_ENTITY_CANDIDATE_LEN = 3
DIRECTIONS = ("outgoing", "incoming", "both")
PROVENANCE = ("source_closet", "source_file", "source_drawer_id", "adapter_name")
ENTITY_ORDERS = ("name", "type", "current", "ended")
_KEY_COLUMN = {"entities": "id", "triples": "id", "fl_meta": "key"}
_ROW_LABEL = {"entities": "the entity", "triples": "the fact", "fl_meta": "the setting"}


class Change:
    """Row images of one recorded write: ``{(table, id): (before, after)}``, each a dict or None."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list] = {}

    def __bool__(self) -> bool:
        return any(before != after for before, after in self.rows.values())

    def __repr__(self) -> str:
        return f"Change({len(self.rows)} rows)"


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# A fact whose entity row is missing (MemPalace never deletes one, but files get edited) is
# still readable by id: its names fall back to the ids.
_FACT_COLUMNS = (
    "t.id, t.subject, COALESCE(s.name, t.subject), t.predicate, t.object, "
    "COALESCE(o.name, t.object), t.valid_from, t.valid_to, "
    "t.confidence, t.source_closet, t.source_file, t.source_drawer_id, t.adapter_name, "
    "t.extracted_at"
)
_FACT_JOIN = "FROM triples t JOIN entities s ON t.subject = s.id JOIN entities o ON t.object = o.id"
_FACT_LEFT_JOIN = _FACT_JOIN.replace(" JOIN ", " LEFT JOIN ")


_ENTITY_FACT_COUNT = (
    "SELECT (SELECT COUNT(*) FROM triples WHERE subject = ?1) + "
    "(SELECT COUNT(*) FROM triples WHERE object = ?1)"
)
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


_COUNTS = (
    "(SELECT COUNT(*) FROM triples WHERE subject = e.id AND valid_to IS NULL) + "
    "(SELECT COUNT(*) FROM triples WHERE object = e.id AND subject != e.id AND valid_to IS NULL)",
    "(SELECT COUNT(*) FROM triples WHERE subject = e.id AND valid_to IS NOT NULL) + "
    "(SELECT COUNT(*) FROM triples WHERE object = e.id AND subject != e.id "
    "AND valid_to IS NOT NULL)",
)
_ENTITY_ROW_KEYS = ("id", "name", "type", "current", "ended")


def _fact_dict(row: tuple) -> dict:
    """A fact row of _FACT_COLUMNS as a dict, with ``current`` and POSIX ``start``/``end``.

    One dict literal per row: a busy entity has 2,000 rows, so the per-row cost is the cost.
    """
    (
        tid,
        subject,
        subject_name,
        predicate,
        obj,
        object_name,
        valid_from,
        valid_to,
        confidence,
        source_closet,
        source_file,
        source_drawer_id,
        adapter_name,
        extracted_at,
    ) = row
    return {
        "id": tid,
        "subject": subject,
        "subject_name": subject_name,
        "predicate": predicate,
        "object": obj,
        "object_name": object_name,
        "valid_from": valid_from,
        "valid_to": valid_to,
        "confidence": confidence,
        "source_closet": source_closet,
        "source_file": source_file,
        "source_drawer_id": source_drawer_id,
        "adapter_name": adapter_name,
        "extracted_at": extracted_at,
        "current": valid_to is None,
        "start": temporal.start_posix(valid_from),
        "end": temporal.end_posix(valid_to),
    }


def describe(fact: dict) -> str:
    """A fact row in words, by its entities' names: ``Kai Moreno works_on Orion``."""
    return f"{fact['subject_name']} {fact['predicate']} {fact['object_name']}"


class KnowledgeGraph:
    """A temporal knowledge graph in one SQLite file, readable and writable by MemPalace too."""

    def __init__(self, db_path: str | os.PathLike | None = None):
        self.db_path = str(db_path) if db_path is not None else DEFAULT_KG_PATH
        if db_path is None:
            Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0
        self._recorders: list[Change] = []
        self._conn: sqlite3.Connection | None = open_connection(self.db_path, NotAKnowledgeGraph)
        self._seen_data_version = self._data_version()
        self._search_index: EntitySearchIndex | None = None
        self._search_index_version = -1

    # ── Lifecycle ─────────────────────────────────────────────────────────

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.close()
        return False

    @property
    def closed(self) -> bool:
        return self._conn is None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise KnowledgeGraphError(f"the knowledge graph {self.db_path} is closed")
        return self._conn

    # ── Transactions and recording ────────────────────────────────────────

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE); writes inside it join it: all or nothing."""
        with self._lock:
            conn = self._db()
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _write_refused(self.db_path, exc) from None
            self._depth = 1
            try:
                yield conn
                for change in self._recorders:
                    self._fill_after_images(conn, change)
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                self._forget_uncommitted()
                if isinstance(exc, sqlite3.Error):
                    raise _write_refused(self.db_path, exc) from None
                raise
            finally:
                self._depth = 0
            self._search_index = None

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Run several reads in one read transaction (inside a write, the write's own)."""
        with self._lock:
            conn = self._db()
            if conn.in_transaction:
                yield
                return
            conn.execute("BEGIN")
            try:
                yield
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def recording(self) -> Iterator[Change]:
        """Record the row images of every write inside the block, for :meth:`revert`."""
        change = Change()
        with self._lock:
            self._recorders.append(change)
            try:
                yield change
            finally:
                self._recorders.remove(change)

    def _touch(self, conn: sqlite3.Connection, table: str, row_id: str) -> None:
        """Keep the before image of a row about to be written, for each active recording."""
        if not self._recorders:
            return
        image = None
        for change in self._recorders:
            if (table, row_id) not in change.rows:
                if image is None:
                    image = [self._row_image(conn, table, row_id)]
                change.rows[(table, row_id)] = [image[0], None, True]

    def _forget_uncommitted(self) -> None:
        for change in self._recorders:
            for key in [k for k, v in change.rows.items() if len(v) == 3]:
                del change.rows[key]

    def _fill_after_images(self, conn: sqlite3.Connection, change: Change) -> None:
        for (table, row_id), images in change.rows.items():
            if len(images) == 3:
                change.rows[(table, row_id)] = [images[0], self._row_image(conn, table, row_id)]

    @staticmethod
    def _row_image(conn: sqlite3.Connection, table: str, row_id: str) -> dict | None:
        cursor = conn.execute(
            f"SELECT rowid AS _rowid, * FROM {table} WHERE {_KEY_COLUMN[table]} = ?", (row_id,)
        )
        row = cursor.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cursor.description], row))

    def revert(self, change: Change) -> None:
        """Put back the rows a recorded change wrote (undo). Refused if they changed since."""
        self._replay(change, to_before=True)

    def reapply(self, change: Change) -> None:
        """Write again the rows a reverted change had written (redo)."""
        self._replay(change, to_before=False)

    def _replay(self, change: Change, to_before: bool) -> None:
        with self.transaction() as conn:
            for (table, row_id), (before, after) in change.rows.items():
                expected, wanted = (after, before) if to_before else (before, after)
                current = self._row_image(conn, table, row_id)
                if _without_rowid(current) != _without_rowid(expected):
                    raise ConflictError(
                        f"{_ROW_LABEL[table]} {row_id!r} was changed by someone else since "
                        "this edit; reload to see the file as it is"
                    )
                self._touch(conn, table, row_id)
                self._put_row(conn, table, row_id, wanted)

    @staticmethod
    def _put_row(conn: sqlite3.Connection, table: str, row_id: str, image: dict | None) -> None:
        conn.execute(f"DELETE FROM {table} WHERE {_KEY_COLUMN[table]} = ?", (row_id,))
        if image is None:
            return
        values = dict(image)
        rowid = values.pop("_rowid")
        taken = conn.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        columns = list(values)
        if not taken:
            columns = ["rowid", *columns]
            values = {"rowid": rowid, **values}
        conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            list(values.values()),
        )

    # ── External changes ──────────────────────────────────────────────────

    def _data_version(self) -> int:
        with self._lock:
            return self._db().execute("PRAGMA data_version").fetchone()[0]

    def changed_externally(self) -> bool:
        """Has another connection committed to the file since we last looked? Cheap to poll."""
        version = self._data_version()
        changed = version != self._seen_data_version
        self._seen_data_version = version
        return changed

    # ── Entities (MemPalace surface) ──────────────────────────────────────

    def _ensure_entity(self, conn: sqlite3.Connection, name: str) -> str:
        eid = entity_id(name)
        if conn.execute("SELECT 1 FROM entities WHERE id = ?", (eid,)).fetchone() is None:
            self._touch(conn, "entities", eid)
            conn.execute("INSERT INTO entities (id, name) VALUES (?, ?)", (eid, name))
        return eid

    @staticmethod
    def _find_entity_id(conn: sqlite3.Connection, name: str) -> str | None:
        """The existing entity a name means, for the app's own edits: the id MemPalace's rule
        gives, the name as an id, or a display name (a renamed entity keeps its old id, so its
        new name no longer leads there by the rule). None when no entity matches."""
        for where, value in (
            ("id = ?", entity_id(name)),
            ("id = ?", name),
            ("name = ? COLLATE NOCASE", name.strip()),
        ):
            row = conn.execute(
                f"SELECT id FROM entities WHERE {where} LIMIT 1", (value,)
            ).fetchone()
            if row is not None:
                return row[0]
        return None

    def _entity_for(self, conn: sqlite3.Connection, name: str) -> str:
        """The id of the entity ``name`` means, created (as MemPalace would) if there is none."""
        return self._find_entity_id(conn, name) or self._ensure_entity(conn, name)

    def add_entity(self, name: str, entity_type: str = "unknown", properties: dict | None = None):
        """Insert or replace the entity row (MemPalace's semantics: the row is rewritten)."""
        check_name(name, "name")
        props = _properties_json(properties)
        eid = entity_id(name)
        with self.transaction() as conn:
            self._touch(conn, "entities", eid)
            conn.execute(
                "INSERT OR REPLACE INTO entities (id, name, type, properties) VALUES (?, ?, ?, ?)",
                (eid, name, entity_type, props),
            )
        return eid

    # ── Facts (MemPalace surface) ─────────────────────────────────────────

    def _open_ids(self, conn, sub_id: str, pred: str, obj_id: str) -> list[tuple[str, str | None]]:
        return conn.execute(
            "SELECT id, valid_from FROM triples "
            "WHERE subject = ? AND predicate = ? AND object = ? AND valid_to IS NULL",
            (sub_id, pred, obj_id),
        ).fetchall()

    def add_triple(
        self,
        subject: str,
        predicate: str,
        obj: str,
        valid_from: str | None = None,
        valid_to: str | None = None,
        confidence: float = 1.0,
        source_closet: str | None = None,
        source_file: str | None = None,
        source_drawer_id: str | None = None,
        adapter_name: str | None = None,
    ) -> str:
        """Add subject → predicate → object; an identical open fact is returned, not doubled."""
        check_name(subject, "subject")
        check_name(obj, "object")
        check_name(predicate, "predicate")
        valid_from = temporal.parse(valid_from, "valid_from")
        valid_to = temporal.parse(valid_to, "valid_to")
        temporal.check_interval(valid_from, valid_to)
        confidence = _confidence(confidence)
        pred = predicate_id(predicate)
        with self.transaction() as conn:
            sub_id = self._ensure_entity(conn, subject)
            obj_id = self._ensure_entity(conn, obj)
            existing = self._open_ids(conn, sub_id, pred, obj_id)
            if existing:
                return existing[0][0]
            return self._insert_fact(
                conn,
                sub_id,
                pred,
                obj_id,
                valid_from,
                valid_to,
                confidence,
                (source_closet, source_file, source_drawer_id, adapter_name),
            )

    def _insert_fact(self, conn, sub_id, pred, obj_id, valid_from, valid_to, confidence, prov):
        triple_id = new_triple_id(sub_id, pred, obj_id)
        while conn.execute("SELECT 1 FROM triples WHERE id = ?", (triple_id,)).fetchone():
            triple_id = new_triple_id(sub_id, pred, obj_id)
        self._touch(conn, "triples", triple_id)
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, "
            "confidence, source_closet, source_file, source_drawer_id, adapter_name) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (triple_id, sub_id, pred, obj_id, valid_from, valid_to, confidence, *prov),
        )
        return triple_id

    def invalidate(self, subject: str, predicate: str, obj: str, ended: str | None = None) -> None:
        """End the open (subject, predicate, object) facts at ``ended`` (default: today)."""
        ended = temporal.parse(ended, "ended") or temporal.today()
        sub_id, pred, obj_id = entity_id(subject), predicate_id(predicate), entity_id(obj)
        with self.transaction() as conn:
            rows = self._open_ids(conn, sub_id, pred, obj_id)
            for _, valid_from in rows:
                temporal.check_interval(valid_from, ended, to_field="ended")
            for triple_id, _ in rows:
                self._set_valid_to(conn, triple_id, ended)

    def _set_valid_to(self, conn, triple_id: str, valid_to: str) -> None:
        self._touch(conn, "triples", triple_id)
        conn.execute("UPDATE triples SET valid_to = ? WHERE id = ?", (valid_to, triple_id))

    def supersede(
        self,
        subject: str,
        predicate: str,
        old_obj: str,
        new_obj: str,
        at: str | None = None,
        confidence: float = 1.0,
        source_closet: str | None = None,
        source_file: str | None = None,
        source_drawer_id: str | None = None,
        adapter_name: str | None = None,
    ) -> str:
        """Close the open old fact and open the new one at one shared instant, in one write."""
        check_name(subject, "subject")
        check_name(new_obj, "new object")
        check_name(predicate, "predicate")
        at = temporal.boundary(at)
        confidence = _confidence(confidence)
        pred, old_id = predicate_id(predicate), entity_id(old_obj)
        with self.transaction() as conn:
            sub_id = self._ensure_entity(conn, subject)
            new_id = self._ensure_entity(conn, new_obj)
            rows = self._open_ids(conn, sub_id, pred, old_id)
            for _, valid_from in rows:
                temporal.check_interval(valid_from, at, to_field="at")
            for triple_id, _ in rows:
                self._set_valid_to(conn, triple_id, at)
            prov = (source_closet, source_file, source_drawer_id, adapter_name)
            return self._open_successor(conn, sub_id, pred, new_id, at, confidence, prov)

    def _open_successor(self, conn, sub_id, pred, new_id, at, confidence, prov) -> str:
        """Open (subject, predicate, new object) from ``at``, unless it is open already."""
        existing = self._open_ids(conn, sub_id, pred, new_id)
        if existing:
            return existing[0][0]
        return self._insert_fact(conn, sub_id, pred, new_id, at, None, confidence, prov)

    # ── Queries (MemPalace surface) ───────────────────────────────────────

    def query_entity(self, name: str, as_of: str | None = None, direction: str = "outgoing"):
        """The entity's facts (as MemPalace returns them), optionally only those valid ``as_of``."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction={direction!r} is not one of {', '.join(DIRECTIONS)}")
        as_of = temporal.parse(as_of, "as_of")
        eid = entity_id(name)
        with self._lock:
            conn = self._db()
            results = self._entity_rows(conn, eid, name, direction, as_of)
            if not results:
                exists = conn.execute("SELECT 1 FROM entities WHERE id = ?", (eid,)).fetchone()
                if exists is None:
                    candidates = self._lookup_entity_candidates(conn, name, eid)
                    if len(candidates) == 1:
                        cand = candidates[0]
                        results = self._entity_rows(
                            conn, cand["id"], cand["name"], direction, as_of
                        )
        return results

    def _entity_rows(self, conn, eid: str, name: str, direction: str, as_of: str | None) -> list:
        where, params = "", []
        if as_of is not None:
            key = temporal.start_key(as_of)
            where, params = " AND " + temporal.sql_valid_at("t"), temporal.valid_at_params(key)
        results = []
        if direction in ("outgoing", "both"):
            rows = conn.execute(
                "SELECT t.id, t.predicate, e.name, t.valid_from, t.valid_to, t.confidence, "
                "t.source_closet FROM triples t JOIN entities e ON t.object = e.id "
                "WHERE t.subject = ?" + where,
                [eid, *params],
            ).fetchall()
            results += [
                {
                    "direction": "outgoing",
                    "subject": name,
                    "predicate": pred,
                    "object": other,
                    "valid_from": vf,
                    "valid_to": vt,
                    "confidence": conf,
                    "source_closet": closet,
                    "current": vt is None,
                    "id": tid,
                }
                for tid, pred, other, vf, vt, conf, closet in rows
            ]
        if direction in ("incoming", "both"):
            rows = conn.execute(
                "SELECT t.id, t.predicate, e.name, t.valid_from, t.valid_to, t.confidence, "
                "t.source_closet FROM triples t JOIN entities e ON t.subject = e.id "
                "WHERE t.object = ?" + where,
                [eid, *params],
            ).fetchall()
            results += [
                {
                    "direction": "incoming",
                    "subject": other,
                    "predicate": pred,
                    "object": name,
                    "valid_from": vf,
                    "valid_to": vt,
                    "confidence": conf,
                    "source_closet": closet,
                    "current": vt is None,
                    "id": tid,
                }
                for tid, pred, other, vf, vt, conf, closet in rows
            ]
        return results

    def find_entity_candidates(self, name: str) -> list:
        """Token/prefix matches for a name that is not an entity (MemPalace's disambiguation)."""
        with self._lock:
            return self._lookup_entity_candidates(self._db(), name, entity_id(name or ""))

    @staticmethod
    def _lookup_entity_candidates(conn, name: str, eid: str) -> list:
        if not name or len(name.strip()) < _MIN_ENTITY_CANDIDATE_LEN:
            return []
        name_esc, id_esc = _escape_like(name.strip()), _escape_like(eid)
        rows = conn.execute(
            "SELECT id, name FROM entities WHERE id = ? OR name = ? OR "
            "name LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' OR "
            "id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' LIMIT 5",
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

    def query_relationship(self, predicate: str, as_of: str | None = None) -> list:
        as_of = temporal.parse(as_of, "as_of")
        pred = predicate_id(predicate)
        sql = (
            "SELECT t.id, s.name, o.name, t.valid_from, t.valid_to FROM triples t "
            "JOIN entities s ON t.subject = s.id JOIN entities o ON t.object = o.id "
            "WHERE t.predicate = ?"
        )
        params = [pred]
        if as_of is not None:
            key = temporal.start_key(as_of)
            sql += " AND " + temporal.sql_valid_at("t")
            params += temporal.valid_at_params(key)
        with self._lock:
            rows = self._db().execute(sql, params).fetchall()
        return [
            {
                "subject": sub,
                "predicate": pred,
                "object": obj,
                "valid_from": vf,
                "valid_to": vt,
                "current": vt is None,
                "id": tid,
            }
            for tid, sub, obj, vf, vt in rows
        ]

    def timeline(self, entity_name: str | None = None, limit: int = 100, offset: int = 0) -> list:
        """Facts by valid_from ascending (unknown starts last), then id; paged."""
        limit, offset = max(1, int(limit)), max(0, int(offset))
        select = (
            "SELECT t.id, s.name, t.predicate, o.name, t.valid_from, t.valid_to FROM triples t "
            "JOIN entities s ON t.subject = s.id JOIN entities o ON t.object = o.id "
        )
        with self._lock:
            conn = self._db()
            if entity_name:
                eid = entity_id(entity_name)
                # For a hub, the page is chosen from the covering per-entity indexes and only its
                # rows are read; a small entity is cheaper the plain way. Either lists a fact only
                # when both ends exist, as MemPalace's join does.
                facts = conn.execute(_ENTITY_FACT_COUNT, (eid,)).fetchone()[0]
                if facts > 4 * (limit + offset):
                    rows = conn.execute(_ENTITY_TIMELINE, (eid, limit, offset)).fetchall()
                else:
                    rows = conn.execute(
                        select + "WHERE t.subject = ? OR t.object = ? "
                        "ORDER BY t.valid_from ASC NULLS LAST, t.id ASC LIMIT ? OFFSET ?",
                        (eid, eid, limit, offset),
                    ).fetchall()
            else:
                # Dated facts walk the (valid_from, id) index; undated ones follow them. Both
                # parts are read in one snapshot so a concurrent write cannot shift the page.
                with self._snapshot():
                    rows = conn.execute(
                        select + "WHERE t.valid_from IS NOT NULL "
                        "ORDER BY t.valid_from, t.id LIMIT ? OFFSET ?",
                        (limit, offset),
                    ).fetchall()
                    if len(rows) < limit:
                        undated_offset = 0
                        if not rows and offset:
                            # The page starts past the dated facts: skip as many as the join
                            # lists (a fact whose entity row is missing is not listed).
                            dated = conn.execute(
                                "SELECT COUNT(*) FROM triples t "
                                "JOIN entities s ON t.subject = s.id "
                                "JOIN entities o ON t.object = o.id "
                                "WHERE t.valid_from IS NOT NULL"
                            ).fetchone()[0]
                            undated_offset = max(0, offset - dated)
                        rows += conn.execute(
                            select + "WHERE t.valid_from IS NULL ORDER BY t.id LIMIT ? OFFSET ?",
                            (limit - len(rows), undated_offset),
                        ).fetchall()
        return [
            {
                "subject": sub,
                "predicate": pred,
                "object": obj,
                "valid_from": vf,
                "valid_to": vt,
                "current": vt is None,
                "id": tid,
            }
            for tid, sub, pred, obj, vf, vt in rows
        ]

    def timeline_total(self, entity_name: str | None = None) -> int:
        with self._lock:
            conn = self._db()
            if entity_name:
                eid = entity_id(entity_name)
                return conn.execute(
                    "SELECT COUNT(*) FROM triples WHERE subject = ? OR object = ?", (eid, eid)
                ).fetchone()[0]
            return conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0]

    def stats(self) -> dict:
        with self._lock:
            conn = self._db()
            # Plain COUNT(*) only counts b-tree cells; the ended facts are a range of the
            # valid_to index. One snapshot, so the figures add up under concurrent writes.
            with self._snapshot():
                entities = conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0]
                triples = conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0]
                ended = conn.execute(
                    "SELECT COUNT(*) FROM triples WHERE valid_to IS NOT NULL"
                ).fetchone()[0]
                predicates = self._predicates(conn)
        return {
            "entities": entities,
            "triples": triples,
            "current_facts": triples - ended,
            "expired_facts": ended,
            "relationship_types": predicates,
        }

    @staticmethod
    def _predicates(conn) -> list[str]:
        # A skip-scan over the predicate index: one seek per distinct predicate.
        rows = conn.execute(
            "WITH RECURSIVE p(x) AS (SELECT MIN(predicate) FROM triples UNION ALL "
            "SELECT (SELECT MIN(predicate) FROM triples WHERE predicate > p.x) FROM p "
            "WHERE p.x IS NOT NULL) SELECT x FROM p WHERE x IS NOT NULL"
        ).fetchall()
        return [r[0] for r in rows]

    def seed_from_entity_facts(self, entity_facts: dict) -> None:
        """Bootstrap from fact_checker-style ENTITY_FACTS, as MemPalace does, in one transaction."""
        with self.transaction():
            for key, facts in entity_facts.items():
                name = facts.get("full_name", key.capitalize())
                etype = facts.get("type", "person")
                self.add_entity(
                    name,
                    etype,
                    {"gender": facts.get("gender", ""), "birthday": facts.get("birthday", "")},
                )
                parent = facts.get("parent")
                if parent:
                    self.add_triple(
                        name, "child_of", parent.capitalize(), valid_from=facts.get("birthday")
                    )
                partner = facts.get("partner")
                if partner:
                    self.add_triple(name, "married_to", partner.capitalize())
                relationship = facts.get("relationship", "")
                if relationship == "daughter":
                    self.add_triple(
                        name,
                        "is_child_of",
                        facts.get("parent", "").capitalize() or name,
                        valid_from=facts.get("birthday"),
                    )
                elif relationship == "husband":
                    self.add_triple(name, "is_partner_of", facts.get("partner", name).capitalize())
                elif relationship == "brother":
                    self.add_triple(name, "is_sibling_of", facts.get("sibling", name).capitalize())
                elif relationship == "dog":
                    self.add_triple(name, "is_pet_of", facts.get("owner", name).capitalize())
                    self.add_entity(name, "animal")
                for interest in facts.get("interests", []):
                    self.add_triple(name, "loves", interest.capitalize(), valid_from="2025-01-01")

    # ── Entities (beyond MemPalace) ───────────────────────────────────────

    def get_entity(self, name: str) -> dict | None:
        """The entity ``name`` means (see :meth:`_find_entity_id`), properties decoded; or None."""
        with self._lock:
            conn = self._db()
            eid = self._find_entity_id(conn, name) if isinstance(name, str) else None
            row = (
                conn.execute(
                    "SELECT id, name, type, properties, created_at FROM entities WHERE id = ?",
                    (eid,),
                ).fetchone()
                if eid is not None
                else None
            )
        if row is None:
            return None
        eid, ename, etype, props, created = row
        try:
            properties = json.loads(props) if props else {}
        except ValueError:
            properties = {}
        return {
            "id": eid,
            "name": ename,
            "type": etype,
            "properties": properties,
            "created_at": created,
        }

    def _require_entity(self, name: str, field: str = "entity") -> dict:
        entity = self.get_entity(name) if isinstance(name, str) else None
        if entity is None:
            raise KnowledgeGraphError(f"{field} {name!r} is not in the graph")
        return entity

    def list_entities(
        self,
        search: str = "",
        entity_type: str | None = None,
        valid_at: str | None = None,
        order: str = "name",
        descending: bool = False,
        limit: int = 100,
        offset: int = 0,
    ) -> list[dict]:
        """A page of entities with their current and ended fact counts.

        ``search`` matches id or name, case-insensitively, as a prefix or a substring (prefix
        matches first when ordered by name). ``valid_at`` keeps entities with a fact valid then.
        """
        if order not in ENTITY_ORDERS:
            raise ValueError(f"order={order!r} is not one of {', '.join(ENTITY_ORDERS)}")
        limit, offset = max(0, int(limit)), max(0, int(offset))
        direction = "DESC" if descending else "ASC"
        text = (search or "").strip()
        with self._lock, self._snapshot():
            conn = self._db()
            if text and order == "name":
                index = self._entity_index(conn)
                hits = index.matches(text, entity_type)
                if valid_at is not None:
                    ids = [index.ids[i] for i in hits]
                    where, params = self._entity_filter(ids, None, valid_at)
                    valid = {
                        r[0] for r in conn.execute(f"SELECT e.id FROM entities e {where}", params)
                    }
                    hits = [i for i, eid in zip(hits, ids) if eid in valid]
                if descending:
                    hits = hits[::-1]
                page = [index.ids[i] for i in hits[offset : offset + limit]]
                rows = self._entity_rows_by_id(conn, page)
            else:
                ids = self._search_ids(conn, text) if text else None
                where, params = self._entity_filter(ids, entity_type, valid_at)
                if order in ("current", "ended"):
                    # Ordered by a count: every match's counts are needed before the page is known.
                    rows = conn.execute(
                        f"SELECT e.id, e.name, e.type, {_COUNTS[0]} AS current, "
                        f"{_COUNTS[1]} AS ended FROM entities e {where} "
                        f"ORDER BY {order} {direction}, e.name COLLATE NOCASE, e.id "
                        "LIMIT ? OFFSET ?",
                        [*params, limit, offset],
                    ).fetchall()
                    return [dict(zip(_ENTITY_ROW_KEYS, row)) for row in rows]
                if order == "type":
                    sort = f"e.type COLLATE NOCASE {direction}, e.name COLLATE NOCASE, e.id"
                else:
                    sort = f"e.name COLLATE NOCASE {direction}, e.id {direction}"
                rows = conn.execute(
                    f"SELECT e.id, e.name, e.type FROM entities e {where} "
                    f"ORDER BY {sort} LIMIT ? OFFSET ?",
                    [*params, limit, offset],
                ).fetchall()
            counts = self._fact_counts(conn, [row[0] for row in rows])
        return [dict(zip(_ENTITY_ROW_KEYS, (*row, *counts[row[0]]))) for row in rows]

    @staticmethod
    def _fact_counts(conn, ids: list[str]) -> dict[str, tuple[int, int]]:
        """(current, ended) facts of each entity, a self-loop once, from the covering indexes."""
        rows = _rows_for_ids(
            conn, f"SELECT e.id, {_COUNTS[0]}, {_COUNTS[1]} FROM entities e WHERE e.id IN", ids
        )
        return {eid: (cur, end) for eid, cur, end in rows}

    def count_entities(
        self, search: str = "", entity_type: str | None = None, valid_at: str | None = None
    ) -> int:
        text = (search or "").strip()
        with self._lock, self._snapshot():
            conn = self._db()
            if text and valid_at is None:
                return len(self._entity_index(conn).matches(text, entity_type))
            ids = self._search_ids(conn, text, entity_type) if text else None
            where, params = self._entity_filter(ids, entity_type, valid_at)
            return conn.execute(f"SELECT COUNT(*) FROM entities e {where}", params).fetchone()[0]

    def prepare_search(self) -> None:
        """Build the in-memory search index now, if the file changed since it was built.

        The first search after a change builds it otherwise (about 25 ms per 10k entities):
        an app calls this when the user is about to type, not on the first keystroke.
        """
        with self._lock, self._snapshot():
            self._entity_index(self._db())

    def _search_ids(self, conn, text: str, entity_type: str | None = None) -> list[str]:
        """Ids matching a search, prefix matches first, each part in name order."""
        index = self._entity_index(conn)
        return [index.ids[i] for i in index.matches(text, entity_type)]

    def _entity_index(self, conn) -> EntitySearchIndex:
        """The in-memory search index, rebuilt when the file changed since it was built."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if self._search_index is None or self._search_index_version != version:
            rows = conn.execute(
                "SELECT id, name, type FROM entities ORDER BY name COLLATE NOCASE, id"
            ).fetchall()
            self._search_index = EntitySearchIndex(rows)
            self._search_index_version = version
        return self._search_index

    @staticmethod
    def _entity_rows_by_id(conn, ids: list[str]) -> list[tuple]:
        """(id, name, type) of ``ids``, in the order given."""
        found = {
            row[0]: row
            for row in _rows_for_ids(conn, "SELECT id, name, type FROM entities WHERE id IN", ids)
        }
        return [found[i] for i in ids if i in found]

    @staticmethod
    def _entity_filter(ids: list[str] | None, entity_type: str | None, valid_at: str | None):
        """A WHERE clause over ``entities e``: among ``ids`` (a search's), of a type, valid then."""
        clauses, params = [], []
        if ids is not None:
            clauses.append("e.id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(ids))
        if entity_type is not None:
            clauses.append("e.type IS ?")
            params.append(entity_type)
        valid_at = temporal.parse(valid_at, "valid_at")
        if valid_at is not None:
            key = temporal.start_key(valid_at)
            valid = temporal.sql_valid_at("t")
            clauses.append(
                f"(EXISTS (SELECT 1 FROM triples t WHERE t.subject = e.id AND {valid}) OR "
                f"EXISTS (SELECT 1 FROM triples t WHERE t.object = e.id AND {valid}))"
            )
            params += temporal.valid_at_params(key) * 2
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    def entity_types(self) -> list[str]:
        with self._lock:
            rows = (
                self._db()
                .execute("SELECT DISTINCT type FROM entities WHERE type IS NOT NULL ORDER BY type")
                .fetchall()
            )
        return [r[0] for r in rows]

    def predicates(self) -> list[str]:
        with self._lock:
            return self._predicates(self._db())

    def entity_names(self) -> list[str]:
        """Every display name, for completion."""
        with self._lock:
            rows = (
                self._db()
                .execute("SELECT name FROM entities ORDER BY name COLLATE NOCASE")
                .fetchall()
            )
        return [r[0] for r in rows]

    def rename_entity(self, name: str, new_name: str) -> str:
        """Change the display name; the id (and every fact pointing at it) stays."""
        entity = self._require_entity(name)
        check_name(new_name, "new name")
        with self.transaction() as conn:
            self._touch(conn, "entities", entity["id"])
            conn.execute("UPDATE entities SET name = ? WHERE id = ?", (new_name, entity["id"]))
        return entity["id"]

    def set_entity_type(self, name: str, entity_type: str) -> None:
        entity = self._require_entity(name)
        if not isinstance(entity_type, str) or not entity_type.strip():
            raise KnowledgeGraphError("an entity type must be a non-empty string")
        with self.transaction() as conn:
            self._touch(conn, "entities", entity["id"])
            conn.execute(
                "UPDATE entities SET type = ? WHERE id = ?", (entity_type.strip(), entity["id"])
            )

    def set_entity_properties(self, name: str, properties: dict) -> None:
        entity = self._require_entity(name)
        props = _properties_json(properties)
        with self.transaction() as conn:
            self._touch(conn, "entities", entity["id"])
            conn.execute("UPDATE entities SET properties = ? WHERE id = ?", (props, entity["id"]))

    def merge_entities(self, source: str, target: str) -> str:
        """Re-point every fact of ``source`` at ``target`` and drop ``source``, in one transaction.

        Where the merge leaves two open facts with the same subject, predicate and object, the
        one that came from ``source`` is closed into the survivor: the survivor keeps the earlier
        start, and the duplicate row is removed.
        """
        src, dst = self._require_entity(source, "source"), self._require_entity(target, "target")
        if src["id"] == dst["id"]:
            raise KnowledgeGraphError(f"cannot merge {src['name']!r} into itself")
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT id, subject, predicate, object, valid_from, valid_to FROM triples "
                "WHERE subject = ? OR object = ?",
                (src["id"], src["id"]),
            ).fetchall()
            for tid, sub, pred, obj, vf, vt in rows:
                new_sub = dst["id"] if sub == src["id"] else sub
                new_obj = dst["id"] if obj == src["id"] else obj
                self._touch(conn, "triples", tid)
                survivor = None
                if vt is None:
                    survivor = conn.execute(
                        "SELECT id, valid_from FROM triples WHERE subject = ? AND predicate = ? "
                        "AND object = ? AND valid_to IS NULL AND id != ?",
                        (new_sub, pred, new_obj, tid),
                    ).fetchone()
                if survivor is not None:
                    survivor_id, survivor_from = survivor
                    if vf is None or (
                        survivor_from is not None
                        and temporal.start_key(vf) < temporal.start_key(survivor_from)
                    ):
                        self._touch(conn, "triples", survivor_id)
                        conn.execute(
                            "UPDATE triples SET valid_from = ? WHERE id = ?", (vf, survivor_id)
                        )
                    conn.execute("DELETE FROM triples WHERE id = ?", (tid,))
                else:
                    conn.execute(
                        "UPDATE triples SET subject = ?, object = ? WHERE id = ?",
                        (new_sub, new_obj, tid),
                    )
            self._touch(conn, "entities", src["id"])
            conn.execute("DELETE FROM entities WHERE id = ?", (src["id"],))
        return dst["id"]

    # ── Facts by id (beyond MemPalace) ────────────────────────────────────

    def get_fact(self, triple_id: str) -> dict:
        """One fact with every column, the entities' display names and POSIX start/end."""
        with self._lock:
            row = (
                self._db()
                .execute(f"SELECT {_FACT_COLUMNS} {_FACT_LEFT_JOIN} WHERE t.id = ?", (triple_id,))
                .fetchone()
            )
        if row is None:
            raise FactNotFound(f"no fact with id {triple_id!r}")
        return _fact_dict(row)

    def has_fact(self, triple_id: str) -> bool:
        with self._lock:
            return (
                self._db().execute("SELECT 1 FROM triples WHERE id = ?", (triple_id,)).fetchone()
                is not None
            )

    def update_fact(self, triple_id: str, **changes) -> dict:
        """Correct any field of one fact; the result is validated as a new fact would be.

        Fields: subject, predicate, object (names; a missing entity is created), valid_from,
        valid_to, confidence and the provenance columns. Returns the fact as stored.
        """
        allowed = {
            "subject",
            "predicate",
            "object",
            "valid_from",
            "valid_to",
            "confidence",
            *PROVENANCE,
        }
        unknown = sorted(set(changes) - allowed)
        if unknown:
            raise KnowledgeGraphError(
                f"cannot set {', '.join(unknown)} on a fact; "
                f"the fields are {', '.join(sorted(allowed))}"
            )
        fact = self.get_fact(triple_id)
        values: dict = {}
        for field in ("valid_from", "valid_to"):
            if field in changes:
                values[field] = temporal.parse(changes[field], field)
        if "confidence" in changes:
            values["confidence"] = _confidence(changes["confidence"])
        for field in PROVENANCE:
            if field in changes:
                value = changes[field]
                if value is not None and not isinstance(value, str):
                    raise KnowledgeGraphError(f"{field} must be text or empty")
                values[field] = value or None
        if "predicate" in changes:
            check_name(changes["predicate"], "predicate")
            values["predicate"] = predicate_id(changes["predicate"])
        for field in ("subject", "object"):
            if field in changes:
                check_name(changes[field], field)
        temporal.check_interval(
            values.get("valid_from", fact["valid_from"]), values.get("valid_to", fact["valid_to"])
        )
        with self.transaction() as conn:
            for field in ("subject", "object"):
                if field in changes:
                    values[field] = self._entity_for(conn, changes[field])
            merged = {**fact, **values}
            if merged["valid_to"] is None:
                twin = conn.execute(
                    "SELECT id FROM triples WHERE subject = ? AND predicate = ? AND object = ? "
                    "AND valid_to IS NULL AND id != ?",
                    (merged["subject"], merged["predicate"], merged["object"], triple_id),
                ).fetchone()
                if twin is not None:
                    raise KnowledgeGraphError(
                        f"an open fact {merged['subject']} {merged['predicate']} "
                        f"{merged['object']} already exists ({twin[0]}); end one of them first"
                    )
            if values:
                self._touch(conn, "triples", triple_id)
                assignments = ", ".join(f"{field} = ?" for field in values)
                conn.execute(
                    f"UPDATE triples SET {assignments} WHERE id = ?",
                    [*values.values(), triple_id],
                )
        return self.get_fact(triple_id)

    def find_open_fact(self, subject: str, predicate: str, obj: str) -> dict | None:
        """The open fact (subject, predicate, object), the one ``add_triple`` would return."""
        if not all(isinstance(v, str) for v in (subject, predicate, obj)):
            return None
        with self._lock:
            rows = self._open_ids(
                self._db(), entity_id(subject), predicate_id(predicate), entity_id(obj)
            )
        return self.get_fact(rows[0][0]) if rows else None

    def add_fact(self, subject: str, predicate: str, obj: str, **fields) -> str:
        """``add_triple`` for a person at the keyboard: names resolve to existing entities (also
        by display name), and an identical open fact is refused, not silently returned."""
        check_name(subject, "subject")
        check_name(obj, "object")
        check_name(predicate, "predicate")
        with self.transaction() as conn:
            subject = self._find_entity_id(conn, subject) or subject
            obj = self._find_entity_id(conn, obj) or obj
            twin = self._open_ids(conn, entity_id(subject), predicate_id(predicate), entity_id(obj))
            if twin:
                fact = self.get_fact(twin[0][0])
                raise DuplicateFact(
                    f"{describe(fact)} is already an open fact (since "
                    f"{fact['valid_from'] or 'an unknown date'}); end it or edit it instead",
                    fact["id"],
                )
            return self.add_triple(subject, predicate, obj, **fields)

    def supersede_fact(
        self,
        triple_id: str,
        new_object: str,
        at: str | None = None,
        confidence: float = 1.0,
        source_closet: str | None = None,
        source_file: str | None = None,
        source_drawer_id: str | None = None,
        adapter_name: str | None = None,
    ) -> str:
        """``supersede`` addressed by the fact's id: end it at ``at`` and open its successor with
        ``new_object`` at the same instant, in one write. Returns the successor's id."""
        fact = self.get_fact(triple_id)
        described = describe(fact)
        if fact["valid_to"] is not None:
            raise KnowledgeGraphError(f"{described} already ended on {fact['valid_to']}")
        check_name(new_object, "new object")
        at = temporal.boundary(at)
        temporal.check_interval(fact["valid_from"], at, to_field="at")
        confidence = _confidence(confidence)
        prov = (source_closet, source_file, source_drawer_id, adapter_name)
        with self.transaction() as conn:
            new_id = self._entity_for(conn, new_object)
            if new_id == fact["object"]:
                raise KnowledgeGraphError(f"{described} already has {new_object!r} as its object")
            self._set_valid_to(conn, triple_id, at)
            return self._open_successor(
                conn, fact["subject"], fact["predicate"], new_id, at, confidence, prov
            )

    def end_fact(self, triple_id: str, ended: str | None = None) -> dict:
        """End one open fact at ``ended`` (default today), as ``invalidate`` does by triple."""
        fact = self.get_fact(triple_id)
        if fact["valid_to"] is not None:
            raise KnowledgeGraphError(
                f"the fact {describe(fact)} already ended on {fact['valid_to']}"
            )
        ended = temporal.parse(ended, "ended") or temporal.today()
        temporal.check_interval(fact["valid_from"], ended, to_field="ended")
        with self.transaction() as conn:
            self._set_valid_to(conn, triple_id, ended)
        return self.get_fact(triple_id)

    def delete_fact(self, triple_id: str) -> dict:
        """Remove one fact (for mistakes; a fact that stopped being true is ended instead)."""
        fact = self.get_fact(triple_id)
        with self.transaction() as conn:
            self._touch(conn, "triples", triple_id)
            conn.execute("DELETE FROM triples WHERE id = ?", (triple_id,))
        return fact

    # ── For the chart (beyond MemPalace) ──────────────────────────────────

    def _resolve_id(self, name: str) -> str:
        """The id a name (or an id, or a display name) stands for; MemPalace's rule otherwise."""
        with self._lock:
            return self._find_entity_id(self._db(), name) or entity_id(name)

    def intervals(self, name: str, start: str | None = None, end: str | None = None) -> list:
        """Every fact of the entity, both directions, meeting ``[start, end)`` if given.

        Each row has the fact's columns, ``direction``, ``other`` / ``other_name`` (the entity at
        the other end), and ``start`` / ``end`` in POSIX seconds (None for an unknown start or
        an open end), the end being the end key of ``valid_to``.
        """
        start = temporal.parse(start, "start")
        end = temporal.parse(end, "end")
        eid = self._resolve_id(name)
        with self._lock:
            conn = self._db()
            where = ""
            params: list = []
            if start is not None or end is not None:
                end_key = temporal.start_key(end)
                start_key = temporal.start_key(start)
                where = " AND " + temporal.sql_overlaps("t")
                params = [end_key, end_key, start_key, start_key]
            rows = conn.execute(
                f"SELECT {_FACT_COLUMNS} {_FACT_JOIN} WHERE t.subject = ?{where} "
                f"UNION ALL SELECT {_FACT_COLUMNS} {_FACT_JOIN} "
                f"WHERE t.object = ? AND t.subject != ?{where}",
                [eid, *params, eid, eid, *params],
            ).fetchall()
        facts = [_fact_dict(row) for row in rows]
        for fact in facts:
            outgoing = fact["subject"] == eid
            fact["direction"] = "outgoing" if outgoing else "incoming"
            fact["other"] = fact["object"] if outgoing else fact["subject"]
            fact["other_name"] = fact["object_name"] if outgoing else fact["subject_name"]
        return facts

    def time_span(self) -> tuple[str, str] | None:
        """The earliest and latest comparison keys of any dated fact, or None if none is dated.

        Read off the ends of the valid_from and valid_to indexes, not by scanning: for starts
        the text order is the key order; for ends only the day of the extreme value can hold a
        date whose key (its last second) beats an instant, or the other way round.
        """
        with self._lock, self._snapshot():
            conn = self._db()
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
    def _extreme(conn, column: str, order: str, within_day: str | None = None) -> str | None:
        """The first well-formed value of ``column`` in index order (an instant of a day)."""
        where = f"{column} >= '0'"
        params: list = []
        if within_day is not None:
            where = f"{column} > ? AND {column} < ?"
            params = [within_day, within_day + "U"]
        row = conn.execute(
            f"SELECT {column} FROM triples WHERE {where} AND {temporal.sql_well_formed(column)} "
            f"ORDER BY {column} {order} LIMIT 1",
            params,
        ).fetchone()
        return row[0] if row else None

    # ── Contradictions (contract section 6) ───────────────────────────────

    def single_valued_predicates(self) -> list[str]:
        """Predicates the user marked as allowing one object per subject at a time."""
        with self._lock:
            row = (
                self._db()
                .execute("SELECT value FROM fl_meta WHERE key = 'single_valued_predicates'")
                .fetchone()
            )
        return sorted(json.loads(row[0])) if row and row[0] else []

    def set_single_valued(self, predicate: str, single: bool = True) -> None:
        check_name(predicate, "predicate")
        marked = set(self.single_valued_predicates())
        pred = predicate_id(predicate)
        marked = marked | {pred} if single else marked - {pred}
        with self.transaction() as conn:
            self._touch(conn, "fl_meta", "single_valued_predicates")
            conn.execute(
                "INSERT OR REPLACE INTO fl_meta (key, value) "
                "VALUES ('single_valued_predicates', ?)",
                (json.dumps(sorted(marked)),),
            )

    def conflicts(self, name: str | None = None) -> list[dict]:
        """Overlapping facts of single-valued predicates (see :mod:`factlines.core.analysis`).

        With ``name``, the conflicts that involve one of that entity's facts, in either
        direction (Kai's view shows "Atlas led_by Kai" clashing with "Atlas led_by Rosa").
        """
        marked = self.single_valued_predicates()
        if not marked:
            return []
        in_marked = f"predicate IN ({', '.join('?' * len(marked))})"
        sql = (
            "SELECT id, subject, predicate, object, valid_from, valid_to FROM triples "
            f"WHERE {in_marked}"
        )
        params: list = list(marked)
        eid = None
        if name is not None:
            eid = self._resolve_id(name)
            sql += (
                f" AND subject IN (SELECT ? UNION SELECT subject FROM triples "
                f"WHERE object = ? AND {in_marked})"
            )
            params += [eid, eid, *marked]
        with self._lock:
            rows = self._db().execute(sql, params).fetchall()
        keys = ("id", "subject", "predicate", "object", "valid_from", "valid_to")
        facts = [dict(zip(keys, row)) for row in rows]
        found = find_conflicts(facts, marked)
        if eid is None:
            return found
        mine = {f["id"] for f in facts if eid in (f["subject"], f["object"])}
        return [c for c in found if c["a"] in mine or c["b"] in mine]


def open_graph(location: str | os.PathLike, *, create: bool = True) -> KnowledgeGraph:
    """Open the knowledge graph at ``location`` (a file path) behind the store's façade.

    With ``create=False`` a location where no graph exists yet is refused instead of created.
    """
    path = Path(location).expanduser()
    if not create and not path.exists():
        raise KnowledgeGraphError(f"{path} does not exist")
    if path.exists() and not path.is_file():
        raise NotAKnowledgeGraph(f"{path} is not a file")
    return KnowledgeGraph(path)


def _write_refused(path: str, exc: sqlite3.Error) -> KnowledgeGraphError:
    """A write SQLite would not do (locked by another program, read-only, disk full)."""
    return KnowledgeGraphError(f"{path} could not be written ({exc}); nothing was written")


def _rows_for_ids(conn, select_where_in: str, ids: list[str]) -> list[tuple]:
    """Run ``select_where_in (?, ?, ...)`` over ``ids`` in chunks SQLite accepts."""
    rows: list[tuple] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows += conn.execute(f"{select_where_in} ({', '.join('?' * len(chunk))})", chunk)
    return rows


def _without_rowid(image: dict | None) -> dict | None:
    if image is None:
        return None
    return {k: v for k, v in image.items() if k != "_rowid"}


def _confidence(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise KnowledgeGraphError(
                f"confidence={value!r} is not a number between 0 and 1"
            ) from None
    if not 0.0 <= float(value) <= 1.0:
        raise KnowledgeGraphError(f"confidence={value!r} is not between 0 and 1")
    return float(value)


def _properties_json(properties) -> str:
    if properties is None:
        return "{}"
    if not isinstance(properties, dict):
        raise KnowledgeGraphError(f"properties must be a mapping, not {type(properties).__name__}")
    try:
        return json.dumps(properties)
    except (TypeError, ValueError) as exc:
        raise KnowledgeGraphError(f"properties cannot be stored as JSON: {exc}") from None


__all__ = [
    "DEFAULT_KG_PATH",
    "Change",
    "ConflictError",
    "DuplicateFact",
    "FactNotFound",
    "KnowledgeGraph",
    "KnowledgeGraphError",
    "NotAKnowledgeGraph",
    "TimeValueError",
    "open_graph",
]
