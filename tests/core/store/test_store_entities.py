"""Contract section 5, entities: list and search with counts, rename, merge, type, properties."""

from __future__ import annotations

import gc
import sqlite3
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from factlines import KnowledgeGraph, KnowledgeGraphError, open_graph
from factlines.core import search
from factlines.core.names import entity_id
from factlines.core.search import EntitySearchIndex
from factlines.core.store import engine_entities
from factlines.core.store.engine_entities import EntityRows
from factlines.core.store.sqlite.schema import NAME_INDEX
from store_helpers import dump, oracle_valid

PEOPLE = [
    ("Alice Smith", "person"),
    ("alice cooper", "musician"),
    ("Malice", "concept"),
    ("Bob", "person"),
    ("Dr. Al", "person"),
    ("50% Off", "deal"),
    ("Under_Score", "thing"),
    ("Zed", "person"),
]
FACTS = [
    ("Alice Smith", "knows", "Bob", "2020-01-01", None),
    ("Alice Smith", "knows", "Zed", "2020-01-01", "2021-06-30"),
    ("Bob", "likes", "Alice Smith", "2022-03-04T10:00:00Z", None),
    ("Bob", "knows", "Bob", None, None),  # a self-loop
    ("Bob", "met", "Bob", "2019-01-01", "2019-12-31"),  # an ended self-loop
    ("Malice", "targets", "Dr. Al", None, "2023-01-01T00:00:00Z"),
    ("alice cooper", "sings", "50% Off", "2024-05-05", None),
]


@pytest.fixture
def people(kg):
    for name, etype in PEOPLE:
        kg.add_entity(name, etype)
    for s, p, o, vf, vt in FACTS:
        kg.add_triple(s, p, o, valid_from=vf, valid_to=vt)
    return kg


def _oracle(kg, search="", entity_type=None, valid_at=None):
    """Every matching entity with its counts, computed row by row from the file."""
    rows = dump(kg.db_path)
    out = {}
    for e in rows["entities"]:
        text = search.strip()
        if text and not (text.lower() in e["name"].lower() or entity_id(text) in e["id"]):
            continue
        if entity_type is not None and e["type"] != entity_type:
            continue
        mine = [t for t in rows["triples"] if e["id"] in (t["subject"], t["object"])]
        if valid_at is not None and not any(
            oracle_valid(t["valid_from"], t["valid_to"], valid_at) for t in mine
        ):
            continue
        current = sum(t["valid_to"] is None for t in mine)
        out[e["id"]] = {
            "id": e["id"],
            "name": e["name"],
            "type": e["type"],
            "current": current,
            "ended": len(mine) - current,
        }
    return out


FILTERS = [
    {},
    {"search": "ali"},
    {"search": "ALI"},
    {"search": "alice_s"},
    {"search": "Alice S"},
    {"search": "dr._"},
    {"search": "%"},
    {"search": "_"},
    {"search": "nothing-like-it"},
    {"entity_type": "person"},
    {"search": "a", "entity_type": "person"},
    {"valid_at": "2021-01-01"},
    {"valid_at": "2021-06-30T23:59:59Z"},
    {"valid_at": "2022-03-04T10:00:00Z", "search": "b"},
    {"valid_at": "1900-01-01"},
]


@pytest.mark.parametrize("filters", FILTERS, ids=[str(f) for f in FILTERS])
def test_list_and_count_match_the_oracle(people, filters):
    expected = _oracle(people, **filters)
    listed = people.list_entities(**filters, limit=1000)
    assert {row["id"]: row for row in listed} == expected
    assert len(listed) == len(expected)
    assert people.count_entities(**filters) == len(expected)


def test_self_loops_count_once(people):
    (bob,) = [e for e in people.list_entities("bob") if e["id"] == "bob"]
    # knows Alice (in), likes Alice (out), knows Bob (loop) ; met Bob (ended loop)
    assert (bob["current"], bob["ended"]) == (3, 1)


def test_search_lists_prefix_matches_first(people):
    names = [e["name"] for e in people.list_entities("ali")]
    assert names == ["alice cooper", "Alice Smith", "Malice"]


@pytest.mark.parametrize(
    ("order", "key"),
    [
        ("name", lambda e: (e["name"].lower(), e["id"])),
        ("type", lambda e: (e["type"].lower(), e["name"].lower(), e["id"])),
    ],
)
@pytest.mark.parametrize("descending", [False, True])
def test_orders(people, order, key, descending):
    rows = people.list_entities(order=order, descending=descending, limit=1000)
    primary = [key(e)[0] for e in rows]
    assert primary == sorted(primary, reverse=descending)
    if not descending:
        assert rows == sorted(rows, key=key)


@pytest.mark.parametrize("order", ["current", "ended"])
def test_orders_by_counts(people, order):
    rows = people.list_entities(order=order, descending=True, limit=1000)
    counts = [e[order] for e in rows]
    assert counts == sorted(counts, reverse=True)
    ties = [e for e in rows if e[order] == counts[-1]]
    assert [e["name"].lower() for e in ties] == sorted(e["name"].lower() for e in ties)


@pytest.mark.parametrize("filters", FILTERS, ids=[str(f) for f in FILTERS])
@pytest.mark.parametrize("order", ["name", "type", "current", "ended"])
def test_a_list_without_counts_is_the_same_rows_and_order(people, filters, order):
    counted = people.list_entities(**filters, order=order, limit=1000)
    bare = people.list_entities(**filters, order=order, limit=1000, counts=False)
    assert [e["id"] for e in bare] == [e["id"] for e in counted]
    if order in ("name", "type"):  # an order by a count has them anyway
        assert all(e["current"] is e["ended"] is None for e in bare)
        keys = ("id", "name", "type")
        assert [[e[k] for k in keys] for e in bare] == [[e[k] for k in keys] for e in counted]
    else:
        assert bare == counted


def test_unknown_order_is_an_error(people):
    with pytest.raises(ValueError, match="order"):
        people.list_entities(order="size")


@pytest.mark.parametrize("search", ["", "ali", "b"])
@pytest.mark.parametrize("order", ["name", "type", "current"])
@pytest.mark.parametrize("limit", [1, 2, 5])
def test_paging_covers_everything_once(people, limit, search, order):
    full = people.list_entities(search, order=order, limit=1000)
    pages = [
        people.list_entities(search, order=order, limit=limit, offset=offset)
        for offset in range(0, len(full) + limit, limit)
    ]
    assert [e for page in pages for e in page] == full


def test_get_entity(people):
    alice = people.get_entity("ALICE SMITH")
    assert alice == people.get_entity("alice_smith")
    assert {k: alice[k] for k in ("id", "name", "type", "properties")} == {
        "id": "alice_smith",
        "name": "Alice Smith",
        "type": "person",
        "properties": {},
    }
    assert people.get_entity("nobody") is None


def test_entity_types_predicates_names(people):
    assert people.entity_types() == sorted({t for _, t in PEOPLE})
    assert people.predicates() == sorted({f[1] for f in FACTS})
    assert people.entity_names() == sorted((n for n, _ in PEOPLE), key=str.lower)


# ── rename ────────────────────────────────────────────────────────────────


def test_rename_changes_the_display_name_only(people):
    before = people.query_entity("Bob", direction="both")
    assert people.rename_entity("Bob", "Robert") == "bob"
    entity = people.get_entity("bob")
    assert (entity["name"], entity["type"]) == ("Robert", "person")
    after = people.query_entity("bob", direction="both")
    assert [r["id"] for r in after] == [r["id"] for r in before]
    incoming = [r for r in people.query_entity("Alice Smith") if r["predicate"] == "knows"]
    assert "Robert" in {r["object"] for r in incoming}


@pytest.mark.parametrize(
    ("name", "new_name"), [("nobody", "X"), ("Bob", ""), ("Bob", "  "), ("Bob", "'")]
)
def test_rename_refusals_write_nothing(people, name, new_name):
    before = dump(people.db_path)
    with pytest.raises(ValueError):
        people.rename_entity(name, new_name)
    assert dump(people.db_path) == before


# ── type and properties ───────────────────────────────────────────────────


def test_type_and_properties_do_not_wipe_each_other(kg):
    kg.add_entity("Ann", "person", {"age": 3})
    kg.set_entity_type("Ann", "robot")
    assert kg.get_entity("ann")["properties"] == {"age": 3}
    kg.set_entity_properties("ann", {"age": 4, "tags": ["x"]})
    entity = kg.get_entity("Ann")
    assert (entity["type"], entity["properties"], entity["name"]) == (
        "robot",
        {"age": 4, "tags": ["x"]},
        "Ann",
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda kg: kg.set_entity_type("Ann", ""),
        lambda kg: kg.set_entity_type("Nobody", "x"),
        lambda kg: kg.set_entity_properties("Ann", ["not", "a", "mapping"]),
        lambda kg: kg.set_entity_properties("Ann", {"bad": object()}),
    ],
)
def test_type_and_property_refusals_write_nothing(kg, call):
    kg.add_entity("Ann", "person", {"age": 3})
    before = dump(kg.db_path)
    with pytest.raises(KnowledgeGraphError):
        call(kg)
    assert dump(kg.db_path) == before


# ── merge ─────────────────────────────────────────────────────────────────


@pytest.fixture
def twins(kg):
    kg.add_entity("Robert", "person", {"a": 1})
    kg.add_triple("Bob", "lives_in", "Paris", valid_from="2020-01-01")
    kg.add_triple("Robert", "lives_in", "Paris", valid_from="2018-01-01")
    kg.add_triple("Bob", "likes", "tea", valid_from="2019-01-01", valid_to="2019-12-31")
    kg.add_triple("Robert", "likes", "tea", valid_from="2021-01-01", valid_to="2021-12-31")
    kg.add_triple("Ann", "knows", "Bob", valid_from="2015-01-01")
    kg.add_triple("Bob", "knows", "Robert")
    kg.add_triple("Bob", "likes", "coffee", valid_from="2010-01-01")
    kg.add_triple("Robert", "likes", "coffee", valid_from="2012-01-01")
    return kg


def test_merge_repoints_every_fact(twins):
    facts_before = len(dump(twins.db_path)["triples"])
    assert twins.merge_entities("Bob", "Robert") == "robert"
    assert twins.get_entity("bob") is None
    rows = dump(twins.db_path)["triples"]
    assert all("bob" not in (t["subject"], t["object"]) for t in rows)
    # lives_in Paris and likes coffee collapse (two open duplicates each); closed ones stay
    assert len(rows) == facts_before - 2
    by = {(t["subject"], t["predicate"], t["object"], t["valid_to"]): t for t in rows}
    assert by[("robert", "lives_in", "paris", None)]["valid_from"] == "2018-01-01"
    assert by[("robert", "likes", "coffee", None)]["valid_from"] == "2010-01-01"
    assert {
        t["valid_from"] for t in rows if t["predicate"] == "likes" and t["object"] == "tea"
    } == {
        "2019-01-01",
        "2021-01-01",
    }
    assert ("ann", "knows", "robert", None) in by
    assert ("robert", "knows", "robert", None) in by  # the fact between them became a loop
    entity = twins.get_entity("robert")
    assert (entity["name"], entity["properties"]) == ("Robert", {"a": 1})


def test_merge_is_one_transaction(twins, monkeypatch):
    before = dump(twins.db_path)
    connection = twins._store._db  # the SQLite engine's connection, which every write touches
    original, calls = connection.touch, []

    def failing_touch(conn, table, row_id):
        calls.append(row_id)
        if len(calls) == 4:
            raise RuntimeError("disk on fire")
        return original(conn, table, row_id)

    monkeypatch.setattr(connection, "touch", failing_touch)
    with pytest.raises(RuntimeError):
        twins.merge_entities("Bob", "Robert")
    assert len(calls) == 4
    assert dump(twins.db_path) == before


@pytest.mark.parametrize(("source", "target"), [("Bob", "bob"), ("Nobody", "Bob"), ("Bob", "X")])
def test_merge_refusals_write_nothing(twins, source, target):
    before = dump(twins.db_path)
    with pytest.raises(KnowledgeGraphError):
        twins.merge_entities(source, target)
    assert dump(twins.db_path) == before


@pytest.mark.parametrize(
    ("search", "expected"),
    [("DÍAZ", ["Rosa Díaz"]), ("strasse", ["Hauptstraße"]), ("ÉCOLE", ["École Normale"])],
)
def test_search_folds_case_beyond_ascii(kg, search, expected):
    for name in ("Rosa Díaz", "Hauptstraße", "École Normale", "Rosa Diaz-free"):
        kg.add_entity(name)
    assert [e["name"] for e in kg.list_entities(search)] == expected
    assert kg.count_entities(search) == len(expected)


@pytest.mark.sqlite_only  # another program writes the SQLite file
def test_search_sees_our_writes_and_another_process(people):
    assert people.count_entities("zorro") == 0
    people.add_triple("Zorro", "knows", "Bob")
    assert [e["name"] for e in people.list_entities("zorro")] == ["Zorro"]
    with sqlite3.connect(people.db_path) as other:
        other.execute("UPDATE entities SET name = 'Don Diego' WHERE id = 'zorro'")
    assert people.count_entities("zorro") == 1  # the id still matches
    assert [e["name"] for e in people.list_entities("diego")] == ["Don Diego"]


def test_search_with_valid_at_keeps_prefix_matches_first(people):
    # Malice's only fact ended 2023-01-01T00:00:00Z; both Alices have facts valid in 2025.
    names = [e["name"] for e in people.list_entities("ali", valid_at="2025-01-01")]
    assert names == ["alice cooper", "Alice Smith"]
    names = [e["name"] for e in people.list_entities("ali", valid_at="2022-06-01")]
    assert names == ["Alice Smith", "Malice"]


def searched(rows, text: str, entity_type: str | None) -> list[int]:
    """The search rule read plainly: a substring of the folded name or id, of the type asked,
    prefix matches first, each part in the index's order."""
    name_q, id_q = text.casefold(), entity_id(text).casefold()
    hits = [
        i
        for i, (eid, name, etype) in enumerate(rows)
        if (name_q in name.casefold() or id_q in eid.casefold())
        and (entity_type is None or etype == entity_type)
    ]
    prefixed = [
        i
        for i in hits
        if rows[i][1].casefold().startswith(name_q) or rows[i][0].casefold().startswith(id_q)
    ]
    return prefixed + [i for i in hits if i not in prefixed]


_ALPHABET = "anbsxy 'ßSÄ\n_"
_ROW = st.tuples(
    st.text(alphabet=_ALPHABET, max_size=6),
    st.text(alphabet=_ALPHABET, max_size=6),
    st.sampled_from(["person", "place", None]),
)
_QUERIES = st.lists(
    st.tuples(st.text(alphabet=_ALPHABET, max_size=4), st.sampled_from([None, "person", "place"])),
    min_size=1,
    max_size=8,
)


# str.find always, as tuned, or never (giving up at its first match)
@pytest.mark.parametrize("find_share", [1, search.FIND_SHARE, 10**9])
@settings(max_examples=150, deadline=None)
@given(rows=st.lists(_ROW, max_size=12), queries=_QUERIES)
@example(rows=[("ba", "b", None), ("aÄ", "x", None)], queries=[("a", None)])  # "aä" > "az"
@example(rows=[("aa", "x", None), ("b", "y", None), ("c", "z", None)], queries=[("a", None)])
def test_search_follows_its_rule_whatever_was_typed_before(find_share, rows, queries):
    # Names and ids that are empty, unlike each other (as after a rename) or hold a newline;
    # queries typed one after another, growing or not, so the kept and narrowed scans are used.
    rows = [(eid, name, etype) for name, eid, etype in rows]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "FIND_SHARE", find_share)
        index = EntitySearchIndex(rows)
        for text, entity_type in queries:
            assert index.matches(text, entity_type) == searched(rows, text, entity_type)


@pytest.mark.sqlite_only  # another program writes the SQLite file
def test_prepare_search_builds_the_index_once_and_writes_nothing(people):
    before = dump(people.db_path)
    people.prepare_search()
    built = people._store.entities._search_index
    assert built is not None
    people.prepare_search()
    assert people.count_entities("ali") == 3  # Alice Smith, alice cooper, Malice
    assert people._store.entities._search_index is built  # neither call rebuilt it
    assert dump(people.db_path) == before
    with sqlite3.connect(people.db_path) as other:
        other.execute("INSERT INTO entities (id, name) VALUES ('alibi', 'Alibi')")
    people.prepare_search()
    assert people._store.entities._search_index is not built
    assert people.count_entities("ali") == 4


def test_the_list_rows_of_some_ids_are_the_listings_rows_in_their_order(kg):
    kg.add_triple("Kai", "works_on", "Orion", valid_from="2024-01-01", valid_to="2024-06-30")
    kg.add_triple("Kai", "works_on", "Nova", valid_from="2024-07-01")
    kg.add_entity("Idle")
    listed = {row["id"]: row for row in kg.list_entities(limit=10)}
    assert kg.entity_list_rows(["nova", "ghost", "kai", None, "idle"]) == [
        listed["nova"],
        listed["kai"],
        listed["idle"],
    ]
    assert listed["kai"]["current"] == 1 and listed["kai"]["ended"] == 1
    assert kg.entity_list_rows([]) == []


# ── Merging into a hub: each fact costs the same, however big the hub ──────


def _merge_steps(folder, facts: int) -> tuple[int, int]:
    """SQLite's steps (in hundreds) to merge a hub of ``facts`` facts each way into another
    entity as the window does (one logged, recorded write), and to undo that."""
    from factlines import KnowledgeGraph
    from factlines.core.store.sqlite.schema import MEMPALACE_SCHEMA

    folder.mkdir()
    path = folder / "knowledge_graph.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(MEMPALACE_SCHEMA)
        ends = [f"e{n}" for n in range(facts)]
        conn.executemany(
            "INSERT INTO entities (id, name) VALUES (?, ?)",
            [(eid, eid) for eid in ("hub", "target", *ends)],
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object) VALUES (?, ?, ?, ?)",
            [(f"t_out_{e}", "hub", "knows", e) for e in ends]
            + [(f"t_in_{e}", e, "uses", "hub") for e in ends],
        )
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    with KnowledgeGraph(path) as kg:
        kg._conn().set_progress_handler(step, 100)
        with kg.recording() as change, kg.logged("Merge hub into target"):
            kg.merge_entities("hub", "target")
        merged, steps[0] = steps[0], 0
        kg.revert(change)
        assert kg.stats()["entities"] == facts + 2
    return merged, steps[0]


def test_merging_into_a_hub_and_undoing_it_cost_in_proportion_to_the_hub(tmp_path):
    """A merged fact's open twin is looked for through its end with fewer facts, not the hub
    it is joining (whose entries grow with every fact merged): four times the facts cost about
    four times the steps, not sixteen."""
    small = _merge_steps(tmp_path / "small", 150)
    big = _merge_steps(tmp_path / "big", 600)
    assert big[0] < 7 * small[0], (small, big)
    assert big[1] < 7 * small[1], (small, big)


def test_a_merge_tells_its_progress_and_a_cancel_takes_it_back(tmp_path):
    from factlines import KnowledgeGraph
    from factlines.core.progress import Cancelled

    _merge_steps(tmp_path / "graph", 700)  # a hub of 1,400 facts: several short writes
    path = tmp_path / "graph" / "knowledge_graph.sqlite3"
    before = dump(path)
    told: list[tuple[int, int]] = []

    def stop(done: int, total: int) -> bool:
        told.append((done, total))
        return False

    with KnowledgeGraph(path) as kg:
        with pytest.raises(Cancelled):
            kg.merge_entities("hub", "target", progress=stop)
        assert told == [(500, 1_400)]
        assert dump(path) == before  # what its first short write wrote is taken back
        told.clear()
        kg.merge_entities("hub", "target", progress=lambda *step: told.append(step))
    assert told == [(500, 1_400), (1_000, 1_400), (1_400, 1_400)]
    assert dump(path)["entities"] != before["entities"]


def test_a_search_index_read_on_another_store_is_kept_while_the_graph_is_unchanged(
    people, graph_url
):
    # The window builds it on a worker thread, on a store of its own, and hands it over.
    stamp = people.search_index_stamp()
    assert stamp is not None
    with open_graph(graph_url, read_only=True) as other:
        index = other.read_search_index()
    assert people.adopt_search_index(index, stamp)
    assert people.search_index_stamp() is None  # nothing left to build
    assert people.count_entities("ali") == 3
    assert people._store.entities._search_index is index  # searched with it, not rebuilt


def test_a_search_index_read_before_a_write_is_not_kept(people, graph_url):
    stamp = people.search_index_stamp()
    with open_graph(graph_url, read_only=True) as other:
        index = other.read_search_index()
    people.add_entity("Alibi")  # our own write: the index read before it lacks Alibi
    assert not people.adopt_search_index(index, stamp)
    assert people.count_entities("ali") == 4


def test_a_search_index_read_before_another_program_s_write_is_not_kept(people, graph_url):
    stamp = people.search_index_stamp()
    with open_graph(graph_url, read_only=True) as other:
        index = other.read_search_index()
    with open_graph(graph_url) as writer:  # another client, after the index was read
        writer.add_entity("Alibi")
    deadline = time.monotonic() + 5  # a PostgreSQL client hears of it a moment later
    while not people.external_changes() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not people.adopt_search_index(index, stamp)
    assert people.count_entities("ali") == 4


# ── An entity's row in the listing: what a list shows an entity chosen elsewhere by, reading
# its page alone; SQLite's count by name is the listing's order too.


@pytest.mark.parametrize("filters", FILTERS, ids=[str(f) for f in FILTERS])
@pytest.mark.parametrize("order", ["name", "type", "current", "ended"])
@pytest.mark.parametrize("descending", [False, True])
def test_the_position_is_the_row_in_the_listing(people, filters, order, descending, monkeypatch):
    monkeypatch.setattr(engine_entities, "POSITION_PAGE", 3)  # the listing read in many pages
    listing = {**filters, "order": order, "descending": descending}
    ids = [e["id"] for e in people.list_entities(**listing, limit=1000, counts=False)]
    for row, eid in enumerate(ids):
        assert people.entity_position(eid, **listing) == row
    left_out = {e["id"] for e in people.list_entities(limit=1000)} - set(ids)
    for eid in [*left_out, "nobody_at_all"]:
        assert people.entity_position(eid, **listing) is None


def test_an_unknown_order_is_refused(people):
    with pytest.raises(ValueError, match="order"):
        people.entity_position("bob", order="size")


# Names NOCASE folds together or not (ASCII only), ids that differ in case, a name that sorts
# as a number, rows with no id (hand edits): the count must sort them as the listing.
ODD_ROWS = [
    ("alice", "Alice"),
    ("Alice", "alice"),
    ("ALICE_2", "ALICE"),
    ("b", "Bob"),
    ("a_bob", "bob"),
    ("emile", "émile"),
    ("Emile", "Émile"),
    ("zed", "Zed"),
    ("under", "Under_Score"),
    ("num", 42),
    (None, "Alice"),
    (None, "Zz no id"),
    ("space", " Alice"),
]


@pytest.mark.parametrize("name_index", [True, False], ids=["name-index", "no-name-index"])
@pytest.mark.parametrize("descending", [False, True])
def test_sqlites_count_by_name_is_the_listings_order(kg_path, name_index, descending):
    KnowledgeGraph(kg_path).close()
    with sqlite3.connect(kg_path) as conn:
        conn.executemany("INSERT INTO entities (id, name, type) VALUES (?, ?, 'x')", ODD_ROWS)
        if not name_index:
            conn.execute(f"DROP INDEX IF EXISTS {NAME_INDEX}")
    with KnowledgeGraph(kg_path) as kg:
        listed = [e["id"] for e in kg.list_entities(descending=descending, limit=100)]
        assert len(listed) == len(ODD_ROWS)
        for eid in (eid for eid, _name in ODD_ROWS if eid is not None):
            entities = kg._store.entities
            by_pages = EntityRows.position(entities, eid, "", None, None, "name", descending)
            assert kg.entity_position(eid, descending=descending) == by_pages
            assert by_pages == listed.index(eid)


def test_a_closed_store_leaves_what_it_kept_to_no_collector(graph_url):
    # A worker's store ranks every entity for the window's list, then closes. Its parts refer
    # to each other, so only the cycle collector frees the store: what it kept went with it
    # (the ranking, the search index), on the UI thread, at a million facts 40-120 ms.
    with open_graph(graph_url) as kg:
        kg.insert_rows("entities", [(f"e{n:05d}", f"E {n}") for n in range(3000)], ("id", "name"))
    gc.collect()
    gc.disable()
    try:
        with open_graph(graph_url, read_only=True) as store:
            assert store.list_entities(order="current", limit=5)
            assert store.count_entities("e 1") > 0  # builds the search index
        del store
        left = gc.collect()
    finally:
        gc.enable()
    assert left < 500, f"{left} objects left to the cycle collector by a closed store"
