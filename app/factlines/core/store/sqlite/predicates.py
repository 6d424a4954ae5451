"""The graph's predicates in SQLite (:class:`~factlines.core.store.engine_common.PredicateRows`),
in rowid order."""

from __future__ import annotations

from factlines.core.store.engine_common import PredicateRows
from factlines.core.store.sqlite import timesql
from factlines.core.store.sqlite.connection import Connection


class SQLitePredicates(PredicateRows[Connection]):
    _timesql = timesql
    ORDER = "t.rowid"
