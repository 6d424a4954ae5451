"""What a write means for the neighbourhood drawn: nothing, a restyle, or a new layout."""

from __future__ import annotations

from factlines.core.store import Touched
from factlines.core.store.neighbourhood import Neighbourhood
from factlines.ui.graph.writes import NOTHING, REBUILD, RESTYLE, Drawn


class Store:
    """Stands in for the graph: each fact's (position, subject, object) as it is now."""

    def __init__(self, facts: dict[str, tuple]):
        self.facts = facts

    def link_positions(self, ids):
        return {tid: self.facts[tid] for tid in ids if tid in self.facts}


def drawn() -> tuple[Drawn, Store, dict]:
    # c - a - x at depth 2; "f1" (c, a) is drawn, "f2" (a, y) links a to a node not kept.
    hood = Neighbourhood(
        "c", [["a"], ["x", "y"]], [[(1, "c", "a")], [(1, "c", "a"), (2, "a", "x"), (3, "a", "y")]]
    )
    row = {"id": "f1", "predicate": "knows", "valid_to": None}
    store = Store({"f1": (1, "c", "a"), "f2": (3, "a", "y"), "f3": (9, "x", "q")})
    return Drawn(hood, {"c", "a", "x"}, {"f1": row}), store, row


def test_a_drawn_fact_retimed_is_restyled_in_place():
    view, store, row = drawn()
    read = {"id": "f1", "predicate": "knows", "valid_to": "2026-01-01"}
    assert view.after_write(Touched(facts={"f1"}), store, lambda _tid: read) == RESTYLE
    assert row["valid_to"] == "2026-01-01"
    assert view.after_write(Touched(facts={"f2"}), store, None) == NOTHING  # not drawn, not moved
    assert view.after_write(Touched(facts={"f3"}), store, None) == NOTHING  # beyond the rings
    assert view.after_write(Touched(), store, None) == NOTHING


def test_a_link_added_moved_or_removed_lays_out_again():
    view, store, _row = drawn()
    moved = {"id": "f1", "predicate": "uses"}
    assert view.after_write(Touched(facts={"f1"}), store, lambda _tid: moved) == REBUILD
    store.facts["f2"] = (3, "a", "z")  # its object changed
    assert view.after_write(Touched(facts={"f2"}), store, None) == REBUILD
    store.facts["f4"] = (10, "z", "a")  # new, touching a ring inside
    assert view.after_write(Touched(facts={"f4"}), store, None) == REBUILD
    assert view.after_write(Touched(facts={"gone"}), store, None) == REBUILD
    assert view.after_write(Touched(entities={"x"}), store, None) == REBUILD  # a name drawn
    assert view.after_write(Touched(entities={"q"}), store, None) == NOTHING
    assert view.after_write(Touched.all_rows(), store, None) == REBUILD
