"""An entity's facts as read for a window: its columns and time bounds, made when asked."""

from __future__ import annotations

import math

import numpy as np

from factlines.core.columns import FACT_FIELDS
from factlines.core.store.intervals import IntervalTable, bounds_of


def _row(tid: str, subject: str, obj: str, valid_from=None, valid_to=None) -> tuple:
    values = {field: None for field in FACT_FIELDS}
    values.update(
        id=tid,
        subject=subject,
        subject_name=subject.title(),
        predicate="knows",
        object=obj,
        object_name=obj.title(),
        valid_from=valid_from,
        valid_to=valid_to,
    )
    return (*(values[field] for field in FACT_FIELDS), 0)


def test_distinct_values_come_in_first_order_and_are_forgotten_with_the_columns():
    table = IntervalTable(
        "kai",
        [
            _row("a", "kai", "mira", "2020-01-01"),
            _row("b", "ana", "kai", "never", "2021-01-01"),
            _row("c", "kai", "ana", "2020-01-01", "2021-01-01"),
            _row("d", "kai", "bo"),
        ],
    )
    assert list(table.distinct("valid_from")) == ["2020-01-01", "never", None]
    assert list(table.distinct("other")) == ["mira", "ana", "bo"]
    # The bounds read each distinct stored value once, through the same distinct values.
    starts, ends = table.bounds
    assert starts[0] == starts[2] and starts[3] == -math.inf
    assert ends[0] == math.inf and ends[1] == ends[2] != math.inf
    fact = dict(table[1], valid_from="2019-05-05")
    table.put(1, fact)
    assert list(table.distinct("valid_from")) == ["2020-01-01", "2019-05-05", None]


def test_bounds_read_none_as_the_side_unknown_and_keep_every_number():
    seconds = [None, 0.0, -math.inf, math.inf, 1.5e9, None]
    assert bounds_of(seconds, -math.inf).tolist() == [
        -math.inf,
        0.0,
        -math.inf,
        math.inf,
        1.5e9,
        -math.inf,
    ]
    assert bounds_of(seconds, math.inf).tolist()[::5] == [math.inf, math.inf]
    assert bounds_of([], math.inf).dtype == np.float64 and len(bounds_of([], math.inf)) == 0
