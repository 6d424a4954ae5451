"""The store's contract tests run against both engines: ``kg`` is a new empty graph on SQLite
(id ``sqlite``) and on PostgreSQL (id ``postgres``, a fresh database per test).

A test that reaches past the store to the file (it asks for ``kg_path``: raw SQLite, locks,
WAL, footprint, backups) or is marked ``sqlite_only`` runs on SQLite alone. Without a
PostgreSQL server the ``postgres`` tests are skipped, saying why (in CI they fail).
"""

from __future__ import annotations

import pytest

import postgres_server
from factlines import KnowledgeGraph


def pytest_generate_tests(metafunc):
    if "engine" not in metafunc.fixturenames:
        return
    file_bound = "kg_path" in metafunc.fixturenames or metafunc.definition.get_closest_marker(
        "sqlite_only"
    )
    metafunc.parametrize("engine", ["sqlite"] if file_bound else ["sqlite", "postgres"])


@pytest.fixture
def graph_url(engine, request, tmp_path):
    """Where a new empty graph of ``engine`` is: a file path, or a PostgreSQL URL."""
    if engine == "sqlite":
        yield str(tmp_path / "knowledge_graph.sqlite3")
        return
    with postgres_server.fresh_database(request.getfixturevalue("postgres_admin")) as url:
        yield url


@pytest.fixture
def kg(graph_url):
    graph = KnowledgeGraph(graph_url)
    yield graph
    graph.close()
