"""Contract section 2, the time values: accepted and refused forms, keys, the validity rule.

Each rule is checked through the Python function and, where the store evaluates it in SQL,
through the store (``query_entity(as_of=...)``), since both paths must agree.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

import pytest

from factlines.core import temporal
from factlines.core.store.sqlite import timesql
from factlines.core.temporal import TimeValueError
from store_helpers import dump

ACCEPTED = [
    ("2026-03-01", "2026-03-01"),
    ("2024-02-29", "2024-02-29"),
    ("2026-03-01T14:30:00Z", "2026-03-01T14:30:00Z"),
    ("2026-03-01T14:30:00+00:00", "2026-03-01T14:30:00Z"),
    ("2026-12-31T23:59:59Z", "2026-12-31T23:59:59Z"),
    ("1999-01-01T00:00:00+00:00", "1999-01-01T00:00:00Z"),
]

REFUSED = {
    "year only": "2026",
    "year and month": "2026-03",
    "impossible day": "2026-02-30",
    "no leap day": "2025-02-29",
    "month 13": "2026-13-01",
    "other offset": "2026-03-01T14:30:00-05:00",
    "positive offset": "2026-03-01T14:30:00+02:00",
    "naive datetime": "2026-03-01T14:30:00",
    "fractional seconds": "2026-03-01T14:30:00.250Z",
    "space instead of T": "2026-03-01 14:30:00Z",
    "hour 24": "2026-03-01T24:00:00Z",
    "minutes only": "2026-03-01T14:30Z",
    "lower-case z": "2026-03-01T14:30:00z",
    "word": "yesterday",
    "slashes": "2026/03/01",
    "unpadded": "2026-3-1",
}


def _check_message(exc: BaseException, field: str) -> None:
    text = str(exc)
    assert field in text, text
    assert "YYYY-MM-DD" in text and "YYYY-MM-DDTHH:MM:SSZ" in text, text


@pytest.mark.parametrize(("value", "stored"), ACCEPTED)
def test_accepted_forms_and_their_stored_form(value, stored):
    assert temporal.parse(value, "valid_from") == stored


@pytest.mark.parametrize(("value", "stored"), ACCEPTED)
def test_the_store_writes_the_stored_form(kg, value, stored):
    tid = kg.add_triple("a", "p", "b", valid_from=value, valid_to=value)
    fact = kg.get_fact(tid)
    assert (fact["valid_from"], fact["valid_to"]) == (stored, stored)


def test_none_means_unknown_or_open():
    assert temporal.parse(None, "valid_to") is None


@pytest.mark.parametrize("value", list(REFUSED.values()), ids=list(REFUSED))
@pytest.mark.parametrize("field", ["valid_from", "as_of", "ended"])
def test_refused_forms_name_the_field_and_the_expected_forms(value, field):
    with pytest.raises(TimeValueError) as info:
        temporal.parse(value, field)
    _check_message(info.value, field)
    assert isinstance(info.value, ValueError)  # callers catching MemPalace's ValueError still do


@pytest.mark.parametrize("value", [20260301, datetime(2026, 3, 1, tzinfo=timezone.utc), b"2026"])
def test_non_strings_are_refused(value):
    with pytest.raises(TimeValueError, match="valid_to"):
        temporal.parse(value, "valid_to")


# Every store entry point that takes a time value, as (call, field named in the error).
STORE_ENTRY_POINTS = {
    "add_triple valid_from": (
        lambda kg, v: kg.add_triple("a", "p", "b", valid_from=v),
        "valid_from",
    ),
    "add_triple valid_to": (lambda kg, v: kg.add_triple("a", "p", "b", valid_to=v), "valid_to"),
    "invalidate ended": (lambda kg, v: kg.invalidate("x", "p", "y", ended=v), "ended"),
    "supersede at": (lambda kg, v: kg.supersede("x", "p", "y", "z", at=v), "at"),
    "query_entity as_of": (lambda kg, v: kg.query_entity("x", as_of=v), "as_of"),
    "query_relationship as_of": (lambda kg, v: kg.query_relationship("p", as_of=v), "as_of"),
    "update_fact valid_from": (
        lambda kg, v: kg.update_fact(kg.find_open_fact("x", "p", "y")["id"], valid_from=v),
        "valid_from",
    ),
}


@pytest.mark.parametrize("value", ["2026-02-30", "2026-03-01T14:30:00", "2026-03"])
@pytest.mark.parametrize("entry", list(STORE_ENTRY_POINTS.values()), ids=list(STORE_ENTRY_POINTS))
def test_the_store_refuses_bad_times_everywhere_and_writes_nothing(kg, kg_path, entry, value):
    kg.add_triple("x", "p", "y", valid_from="2020-01-01")
    before = dump(kg_path)
    call, field = entry
    with pytest.raises(TimeValueError) as info:
        call(kg, value)
    _check_message(info.value, field)
    assert dump(kg_path) == before


# ── Comparison keys ───────────────────────────────────────────────────────

KEYS = [
    ("2026-03-01", "2026-03-01T00:00:00Z", "2026-03-01T23:59:59Z"),
    ("2026-03-01T14:30:00Z", "2026-03-01T14:30:00Z", "2026-03-01T14:30:00Z"),
    (None, None, None),
]


@pytest.mark.parametrize(("value", "start", "end"), KEYS)
def test_start_and_end_keys(value, start, end):
    assert temporal.start_key(value) == start
    assert temporal.end_key(value) == end


@pytest.mark.parametrize(("value", "start", "end"), KEYS)
def test_sql_keys_are_the_python_keys(value, start, end):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.execute("INSERT INTO t VALUES (?)", (value,))
    row = conn.execute(f"SELECT {timesql.start_key('v')}, {timesql.end_key('v')} FROM t").fetchone()
    assert row == (start, end)


def test_posix_round_trip():
    seconds = temporal.to_posix("2026-03-01T14:30:00Z")
    assert seconds == datetime(2026, 3, 1, 14, 30, tzinfo=timezone.utc).timestamp()
    assert temporal.from_posix(seconds + 0.9) == "2026-03-01T14:30:00Z"
    assert temporal.to_posix("2026-03-01") == temporal.to_posix("2026-03-01T00:00:00Z")


@pytest.mark.parametrize(
    "instant", ["0001-01-01T00:00:00Z", "0800-12-25T00:00:00Z", "9999-12-31T23:59:59Z"]
)
def test_posix_round_trip_keeps_four_digit_years(instant):
    assert temporal.from_posix(temporal.to_posix(instant)) == instant


# ── The validity rule, through Python and through the store's SQL ─────────


def _valid_python(kg, valid_from, valid_to, as_of):
    return temporal.is_valid_at(valid_from, valid_to, temporal.start_key(as_of))


def _valid_sql(kg, valid_from, valid_to, as_of):
    tid = kg.add_triple("probe", "holds", "thing", valid_from=valid_from, valid_to=valid_to)
    try:
        return any(row["id"] == tid for row in kg.query_entity("probe", as_of=as_of))
    finally:
        kg.delete_fact(tid)


PATHS = pytest.mark.parametrize("valid", [_valid_python, _valid_sql], ids=["python", "sql"])

RULE_CASES = [
    # (valid_from, valid_to, as_of, expected)
    (None, None, "1900-01-01", True),
    (None, None, "2999-12-31T23:59:59Z", True),
    # a date-only valid_to covers its last day, not the next
    (None, "2026-03-01", "2026-03-01", True),
    (None, "2026-03-01", "2026-03-01T23:59:58Z", True),
    (None, "2026-03-01", "2026-03-01T23:59:59Z", False),
    (None, "2026-03-01", "2026-03-02", False),
    # one day, 2026-05-06 .. 2026-05-06
    ("2026-05-06", "2026-05-06", "2026-05-06T15:00:00Z", True),
    ("2026-05-06", "2026-05-06", "2026-05-06", True),
    ("2026-05-06", "2026-05-06", "2026-05-05T23:59:59Z", False),
    ("2026-05-06", "2026-05-06", "2026-05-07T00:00:00Z", False),
    # instants: start included, end excluded
    ("2026-05-06T10:00:00Z", None, "2026-05-06T10:00:00Z", True),
    ("2026-05-06T10:00:00Z", None, "2026-05-06T09:59:59Z", False),
    (None, "2026-05-06T10:00:00Z", "2026-05-06T10:00:00Z", False),
    (None, "2026-05-06T10:00:00Z", "2026-05-06T09:59:59Z", True),
    # a date as_of is its first second
    ("2026-05-06T00:00:01Z", None, "2026-05-06", False),
    ("2026-05-06T00:00:00Z", None, "2026-05-06", True),
    (None, "2026-05-06T00:00:00Z", "2026-05-06", False),
]


@PATHS
@pytest.mark.parametrize(("valid_from", "valid_to", "as_of", "expected"), RULE_CASES)
def test_validity_rule(kg, valid, valid_from, valid_to, as_of, expected):
    assert valid(kg, valid_from, valid_to, as_of) is expected


def test_plus_zero_offset_as_of_is_the_z_instant(kg):
    kg.add_triple("a", "p", "b", valid_from="2026-05-06T10:00:00Z")
    assert kg.query_entity("a", as_of="2026-05-06T10:00:00+00:00")
    assert not kg.query_entity("a", as_of="2026-05-06T09:59:59+00:00")


def _holders(kg, as_of):
    return sorted(row["object"] for row in kg.query_entity("alice", as_of=as_of))


def test_invalidate_then_add_on_one_day_overlap_on_that_day(kg):
    kg.add_triple("alice", "works_at", "acme", valid_from="2026-01-01")
    kg.invalidate("alice", "works_at", "acme", ended="2026-05-06")
    kg.add_triple("alice", "works_at", "globex", valid_from="2026-05-06")
    assert _holders(kg, "2026-05-06") == ["acme", "globex"]
    assert _holders(kg, "2026-05-06T23:59:58Z") == ["acme", "globex"]
    assert _holders(kg, "2026-05-07") == ["globex"]


def test_supersede_on_a_day_hands_over_at_its_first_second(kg):
    kg.add_triple("alice", "works_at", "acme", valid_from="2026-01-01")
    kg.supersede("alice", "works_at", "acme", "globex", at="2026-05-06")
    old = kg.query_entity("alice")[0]
    assert old["valid_to"] == "2026-05-06T00:00:00Z"
    assert kg.find_open_fact("alice", "works_at", "globex")["valid_from"] == old["valid_to"]
    assert _holders(kg, "2026-05-06") == ["globex"]
    assert _holders(kg, "2026-05-05T23:59:59Z") == ["acme"]


# ── Interval checks ───────────────────────────────────────────────────────

INVERTED = [
    ("2026-03-02", "2026-03-01"),
    ("2026-03-01T00:00:01Z", "2026-02-28T23:59:59Z"),
    ("2026-03-02T00:00:00Z", "2026-03-01"),
    ("2026-03-01", "2026-02-28T23:59:59Z"),
]
EQUAL_OR_ORDERED = [
    ("2026-03-01", "2026-03-01"),
    ("2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z"),
    ("2026-03-01T23:59:59Z", "2026-03-01"),  # end key of the day equals the instant
    ("2026-03-01", "2026-03-01T00:00:00Z"),
    ("2026-03-01", "2026-03-02"),
]


@pytest.mark.parametrize(("valid_from", "valid_to"), INVERTED)
def test_inverted_interval_refused(kg, kg_path, valid_from, valid_to):
    with pytest.raises(TimeValueError, match=r"valid_to=.* is before valid_from="):
        temporal.check_interval(valid_from, valid_to)
    with pytest.raises(TimeValueError, match=r"valid_to=.* is before valid_from="):
        kg.add_triple("a", "p", "b", valid_from=valid_from, valid_to=valid_to)
    assert dump(kg_path) == {"entities": [], "triples": []}


@pytest.mark.parametrize(("valid_from", "valid_to"), EQUAL_OR_ORDERED)
def test_equal_or_ordered_interval_accepted(kg, valid_from, valid_to):
    temporal.check_interval(valid_from, valid_to)
    tid = kg.add_triple("a", "p", "b", valid_from=valid_from, valid_to=valid_to)
    assert kg.get_fact(tid)["valid_to"] == valid_to


ENDINGS = {
    "invalidate": lambda kg: kg.invalidate("a", "p", "b", ended="2026-02-28"),
    "supersede": lambda kg: kg.supersede("a", "p", "b", "c", at="2026-02-28T23:59:59Z"),
    "end_fact": lambda kg: kg.end_fact(kg.find_open_fact("a", "p", "b")["id"], "2026-02-28"),
    "update_fact": lambda kg: kg.update_fact(
        kg.find_open_fact("a", "p", "b")["id"], valid_to="2026-02-28"
    ),
}


@pytest.mark.parametrize("end", list(ENDINGS.values()), ids=list(ENDINGS))
def test_ending_before_the_start_is_refused_and_writes_nothing(kg, kg_path, end):
    kg.add_triple("a", "p", "b", valid_from="2026-03-01")
    before = dump(kg_path)
    with pytest.raises(TimeValueError, match="is before valid_from"):
        end(kg)
    assert dump(kg_path) == before


def test_invalidate_on_the_start_day_is_fine(kg):
    kg.add_triple("a", "p", "b", valid_from="2026-03-01")
    kg.invalidate("a", "p", "b", ended="2026-03-01")
    assert kg.query_entity("a")[0]["valid_to"] == "2026-03-01"


def test_today_and_now_are_in_the_accepted_forms():
    assert temporal.parse(temporal.today(), "ended") == temporal.today()
    now = temporal.now_instant()
    assert temporal.parse(now, "at") == now
    assert temporal.boundary("2026-05-06") == "2026-05-06T00:00:00Z"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("2026", "partial date"),
        ("2026-03", "partial date"),
        ("2026-02-30", "no such calendar day"),
        ("2026-03-01T14:30:00-05:00", "only UTC"),
        ("2026-03-01T14:30:00", "needs a Z"),
        ("2026-03-01T14:30:00.5Z", "fractional seconds"),
        ("2026-03-01 14:30:00", "use T between"),
        ("2026-03-01 14:30:00Z", "use T between"),
        ("yesterday", "not a date"),
    ],
)
def test_the_error_says_what_is_wrong(value, reason):
    with pytest.raises(TimeValueError, match=reason):
        temporal.parse(value, "valid_from")


def test_a_refusal_keeps_what_was_wrong_for_callers_that_say_it_in_their_words():
    """The message stays exact for scripts; the fields let the app say it with its labels."""
    with pytest.raises(TimeValueError) as bad:
        temporal.parse("2026-02-30", "valid_from")
    assert (bad.value.field, bad.value.value, bad.value.reason) == (
        "valid_from",
        "2026-02-30",
        "no such calendar day",
    )
    assert not bad.value.inverted and str(bad.value).startswith("valid_from='2026-02-30'")
    with pytest.raises(TimeValueError) as inverted:
        temporal.check_interval("2026-03-10", "2026-03-01", to_field="ended")
    error = inverted.value
    assert error.inverted
    assert (error.field, error.value, error.start_field, error.start) == (
        "ended",
        "2026-03-01",
        "valid_from",
        "2026-03-10",
    )
