"""Colours every view shares: the predicate palette."""

from factlines.core.demo import create_demo
from factlines.ui.look import style


def test_palette_is_stable_and_distinct_for_the_demo():
    # Pinned: a predicate keeps its colour across runs and versions (no per-process hash()).
    assert (style.palette_index("works_on"), style.predicate_color_name("works_on")) == (
        8,
        "#6b6ecf",
    )
    assert style.predicate_color_name("lives_in") == "#2e7d32"
    kg = create_demo()
    try:
        predicates = kg.predicates()
    finally:
        kg.close()
    colours = {style.predicate_color_name(p) for p in predicates}
    assert len(colours) == len(predicates)
    assert all(c.startswith("#") and len(c) == 7 for c in style.theme().palette)
