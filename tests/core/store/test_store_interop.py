"""Interop with the real MemPalace 3.11: the same file, read and written by both programs.

Results are compared without our extra ``id`` key; ids themselves are random per row, so they
are only compared where they mean something (which calls returned the same row).
"""

from __future__ import annotations

import random
import sqlite3

import pytest

from factlines import KnowledgeGraph
from store_helpers import boundary_instants, canonical, dump, mempalace_class, without_ids

pytestmark = pytest.mark.interop

NAMES = ["Ann", "Bob", "Dr. Chen", "Alice O'Brien", "Zed"]
PREDICATES = ["knows", "Lives In", "works_on"]
TIMES = [
    None,
    "2026-03-01",
    "2026-03-02",
    "2026-03-01T12:00:00Z",
    "2026-03-01T23:59:59Z",
    "2026-03-02T00:00:00Z",
    "2026-03-01T00:00:00+00:00",
]


@pytest.fixture(scope="module")
def MemPalaceKG():
    return mempalace_class()


# ── Comparing what two stores say ─────────────────────────────────────────


def _answers(kg, instants) -> dict:
    """Everything the MemPalace surface can be asked, order-free where no order is promised."""
    out = {"stats": kg.stats()}
    asked = [*NAMES, "ann", "DR. CHEN"]
    for at in [None, *instants]:
        for name in asked:
            for direction in ("outgoing", "incoming", "both"):
                out[("entity", name, direction, at)] = canonical(
                    without_ids(kg.query_entity(name, as_of=at, direction=direction))
                )
        for predicate in PREDICATES:
            out[("relationship", predicate, at)] = canonical(
                without_ids(kg.query_relationship(predicate, as_of=at))
            )
    for name in [None, *NAMES]:
        rows = without_ids(kg.timeline(name, limit=1000))
        # ties on valid_from are ordered by the random ids, so only the sequence of starts and
        # the set of rows must agree
        out[("timeline", name)] = ([r["valid_from"] for r in rows], canonical(rows))
    return out


def _rows(path) -> dict:
    """Both tables as stored, without the random ids and the clock columns."""
    skip = {"id", "created_at", "extracted_at"}
    return {
        table: [{k: v for k, v in row.items() if k not in skip} for row in rows]
        for table, rows in dump(path).items()
    }


def _assert_same(first, second, instants):
    a, b = _answers(first, instants), _answers(second, instants)
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == b[key], key


# ── Fixed scenarios ───────────────────────────────────────────────────────

SEED = {
    "riley": {
        "full_name": "Riley",
        "birthday": "2015-04-01",
        "parent": "jordan",
        "relationship": "daughter",
        "interests": ["swimming"],
    },
    "rex": {"full_name": "Rex", "relationship": "dog", "owner": "jordan"},
}


def _write_story(kg):
    kg.add_entity("Ann", "person", {"age": 30})
    kg.add_triple("Ann", "lives in", "Paris", valid_from="2020-01-01", source_closet="c1")
    kg.add_triple("Ann", "knows", "Dr. Chen", valid_from="2026-03-01T12:00:00+00:00")
    kg.add_triple("Dr. Chen", "knows", "Ann", confidence=0.4, source_file="f.md")
    kg.add_triple("Alice O'Brien", "works_on", "Factlines", valid_to="2026-03-01")
    kg.invalidate("Ann", "knows", "Dr. Chen", ended="2026-03-02")
    kg.supersede("Ann", "lives_in", "Paris", "Rome", at="2026-03-01")
    kg.add_triple("Ann", "knows", "Ann")
    kg.seed_from_entity_facts(SEED)


STORY_INSTANTS = boundary_instants(
    ["2020-01-01", "2026-03-01T12:00:00Z", "2026-03-01", "2026-03-02", "2015-04-01", "2025-01-01"]
)


def test_a_mempalace_file_reads_the_same_through_ours(tmp_path, MemPalaceKG):
    path = tmp_path / "kg.sqlite3"
    mem = MemPalaceKG(str(path))
    _write_story(mem)
    before = dump(path)
    with KnowledgeGraph(path) as ours:
        _assert_same(ours, mem, STORY_INSTANTS)
        ids = {r["id"] for r in ours.timeline(limit=1000)}
    assert ids == {row["id"] for row in before["triples"]}
    assert dump(path) == before  # opening and reading rewrote nothing
    mem.close()


def test_a_file_made_by_ours_behaves_the_same_in_mempalace(tmp_path, MemPalaceKG):
    ours_path, mem_path = tmp_path / "ours.sqlite3", tmp_path / "mem.sqlite3"
    with KnowledgeGraph(ours_path) as ours:
        _write_story(ours)
    mem = MemPalaceKG(str(mem_path))
    _write_story(mem)
    assert _rows(ours_path) == _rows(mem_path)
    on_ours = MemPalaceKG(str(ours_path))  # MemPalace opens, migrates nothing, reads the same
    _assert_same(on_ours, mem, STORY_INSTANTS)
    for kg in (on_ours, mem):  # and keeps writing it the same way
        kg.add_triple("Zed", "knows", "Ann", valid_from="2026-04-01")
        kg.invalidate("Ann", "knows", "Ann", ended="2026-04-02")
    assert _rows(ours_path) == _rows(mem_path)
    on_ours.close()
    mem.close()
    with KnowledgeGraph(ours_path) as ours, KnowledgeGraph(mem_path) as other:
        _assert_same(ours, other, STORY_INSTANTS)


def test_our_edits_read_back_by_mempalace(tmp_path, MemPalaceKG):
    path = tmp_path / "kg.sqlite3"
    mem = MemPalaceKG(str(path))
    _write_story(mem)
    mem.close()
    with KnowledgeGraph(path) as ours:
        rome = ours.find_open_fact("Ann", "lives_in", "Rome")["id"]
        ours.update_fact(rome, valid_from="2026-02-01", object="Lyon", confidence=0.8)
        ours.rename_entity("Ann", "Annie")
        ours.delete_fact(ours.find_open_fact("Dr. Chen", "knows", "Ann")["id"])
        ours.merge_entities("Riley", "Rex")
        ours.set_entity_properties("Rex", {"good": True})
        ours.add_triple("Annie", "works_on", "Factlines", valid_from="2026-03-01T08:00:00Z")
        expected = _answers(ours, STORY_INSTANTS)
        ours_rows = _rows(path)
    mem = MemPalaceKG(str(path))
    assert _answers(mem, STORY_INSTANTS) == expected
    on_day = mem.query_entity("ann", as_of="2026-02-15")
    assert sorted((r["subject"], r["object"], r["confidence"]) for r in on_day) == [
        ("ann", "Annie", 1.0),  # the self-loop, with the new display name
        ("ann", "Lyon", 0.8),
        ("ann", "Paris", 1.0),  # until the handover on 2026-03-01
    ]
    assert mem.query_entity("Riley") == []  # merged away
    assert _rows(path) == ours_rows
    mem.close()


# ── Random write sequences ────────────────────────────────────────────────


def _random_ops(rng: random.Random, count: int) -> list[tuple]:
    ops = []
    for _ in range(count):
        kind = rng.choices(["add", "invalidate", "supersede", "entity"], [6, 2, 2, 1])[0]
        s, o, o2 = rng.choice(NAMES), rng.choice(NAMES), rng.choice(NAMES)
        p = rng.choice(PREDICATES)
        if kind == "add":
            vf, vt = rng.choice(TIMES), rng.choice(TIMES)
            extra = {"confidence": rng.choice([1.0, 0.5]), "source_closet": rng.choice([None, "c"])}
            ops.append(("add_triple", (s, p, o), {"valid_from": vf, "valid_to": vt, **extra}))
        elif kind == "invalidate":
            ops.append(("invalidate", (s, p, o), {"ended": rng.choice(TIMES[1:])}))
        elif kind == "supersede":
            ops.append(("supersede", (s, p, o, o2), {"at": rng.choice(TIMES[1:])}))
        else:
            props = rng.choice([None, {"k": rng.randint(0, 3)}])
            ops.append(("add_entity", (s, rng.choice(["person", "robot"]), props), {}))
    return ops


def _apply(kg, op):
    method, args, kwargs = op
    try:
        return getattr(kg, method)(*args, **kwargs)
    except ValueError as exc:
        return ("refused", "before valid_from" in str(exc))


def _shape(results):
    """Which calls returned the same triple id (ids are random, their sharing is not)."""
    first: dict = {}
    return [
        first.setdefault(r, i) if isinstance(r, str) and r.startswith("t_") else r
        for i, r in enumerate(results)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_random_write_sequences_agree(tmp_path, MemPalaceKG, seed):
    ops = _random_ops(random.Random(seed), 40)
    mem_path, ours_path, mixed_path = (tmp_path / f"{n}.sqlite3" for n in ("mem", "ours", "mix"))
    mem = MemPalaceKG(str(mem_path))
    ours = KnowledgeGraph(ours_path)
    mem_results = [_apply(mem, op) for op in ops]
    ours_results = [_apply(ours, op) for op in ops]
    assert _shape(ours_results) == _shape(mem_results)
    assert _rows(ours_path) == _rows(mem_path)

    # the same sequence with the writer alternating between the two programs on one file
    mixed_mem, mixed_ours = MemPalaceKG(str(mixed_path)), KnowledgeGraph(mixed_path)
    mixed = [_apply(mixed_ours if i % 2 else mixed_mem, op) for i, op in enumerate(ops)]
    assert _shape(mixed) == _shape(mem_results)
    assert _rows(mixed_path) == _rows(mem_path)

    values = {op[2].get(k) for op in ops for k in ("valid_from", "valid_to", "ended", "at")}
    instants = boundary_instants(v.replace("+00:00", "Z") for v in values if v)
    readers = [mem, ours, MemPalaceKG(str(ours_path)), KnowledgeGraph(mem_path), mixed_ours]
    expected = _answers(readers[0], instants)
    for reader in readers[1:]:
        assert _answers(reader, instants) == expected, reader
    for kg in [*readers, mixed_mem]:
        kg.close()


def test_the_id_is_the_row_mempalace_wrote(tmp_path, MemPalaceKG):
    path = tmp_path / "kg.sqlite3"
    mem = MemPalaceKG(str(path))
    tid = mem.add_triple("Ann", "knows", "Bob", valid_from="2026-01-01")
    mem.close()
    with KnowledgeGraph(path) as ours:
        assert [r["id"] for r in ours.query_entity("Ann")] == [tid]
        assert ours.add_triple("ann", "knows", "bob") == tid  # dedup across programs
        assert ours.get_fact(tid)["valid_from"] == "2026-01-01"
    conn = sqlite3.connect(str(path))
    assert conn.execute("SELECT COUNT(*) FROM triples").fetchone() == (1,)
    conn.close()


@pytest.mark.parametrize("seed", range(8))
def test_random_write_sequences_agree_on_postgres(tmp_path, MemPalaceKG, postgres_url, seed):
    """The same random writes through MemPalace (its SQLite file) and through ours on
    PostgreSQL: the same refusals and shared ids, the same rows, the same answers at every
    boundary instant."""
    ops = _random_ops(random.Random(seed), 40)
    mem_path = tmp_path / "mem.sqlite3"
    mem, ours = MemPalaceKG(str(mem_path)), KnowledgeGraph(postgres_url)
    mem_results = [_apply(mem, op) for op in ops]
    ours_results = [_apply(ours, op) for op in ops]
    assert _shape(ours_results) == _shape(mem_results)

    # PostgreSQL keeps no row order: the rows as sets, without positions.
    def stored(location):
        return {
            table: canonical([{k: v for k, v in row.items() if k != "_rowid"} for row in found])
            for table, found in _rows(location).items()
        }

    assert stored(postgres_url) == stored(mem_path)
    values = {op[2].get(k) for op in ops for k in ("valid_from", "valid_to", "ended", "at")}
    instants = boundary_instants(v.replace("+00:00", "Z") for v in values if v)
    assert _answers(ours, instants) == _answers(mem, instants)
    mem.close()
    ours.close()
