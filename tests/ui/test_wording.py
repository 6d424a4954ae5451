"""Refusals said in the forms' words (issue: messages spoke the code's language)."""

from __future__ import annotations

import pytest

from factlines.core import temporal
from factlines.core.errors import Refused, TimeValueError, Unavailable
from factlines.ui.look.wording import fact_in_words, in_words, label, refusal


def _refusal(call) -> TimeValueError:
    with pytest.raises(TimeValueError) as caught:
        call()
    return caught.value


def test_a_bad_time_is_said_with_the_fields_label_and_how_to_write_one():
    exc = _refusal(lambda: temporal.parse("2026-02-30", "valid_from"))
    said = refusal(exc)
    assert said.startswith("Valid from: “2026-02-30” is not a date or time (no such calendar day)")
    assert "YYYY-MM-DD" in said
    assert "valid_from=" not in said and "+00:00" not in said


@pytest.mark.parametrize(
    ("to_field", "valid_to", "expected"),
    [
        ("valid_to", "2026-03-01", "Valid to (2026-03-01) is before Valid from (2026-03-10)"),
        ("ended", "2026-03-01", "Ended (2026-03-01) is before Valid from (2026-03-10)"),
        # A replacement's instant is a day's first second: said as the day typed.
        ("at", "2026-03-01T00:00:00Z", "At (2026-03-01) is before Valid from (2026-03-10)"),
    ],
)
def test_an_inverted_interval_is_said_as_a_fact_ending_before_it_starts(
    to_field, valid_to, expected
):
    exc = _refusal(lambda: temporal.check_interval("2026-03-10", valid_to, to_field=to_field))
    said = refusal(exc)
    assert said == f"{expected}: a fact cannot end before it starts."
    assert "invisible" not in said and "=" not in said


def test_in_words_translates_refusals_and_leaves_other_words_alone():
    exc = _refusal(lambda: temporal.parse("2026-13-01", "as_of"))
    assert in_words(exc).startswith("as_of: “2026-13-01” is not a date or time")
    assert in_words(Refused("Kai Moreno is not in the graph")) == "Kai Moreno is not in the graph"
    assert in_words(Unavailable("database is locked")).startswith("database is locked — ")


def test_labels_and_a_fact_in_words():
    assert label("valid_from") == "Valid from" and label("source_drawer_id") == "Source drawer id"
    fact = {
        "subject_name": "Kai Moreno",
        "predicate": "lives_in",
        "object_name": "Berlin",
        "valid_from": "2018-09-01",
        "valid_to": "2023-08-31",
    }
    assert fact_in_words(fact) == "Kai Moreno lives_in Berlin (2018-09-01 – 2023-08-31)"
    assert fact_in_words({**fact, "valid_from": None, "valid_to": None}).endswith("(… – open)")
