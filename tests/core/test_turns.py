"""Big sorts and frees on a worker cut into short steps, with the same results."""

from __future__ import annotations

import weakref

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from factlines.core import turns


def test_a_read_lets_its_rows_go_a_slice_at_a_time():
    class Watched(list):
        def __delitem__(self, index):
            sizes.append(len(self[index]))
            super().__delitem__(index)

    sizes: list[int] = []
    rows = Watched(range(turns.LET_GO_AT_ONCE * 2 + 5))
    turns.let_go(rows)
    assert rows == [] and sizes == [turns.LET_GO_AT_ONCE, turns.LET_GO_AT_ONCE, 5]


def test_an_array_of_objects_keeps_its_length_and_lets_its_items_go_until_told_to_stop():
    class Item:
        pass

    items = [Item() for _ in range(turns.LET_GO_AT_ONCE * 3)]
    alive = [weakref.ref(item) for item in items]
    column = np.fromiter(items, dtype=object, count=len(items))
    del items
    slices = []
    turns.let_go(column, lambda: slices.append(1) or len(slices) < 2)  # stop after the second
    assert len(column) == turns.LET_GO_AT_ONCE * 3
    assert sum(ref() is None for ref in alive) == turns.LET_GO_AT_ONCE * 2
    assert all(item is None for item in column[turns.LET_GO_AT_ONCE :])
    assert all(ref() is not None for ref in alive[: turns.LET_GO_AT_ONCE])


def test_rows_grouped_by_a_key_are_let_go_a_group_and_a_slice_at_a_time(monkeypatch):
    # Freeing a dict of a million grouped rows at once held the interpreter's lock 60-80 ms.
    emptied = []
    monkeypatch.setattr(turns, "let_go", lambda rows: emptied.append(len(rows)) or rows.clear())
    groups = {"kai": [1, 2, 3], "rosa": [4], "nova": []}
    kai = groups["kai"]
    turns.let_go_each(groups)
    assert groups == {} and kai == [] and sorted(emptied) == [0, 1, 3]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers()), max_size=60), st.integers(1, 7))
def test_a_sort_in_turns_is_the_stable_sort(rows, at_once):
    expected = sorted(rows, key=lambda row: row[0])
    was, turns.SORT_AT_ONCE = turns.SORT_AT_ONCE, at_once
    try:
        sorted_in_turns = list(rows)
        turns.sort_in_turns(sorted_in_turns, key=lambda row: row[0])
    finally:
        turns.SORT_AT_ONCE = was
    assert sorted_in_turns == expected


def test_a_sort_past_one_run_is_cut_into_runs(monkeypatch):
    sorted_runs = []
    real_sorted = sorted
    monkeypatch.setattr(turns, "SORT_AT_ONCE", 10)
    monkeypatch.setitem(
        turns.__dict__,
        "sorted",
        lambda rows, key: sorted_runs.append(len(rows)) or real_sorted(rows, key=key),
    )
    rows = list(range(35, 0, -1))
    turns.sort_in_turns(rows, key=lambda n: n)
    assert rows == list(range(1, 36)) and sorted_runs == [10, 10, 10, 5]
