"""What a person types into a cell of the Facts table: whether it can go there, said in words
before anything is written, and the value it stands for. Pure Python: the rules are the
store's (:mod:`factlines.core.temporal`), asked before the edit so the cell can say no."""

from __future__ import annotations

from factlines.core import temporal
from factlines.core.errors import Refused


def why_not(fact: dict, key: str, text: str) -> str | None:
    """Why ``text`` cannot go into ``key`` of ``fact``, or None when it can."""
    if key in ("valid_from", "valid_to"):
        try:
            value = temporal.parse(text, key)
            start = value if key == "valid_from" else fact["valid_from"]
            end = value if key == "valid_to" else fact["valid_to"]
            temporal.check_interval(start, end)
        except Refused as exc:  # TimeValueError
            return str(exc)
    elif key == "confidence":
        number = _number(text)
        if number is None:
            return f"confidence={text!r} is not a number between 0 and 1"
        if not 0.0 <= number <= 1.0:
            return f"confidence={text!r} is not between 0 and 1"
    elif key == "predicate" and not text:
        return "a predicate cannot be empty"
    return None


def value_of(key: str, text: str):
    """The value ``text`` (checked by :func:`why_not`) stands for in ``key``."""
    if key in ("valid_from", "valid_to"):
        return temporal.parse(text, key)
    if key == "confidence":
        return float(text)
    return text or None


def _number(text: str) -> float | None:
    """``text`` as a number, or None: a person's typing, not the store's answer."""
    try:
        return float(text)
    except ValueError:
        return None
