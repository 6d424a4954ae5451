"""Stored time values the rules do not accept, read as MemPalace reads them.

MemPalace and the store compare a stored ``valid_from`` / ``valid_to`` with the query's key as
text. Whatever a file holds, what the window shows as valid at an instant (the selected
entity's validity mask, which the table, the chart and the graph all read) must be what the
real MemPalace's ``query_entity(as_of=...)`` returns on the same file, and what our store's
returns: never "still open" for an end such as ``2025-06``.
"""

from __future__ import annotations

import math
import sqlite3
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from factlines import KnowledgeGraph
from factlines.core import temporal
from factlines.ui.session.entity_facts import EntityFacts
from store_helpers import mempalace_class

pytestmark = pytest.mark.interop

MALFORMED = [
    "",
    " ",
    "2025",
    "2025-06",
    "2025-6-1",
    "2025-06-01 10:00",
    "2025-06-01 10:00:00",
    "2025-06-01T10:00:00+02:00",
    "2025-06-01T10:00:00-05:00",
    "2025-06-01T10:00:00",
    "2025-06-01T10:00:00.5Z",
    "2025-06-01T24:00:00Z",
    "2025-06-01T19:99:00Z",
    "0000-00-00",
    "2025-13-45",
    "2025-02-30",
    "2025-06-31",
    " 2025-06-01",
    "2025-06-01 ",
    "2025/06/01",
    "10000-01-01",
    "9999-12-31T23:59:60Z",
    "never",
    "unknown",
    "yesterday",
    "n/a",
    "ÿ",
    "😀",
]
WELL_FORMED = [
    "2025-06-01",
    "2025-05-31",
    "2025-06-01T10:00:00Z",
    "2025-06-01T00:00:00Z",
    "0001-01-01",
    "9999-12-31",
    "9999-12-31T23:59:59Z",
]

# Around the values above, plus whatever random text comes up.
days = st.dates(date(2024, 1, 1), date(2026, 12, 31)).map(date.isoformat)
stored = st.one_of(
    st.none(),
    st.sampled_from(MALFORMED + WELL_FORMED),
    days,
    st.text(alphabet="0123456789-: TZ+", max_size=22),
    st.text(max_size=6),
)
moments = st.one_of(
    st.datetimes(datetime(2024, 1, 1), datetime(2026, 12, 31)),
    st.sampled_from(
        [
            datetime(2025, 5, 31, 23, 59, 59),
            datetime(2025, 6, 1),
            datetime(2025, 6, 1, 9, 59, 59),
            datetime(2025, 6, 1, 10),
            datetime(2025, 6, 1, 10, 0, 1),
            datetime(2025, 3, 1),
            datetime(2026, 1, 1),
            datetime(1, 1, 1),
            datetime(9999, 12, 31, 23, 59, 59),
        ]
    ),
)
as_of_values = st.one_of(
    moments.map(lambda m: f"{m.year:04d}-{m:%m-%dT%H:%M:%S}Z"),
    moments.map(lambda m: f"{m.year:04d}-{m:%m-%d}"),
)

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _write(path, facts: list[tuple]) -> None:
    """Kai's facts, one object each, written as MemPalace writes them where it accepts the
    values and with raw SQL where it does not (the file is MemPalace's either way)."""
    mempalace = mempalace_class()(str(path))
    mempalace.add_entity("Kai")
    conn = sqlite3.connect(str(path))
    try:
        for i, (valid_from, valid_to) in enumerate(facts):
            conn.execute("INSERT INTO entities (id, name) VALUES (?, ?)", (f"o{i}", f"O{i}"))
            conn.execute(
                "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
                "VALUES (?, 'kai', 'knows', ?, ?, ?)",
                (f"t{i}", f"o{i}", valid_from, valid_to),
            )
        conn.commit()
    finally:
        conn.close()
    mempalace.close()


@SETTINGS
@given(
    facts=st.lists(st.tuples(stored, stored), min_size=1, max_size=12),
    instants=st.lists(as_of_values, min_size=1, max_size=8),
)
@example(facts=[(None, "2025-06"), ("2025-06", None)], instants=["2030-01-01", "2024-01-01"])
@example(facts=[(None, "2025-06-01 10:00")], instants=["2025-05-31T23:59:59Z", "2025-06-01"])
@example(facts=[("2025-02-30", "2025-13-45")], instants=["2025-03-01", "2025-12-31T23:59:59Z"])
@example(facts=[(None, "2025-06-01T10:00:00+02:00")], instants=["2025-06-01T09:59:59Z"])
@example(facts=[("never", "never"), ("", "")], instants=["2025-06-01"])
def test_the_windows_validity_is_mempalaces_at_every_instant(tmp_path_factory, facts, instants):
    path = tmp_path_factory.mktemp("values") / "knowledge_graph.sqlite3"
    _write(path, facts)
    mempalace = mempalace_class()(str(path))
    kg = KnowledgeGraph(path)
    try:
        rows = EntityFacts(kg, "kai", None)
        rows.read_facts()
        objects = [fact["object"] for fact in rows.facts]
        for as_of in instants:
            rows.move_to(temporal.to_posix(temporal.start_key(as_of)))
            shown = sorted(obj for obj, valid in zip(objects, rows.valid) if valid)
            theirs = sorted(
                f"o{int(r['object'][1:])}" for r in mempalace.query_entity("Kai", as_of=as_of)
            )
            ours = sorted(f"o{int(r['object'][1:])}" for r in kg.query_entity("Kai", as_of=as_of))
            assert shown == theirs == ours, (as_of, facts)
    finally:
        kg.close()
        mempalace.close()


@pytest.mark.parametrize(
    ("value", "start", "end"),
    [
        # A partial date compares as text below every instant of its month (or year).
        ("2025-06", "2025-06-01T00:00:00Z", "2025-06-01T00:00:00Z"),
        ("2025", "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
        # A space sorts before "T": the day's first instant.
        ("2025-06-01 10:00", "2025-06-01T00:00:00Z", "2025-06-01T00:00:00Z"),
        # "+" sorts before "Z": the offset is not applied, the written time is.
        ("2025-06-01T10:00:00+02:00", "2025-06-01T10:00:00Z", "2025-06-01T10:00:00Z"),
        # An impossible day: the next day that exists.
        ("2025-02-30", "2025-03-01T00:00:00Z", "2025-03-01T00:00:00Z"),
        ("2025-13-45", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
    ],
)
def test_a_value_the_rules_refuse_counts_from_where_its_text_sorts(value, start, end):
    assert not temporal.is_accepted(value)
    assert temporal.start_posix(value) == temporal.to_posix(start)
    assert temporal.end_posix(value) == temporal.to_posix(end)


@pytest.mark.parametrize("value", ["", "0000-00-00", " 2025-06-01", "-"])
def test_an_end_below_every_instant_is_an_end_nobody_knows_never_open(value):
    assert temporal.end_posix(value) == -math.inf  # valid nowhere
    assert temporal.start_posix(value) == -math.inf  # as a start: unknown


@pytest.mark.parametrize("value", ["never", "unknown", "ÿ", b"\x00"])
def test_text_after_every_instant_never_starts_and_never_ends(value):
    assert temporal.start_posix(value) == math.inf  # valid nowhere
    assert temporal.end_posix(value) == math.inf  # every as_of query returns it


@pytest.mark.parametrize("value", ["2025-06-01", "2025-06-01T10:00:00Z", "9999-12-31"])
def test_accepted_values_keep_their_keys(value):
    assert temporal.is_accepted(value)
    assert temporal.start_posix(value) == temporal.to_posix(temporal.start_key(value))
    assert temporal.end_posix(value) == temporal.to_posix(temporal.end_key(value))


def test_the_threshold_is_exact_to_the_second():
    # Every instant of 2025-06-01 sorts below "2025-06-01U": the end is the next midnight.
    end = temporal.end_posix("2025-06-01U")
    first_of_june_2 = datetime(2025, 6, 2, tzinfo=timezone.utc)
    assert end == first_of_june_2.timestamp()
    assert (
        temporal.end_posix("2025-06-01T10:00:00ZZ")
        == (datetime(2025, 6, 1, 10, tzinfo=timezone.utc) + timedelta(seconds=1)).timestamp()
    )


@pytest.mark.parametrize("value", ["2025-02-30", "0000-00-00", "2025-13-45T00:00:00Z", "x"])
def test_a_day_that_does_not_exist_has_no_calendar_day(value):
    assert temporal.calendar_day(value) is None
    assert temporal.to_posix(value) is None
