"""The store's refusals, and a store that is unavailable now, in a person's words.

The core's messages are written for scripts too (``valid_from='2026-02-30' is not valid…``)
and stay exact; here a refusal that says what was wrong in fields (a time value, an inverted
interval) is said with the labels a person sees in the forms.
"""

from __future__ import annotations

from factlines.core.columns import COLUMNS
from factlines.core.errors import Refused, TimeValueError, Unavailable
from factlines.core.store import describe
from factlines.ui.look import style

# The labels the forms show, by the field names the store uses: a fact's columns', and those
# of the fields an edit adds.
FIELD_LABELS = {
    **{column.name: column.label for column in COLUMNS},
    "ended": "Ended",
    "at": "At",
    "as_of": "as_of",
    "new object": "New object",
}

REASON_HINT = (
    "Why you make this edit, in a few words: kept with it in Factlines' edit log and shown in "
    "the fact's history (the last reason you typed is offered again until Factlines closes)"
)

TRY_AGAIN = "nothing was written; try again in a moment"

HOW_TO_WRITE_A_TIME = "Write a day as YYYY-MM-DD, or an instant in UTC as YYYY-MM-DDTHH:MM:SSZ."


def label(field: str) -> str:
    """What a form calls ``field``."""
    return FIELD_LABELS.get(field) or field.replace("_", " ").capitalize()


def refusal(exc: Refused) -> str:
    """A refusal as a person should read it."""
    if isinstance(exc, TimeValueError) and exc.field is not None:
        if exc.inverted:
            # A replacement's instant is a start (a day's first second): shown as the day.
            shown = style.show_key if exc.field == "at" else style.show_time
            return (
                f"{label(exc.field)} ({shown(str(exc.value), '')}) is before "
                f"{label(exc.start_field)} ({style.show_time(exc.start)}): "
                "a fact cannot end before it starts."
            )
        return (
            f"{label(exc.field)}: “{exc.value}” is not a date or time ({exc.reason}). "
            + HOW_TO_WRITE_A_TIME
        )
    return str(exc)


def fact_in_words(fact: dict) -> str:
    """A fact by its names and dates: ``Kai Moreno lives_in Berlin (2018-09-01 – 2023-08-31)``."""
    start = style.show_time(fact.get("valid_from"), "…")
    end = style.show_time(fact.get("valid_to"), "open")
    return f"{describe(fact)} ({start} – {end})"


def in_words(exc: Refused | Unavailable) -> str:
    """What a person is told: the refusal's reason in the forms' words, or what is unavailable
    and to try again."""
    if isinstance(exc, Unavailable):
        return f"{exc} — {TRY_AGAIN}"
    return refusal(exc)
