"""Factlines' KnowledgeGraph in MemPalace's place.

What MemPalace's own code and tests reach for beyond its methods: ``kg._conn()``,
``kg._connection``, ``kg._lock`` and ``db_path``, and being used from several threads at once;
compared with the real MemPalace 3.11 on the same file where that can be done.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from factlines import KnowledgeGraph
from factlines.core.store import Touched
from store_helpers import mempalace_class

# MemPalace's own code on the SQLite connection (kg._conn()); across PostgreSQL clients
# see test_store_postgres_clients.py.
pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def mempalace(kg):
    """MemPalace's own class on the file ``kg`` has open."""
    other = mempalace_class()(kg.db_path)
    yield other
    other.close()


# ── kg._conn() and kg._connection ─────────────────────────────────────────


def test_mempalace_s_normalize_reads_our_graph_through_the_connection(kg, mempalace):
    from mempalace.kg_normalize import DEFAULT_VOCABULARY, off_vocabulary_facts

    kg.add_triple("Weatherstation", "deployed_commit", "fc81c6f6", valid_from="2026-01-01")
    kg.add_triple("Ann", "works_on", "Orion", valid_from="2025-01-01")
    kg.add_triple("Ann", "liked", "Tea", valid_from="2024-01-01", valid_to="2024-06-01")

    ours = off_vocabulary_facts(kg, DEFAULT_VOCABULARY)

    assert ours == off_vocabulary_facts(mempalace, DEFAULT_VOCABULARY)
    assert [(f["subject"], f["predicate"]) for f in ours] == [("Weatherstation", "deployed_commit")]


def test_the_connection_reads_rows_by_name_and_by_position(kg):
    kg.add_entity("Ann", "person")
    conn = kg._conn()
    row = conn.execute("SELECT id, type FROM entities").fetchone()
    assert (row["id"], row["type"]) == (row[0], row[1]) == ("ann", "person")
    assert kg._connection is conn
    assert kg.query_entity("Ann") == []  # the store's own reads are not disturbed


def test_closing_the_graph_ends_the_connection_it_handed_out(kg_path):
    for close in (KnowledgeGraph.close, lambda g: g.__exit__(None, None, None)):
        kg = KnowledgeGraph(kg_path)
        conn = kg._conn()
        close(kg)
        assert kg._connection is None
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")


def test_closing_the_handed_out_connection_closes_the_graph(kg):
    kg._conn().close()
    assert kg.closed and kg._connection is None
    kg.close()  # and closing the graph again is harmless


def test_with_the_connection_is_one_write(kg):
    reports: list[Touched] = []
    kg.add_listener(reports.append)
    insert = "INSERT INTO entities (id, name) VALUES (?, ?)"
    with pytest.raises(RuntimeError), kg._conn() as conn:
        conn.execute(insert, ("ann", "Ann"))
        raise RuntimeError("stop")
    assert kg.get_entity("ann") is None
    assert reports == []

    with kg._conn() as conn:
        conn.execute(insert, ("ann", "Ann"))
        conn.commit()  # inside the write: left to the write's end
        conn.execute(insert, ("bob", "Bob"))
    assert kg.get_entity("ann") and kg.get_entity("bob")
    assert reports == [Touched.all_rows()]  # which rows, the store cannot know


def test_raw_sql_inside_the_store_s_write_joins_it(kg):
    with pytest.raises(RuntimeError), kg.transaction():
        kg.add_triple("Ann", "knows", "Bob")
        kg._conn().execute("UPDATE entities SET type = 'person'")
        raise RuntimeError("stop")
    assert kg.stats()["entities"] == 0


def test_a_raw_write_outside_a_write_is_reported_and_seen_by_search(kg):
    kg.add_entity("Ann")
    assert [e["id"] for e in kg.list_entities("Ann")] == ["ann"]
    reports: list[Touched] = []
    kg.add_listener(reports.append)
    kg._conn().execute("INSERT INTO entities (id, name) VALUES ('annika', 'Annika')")
    assert reports == [Touched.all_rows()]
    assert sorted(e["id"] for e in kg.list_entities("Ann")) == ["ann", "annika"]


def test_a_half_read_result_does_not_make_the_next_write_fail_at_once(kg):
    for n in range(3):
        kg.add_entity(f"E{n}")
    rows = kg._conn().execute("SELECT id FROM entities")  # read one row of three, then stop
    assert rows.fetchone()[0]
    other = sqlite3.connect(kg.db_path, timeout=0, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    threading.Timer(0.3, other.rollback).start()
    kg.add_entity("Ann")  # waits for the other program instead of failing as "locked"
    assert kg.get_entity("ann")
    assert len(rows.fetchall()) == 2
    other.close()


# ── kg._lock and threads ──────────────────────────────────────────────────


def test_the_lock_keeps_other_threads_out_until_released(kg):
    done = threading.Event()

    def write():
        kg.add_triple("Ann", "knows", "Bob")
        done.set()

    with kg._lock:
        with kg._lock:  # re-entrant: MemPalace-style code may hold it around our calls
            kg.stats()
        worker = threading.Thread(target=write)
        worker.start()
        assert not done.wait(0.3)
    assert done.wait(5)
    worker.join()


def test_close_waits_for_a_call_in_progress(kg):
    closed = threading.Event()
    with kg._lock:
        closer = threading.Thread(target=lambda: (kg.close(), closed.set()))
        closer.start()
        assert not closed.wait(0.3)
        assert kg.stats()["triples"] == 0  # still open while the caller holds the lock
    assert closed.wait(5)
    closer.join()
    assert kg.closed


def test_many_threads_at_once_on_one_graph_and_on_two(kg, kg_path):
    second = KnowledgeGraph(kg_path)
    errors: list[BaseException] = []

    def work(graph, n):
        try:
            for i in range(20):
                graph.add_triple(f"T{n}", "knows", f"P{i}", valid_from="2026-01-01")
                graph.query_entity(f"T{n}", as_of="2026-02-01")
                graph.stats()
                graph.timeline(f"P{i}", limit=5)
                graph._conn().execute("SELECT COUNT(*) FROM triples").fetchone()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(kg if n % 2 else second, n)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    second.close()
    assert errors == []
    assert kg.stats()["triples"] == 160
    assert all(len(kg.query_entity(f"T{n}")) == 20 for n in range(8))


def test_db_path_is_the_file_s_path(kg_path):
    with KnowledgeGraph(kg_path) as kg:
        assert kg.db_path == str(kg_path)


# ── rewrite: MemPalace's own behaviour, side by side ──────────────────────


def _graphs(tmp_path):
    """(ours, MemPalace's) on two fresh files."""
    return KnowledgeGraph(tmp_path / "ours.sqlite3"), mempalace_class()(str(tmp_path / "mp.db"))


def _facts(kg) -> list[dict]:
    """The triples table as stored, ids and clock columns left out, in a stable order."""
    rows = kg._conn().execute(
        "SELECT subject, predicate, object, valid_from, valid_to, confidence, source_closet, "
        "source_file, source_drawer_id, adapter_name FROM triples"
    )
    return sorted((dict(row) for row in rows.fetchall()), key=repr)


def _both(tmp_path, scenario):
    """Run ``scenario(kg)`` on ours and on MemPalace's; return both observations."""
    seen = []
    for kg in _graphs(tmp_path):
        try:
            seen.append((scenario(kg), _facts(kg), kg.stats()["entities"]))
        finally:
            kg.close()
    return seen


def _outcome(call):
    try:
        result = call()
    except ValueError as exc:
        return ("refused", "before valid_from" in str(exc))
    if result is None:
        return None
    return result.rsplit("_", 1)[0]  # the id without its random part


REWRITES = {
    "reworded": lambda kg: _outcome(
        lambda: kg.rewrite(
            kg.add_triple(
                "Weatherstation",
                "deployed_commit",
                "fc81c6f6",
                valid_from="2026-01-01",
                confidence=0.7,
                source_closet="c1",
                source_drawer_id="d1",
                adapter_name="miner",
            ),
            "Status",
            "deployed commit fc81c6f6",
            at="2026-03-01",
        )
    ),
    "source_file only fills a gap": lambda kg: [
        _outcome(lambda: kg.rewrite(kg.add_triple("A", "p", "B"), "q", "C", source_file="norm")),
        _outcome(
            lambda: kg.rewrite(
                kg.add_triple("A", "p", "D", source_file="mine.md"), "q", "E", source_file="norm"
            )
        ),
    ],
    "closed or unknown: nothing written": lambda kg: [
        _outcome(lambda: kg.rewrite("t_nobody_p_x_000000000000", "q", "Fresh")),
        _outcome(
            lambda: kg.rewrite(
                kg.add_triple("A", "p", "B", valid_from="2025-01-01", valid_to="2025-06-01"),
                "q",
                "Fresh",
            )
        ),
    ],
    "boundary before the start": lambda kg: _outcome(
        lambda: kg.rewrite(
            kg.add_triple("A", "p", "B", valid_from="2026-06-01"), "q", "C", at="2026-05-31"
        )
    ),
    "an open successor from the same evidence is reused": lambda kg: [
        kg.add_triple("A", "status", "Up", valid_from="2026-01-01", source_drawer_id="d"),
        _outcome(
            lambda: kg.rewrite(
                kg.add_triple("A", "was_up", "Yes", source_drawer_id="d"),
                "status",
                "Up",
                at="2026-02-01",
            )
        ),
    ][1],
    "other evidence or a later start is not reused": lambda kg: [
        kg.add_triple("A", "status", "Up", source_drawer_id="other"),
        kg.add_triple("A", "status", "Down", valid_from="2027-01-01"),
        _outcome(
            lambda: kg.rewrite(kg.add_triple("A", "was", "Up"), "status", "Up", at="2026-02-01")
        ),
        _outcome(
            lambda: kg.rewrite(kg.add_triple("A", "was", "Down"), "status", "Down", at="2026-02-01")
        ),
    ][2:],
    "the same wording again opens a new row": lambda kg: _outcome(
        lambda: kg.rewrite(
            kg.add_triple("A", "p", "B", valid_from="2026-01-01"),
            "P",
            "b",
            at="2026-02-01T10:00:00+00:00",
        )
    ),
}


@pytest.mark.parametrize("scenario", list(REWRITES.values()), ids=list(REWRITES))
def test_rewrite_does_what_mempalace_does(tmp_path, scenario):
    ours, theirs = _both(tmp_path, scenario)
    assert ours == theirs


def test_rewrite_hands_over_at_one_instant(kg):
    old = kg.add_triple("Bot", "uses", "Model A", valid_from="2026-01-01")
    new = kg.rewrite(old, "runs_on", "Model A v2", at="2026-06-02")
    assert kg.get_fact(old)["valid_to"] == kg.get_fact(new)["valid_from"] == "2026-06-02T00:00:00Z"
    before = kg.query_entity("Bot", as_of="2026-06-01T23:59:59Z")
    after = kg.query_entity("Bot", as_of="2026-06-02T00:00:00Z")
    assert [(f["predicate"], f["object"]) for f in before] == [("uses", "Model A")]
    assert [(f["predicate"], f["object"]) for f in after] == [("runs_on", "Model A v2")]


def test_rewrite_refuses_a_bad_instant_before_looking_at_the_fact(kg):
    for at in ("2026-02-30", "yesterday", "2026-01-01T10:00:00-05:00"):
        with pytest.raises(ValueError):
            kg.rewrite("t_no_such_fact", "p", "x", at=at)
    assert kg.stats()["entities"] == 0


def test_rewrite_is_one_step_to_undo(kg):
    old = kg.add_triple("A", "p", "B", valid_from="2026-01-01")
    before = _facts(kg)
    with kg.recording() as change:
        kg.rewrite(old, "q", "C", at="2026-02-01")
    kg.revert(change)
    assert _facts(kg) == before and kg.get_entity("c") is None


def test_mempalace_s_normalize_applies_its_plan_to_our_graph(tmp_path):
    from mempalace.kg_normalize import apply_normalize, off_vocabulary_facts

    seen = []
    for kg in _graphs(tmp_path):
        kg.add_triple("Weatherstation", "deployed_commit", "fc81c6f6", valid_from="2026-01-01")
        kg.add_triple("Ann", "works_on", "Orion")
        facts = off_vocabulary_facts(kg, ["works_on", "status"])
        plan = {
            "facts": [
                {
                    "id": f["id"],
                    "subject": f["subject"],
                    "old_predicate": f["predicate"],
                    "old_object": f["object"],
                    "predicate": "status",
                    "object": f"deployed commit {f['object']}",
                }
                for f in facts
            ]
        }
        first = apply_normalize(kg, plan, at="2026-03-01T00:00:00Z")
        again = apply_normalize(kg, plan, at="2026-03-02T00:00:00Z")  # the plan is stale now
        seen.append((first, again, _facts(kg)))
        kg.close()
    ours, theirs = seen
    assert ours == theirs
    assert ours[0]["applied"] == 1 and ours[1]["stale"] == 1


# ── dump_rows / apply_row: MemPalace's replication ────────────────────────


def _filled(kg):
    kg.add_entity("Ann", "person", {"age": 30})
    kg.add_triple("Ann", "works_on", "Orion", valid_from="2025-01-01", source_drawer_id="d1")
    kg.add_triple("Ann", "knows", "Bob", valid_from="2024-01-01", valid_to="2024-06-01")
    kg.add_triple("Bob", "lives_in", "Paris", confidence=0.5, adapter_name="miner")
    kg.add_entity("Ann", "engineer")  # replaced: its row moves to the end of the rowid order
    return kg


def test_dump_rows_reads_the_same_file_as_mempalace_does(kg, mempalace):
    _filled(mempalace)
    mempalace._conn().execute("UPDATE triples SET confidence = 'high' WHERE predicate = 'knows'")
    mempalace._conn().commit()
    for table in ("entities", "triples"):
        for after, limit in ((0, 500), (0, 2), (2, 2), ("3", 1), (0, 0), (0, -5), (99, 10)):
            assert kg.dump_rows(table, after, limit) == mempalace.dump_rows(table, after, limit)
    rows = kg.dump_rows("triples")
    assert [row["_rowid"] for row in rows] == [row["rowid"] for row in rows] == [1, 2, 3]
    assert rows[1]["confidence"] == "high"  # verbatim, whatever is stored


def test_dump_rows_pages_through_everything_at_most_a_thousand_at_a_time(kg):
    with kg.transaction():
        kg._conn().executemany(
            "INSERT INTO entities (id, name) VALUES (?, ?)",
            [(f"e{n}", f"E{n}") for n in range(1005)],
        )
    first = kg.dump_rows("entities", limit=5000)
    rest = kg.dump_rows("entities", after_rowid=first[-1]["_rowid"], limit=5000)
    assert (len(first), len(rest)) == (1000, 5)
    assert {row["id"] for row in first + rest} == {f"e{n}" for n in range(1005)}


def test_only_mempalace_s_two_tables_replicate(kg, mempalace):
    refused = r"table must be one of \['entities', 'triples'\]"
    for table in ("fl_meta", "sqlite_master", "triples; DROP TABLE triples"):
        for graph in (kg, mempalace):
            with pytest.raises(ValueError, match=refused):
                graph.dump_rows(table)
            with pytest.raises(ValueError, match=refused):
                graph.apply_row(table, {"id": "x"})


def test_a_replica_built_with_apply_row_matches_mempalace_s_file(tmp_path, mempalace):
    _filled(mempalace)
    mempalace.invalidate("Bob", "lives_in", "Paris", ended="2026-01-01")
    with KnowledgeGraph(tmp_path / "replica.sqlite3") as replica:
        for table in ("entities", "triples"):
            after = 0
            while page := mempalace.dump_rows(table, after, limit=2):
                for row in page:
                    replica.apply_row(table, row)
                after = page[-1]["_rowid"]
            assert _without_rowids(replica.dump_rows(table)) == _without_rowids(
                mempalace.dump_rows(table)
            )


def _without_rowids(rows):
    return sorted(
        ({k: v for k, v in r.items() if k not in ("rowid", "_rowid")} for r in rows), key=repr
    )


def test_apply_row_folds_rows_in_as_mempalace_does(tmp_path):
    rows = [
        ("entities", {"id": "ann", "name": "Ann", "type": "person", "extra": "ignored"}),
        ("triples", {"id": "t1", "subject": "ann", "predicate": "knows", "object": "zed"}),
        ("triples", {"id": "t1", "subject": "ann", "predicate": "knows", "object": "zed",
                     "valid_to": "2026-01-01", "confidence": 0.4}),
        ("entities", {"id": "ann", "name": "Ann B."}),
    ]  # fmt: skip
    seen = []
    for kg in _graphs(tmp_path):
        for table, row in rows:
            kg.apply_row(table, row)
        seen.append({t: kg.dump_rows(t) for t in ("entities", "triples")})
        kg.close()
    ours, theirs = seen
    assert ours == theirs
    assert ours["entities"][0]["type"] is None  # a column the row lacks is stored empty
    assert ours["triples"][0]["valid_to"] == "2026-01-01"


def test_apply_row_refuses_a_row_it_cannot_store_and_writes_nothing(kg, mempalace):
    for graph in (kg, mempalace):
        with pytest.raises(ValueError, match="replicated row is missing 'id'"):
            graph.apply_row("triples", {"id": "", "subject": "a"})
    # MemPalace lets SQLite refuse this one (sqlite3.IntegrityError); ours says so in words
    with pytest.raises(ValueError, match="no name"):
        kg.apply_row("entities", {"id": "ann"})
    with pytest.raises(ValueError, match="no subject, object"):
        kg.apply_row("triples", {"id": "t1", "predicate": "p"})
    assert kg.dump_rows("entities") == kg.dump_rows("triples") == []


def test_apply_row_is_one_undoable_write_that_listeners_hear(kg):
    kg.add_triple("Ann", "knows", "Bob")
    row = kg.dump_rows("triples")[0]
    reports: list[Touched] = []
    kg.add_listener(reports.append)
    with kg.recording() as change:
        kg.apply_row("triples", {**row, "valid_to": "2026-01-01"})
    assert reports == [Touched(facts={row["id"]})]
    kg.revert(change)
    assert kg.dump_rows("triples") == [row]  # back where it was, at its old position


# ── Newer than 3.11: what MemPalace's current KG tests also call ──────────


def test_open_facts_with_the_drawer_they_came_from(kg):
    kg.add_triple("Amber", "lives_at", "Villa", source_drawer_id="dr1")
    kg.add_triple("Jon", "owned", "Villa", source_drawer_id="dr2", valid_to="2025-01-01")
    kg.add_triple("Ghost", "haunts", "Villa")
    kg.add_triple("Echo", "haunts", "Villa", source_drawer_id="")
    assert kg.current_triples_with_source() == [("Amber", "Villa", "dr1")]
