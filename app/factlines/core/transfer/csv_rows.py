"""Importing CSV: each row a fact, with its entities.

Only ``subject``, ``predicate`` and ``object`` are required. A row without an ``id`` is a new
fact, checked by ``add_triple``'s rules: it gets a new id (contract §3.4), its predicate is
MemPalace's spelling of the one given, an empty ``confidence`` is 1.0, an empty
``extracted_at`` the time of the import. A row with an ``id`` (as an export writes every row)
is a stored fact coming back: every cell is kept as written, an empty one as no value (time
values the rules refuse, a predicate spelled ``works on``, a confidence ``high``: what
MemPalace stores), ``confidence`` a number when it is written as one. ``subject_id`` and
``object_id`` are used when given, otherwise MemPalace's id of the name; an entity the graph
lacks is created with the name as spelled and the ``subject_…`` / ``object_…`` cells (its
type, properties, …). Names, time values and confidences repeat a lot in a real file, so each
distinct one of a new fact is checked once.
"""

from __future__ import annotations

import re

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id, new_triple_id, predicate_id
from factlines.core.store.mempalace import confidence_value
from factlines.core.transfer.export import CSV_HEADER, ENTITY_CSV_COLUMNS
from factlines.core.transfer.plan import ImportReport, Steps, describe, insert
from factlines.core.transfer.readers import ImportFile, Problem

PROVENANCE = ("source_closet", "source_file", "source_drawer_id", "adapter_name")
# A number as an export writes one (Python's repr of a float; SQLite cannot keep a NaN).
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _as_written(text: str):
    """A confidence cell of a stored fact: empty is no value, a number is a number, any other
    text is kept as the text MemPalace stored."""
    if not text:
        return None
    return float(text) if _NUMBER.fullmatch(text) else text


class _Rows:
    """Each CSV row as the fact and the two entities it stands for."""

    def __init__(self, columns: dict[str, int], extras: dict[str, list[tuple[str, str]]]):
        # A missing column reads the empty string appended to every row.
        self.at = {name: columns.get(name, -1) for name in CSV_HEADER}
        self.fact_extras = [(name, columns[name]) for name, _ in extras.get("triples", [])]
        entity_columns = [*ENTITY_CSV_COLUMNS, *(name for name, _ in extras.get("entities", []))]
        self.entity_cells = {
            side: [
                (column, columns[f"{side}_{column}"])
                for column in entity_columns
                if f"{side}_{column}" in columns
            ]
            for side in ("subject", "object")
        }
        self.subjects: dict[str, str] = {}
        self.objects: dict[str, str] = {}
        self.predicates: dict[str, str] = {}
        self.starts: dict[str, str | None] = {}
        self.ends: dict[str, str | None] = {}
        self.confidences: dict[str, float] = {}

    def fact(self, fields: list[str]) -> tuple[dict, dict, dict]:
        """(fact, subject entity, object entity) of a row, as dicts of columns; refused when
        a new fact breaks a rule."""
        at = self.at
        stored = bool(fields[at["id"]].strip())
        subject, obj, raw = fields[at["subject"]], fields[at["object"]], fields[at["predicate"]]
        fact = self._stored(fields, raw) if stored else self._new(fields, raw)
        sid, oid = fields[at["subject_id"]], fields[at["object_id"]]
        if not stored:
            sid, oid = sid.strip(), oid.strip()
        for column, eid in (("subject_id", sid), ("object_id", oid)):
            if eid and not eid.strip():
                raise Refused(
                    f"{column} holds only spaces: an entity needs an id (leave the cell empty "
                    "to make one from the name)"
                )
        fact["subject"] = sid or self._entity_id(self.subjects, subject, "subject")
        fact["object"] = oid or self._entity_id(self.objects, obj, "object")
        for name, i in self.fact_extras:
            if fields[i] or stored:
                fact[name] = fields[i] or None
        return (
            fact,
            self._entity(fields, fact["subject"], subject, "subject", stored),
            self._entity(fields, fact["object"], obj, "object", stored),
        )

    def _stored(self, fields: list[str], predicate: str) -> dict:
        """A stored fact coming back: each cell as written, an empty one no value."""
        at = self.at
        if not predicate:
            raise Refused("a fact needs a predicate")
        fact = {
            "id": fields[at["id"]],
            "predicate": predicate,
            "valid_from": fields[at["valid_from"]] or None,
            "valid_to": fields[at["valid_to"]] or None,
            "confidence": _as_written(fields[at["confidence"]]),
        }
        for column in (*PROVENANCE, "extracted_at"):
            fact[column] = fields[at[column]] or None
        return fact

    def _new(self, fields: list[str], raw: str) -> dict:
        """A new fact, checked by add_triple's rules (each distinct value once)."""
        at = self.at
        predicate = self.predicates.get(raw)
        if predicate is None:
            predicate = self.predicates[raw] = predicate_id(check_name(raw, "predicate"))
        text = fields[at["valid_from"]]
        valid_from = self.starts.get(text)
        if valid_from is None and text and text not in self.starts:
            valid_from = self.starts[text] = temporal.parse(text, "valid_from")
        text = fields[at["valid_to"]]
        valid_to = self.ends.get(text)
        if valid_to is None and text and text not in self.ends:
            valid_to = self.ends[text] = temporal.parse(text, "valid_to")
        if valid_from is not None and valid_to is not None:
            temporal.check_interval(valid_from, valid_to)
        text = fields[at["confidence"]].strip()
        confidence = self.confidences.get(text)
        if confidence is None:
            confidence = 1.0 if not text else confidence_value(text)
            self.confidences[text] = confidence
        fact = {
            "id": None,
            "predicate": predicate,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "confidence": confidence,
        }
        for column in PROVENANCE:
            fact[column] = fields[at[column]] or None
        stamped = fields[at["extracted_at"]].strip()
        if stamped:  # else MemPalace's default: the time of the import
            fact["extracted_at"] = stamped
        return fact

    @staticmethod
    def _entity_id(known: dict[str, str], name: str, field: str) -> str:
        eid = known.get(name)
        if eid is None:
            eid = known[name] = entity_id(check_name(name, field))
        return eid

    def _entity(self, fields: list[str], eid: str, name: str, side: str, stored: bool) -> dict:
        """The entity row to create should the graph lack it: its other cells as written (a
        new fact's empty ones take MemPalace's defaults)."""
        entity = {"id": eid, "name": name or eid}
        for column, i in self.entity_cells[side]:
            if fields[i] or stored:
                entity[column] = fields[i] or None
        return entity


def _check(rows: list, columns: dict[str, int], extras: dict, rep: ImportReport) -> list:
    """(line, fact, subject entity, object entity) of each row that can be imported; the
    others are rejected. One tight loop: it runs for every row of the file."""
    reading = _Rows(columns, extras)
    checked = []
    for line, fields in rows:
        fields.append("")
        try:
            checked.append((line, *reading.fact(fields)))
        except Refused as exc:
            rep.rejected.append(Problem(line, str(exc)))
    return checked


def plan_csv(kg, data: ImportFile, rep: ImportReport, steps: Steps):
    facts = []
    given: dict[str, int] = {}
    for line, fact, subject, obj in _check(
        data.rows["facts"], data.columns or {}, data.extras, rep
    ):
        if fact["id"] is not None:
            if fact["id"] in given:
                rep.rejected.append(
                    Problem(
                        line,
                        f"a fact id {fact['id']!r} was already given on line {given[fact['id']]}",
                    )
                )
                continue
            given[fact["id"]] = line
        facts.append((line, fact, subject, obj))
    steps.add(len(data.rows["facts"]) // 2)
    have = kg.rows_with_ids("triples", list(given))
    entities_there = set(
        kg.rows_with_ids(
            "entities",
            list({fact[side] for _, fact, _, _ in facts for side in ("subject", "object")}),
        )
    )
    keys = [_key(fact) for _, fact, _, _ in facts if fact["valid_to"] is None]
    open_there = kg.open_fact_ids(keys) if keys else {}

    new_facts: list[dict] = []
    new_entities: dict[str, dict] = {}
    opened_here: dict[tuple, int] = {}
    for line, fact, subject, obj in facts:
        there = have.get(fact["id"]) if fact["id"] is not None else None
        if there is not None:
            _known_id(line, fact, there, rep)
            continue
        if fact["valid_to"] is None:
            key = _key(fact)
            twin = open_there.get(key)
            if twin is not None:
                rep.skipped.append(
                    Problem(
                        line, f"{describe(fact)} is already an open fact ({twin}); not added again"
                    )
                )
                continue
            if key in opened_here and fact["id"] is None:  # a stored fact is itself: kept
                rep.skipped.append(
                    Problem(
                        line, f"{describe(fact)} repeats line {opened_here[key]}; not added again"
                    )
                )
                continue
            opened_here[key] = line
        for entity in (subject, obj):
            if entity["id"] not in entities_there and entity["id"] not in new_entities:
                new_entities[entity["id"]] = entity
        new_facts.append(fact)
    _give_ids(kg, new_facts)
    steps.add(len(data.rows["facts"]) - len(data.rows["facts"]) // 2)

    def write() -> None:
        for table, extras in data.extras.items():
            kg.add_columns(table, extras)
        rep.entities_added = insert(kg, "entities", list(new_entities.values()), steps)
        rep.facts_added = insert(kg, "triples", new_facts, steps)

    return write


def _key(fact: dict) -> tuple[str, str, str]:
    return (fact["subject"], fact["predicate"], fact["object"])


def _known_id(line: int, fact: dict, there: dict, rep: ImportReport) -> None:
    """A row whose id the graph has: the same fact again is skipped, another one rejected."""
    same = all(there[column] == fact[column] for column in ("subject", "predicate", "object"))
    if same and (there["valid_from"], there["valid_to"]) == (fact["valid_from"], fact["valid_to"]):
        rep.skipped.append(Problem(line, f"the fact {fact['id']!r} is already in the graph"))
    else:
        rep.rejected.append(
            Problem(
                line,
                f"the graph already has another fact with the id {fact['id']!r} "
                f"({describe(there)})",
            )
        )


def _give_ids(kg, facts: list[dict]) -> None:
    """A new id (contract §3.4) for each fact without one, unused in the graph and the file."""
    taken = {fact["id"] for fact in facts if fact["id"] is not None}
    pending = [fact for fact in facts if fact["id"] is None]
    while pending:
        for fact in pending:
            fact["id"] = new_triple_id(fact["subject"], fact["predicate"], fact["object"])
        clash = set(kg.rows_with_ids("triples", [fact["id"] for fact in pending]))
        again = []
        for fact in pending:
            if fact["id"] in clash or fact["id"] in taken:
                again.append(fact)
            else:
                taken.add(fact["id"])
        pending = again
