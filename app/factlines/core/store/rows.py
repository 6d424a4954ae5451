"""The shapes of what the store returns: a fact row as a dict, and a fact in words."""

from __future__ import annotations

from factlines.core import temporal

# The columns of a fact row, in the order an engine reads them for :func:`fact_dict`: the
# triple's id, subject id and name, predicate, object id and name, then the stored columns.
FACT_FIELDS = (
    "id",
    "subject",
    "subject_name",
    "predicate",
    "object",
    "object_name",
    "valid_from",
    "valid_to",
    "confidence",
    "source_closet",
    "source_file",
    "source_drawer_id",
    "adapter_name",
    "extracted_at",
)
PROVENANCE = ("source_closet", "source_file", "source_drawer_id", "adapter_name")
# MemPalace 3.11's columns, in its order.
ENTITY_COLUMNS = ("id", "name", "type", "properties", "created_at")
TRIPLE_COLUMNS = (
    "id",
    "subject",
    "predicate",
    "object",
    "valid_from",
    "valid_to",
    "confidence",
    *PROVENANCE,
    "extracted_at",
)
ENTITY_ROW_KEYS = ("id", "name", "type", "current", "ended")
ENTITY_ORDERS = ("name", "type", "current", "ended")


def fact_dict(row: tuple) -> dict:
    """A fact row (FACT_FIELDS) as a dict, with ``current`` and POSIX ``start``/``end``.

    One dict literal per row: a busy entity has 2,000 rows, so the per-row cost is the cost.
    """
    (
        tid,
        subject,
        subject_name,
        predicate,
        obj,
        object_name,
        valid_from,
        valid_to,
        confidence,
        source_closet,
        source_file,
        source_drawer_id,
        adapter_name,
        extracted_at,
    ) = row
    return {
        "id": tid,
        "subject": subject,
        "subject_name": subject_name,
        "predicate": predicate,
        "object": obj,
        "object_name": object_name,
        "valid_from": valid_from,
        "valid_to": valid_to,
        "confidence": confidence,
        "source_closet": source_closet,
        "source_file": source_file,
        "source_drawer_id": source_drawer_id,
        "adapter_name": adapter_name,
        "extracted_at": extracted_at,
        "current": valid_to is None,
        "start": temporal.start_posix(valid_from),
        "end": temporal.end_posix(valid_to),
    }


def describe(fact: dict) -> str:
    """A fact row in words, by its entities' names: ``Kai Moreno works_on Orion``."""
    return f"{fact['subject_name']} {fact['predicate']} {fact['object_name']}"
