"""The UI half of the error contract (``factlines.core.errors``).

A :class:`~factlines.core.errors.Refused` or :class:`~factlines.core.errors.Unavailable` is
caught where the action was asked for and said in words (:func:`in_words`). Anything else is a
bug, and is not caught as one of these.
"""

from __future__ import annotations

from factlines.core.errors import Refused, Unavailable

TRY_AGAIN = "nothing was written; try again in a moment"


def in_words(exc: Refused | Unavailable) -> str:
    """What a person is told: the refusal's reason, or what is unavailable and to try again."""
    if isinstance(exc, Unavailable):
        return f"{exc} — {TRY_AGAIN}"
    return str(exc)
