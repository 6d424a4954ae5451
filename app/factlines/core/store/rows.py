"""The shapes of what the store returns: a fact row as a dict, and a fact in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factlines.core import temporal
from factlines.core.columns import FACT_FIELDS, PROVENANCE, TRIPLE_COLUMNS

__all__ = [
    "FACT_FIELDS",
    "PROVENANCE",
    "TRIPLE_COLUMNS",
    "describe",
    "fact_dict",
    "interval_dict",
]

# MemPalace 3.11's columns of its entities, in its order.
ENTITY_COLUMNS = ("id", "name", "type", "properties", "created_at")
ENTITY_ROW_KEYS = ("id", "name", "type", "current", "ended")
ENTITY_ORDERS = ("name", "type", "current", "ended")


def _fact_dict_of_fields(
    fields: tuple[str, ...], of_entity: bool = False
) -> Callable[..., dict[str, Any]]:
    """``fact_dict`` for a row of ``fields``, written out as one unpacking and one dict literal:
    a busy entity has 2,000 rows and a whole-graph read a million, so the per-row cost is the
    cost (a literal is ~0.9 µs a row cheaper than ``dict(zip(...))``). ``of_entity``: the
    function takes the entity too and adds which way the fact points and who is at its other
    end, and its row ends with the fact's position (``interval_dict``)."""
    names = [f"v{i}" for i in range(len(fields))]
    start, end = names[fields.index("valid_from")], names[fields.index("valid_to")]
    pairs = "".join(f"{field!r}: {name}, " for field, name in zip(fields, names))
    head, extra, unpacked = "def fact_dict(row):\n", "", ", ".join(names)
    if of_entity:
        subject, object_ = names[fields.index("subject")], names[fields.index("object")]
        subject_name = names[fields.index("subject_name")]
        object_name = names[fields.index("object_name")]
        head, unpacked = "def fact_dict(row, eid):\n", f"{unpacked}, _position"
        extra = (
            f"'direction': 'outgoing' if {subject} == eid else 'incoming', "
            f"'other': {object_} if {subject} == eid else {subject}, "
            f"'other_name': {object_name} if {subject} == eid else {subject_name}, "
        )
    source = (
        f"{head}    {unpacked}, = row\n"
        f"    return {{{pairs}'current': {end} is None, "
        f"'start': start_posix({start}), 'end': end_posix({end}), {extra}}}\n"
    )
    scope: dict[str, Any] = {"start_posix": temporal.start_posix, "end_posix": temporal.end_posix}
    exec(source, scope)
    return scope["fact_dict"]


fact_dict = _fact_dict_of_fields(FACT_FIELDS)
fact_dict.__doc__ = (
    "A fact row (FACT_FIELDS) as a dict, with ``current`` and POSIX ``start``/``end``."
)
interval_dict = _fact_dict_of_fields(FACT_FIELDS, of_entity=True)
interval_dict.__doc__ = (
    "``fact_dict(row)`` of one of entity ``eid``'s facts (its row ending with the fact's "
    "position), with ``direction`` and ``other`` / ``other_name``: the entity at the other end."
)


def describe(fact: dict[str, Any]) -> str:
    """A fact row in words, by its entities' names: ``Kai Moreno works_on Orion``."""
    return f"{fact['subject_name']} {fact['predicate']} {fact['object_name']}"
