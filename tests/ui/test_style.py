"""Colours every view shares: the predicate palette."""

import math

from hypothesis import given
from hypothesis import strategies as st

from factlines.core.demo import create_demo
from factlines.ui.look import style


def test_palette_is_stable_and_distinct_for_the_demo(tmp_path):
    # Pinned: a predicate keeps its colour across runs and versions (no per-process hash()).
    assert (style.palette_index("works_on"), style.predicate_color_name("works_on")) == (
        8,
        "#6b6ecf",
    )
    assert style.predicate_color_name("lives_in") == "#2e7d32"
    kg = create_demo(str(tmp_path))  # not left behind in the system's temporary folder
    try:
        predicates = kg.predicates()
    finally:
        kg.close()
    colours = {style.predicate_color_name(p) for p in predicates}
    assert len(colours) == len(predicates)
    assert all(c.startswith("#") and len(c) == 7 for c in style.theme().palette)


MIXED = ["FastTool 29", "fasttool 3", b"blob", 2.5, None, "FastTool 3", 1, "Ana", "ana"]


def test_order_ranks_follow_the_sort_key_of_each_value():
    ranks = style.order_ranks(MIXED).tolist()
    by_key = sorted(range(len(MIXED)), key=lambda i: style.order_key(MIXED[i]))
    assert [ranks[i] for i in by_key] == sorted(ranks)  # the order_key order
    # Equal keys share a rank ("FastTool 3" and "fasttool 3" differ only in case) ...
    assert ranks[MIXED.index("fasttool 3")] == ranks[MIXED.index("FastTool 3")]
    assert ranks[MIXED.index("FastTool 3")] < ranks[MIXED.index("FastTool 29")]
    assert style.order_ranks([]).tolist() == []


def test_ids_rank_in_code_point_order_and_any_column_ranks():
    ids = ["t_b_2", "t_a_10", "T_c", "t_a_9"]
    assert style.id_ranks(ids).tolist() == [3, 1, 0, 2]  # as SQLite orders text
    # A BLOB id from raw SQL among them: ranked by the sort keys, each id its own rank.
    mixed = [*ids, b"\x00"]
    assert style.id_ranks(mixed).tolist() == style.order_ranks(mixed).tolist()
    assert style.id_ranks([]).tolist() == []


def tie_ranks(keys, values, rank=style.order_ranks):
    """The reference :func:`style.tie_order` must agree with: ``rank(values)`` where rows tie
    on every one of ``keys``, 0 elsewhere (the app's own way before tie_order), appended to
    the keys of one ``np.lexsort``."""
    import numpy as np

    n = len(values)
    ranks = np.zeros(n, dtype=np.int64)
    if n < 2:
        return ranks
    order = np.lexsort(keys[::-1])
    same = np.ones(n - 1, dtype=bool)
    for key in keys:
        in_order = key[order]
        same &= in_order[1:] == in_order[:-1]
    tied = np.zeros(n, dtype=bool)
    tied[:-1] |= same
    tied[1:] |= same
    rows = order[tied]
    ranks[rows] = rank([values[i] for i in rows.tolist()])
    return ranks


def test_tie_ranks_rank_only_the_rows_the_keys_leave_tied():
    import numpy as np

    first = np.array([2, 1, 2, 1, 3])
    names = ["b", "z", "a", "y", "c"]
    ranks = tie_ranks([first], names)
    assert ranks[4] == 0  # alone on its key: not ranked
    assert ranks[2] < ranks[0] and ranks[3] < ranks[1]  # a before b, y before z
    assert np.lexsort((ranks, first)).tolist() == [3, 1, 2, 0, 4]


def _ranks_by_sort_key(values: list) -> list[int]:
    """Ranks as the tuple keys give them: the reference the text keys must agree with."""
    rank_of = {key: rank for rank, key in enumerate(sorted({style.order_key(v) for v in values}))}
    return [rank_of[style.order_key(v)] for v in values]


@given(
    st.lists(
        st.text(alphabet=st.sampled_from("aAzZ009 _-.éßİ²١\x00\x01\x7f"), max_size=8), max_size=40
    ),
)
def test_text_columns_rank_as_their_sort_keys_say(values):
    # Text columns (a hub's names and ids) are ranked by one string key each; mixed columns
    # by the tuple keys: both must give every column the same order.
    assert style.order_ranks(values).tolist() == _ranks_by_sort_key(values)


def test_numbers_in_text_rank_by_value_and_leading_zeros_only_break_ties():
    values = ["Entity 10", "entity 9", "Entity 009", "Entity 0", "Entity", "Entity 9a", "Éa 1"]
    ranks = style.order_ranks(values).tolist()
    in_order = ["Entity", "Entity 0", "Entity 009", "entity 9", "Entity 9a", "Entity 10", "Éa 1"]
    assert sorted(values, key=lambda v: ranks[values.index(v)]) == in_order
    assert ranks == _ranks_by_sort_key(values)


def test_odd_times_are_the_values_the_time_rules_do_not_accept():
    values = [
        "2025-01-01",
        None,
        "",
        "2025-02-30",
        "never",
        "2025-01-01T10:00:00Z",
        "2025-01-01T10:00:00+00:00",
        " 2025-01-01",
        5,
    ]
    assert style.odd_times(values) == {"", "2025-02-30", "never", " 2025-01-01", 5}
    assert style.odd_times(values) == {value for value in values if style.is_odd_time(value)}
    assert style.odd_times(["2025-01-01", None, "2025-01-01T10:00:00Z"]) == set()
    assert style.odd_times([]) == set()


@given(
    st.lists(
        st.tuples(
            st.integers(0, 2),
            st.sampled_from([0.0, 1.5, -math.inf, math.inf, -0.0]),
            st.sampled_from(["b", "B", "a", "a 2", "a 10", b"x", None, 3]),
            st.sampled_from(["t1", "t2", "T1", "t1"]),  # ids may repeat: ranked by position
        ),
        max_size=30,
    )
)
def test_tie_order_is_the_lexsort_of_the_keys_and_tie_ranks(rows):
    import numpy as np

    keys = [
        np.array([row[0] for row in rows], dtype=np.int64),
        np.array([row[1] for row in rows], dtype=np.float64),
    ]
    names, ids = [row[2] for row in rows], [row[3] for row in rows]
    expected = list(keys)
    expected.append(tie_ranks(expected, names))
    expected.append(tie_ranks(expected, ids, style.id_ranks))
    order = style.tie_order(keys, (names, style.order_ranks), (ids, style.id_ranks))
    assert order.tolist() == np.lexsort(expected[::-1]).tolist()
    assert style.tie_order(keys).tolist() == np.lexsort(keys[::-1]).tolist()
    # Descending, as the facts table sorts: every key and the ids' ranks the other way.
    down = [-key for key in keys]
    expected = [*down, -tie_ranks(keys, ids, style.id_ranks)]
    order = style.tie_order(down, (ids, style.descending(style.id_ranks)))
    assert order.tolist() == np.lexsort(expected[::-1]).tolist()
