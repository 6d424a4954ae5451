"""Big work on a worker thread that still leaves the UI thread its turns.

Python lets another thread run only between two steps of the interpreter, and one step may be
a single long call in C: sorting a list, freeing one. A worker sorting or freeing a
whole-graph read of a million rows that way holds the interpreter's lock for half a second to
a second, and the window, which needs that lock to answer, waits as long. These do the same in
short steps.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import numpy as np

LET_GO_AT_ONCE = 1_000  # rows freed in one step of the interpreter (~2 ms)
# Rows sorted in one step: 20,000 rows by their names' keys (nested tuples) held the lock
# ~60 ms at a million facts.
SORT_AT_ONCE = 5_000

_T = TypeVar("_T")


def let_go(rows: list[Any] | np.ndarray, between: Callable[[], bool] | None = None) -> bool:
    """Empty ``rows`` a slice at a time: the UI thread can take a turn between slices. A numpy
    array of objects keeps its length, each of its items replaced by None. ``between()`` is
    called after each slice (a pause: see :func:`~factlines.ui.jobs.progress.let_go_elsewhere`);
    when it says False, the rest is left as it is and False returned."""
    for end in range(len(rows), 0, -LET_GO_AT_ONCE):
        if isinstance(rows, list):
            del rows[-LET_GO_AT_ONCE:]
        else:
            rows[max(0, end - LET_GO_AT_ONCE) : end] = None
        if between is not None and not between():
            return False
    return True


def let_go_each(groups: dict[Any, list[Any]]) -> None:
    """Empty a dict of lists (rows grouped by a key) a group at a time, each as :func:`let_go`
    does: freed at once, a grouping of a million rows held the lock 60-80 ms."""
    while groups:
        _key, rows = groups.popitem()
        let_go(rows)


def sort_in_turns(rows: list[_T], key: Callable[[_T], Any]) -> None:
    """Sort ``rows`` in place, stable, as ``rows.sort(key=key)``: runs of
    :data:`SORT_AT_ONCE` sorted apart, then merged in Python (about three times the CPU of
    one sort, on the worker, for a list past one run)."""
    if len(rows) <= SORT_AT_ONCE:
        rows.sort(key=key)
        return
    runs = [sorted(rows[i : i + SORT_AT_ONCE], key=key) for i in range(0, len(rows), SORT_AT_ONCE)]
    rows[:] = heapq.merge(*runs, key=key)
