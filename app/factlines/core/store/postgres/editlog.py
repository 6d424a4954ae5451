"""Factlines' own edit log in PostgreSQL: ``fl_edit_log``, as the SQLite engine keeps it
(:mod:`factlines.core.store.sqlite.editlog`: the same columns and entries, written in the
edit's own transaction, created by the first logged edit, kept within its share of the graph),
plus ``who``: the PostgreSQL role that made the edit, so a team sees who ended a fact."""

from __future__ import annotations

from typing import Any

from factlines.core.store.sqlite.editlog import (
    LOGGED_COLUMNS,
    SHARE,
    TABLE,
    EditLogWrites,
    dumps,
    entry_dict,
)

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} ("
    "id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at TEXT NOT NULL, what TEXT NOT NULL, "
    "reason TEXT, tool TEXT NOT NULL DEFAULT 'factlines', facts TEXT NOT NULL, "
    "entities TEXT NOT NULL, rows_total INTEGER NOT NULL, before TEXT NOT NULL, "
    "after TEXT NOT NULL, who TEXT)"
)
_LENGTH = (
    "octet_length(what) + octet_length(facts) + octet_length(entities) + octet_length(before) "
    "+ octet_length(after) + COALESCE(octet_length(reason), 0)"
)
_SELECT = f"SELECT id, {', '.join(LOGGED_COLUMNS)}, who FROM {TABLE}"


class PGEditLog(EditLogWrites):
    # Made only where it is missing: CREATE ... IF NOT EXISTS needs the CREATE right on the
    # schema even when the table is there, and a colleague's role may lack it.
    CREATE = f"DO $$ BEGIN IF to_regclass('{TABLE}') IS NULL THEN {_CREATE}; END IF; END $$"
    INSERT = (
        f"INSERT INTO {TABLE} ({', '.join(LOGGED_COLUMNS)}, who) "
        f"VALUES ({', '.join(['%s'] * len(LOGGED_COLUMNS))}, current_user)"
    )
    LENGTH = _LENGTH

    def _size_and_budget(self, conn: Any) -> tuple[int, int]:
        graph, size = conn.execute(
            "SELECT pg_total_relation_size('triples') + pg_total_relation_size('entities'), "
            f"(SELECT COALESCE(SUM({_LENGTH}), 0) FROM {TABLE})"
        ).fetchone()
        return size, int(SHARE * graph)

    def read(self, fact_id: str | None, limit: int, offset: int) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            if conn.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()[0] is None:
                return []
            where, params = "", []
            if fact_id is not None:
                where, params = " WHERE strpos(facts, %s) > 0", [dumps(fact_id)]
            rows = conn.execute(
                f"{_SELECT}{where} ORDER BY id DESC LIMIT %s OFFSET %s", [*params, limit, offset]
            ).fetchall()
        return [{**entry_dict(row[:-1]), "who": row[-1]} for row in rows]
