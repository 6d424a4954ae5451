"""The window on a PostgreSQL graph: the title names the database, no backup file is made,
another client's edit reaches the open window within a second, selection and as_of kept, and
a colleague's write under way or a lost connection is said in words, the undo step kept."""

from __future__ import annotations

import pytest

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import find_fact, messages_of, shown_window, triple_rows

# Without the PostgreSQL driver (factlines[postgres]) there is nothing to test here.
psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def pg_window(qtbot, postgres_url, isolated_settings):
    kg = KnowledgeGraph(postgres_url)
    kg.add_triple("Kai Moreno", "works_on", "Orion", valid_from="2025-01-01")
    kg.add_triple("Kai Moreno", "lives_in", "Lisbon", valid_from="2023-06-01")
    win = shown_window(qtbot, kg, isolated_settings, (1024, 700))
    yield win
    win.close()
    kg.close()


def test_postgres_the_title_names_the_database_and_no_backup_is_made(pg_window, postgres_url):
    database = postgres_url.rsplit("/", 1)[1].split("?")[0]
    assert pg_window.windowTitle().startswith(f"{database} — ")
    # Where the server listens is the URL's to say (a host, or a Unix socket's folder).
    host = psycopg.conninfo.conninfo_to_dict(postgres_url)["host"]
    assert host and host in pg_window.windowTitle()
    assert pg_window.document.kg.on_server and not pg_window.backups.needed()
    speed = pg_window.indexing.action_speed_indexes
    assert not speed.isEnabled() and "PostgreSQL" in speed.toolTip()


def test_postgres_about_names_the_server_s_engine_and_version(pg_window):
    with psycopg.connect(pg_window.document.kg._store.url) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0].split()[0]
    text = pg_window.help_actions.about().label.text()
    assert f"PostgreSQL {version}" in text and "SQLite" not in text.split("</p>")[-2]


def test_postgres_another_client_s_edit_reaches_the_window_keeping_selection_and_as_of(
    pg_window, postgres_url, qtbot
):
    pg_window.select_entity("Kai Moreno")
    pg_window.state.set_as_of("2026-01-01")
    shown = len(triple_rows(pg_window))
    with KnowledgeGraph(postgres_url) as colleague:
        colleague.add_triple("Kai Moreno", "uses", "Emacs", valid_from="2024-01-01")
    # No call of ours: the window's watch hears the change feed by itself. (How soon is
    # bench_heartbeat's to measure; on a loaded machine the reload may take seconds.)
    qtbot.waitUntil(lambda: len(triple_rows(pg_window)) == shown + 1, timeout=10_000)
    assert pg_window.state.entity == "kai_moreno"
    assert pg_window.state.as_of == "2026-01-01"
    assert any("another client" in m for m in pg_window.statusBar().currentMessage().split("\n"))


def test_postgres_a_colleague_s_write_or_a_lost_connection_keeps_the_undo_step(
    pg_window, postgres_url, postgres_admin
):
    kg = pg_window.document.kg
    fact = find_fact(kg, "Kai Moreno", "works_on", "Orion")
    assert pg_window.end_fact(fact["id"], "2026-06-30")
    stack, said = pg_window.undo_stack, messages_of(pg_window)

    with KnowledgeGraph(postgres_url) as colleague, colleague.transaction():
        pg_window.action_undo.trigger()  # waits for the colleague's write, then gives up
    assert said[-1].startswith("Cannot undo “End ") and "locked by another client" in said[-1]
    assert (stack.count(), stack.index()) == (1, 1)

    with psycopg.connect(postgres_admin, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (kg._store._db.pid,))
    pg_window.action_undo.trigger()  # meets the lost connection: said, kept
    assert said[-1].startswith("Cannot undo “End ") and "connection" in said[-1]
    assert (stack.count(), stack.index()) == (1, 1)

    pg_window.action_undo.trigger()  # connected again: done
    assert stack.index() == 0 and kg.get_fact(fact["id"])["valid_to"] is None
