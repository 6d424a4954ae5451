"""Read by pyright, never run: each engine's store must be assignable to the store protocol,
so a method missing from an engine, or one whose signature drifted, is a type error
(``test_engines_conform.py`` runs the check)."""

from factlines.core.store.postgres import PostgresStore
from factlines.core.store.protocol import GraphStore
from factlines.core.store.sqlite import SQLiteStore


def sqlite_keeps_the_protocol(store: SQLiteStore) -> GraphStore:
    return store


def postgres_keeps_the_protocol(store: PostgresStore) -> GraphStore:
    return store
