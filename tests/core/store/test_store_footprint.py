"""A light footprint on MemPalace's own file.

Opening changes nothing of MemPalace's but the two columns MemPalace adds itself; our schema
version lives in ``fl_schema``, never in ``PRAGMA user_version``; opening builds no index; the
default indexes are small and built apart from opening; speed indexes are opt-in, priced first.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from factlines import KnowledgeGraph, NotAKnowledgeGraph, open_graph
from factlines.core.store.sqlite.schema import (
    DEFAULT_INDEXES,
    MEMPALACE_SCHEMA,
    SCHEMA_VERSION,
    SPEED_INDEXES,
)
from store_helpers import dump, mempalace_class

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_store import build


def _objects(path) -> dict[str, str | None]:
    with sqlite3.connect(str(path)) as conn:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master"))


def _user_version(path) -> int:
    with sqlite3.connect(str(path)) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def _version(path) -> list[tuple]:
    with sqlite3.connect(str(path)) as conn:
        return conn.execute("SELECT * FROM fl_schema").fetchall()


def _size(path) -> int:
    """Bytes of the database as checkpointed (the -wal folded in)."""
    with sqlite3.connect(str(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return Path(path).stat().st_size


@pytest.fixture
def mempalace_file(tmp_path):
    """A graph written by MemPalace 3.11 itself, never opened by Factlines."""
    path = tmp_path / "knowledge_graph.sqlite3"
    mp = mempalace_class()(str(path))
    mp.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30")
    mp.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01")
    mp.add_triple("Ann", "knows", "Kai", valid_from="2024-03-01T10:00:00Z")
    mp.close()
    return path


# ── Nothing of MemPalace's changes ────────────────────────────────────────


def test_opening_a_mempalace_file_adds_only_our_table(mempalace_file):
    before_objects, before_rows = _objects(mempalace_file), dump(mempalace_file)
    with KnowledgeGraph(mempalace_file) as kg:
        assert len(kg.query_entity("Kai")) == 2
    after = _objects(mempalace_file)
    assert {k: v for k, v in after.items() if k in before_objects} == before_objects
    added = set(after) - set(before_objects)
    assert added == {"fl_meta", "sqlite_autoindex_fl_meta_1", "fl_schema"}
    assert dump(mempalace_file) == before_rows
    assert _user_version(mempalace_file) == 0


def test_our_schema_version_is_in_our_table(kg_path):
    KnowledgeGraph(kg_path).close()
    assert _version(kg_path) == [(SCHEMA_VERSION,)]
    assert _user_version(kg_path) == 0


def test_another_tools_user_version_is_read_and_left_alone(mempalace_file):
    with sqlite3.connect(str(mempalace_file)) as conn:
        conn.execute("PRAGMA user_version = 2")
    with KnowledgeGraph(mempalace_file) as kg:
        assert kg.single_valued_predicates() == []
        kg.set_single_valued("works_on")
        assert kg.single_valued_predicates() == ["works_on"]
        assert kg.conflicts("Kai") == []
    assert _user_version(mempalace_file) == 2
    assert _version(mempalace_file) == [(SCHEMA_VERSION,)]


@pytest.mark.parametrize("read_only", [False, True], ids=["read-write", "read-only"])
def test_a_graph_of_a_newer_factlines_is_refused_untouched(kg_path, read_only):
    with KnowledgeGraph(kg_path) as kg:
        kg.add_triple("a", "p", "b")
    with sqlite3.connect(str(kg_path)) as conn:
        conn.execute("UPDATE fl_schema SET version = 99")
    _size(kg_path)
    before = kg_path.read_bytes()
    with pytest.raises(NotAKnowledgeGraph, match=r"newer Factlines.*99.*left untouched"):
        KnowledgeGraph(kg_path, read_only=read_only)
    assert kg_path.read_bytes() == before


def test_a_graph_of_the_first_releases_is_upgraded_in_place(kg_path):
    """Those kept their version in user_version and built the covering indexes: the version
    moves to fl_schema, user_version stays as it is, the indexes stay (as speed indexes)."""
    with KnowledgeGraph(kg_path) as kg:
        kg.add_triple("a", "p", "b")
        kg.add_speed_indexes()
    with sqlite3.connect(str(kg_path)) as conn:
        conn.execute("DROP TABLE fl_schema")
        conn.execute("PRAGMA user_version = 1")
    with KnowledgeGraph(kg_path) as kg:
        assert kg.speed_indexes() == list(SPEED_INDEXES)
        assert kg.missing_indexes() == []
    assert _version(kg_path) == [(SCHEMA_VERSION,)]
    assert _user_version(kg_path) == 1


# ── Indexes: none built by opening, the default ones apart ────────────────


def test_opening_builds_no_index_and_lists_the_missing_defaults(mempalace_file):
    with KnowledgeGraph(mempalace_file) as kg:
        assert kg.missing_indexes() == list(DEFAULT_INDEXES)
        assert kg.speed_indexes() == []
    ours = {name for name in _objects(mempalace_file) if name.startswith("fl_")}
    assert ours == {"fl_meta", "fl_schema"}


def test_a_new_graph_has_its_default_indexes_from_the_start(kg_path):
    with KnowledgeGraph(kg_path) as kg:
        assert kg.missing_indexes() == []


def test_default_indexes_build_on_a_worker_thread_while_the_graph_is_read(mempalace_file):
    with KnowledgeGraph(mempalace_file) as kg:
        first_page = kg.list_entities()
        seen: list[tuple[int, int, str]] = []
        worker = threading.Thread(target=kg.build_indexes, args=(lambda *a: seen.append(a),))
        worker.start()
        while worker.is_alive():
            assert kg.list_entities() == first_page
        worker.join()
        assert seen == [(0, 2, "fl_entities_name_cover"), (1, 2, "fl_triples_to"), (2, 2, "")]
        assert kg.missing_indexes() == []
        assert kg.list_entities() == first_page
        assert kg.build_indexes() == []  # nothing left to build
    assert "fl_entities_name_cover" in _objects(mempalace_file)


def test_the_default_footprint_is_under_15_percent(tmp_path):
    path = tmp_path / "kg.sqlite3"
    build(path, 3_000, 30_000)
    before = _size(path)
    with KnowledgeGraph(path) as kg:
        kg.build_indexes()
    assert _size(path) <= before * 1.15, (before, _size(path))


# ── Speed indexes: opt-in, priced first, removable, same answers ──────────


def _answers(kg) -> list:
    hub = kg.list_entities(order="current", descending=True, limit=1)[0]["id"]
    return [
        kg.stats(),
        kg.time_span(),
        kg.timeline(limit=50),
        kg.timeline(limit=20, offset=400),
        kg.timeline(hub, limit=20),
        sorted(map(repr, kg.query_entity(hub, direction="both"))),
        sorted(map(repr, kg.query_entity(hub, as_of="2010-06-01", direction="both"))),
        sorted(map(repr, kg.query_relationship("pred_03", as_of="2012-01-01"))),
        kg.list_entities(order="current", descending=True, limit=30),
        kg.list_entities(limit=30, offset=100),
        sorted(map(repr, kg.intervals(hub, "2005-01-01", "2015-01-01"))),
    ]


def test_speed_indexes_are_priced_then_added_and_removed_with_the_same_answers(tmp_path):
    path = tmp_path / "kg.sqlite3"
    build(path, 2_000, 20_000)
    with KnowledgeGraph(path) as kg:
        kg.build_indexes()
        plain = _answers(kg)
        cost_mb = kg.speed_index_cost()
        before = _size(path)
        assert kg.add_speed_indexes() == list(SPEED_INDEXES)
        grown_mb = (_size(path) - before) / 1e6
        assert grown_mb * 0.7 <= cost_mb <= grown_mb * 1.3, (cost_mb, grown_mb)
        assert kg.speed_indexes() == list(SPEED_INDEXES)
        assert kg.speed_index_cost() == 0
        assert _answers(kg) == plain
        assert kg.remove_speed_indexes() == list(SPEED_INDEXES)
        assert kg.speed_indexes() == []
        assert _answers(kg) == plain


# ── Figures kept until the file changes ───────────────────────────────────


def test_kept_stats_and_span_follow_every_kind_of_write(kg, kg_path):
    kg.add_triple("a", "p", "b", valid_from="2020-01-01", valid_to="2020-12-31")
    assert (kg.stats()["triples"], kg.time_span()[1]) == (1, "2020-12-31T23:59:59Z")
    kg.add_triple("a", "p", "c", valid_to="2021-05-01T10:00:00Z")  # our own write
    assert (kg.stats()["expired_facts"], kg.time_span()[1]) == (2, "2021-05-01T10:00:00Z")
    with sqlite3.connect(str(kg_path)) as other:  # another connection
        other.execute("UPDATE triples SET valid_to = '2022-01-01' WHERE object = 'c'")
    assert kg.time_span()[1] == "2022-01-01T23:59:59Z"
    kg._conn().execute("UPDATE triples SET valid_to = NULL WHERE object = 'c'")  # raw, ours
    assert (kg.stats()["expired_facts"], kg.time_span()[1]) == (1, "2020-12-31T23:59:59Z")
    with pytest.raises(RuntimeError), kg.transaction():
        kg.add_triple("x", "p", "y", valid_to="2030-01-01")
        assert (kg.stats()["triples"], kg.time_span()[1]) == (3, "2030-01-01T23:59:59Z")
        raise RuntimeError("rolled back")
    assert (kg.stats()["triples"], kg.time_span()[1]) == (2, "2020-12-31T23:59:59Z")


def _passes_over_the_facts(kg, ask) -> list[str]:
    """The plans of what ``ask()`` read by going over every fact (or a whole facts index); a
    bare ``COUNT(*)`` is not one (SQLite adds up the cells of the pages, not the rows)."""
    conn, statements = kg._conn(), []
    conn.set_trace_callback(statements.append)
    try:
        ask()
    finally:
        conn.set_trace_callback(None)
    return [
        detail
        for sql in statements
        if sql.lstrip().upper().startswith(("SELECT", "WITH"))
        and sql.strip() != "SELECT COUNT(*) FROM triples"
        for *_, detail in conn.execute("EXPLAIN QUERY PLAN " + sql)
        if detail.startswith("SCAN triples")
    ]


def test_the_counts_and_the_span_go_over_the_facts_once_without_an_index_of_ends(kg_path):
    with sqlite3.connect(kg_path) as conn:
        conn.executescript(MEMPALACE_SCHEMA)
    with KnowledgeGraph(kg_path) as kg:
        kg.add_triple("a", "p", "b", valid_from="2020-01-01", valid_to="2020-12-31")
        kg.add_triple("a", "p", "c", valid_to="2021-05-01T10:00:00Z")
        kg.add_triple("a", "q", "c")
        assert "fl_triples_to" not in [name for _, name in kg.factlines_objects()]
        passes = _passes_over_the_facts(kg, lambda: (kg.stats(), kg.time_span()))
        assert len(passes) == 1, passes
        assert (kg.stats()["expired_facts"], kg.time_span()) == (
            2,
            ("2020-01-01T00:00:00Z", "2021-05-01T10:00:00Z"),
        )


@pytest.mark.sqlite_only  # the query plans are SQLite's
def test_a_new_graph_reads_its_counts_and_span_off_its_indexes(kg):
    """A graph Factlines creates keeps an index of the facts' ends from the start (SQLite keeps
    it as the graph grows), so its figures are never a pass over the facts, at any size."""
    kg.add_triple("a", "p", "b", valid_from="2020-01-01", valid_to="2020-12-31")
    kg.add_triple("a", "p", "c", valid_to="2021-05-01T10:00:00Z")
    kg.add_triple("a", "q", "c")
    assert _passes_over_the_facts(kg, lambda: (kg.stats(), kg.time_span())) == []
    assert kg.stats()["expired_facts"] == 2
    assert kg.time_span() == ("2020-01-01T00:00:00Z", "2021-05-01T10:00:00Z")


@pytest.mark.sqlite_only  # another program writes the SQLite file
@pytest.mark.parametrize(
    "stray",
    ["0000-ab-cd", "9999-ab-cd", " 000-01-01T00:00:00Z", "zzzz-01-01T00:00:00Z", "", "2026"],
)
def test_the_span_ignores_ends_that_are_not_dates_with_or_without_speed_indexes(kg, stray):
    kg.add_triple("a", "p", "b", valid_from="2020-01-01", valid_to="2020-12-31")
    kg.add_triple("a", "p", "c", valid_from="2020-03-01", valid_to="2020-06-01T12:00:00Z")
    kg._conn().execute(
        "INSERT INTO triples (id, subject, predicate, object, valid_to) "
        "VALUES ('stray', 'a', 'q', 'b', ?)",
        (stray,),
    )
    expected = ("2020-01-01T00:00:00Z", "2020-12-31T23:59:59Z")
    assert kg.time_span() == expected
    kg.add_speed_indexes()
    assert kg.time_span() == expected


def test_open_graph_takes_the_same_options(mempalace_file):
    with open_graph(mempalace_file) as kg:
        assert not kg.read_only
        assert kg.missing_indexes() == list(DEFAULT_INDEXES)


# ── The entity list without indexes over the facts ────────────────────────


def _ranked_by_hand(path, order, entity_type=None, ids=None, direction="DESC") -> list[tuple]:
    """Every entity with its counts, sorted by SQLite as the list promises: the count
    descending, then the name (NOCASE), then the id."""
    both = (
        "(SELECT COUNT(*) FROM triples t WHERE (t.subject = e.id OR t.object = e.id) AND "
        "t.valid_to IS {} NULL)"
    )
    with sqlite3.connect(str(path)) as conn:
        rows = conn.execute(
            f"SELECT id, name, type, {both.format('')} AS current, "
            f"{both.format('NOT')} AS ended FROM entities e "
            f"ORDER BY {order} {direction}, name COLLATE NOCASE, id"
        ).fetchall()
    return [
        row
        for row in rows
        if (entity_type is None or row[2] == entity_type) and (ids is None or row[0] in ids)
    ]


@pytest.fixture(scope="module")
def wide_graph(tmp_path_factory):
    """Many entities, most with a few facts, some hubs, some without any fact, tied counts."""
    path = tmp_path_factory.mktemp("wide") / "kg.sqlite3"
    build(path, 3_000, 6_000, hubs=4)
    with sqlite3.connect(str(path)) as conn:
        names = ["émile", "Émile", "ZOE", "zoe", "Zoë", "_under", "Über", "zoé", "Zoe"]
        conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, 'person')",
            [(f"lonely_{i}", f"Lonely {i}") for i in range(40)]
            + [(f"tricky_{i}", name) for i, name in enumerate(names)],
        )
        # Tied counts among names that differ only in case and accents.
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_to) "
            "VALUES (?, ?, 'knows', ?, ?)",
            [
                (f"t_tricky_{i}_{j}", f"tricky_{i}", f"lonely_{j}", None if j % 3 else "2020-01-01")
                for i in range(len(names))
                for j in range(30)
            ],
        )
    return path


@pytest.mark.parametrize("order", ["current", "ended"])
def test_ranking_by_counts_without_covering_indexes_is_exact(wide_graph, order):
    with KnowledgeGraph(wide_graph) as kg:
        assert kg.speed_indexes() == []
        expected = _ranked_by_hand(wide_graph, order)
        for limit, offset in ((1, 0), (30, 0), (50, 20), (100, 2_900), (100, 2_990), (60, 0)):
            page = kg.list_entities(order=order, descending=True, limit=limit, offset=offset)
            assert [tuple(r.values()) for r in page] == expected[offset : offset + limit]
        people = _ranked_by_hand(wide_graph, order, entity_type="person")
        page = kg.list_entities(entity_type="person", order=order, descending=True, limit=40)
        assert [tuple(r.values()) for r in page] == people[:40]
        found = {e["id"] for e in kg.list_entities("ka", limit=10_000)}
        page = kg.list_entities("ka", order=order, descending=True, limit=25, offset=5)
        assert [tuple(r.values()) for r in page] == _ranked_by_hand(wide_graph, order, ids=found)[
            5:30
        ]


def test_deep_pages_in_name_order_are_the_same_without_the_name_index(wide_graph, tmp_path):
    copy = tmp_path / "copy.sqlite3"
    copy.write_bytes(wide_graph.read_bytes())
    with KnowledgeGraph(copy) as kg:
        assert kg.missing_indexes() == list(DEFAULT_INDEXES)
        pages = [
            kg.list_entities(limit=60, offset=offset, descending=descending)
            for offset in (0, 1_500, 2_500, 3_000)
            for descending in (False, True)
        ]
        kg.build_indexes()
        assert pages == [
            kg.list_entities(limit=60, offset=offset, descending=descending)
            for offset in (0, 1_500, 2_500, 3_000)
            for descending in (False, True)
        ]


def test_a_default_index_too_slow_to_build_unasked_becomes_a_speed_index(
    mempalace_file, monkeypatch
):
    from factlines.core.store.sqlite import indexes

    monkeypatch.setattr(indexes, "DEFAULT_BUILD_ROWS", 2)
    with KnowledgeGraph(mempalace_file) as kg:
        assert kg.missing_indexes() == []
        assert kg.speed_index_cost() > 0
        assert kg.add_speed_indexes()[:2] == list(DEFAULT_INDEXES)
        assert kg.speed_indexes() == [*DEFAULT_INDEXES, *SPEED_INDEXES]
        kg.remove_speed_indexes()
        assert kg.speed_indexes() == []


@pytest.mark.parametrize("read_only", [True, False])
def test_a_graph_opened_for_whole_graph_reads_keeps_a_small_page_cache(kg_path, read_only):
    # Reads of the whole graph read each page once: a big cache would only hold memory.
    from factlines.core.store.sqlite.connection import SCAN_CACHE_KIB
    from factlines.core.store.sqlite.schema import CACHE_KIB

    KnowledgeGraph(kg_path).close()
    with open_graph(kg_path, read_only=read_only, scanning=True) as scanning:
        assert scanning._conn().execute("PRAGMA cache_size").fetchone()[0] == -SCAN_CACHE_KIB
        assert scanning.stats()["triples"] == 0
    with open_graph(kg_path, read_only=read_only) as window_s:
        assert window_s._conn().execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB
