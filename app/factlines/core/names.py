"""How names become ids: exactly MemPalace's rules, so both programs address the same rows."""

from __future__ import annotations

import secrets

from factlines.core.errors import Refused


def entity_id(name: str) -> str:
    return name.lower().replace(" ", "_").replace("'", "")


def predicate_id(predicate: str) -> str:
    return predicate.lower().replace(" ", "_")


def new_triple_id(subject_id: str, predicate: str, object_id: str) -> str:
    return f"t_{subject_id}_{predicate}_{object_id}_{secrets.token_hex(6)}"


def check_name(value: object, field: str) -> str:
    """A name must be a non-empty string whose id is not empty either."""
    if not isinstance(value, str):
        raise Refused(f"{field} must be a string, not {type(value).__name__}")
    if not value.strip() or not entity_id(value).strip("_"):
        raise Refused(f"{field}={value!r} has nothing left once spaces and apostrophes are dropped")
    return value
