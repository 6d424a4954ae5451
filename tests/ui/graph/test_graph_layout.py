"""Which neighbours the graph keeps and where it puts them: plain Python, no widgets."""

from __future__ import annotations

import itertools
import math
import random

from factlines.core.store.neighbourhood import Neighbourhood
from factlines.ui.graph import layout


def star(centre: str, spokes: dict[str, int], outer: dict[str, list[str]] | None = None):
    """A neighbourhood: ``spokes`` neighbours with that many facts each to the centre, and
    ``outer`` a second ring hanging from some of them (one fact each)."""
    rows: list[tuple] = []
    for eid, count in spokes.items():
        for _ in range(count):
            rows.append((len(rows), centre, eid))
    rings, reads = [sorted(spokes)], [rows]
    if outer is not None:
        second, read = set(), []
        for inner, names in outer.items():
            for name in names:
                read.append((len(rows) + len(read), name, inner))
                second.add(name)
        rings.append(sorted(second))
        reads.append(read)
    return Neighbourhood(centre, rings, reads)


def test_a_capped_ring_keeps_the_most_linked_then_by_id_and_says_what_it_left_out():
    hood = star("c", {"a": 1, "b": 3, "d": 2, "e": 3, "f": 1})
    kept = layout.keep(hood, 3)
    assert kept.rings == [["b", "e", "d"]]
    assert kept.left_out == ["a", "f"]
    assert (kept.shown, kept.total) == (3, 5)
    assert kept.links == {("c", "b"): 3, ("c", "e"): 3, ("c", "d"): 2}
    assert layout.keep(hood, 10).left_out == []


def test_the_second_ring_keeps_only_what_a_kept_neighbour_leads_to():
    hood = star("c", {"a": 2, "b": 1}, {"a": ["x", "y"], "b": ["z"]})
    kept = layout.keep(hood, 1)
    assert kept.rings == [["a"], ["x"]]
    assert kept.totals == [2, 3]
    assert kept.left_out == ["b", "y", "z"]  # z hangs from b, which is not drawn


def test_the_choice_does_not_depend_on_the_order_facts_were_read_in():
    rng = random.Random(3)
    hood = star("c", {f"n{i}": rng.randint(1, 4) for i in range(60)})
    rows = list(hood.reads[0])
    rng.shuffle(rows)
    shuffled = Neighbourhood("c", hood.rings, [rows])
    assert layout.keep(shuffled, 40).rings == layout.keep(hood, 40).rings


def test_one_ring_goes_evenly_round_from_the_top_and_spreads_when_crowded():
    few = layout.place(layout.keep(star("o", dict.fromkeys("abcd", 1)), 40), {})
    assert few["o"].x == few["o"].y == 0
    angles = sorted(few[e].angle for e in "abcd")
    assert math.isclose(angles[0], layout.TOP)
    assert all(math.isclose(b - a, math.pi / 2) for a, b in itertools.pairwise(angles))
    assert all(math.isclose(math.hypot(few[e].x, few[e].y), layout.FIRST_RADIUS) for e in "abcd")
    many = layout.place(layout.keep(star("c", {f"n{i:02d}": 1 for i in range(40)}), 40), {})
    ring = sorted((n for n in many.values() if n.ring), key=lambda n: n.angle)
    for a, b in itertools.pairwise(ring):
        assert math.hypot(a.x - b.x, a.y - b.y) >= layout.SPACING * 0.99
        assert a.room >= layout.SPACING * 0.99


def test_siblings_follow_the_order_and_children_sit_in_their_parents_share():
    hood = star("c", {"a": 1, "b": 1, "d": 1}, {"a": ["x", "y", "z"], "d": ["w"]})
    order = {"a": (2,), "b": (1,), "d": (3,), "x": (3,), "y": (1,), "z": (2,)}
    nodes = layout.place(layout.keep(hood, 40), order)
    assert [n.id for n in sorted(nodes.values(), key=lambda n: n.angle) if n.ring == 1] == [
        "b",
        "a",
        "d",
    ]
    assert nodes["x"].parent == "a" and nodes["w"].parent == "d"
    around_a = sorted(("x", "y", "z"), key=lambda e: nodes[e].angle)
    assert around_a == ["y", "z", "x"]
    assert nodes["y"].angle < nodes["a"].angle < nodes["x"].angle  # a in the middle of its own
    outer = min(math.hypot(nodes[e].x, nodes[e].y) for e in "xyzw")
    assert outer >= layout.FIRST_RADIUS + layout.RING_GAP - 1e-9


def _fact(tid, subject, predicate, obj):
    return {"id": tid, "subject": subject, "predicate": predicate, "object": obj}


def test_edges_join_rings_one_apart_grouped_by_predicate_and_direction():
    hood = star("c", {"a": 1, "b": 1}, {"a": ["x"]})
    nodes = layout.place(layout.keep(hood, 40), {})
    facts = [
        _fact("1", "c", "knows", "a"),
        _fact("2", "c", "knows", "a"),
        _fact("3", "a", "knows", "c"),  # the other way: an edge of its own
        _fact("4", "c", "uses", "a"),
        _fact("5", "a", "knows", "b"),  # same ring: not drawn
        _fact("6", "x", "likes", "a"),
        _fact("7", "x", "likes", "b"),  # b is not x's parent: drawn, not primary
        _fact("8", "c", "likes", "x"),  # two rings apart: not drawn
    ]
    drawn = {(e.inner, e.outer, e.predicate, e.outgoing): e for e in layout.edges(facts, nodes)}
    assert set(drawn) == {
        ("c", "a", "knows", True),
        ("c", "a", "knows", False),
        ("c", "a", "uses", True),
        ("a", "x", "likes", False),
        ("b", "x", "likes", False),
    }
    assert [f["id"] for f in drawn["c", "a", "knows", True].facts] == ["1", "2"]
    bends = sorted(e.bend for e in drawn.values() if e.outer == "a")
    assert bends[0] == -bends[-1] != 0 and bends[1] == 0
    assert drawn["a", "x", "likes", False].primary
    assert not drawn["b", "x", "likes", False].primary


def test_labels_take_their_first_free_place_in_order_or_are_left_out():
    nodes = {"a": (0, 0, 10, 10), "b": (100, 0, 110, 10)}
    labels = [
        ("a", [(12, 0, 60, 10)]),
        ("b", [(40, 0, 98, 10), (100, 12, 158, 22)]),  # covers a's label: its second place
        ("c", [(200, 0, 260, 10)]),  # outside the bounds
        ("d", [(0, 20, 50, 30)]),
        ("e", [(95, 2, 105, 8), (0, 25, 40, 32)]),  # covers node b, then d's label
        ("f", [(0, 40, 50, 50)]),  # under the legend
    ]
    bounds = (0, 0, 250, 100)
    chosen = layout.fitting_labels(labels, nodes, bounds, blocked=[(0, 35, 60, 60)])
    assert chosen == {"a": 0, "b": 1, "d": 0}
    assert layout.fitting_labels(labels[1:2], nodes, bounds, []) == {"b": 0}
