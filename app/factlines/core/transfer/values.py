"""Stored values in JSON: a blob (which JSON cannot hold) as ``{"$blob": base64}``."""

from __future__ import annotations

import base64
from typing import cast

BLOB = "$blob"


def blob_tag(value: object) -> dict[str, str]:
    """``json.dumps``'s ``default``: a blob as ``{"$blob": base64}``."""
    if isinstance(value, bytes):
        return {BLOB: base64.b64encode(value).decode("ascii")}
    raise TypeError(f"cannot write a {type(value).__name__}")


def untag(value: object) -> str | int | float | bytes | None:
    """A value read from JSON as it is stored: the blob a ``{"$blob": …}`` stands for; a value
    SQLite cannot store (a list, another object, true/false) raises ValueError."""
    if value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dict):
        tagged = cast("dict[object, object]", value)
        if set(tagged) == {BLOB} and isinstance(text := tagged[BLOB], str):
            try:
                return base64.b64decode(text, validate=True)
            except ValueError:
                raise ValueError("a $blob that is not base64") from None
    # (pyright keeps the unknown dict of the branch above in ``value``'s type)
    raise ValueError(f"{type(cast(object, value)).__name__} is not a value a column holds")
