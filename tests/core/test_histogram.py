"""The validity histogram brought up to date with a write's old and new times
(:func:`factlines.core.histogram.patched`), against the store counting again.

The graphs are written as raw rows and edited through a second connection, as MemPalace and
old files hold them: inverted intervals, ``""``, ``+00:00`` instants, impossible days.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factlines import KnowledgeGraph
from factlines.core.histogram import patched
from store_helpers import raw_rows_graph

DAY0 = date(2020, 3, 1)
days = st.integers(0, 3).map(lambda d: (DAY0 + timedelta(days=d)).isoformat())
times = st.sampled_from(["T00:00:00Z", "T00:00:01Z", "T12:00:00Z", "T23:59:59Z"])
plain = st.one_of(days, st.builds(lambda d, t: d + t, days, times))
odd = st.sampled_from(["", "2020-03-02T00:00:00+00:00", "2020-02-30", "soon", " 2020-03-02"])
values = st.one_of(st.none(), plain, plain, plain, odd)
interval = st.tuples(values, values)
rows = st.lists(interval, min_size=1, max_size=12)
# (which fact: an index into the rows, or None for a new one; its times after, None: deleted)
edits = st.lists(
    st.tuples(st.one_of(st.none(), st.integers(0, 11)), st.one_of(st.none(), interval))
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def graph(intervals, valid_to_index: bool = True):
    """A graph holding facts t000… with ``intervals`` as stored, and a second connection."""
    rows = [("ann", "bob", *times) for times in intervals]
    with raw_rows_graph(rows, valid_to_index) as path, KnowledgeGraph(path) as kg:
        other = sqlite3.connect(str(path), isolation_level=None)
        try:
            yield kg, other
        finally:
            other.close()


def insert(conn: sqlite3.Connection, fact_id: str, times) -> None:
    conn.execute(
        "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
        "VALUES (?, 'ann', 'p', 'bob', ?, ?)",
        (fact_id, *times),
    )


def write(conn: sqlite3.Connection, intervals, wanted) -> list:
    """Apply ``wanted`` edits to the graph (and to ``intervals``); each fact's (before, after)."""
    now = dict(enumerate(intervals))
    first: dict[int, object] = {}
    for which, times in wanted:
        key = len(now) + len(first) + 100 if which is None or which not in now else which
        first.setdefault(key, now.get(key))
        fact_id = f"t{key:03d}"
        conn.execute("DELETE FROM triples WHERE id = ?", (fact_id,))
        now.pop(key, None)
        if times is not None:
            insert(conn, fact_id, times)
            now[key] = times
    return [(before, now.get(key)) for key, before in first.items()]


@SETTINGS
@given(intervals=rows, wanted=edits, bins=st.integers(1, 9), index=st.booleans())
def test_a_patched_histogram_is_the_histogram_counted_again(intervals, wanted, bins, index):
    with graph(intervals, valid_to_index=index) as (kg, other):
        histogram = kg.validity_histogram(bins)
        changes = write(other, intervals, wanted)
        found = patched(histogram, changes)
        if found is not None:
            assert found == kg.validity_histogram(bins)


SPAN = [("2020-01-01", "2020-12-31"), ("2020-03-01", None), ("2020-06-01", "2020-07-01")]


@pytest.mark.parametrize(
    "changes",
    [
        [(("2020-03-01", None), ("2020-03-01", "2020-05-01"))],  # ended
        [(("2020-06-01", "2020-07-01"), ("2020-06-01", None))],  # its end taken back
        [(None, ("2020-02-01T10:00:00Z", None))],  # added
        [(("2020-06-01", "2020-07-01"), None)],  # deleted
        [(("2020-06-01", "2020-07-01"), ("2020-07-01", "2020-06-01"))],  # inverted
        [(None, (None, "2020-04-01"))],  # from an unknown start
        [(None, ("2020-01-01", "2020-12-31")), (("2020-01-01", "2020-12-31"), None)],  # ends held
    ],
)
def test_an_edit_inside_the_span_moves_only_its_counts(changes):
    with graph(SPAN) as (kg, other):
        histogram = kg.validity_histogram(40)
        for i, (before, after) in enumerate(changes):
            fact_id = next(
                (f"t{k:03d}" for k, times in enumerate(SPAN) if times == before), f"new{i}"
            )
            other.execute("DELETE FROM triples WHERE id = ?", (fact_id,))
            if after is not None:
                insert(other, fact_id, after)
        assert patched(histogram, changes) == kg.validity_histogram(40)


@pytest.mark.parametrize(
    "changes",
    [
        [(None, ("2019-12-31", None))],  # before the span: the edges move
        [(None, ("2020-06-01", "2021-01-01"))],  # past it
        [(("2020-01-01", "2020-12-31"), None)],  # the span's ends, held by no fact now
        [(("2020-06-01", "2020-07-01"), ("2020-06-01", ""))],  # MemPalace's "": compared as text
        [(None, ("2020-06-01T00:00:00+00:00", None))],  # accepted, not as the rules store it
        [(None, ("2020-02-30", None))],  # no such day
    ],
)
def test_what_would_move_the_edges_or_is_compared_as_text_is_counted_again(changes):
    with graph(SPAN) as (kg, _other):
        assert patched(kg.validity_histogram(40), changes) is None


def test_no_dated_fact_is_counted_again():
    with graph([(None, None)]) as (kg, _other):
        empty = kg.validity_histogram(10)
        assert empty["valid"] == []
        assert patched(empty, [(None, ("2020-03-01", None))]) is None
