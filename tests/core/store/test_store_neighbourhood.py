"""An entity's neighbourhood ring by ring, and the facts among a set of entities, against a
brute-force walk over the file's rows."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factlines import KnowledgeGraph
from factlines.core.store import engine_common

NAMES = [f"e{i}" for i in range(9)]
_FACT = st.tuples(
    st.sampled_from(NAMES),
    st.sampled_from(["knows", "uses"]),
    st.sampled_from(NAMES),
    st.sampled_from([None, "2020-01-01", "2024-06-30"]),  # when it ended: rings ignore it
)


def _rows(path) -> list[tuple]:
    conn = sqlite3.connect(str(path))
    try:
        return conn.execute("SELECT id, rowid, subject, object FROM triples").fetchall()
    finally:
        conn.close()


def _rings(rows, centre: str, depth: int) -> list[list[str]]:
    """Breadth-first over every fact, one hop at a time."""
    seen, frontier, rings = {centre}, {centre}, []
    for _ in range(depth):
        ring = {o for *_, s, o in rows if s in frontier} | {s for *_, s, o in rows if o in frontier}
        ring -= seen
        rings.append(sorted(ring))
        seen |= ring
        frontier = ring
    return rings


@pytest.mark.parametrize("scan_share", [0.0, engine_common._SCAN_SHARE, 1e9])
@settings(max_examples=60, deadline=None)
@given(facts=st.lists(_FACT, max_size=14), depth=st.integers(1, 4))
def test_rings_are_a_breadth_first_walk_over_every_fact_whenever_it_held(scan_share, facts, depth):
    # With every link found in one pass over the table, by index searches, and as tuned.
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine_common, "_SCAN_SHARE", scan_share)
        path = Path(folder) / "kg.sqlite3"
        with KnowledgeGraph(path) as kg:
            kg.add_entity("e0")
            for subject, predicate, obj, ended in facts:
                kg.add_triple(subject, predicate, obj, valid_from="2019-01-01", valid_to=ended)
            rows = _rows(path)
            found = kg.neighbourhood("e0", depth)
            assert found.centre == "e0" and found.depth == depth
            assert found.rings == _rings(rows, "e0", depth)
            distances = found.distances()
            assert distances["e0"] == 0 and found.size() == len(distances) - 1
            inner = {eid for eid, d in distances.items() if d < depth}
            positions = kg.link_positions([t for t, *_ in rows] + ["t_gone"])
            assert positions == {t: (p, s, o) for t, p, s, o in rows}
            assert found.links == {p: (s, o) for _t, p, s, o in rows if s in inner or o in inner}
            for k, read in enumerate(found.reads):  # each read: the facts of one ring
                ring = found.rings[k - 1] if k else [found.centre]
                assert sorted(read) == sorted(
                    (p, s, o) for _t, p, s, o in rows if s in ring or o in ring
                )
            kept = sorted(distances)[::2]
            among = kg.facts_among(kept)
            assert sorted(f["id"] for f in among) == sorted(
                t for t, _p, s, o in rows if s in kept and o in kept
            )


def test_a_neighbourhood_reads_one_query_per_ring_and_refuses_a_bad_depth(kg, monkeypatch):
    for subject, obj in (("a", "b"), ("b", "c"), ("c", "d"), ("a", "a")):
        kg.add_triple(subject, "knows", obj, valid_from="2020-01-01", valid_to="2021-01-01")
    calls = []
    links = kg._store.facts.links
    monkeypatch.setattr(kg._store.facts, "links", lambda ids: calls.append(ids) or links(ids))
    found = kg.neighbourhood("A", 3)
    assert found.rings == [["b"], ["c"], ["d"]]
    assert calls == [["a"], ["b"], ["c"]]
    # The entity's own links as its facts' table has them (a hub's, read for the window):
    # the same neighbourhood, the first ring not read again.
    own = kg.interval_table("a").links()
    calls.clear()
    again = kg.neighbourhood("A", 3, own)
    assert calls == [["b"], ["c"]]
    assert (again.rings, again.links) == (found.rings, found.links)
    assert sorted(again.reads[0]) == sorted(found.reads[0])
    among = {f["id"]: f for f in kg.facts_among(["a", "b"])}
    assert {(f["subject"], f["object"]) for f in among.values()} == {("a", "b"), ("a", "a")}
    assert all(f["subject_name"] and f["start"] is not None for f in among.values())
    for depth in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="depth"):
            kg.neighbourhood("a", depth)
