"""Several clients on one PostgreSQL graph: writes take turns with the same refusals, undo
never overwrites a colleague's later change, each client hears the others' writes, a lost
connection is Unavailable and then comes back, and the edit log says who; and what a
PostgreSQL database is to the store: read-only, another application's, an older graph."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from factlines import KnowledgeGraph
from factlines.core.errors import ConflictError, NotAKnowledgeGraph, ReadOnlyGraph, Unavailable
from store_helpers import dump

# Without the PostgreSQL driver (factlines[postgres]) there is nothing to test here.
psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def clients(postgres_url):
    first, second = KnowledgeGraph(postgres_url), KnowledgeGraph(postgres_url)
    yield first, second
    first.close()
    second.close()


def _heard(kg, seconds: float = 1.0):
    """What ``kg`` hears of other clients' writes within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        touched = kg.external_changes()
        if touched or time.monotonic() > deadline:
            return touched
        time.sleep(0.02)


def test_postgres_an_undo_never_overwrites_a_colleague_s_later_edit(clients, postgres_url):
    ann, bob = clients
    tid = ann.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    with ann.recording() as change:
        ann.end_fact(tid, "2026-01-01")
    bob.update_fact(tid, valid_to="2026-02-01")
    before = dump(postgres_url)
    with pytest.raises(ConflictError, match="changed by another program"):
        ann.revert(change)
    assert dump(postgres_url) == before
    assert bob.get_fact(tid)["valid_to"] == "2026-02-01"


def test_postgres_an_undo_refuses_to_reopen_a_fact_a_colleague_opened_again(clients):
    ann, bob = clients
    tid = ann.add_triple("Kai", "works_on", "Orion")
    with ann.recording() as change:
        ann.end_fact(tid, "2026-01-01")
    bob.add_triple("Kai", "works_on", "Orion")
    with pytest.raises(ConflictError, match="already an open fact"):
        ann.revert(change)
    assert len(ann.query_entity("Kai")) == 2


def test_postgres_another_client_s_write_is_heard_by_id_within_a_second(clients):
    ann, bob = clients
    assert not ann.external_changes()
    tid = bob.add_triple("Kai", "works_on", "Orion")
    touched = _heard(ann)
    assert tid in touched.facts and {"kai", "orion"} <= touched.entities
    assert not ann.external_changes()  # heard once
    ann.add_triple("Ann", "knows", "Kai")
    assert not _heard(ann, 0.3)  # its own writes are not "external"
    assert ann.query_entity("Kai")[0]["object"] == "Orion"


def test_postgres_writes_take_turns_and_a_waiting_one_gives_up_in_words(clients):
    ann, bob = clients
    bob.write_wait = 0.2  # an app edit's patience; MemPalace's add_triple would wait 10 s
    with ann.transaction():
        ann.add_triple("Kai", "works_on", "Orion")
        with pytest.raises(Unavailable, match="locked by another client"):
            bob.add_fact("Kai", "works_on", "Nova")
    bob.add_triple("Kai", "works_on", "Nova")
    assert sorted(f["object"] for f in bob.query_entity("Kai")) == ["Nova", "Orion"]


def test_postgres_two_clients_adding_one_fact_at_once_make_it_once(clients):
    barrier = threading.Barrier(2)

    def add(kg):
        barrier.wait()
        kg.add_triple("Kai", "works_on", "Orion")

    threads = [threading.Thread(target=add, args=(kg,)) for kg in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(clients[0].query_entity("Kai")) == 1


def test_postgres_a_lost_connection_is_unavailable_then_comes_back(clients, postgres_admin):
    ann, bob = clients
    bob.add_triple("Kai", "works_on", "Orion")
    with psycopg.connect(postgres_admin, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (ann._store._db.pid,))
    with pytest.raises(Unavailable, match="connection"):
        ann.query_entity("Kai")
    assert ann.query_entity("Kai")[0]["object"] == "Orion"
    assert ann.external_changes().everything  # what was missed meanwhile is not known


def test_postgres_the_edit_log_says_which_role_wrote(clients):
    ann, _ = clients
    with ann.logged("Add Kai works_on Orion"):
        ann.add_triple("Kai", "works_on", "Orion")
    entry = ann.edit_log()[0]
    assert entry["what"] == "Add Kai works_on Orion"
    assert entry["who"] == ann._store.role != ""


def test_postgres_without_the_driver_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(Unavailable, match=r"factlines\[postgres\]"):
        KnowledgeGraph("postgresql://nobody@127.0.0.1:1/none")


def test_postgres_read_only_reads_and_refuses_every_write(postgres_url):
    with KnowledgeGraph(postgres_url) as kg:
        kg.add_triple("Kai", "works_on", "Orion")
    before = dump(postgres_url)
    with KnowledgeGraph(postgres_url, read_only=True) as reader:
        assert reader.read_only and reader.read_only_reason == "opened read-only"
        assert reader.query_entity("Kai")[0]["object"] == "Orion"
        with pytest.raises(ReadOnlyGraph):
            reader.add_triple("Kai", "works_on", "Nova")
    assert dump(postgres_url) == before


def test_postgres_a_role_that_may_not_count_its_writes_opens_read_only(postgres_url):
    with KnowledgeGraph(postgres_url) as kg:
        kg.add_triple("Kai", "works_on", "Orion")
    role = f"clerk_{time.monotonic_ns()}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
        conn.execute(f"GRANT INSERT, UPDATE, DELETE ON triples, entities, fl_meta TO {role}")
    try:
        with KnowledgeGraph(postgres_url.replace("postgres@", f"{role}@", 1)) as clerk:
            assert clerk.read_only
            assert clerk.read_only_reason == (
                "this database role may not update fl_writes (where every write is counted)"
            )
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_postgres_another_application_s_database_is_refused_untouched(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    with pytest.raises(NotAKnowledgeGraph, match="another application"):
        KnowledgeGraph(postgres_url)
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
    assert tables == [("invoices",)]


def test_postgres_a_graph_without_our_indexes_has_them_built_on_request(postgres_url):
    with KnowledgeGraph(postgres_url) as kg:
        kg.add_triple("Kai", "works_on", "Orion")
        ours = [name for kind, name in kg.factlines_objects() if kind == "index"]
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            for name in ours:
                conn.execute(f"DROP INDEX {name}")
        assert sorted(kg.missing_indexes()) == sorted(ours)
        assert sorted(kg.build_indexes()) == sorted(ours)
        assert kg.missing_indexes() == []
        assert kg.query_entity("Kai")[0]["object"] == "Orion"


# ── A role that may not make every write the app needs opens read-only ────

_ROLES = {
    "fl_insert_only": ("GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO fl_insert_only",),
    "fl_no_create": (
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO fl_no_create",
    ),
}


def _role_url(postgres_url: str, role: str) -> str:
    """``postgres_url`` as ``role``: may connect and use the schema, with ``_ROLES``' grants
    (never CREATE on the schema)."""
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        database = admin.execute("SELECT current_database()").fetchone()[0]
        admin.execute(f"DROP ROLE IF EXISTS {role}")
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        admin.execute(f"GRANT CONNECT ON DATABASE {database} TO {role}")
        admin.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
        for grant in _ROLES[role]:
            admin.execute(grant)
    return postgres_url.replace("postgres@", f"{role}@", 1)


@pytest.mark.parametrize(
    ("role", "why"),
    [
        ("fl_insert_only", "this database role may not update or delete in triples"),
        ("fl_no_create", "this database role may not create Factlines' edit log"),
    ],
)
def test_postgres_a_role_that_cannot_make_every_write_opens_read_only_saying_why(
    postgres_url, role, why
):
    with KnowledgeGraph(postgres_url) as kg:  # the owner makes the graph
        kg.add_triple("Kai", "works_on", "Orion")
    before = dump(postgres_url)
    try:
        with KnowledgeGraph(_role_url(postgres_url, role)) as limited:
            assert limited.read_only and why in limited.read_only_reason
            assert limited.query_entity("Kai")[0]["object"] == "Orion"
            with pytest.raises(ReadOnlyGraph, match=why):
                limited.end_fact(limited.query_entity("Kai")[0]["id"])
        assert dump(postgres_url) == before
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")


def test_postgres_a_role_with_every_right_it_needs_writes(postgres_url):
    with KnowledgeGraph(postgres_url) as kg:
        kg.add_triple("Kai", "works_on", "Orion")
        with kg.logged("Add Kai knows Ann"):
            kg.add_triple("Kai", "knows", "Ann")  # the edit log exists: no CREATE needed
    try:
        with KnowledgeGraph(_role_url(postgres_url, "fl_no_create")) as colleague:
            assert not colleague.read_only
            with colleague.logged("Add Kai knows Bo"):
                colleague.add_triple("Kai", "knows", "Bo")
            assert colleague.edit_log()[0]["who"] == "fl_no_create"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("DROP OWNED BY fl_no_create")
            admin.execute("DROP ROLE fl_no_create")
