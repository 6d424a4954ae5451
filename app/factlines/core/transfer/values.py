"""Stored values in JSON: a blob (which JSON cannot hold) as ``{"$blob": base64}``."""

from __future__ import annotations

import base64

BLOB = "$blob"


def blob_tag(value):
    """``json.dumps``'s ``default``: a blob as ``{"$blob": base64}``."""
    if isinstance(value, bytes):
        return {BLOB: base64.b64encode(value).decode("ascii")}
    raise TypeError(f"cannot write a {type(value).__name__}")


def untag(value):
    """A value read from JSON as it is stored: the blob a ``{"$blob": …}`` stands for; a value
    SQLite cannot store (a list, another object, true/false) raises ValueError."""
    if value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dict) and set(value) == {BLOB} and isinstance(value[BLOB], str):
        try:
            return base64.b64decode(value[BLOB], validate=True)
        except ValueError:
            raise ValueError("a $blob that is not base64") from None
    raise ValueError(f"{type(value).__name__} is not a value a column holds")
