"""Importing CSV: each row a new fact, checked by ``add_triple``'s rules.

Only ``subject``, ``predicate`` and ``object`` are required. ``id``, ``subject_id`` and
``object_id`` are used when given; otherwise a fact gets a new id (contract §3.4) and an
entity MemPalace's id of its name, created with the name as spelled when the graph lacks it.
An empty ``confidence`` is 1.0, an empty ``extracted_at`` the time of the import. Names, time
values and confidences repeat a lot in a real file, so each distinct one is checked once.
"""

from __future__ import annotations

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id, new_triple_id, predicate_id
from factlines.core.store.mempalace import confidence_value
from factlines.core.store.replication import REPLICATED
from factlines.core.transfer.export import CSV_HEADER
from factlines.core.transfer.plan import ImportReport, Steps, describe, insert
from factlines.core.transfer.readers import ImportFile, Problem

# A planned fact: MemPalace's triple columns, in its order (extracted_at None: the default).
COLUMNS = REPLICATED["triples"]
ID, SUBJECT, PREDICATE, OBJECT, VALID_FROM, VALID_TO = range(6)


def _check(rows: list, columns: dict[str, int], rep: ImportReport) -> list[tuple]:
    """(line, planned row, subject's name, object's name) of each row add_triple's rules
    accept; the others are rejected. One tight loop: it runs for every row of the file."""
    # A missing column reads the empty string appended to every row.
    (i_id, i_sid, i_s, i_p, i_oid, i_o, i_vf, i_vt, i_c, i_cl, i_f, i_d, i_a, i_x) = (
        columns.get(name, -1) for name in CSV_HEADER
    )
    subjects: dict[str, str] = {}
    objects: dict[str, str] = {}
    predicates: dict[str, str] = {}
    starts: dict[str, str | None] = {}
    ends: dict[str, str | None] = {}
    confidences: dict[str, float] = {}
    checked = []
    for line, fields in rows:
        fields.append("")
        try:
            subject, obj, raw = fields[i_s], fields[i_o], fields[i_p]
            subject_id = subjects.get(subject)
            if subject_id is None:
                subject_id = subjects[subject] = entity_id(check_name(subject, "subject"))
            object_id = objects.get(obj)
            if object_id is None:
                object_id = objects[obj] = entity_id(check_name(obj, "object"))
            predicate = predicates.get(raw)
            if predicate is None:
                predicate = predicates[raw] = predicate_id(check_name(raw, "predicate"))
            text = fields[i_vf]
            valid_from = starts.get(text)
            if valid_from is None and text and text not in starts:
                valid_from = starts[text] = temporal.parse(text, "valid_from")
            text = fields[i_vt]
            valid_to = ends.get(text)
            if valid_to is None and text and text not in ends:
                valid_to = ends[text] = temporal.parse(text, "valid_to")
            if valid_from is not None and valid_to is not None:
                temporal.check_interval(valid_from, valid_to)
            text = fields[i_c].strip()
            confidence = confidences.get(text)
            if confidence is None:
                confidence = 1.0 if not text else confidence_value(text)
                confidences[text] = confidence
        except Refused as exc:
            rep.rejected.append(Problem(line, str(exc)))
            continue
        row = [
            fields[i_id].strip() or None,
            fields[i_sid].strip() or subject_id,
            predicate,
            fields[i_oid].strip() or object_id,
            valid_from,
            valid_to,
            confidence,
            fields[i_cl] or None,
            fields[i_f] or None,
            fields[i_d] or None,
            fields[i_a] or None,
            fields[i_x].strip() or None,
        ]
        checked.append((line, row, subject, obj))
    return checked


def plan_csv(kg, data: ImportFile, rep: ImportReport, steps: Steps):
    facts = []
    given: dict[str, int] = {}
    for line, row, subject, obj in _check(data.rows["facts"], data.columns or {}, rep):
        if row[ID] is not None:
            if row[ID] in given:
                rep.rejected.append(
                    Problem(
                        line, f"a fact id {row[ID]!r} was already given on line {given[row[ID]]}"
                    )
                )
                continue
            given[row[ID]] = line
        facts.append((line, row, subject, obj))
    steps.add(len(data.rows["facts"]) // 2)
    have = kg.rows_with_ids("triples", list(given))
    entities_there = set(
        kg.rows_with_ids("entities", list({row[s] for _, row, _, _ in facts for s in (1, 3)}))
    )
    keys = [
        (row[SUBJECT], row[PREDICATE], row[OBJECT])
        for _, row, _, _ in facts
        if row[VALID_TO] is None
    ]
    open_there = kg.open_fact_ids(keys) if keys else {}

    new_facts: list[list] = []
    new_entities: dict[str, tuple[str, str]] = {}
    opened_here: dict[tuple, int] = {}
    for line, row, subject, obj in facts:
        there = have.get(row[ID]) if row[ID] is not None else None
        if there is not None:
            _known_id(line, row, there, rep)
            continue
        if row[VALID_TO] is None:
            key = (row[SUBJECT], row[PREDICATE], row[OBJECT])
            twin = open_there.get(key)
            if twin is not None:
                rep.skipped.append(
                    Problem(
                        line, f"{_words(row)} is already an open fact ({twin}); not added again"
                    )
                )
                continue
            if key in opened_here:
                rep.skipped.append(
                    Problem(line, f"{_words(row)} repeats line {opened_here[key]}; not added again")
                )
                continue
            opened_here[key] = line
        for eid, name in ((row[SUBJECT], subject), (row[OBJECT], obj)):
            if eid not in entities_there and eid not in new_entities:
                new_entities[eid] = (eid, name)
        new_facts.append(row)
    _give_ids(kg, new_facts)
    steps.add(len(data.rows["facts"]) - len(data.rows["facts"]) // 2)
    stamped = [tuple(row) for row in new_facts if row[-1] is not None]
    unstamped = [tuple(row[:-1]) for row in new_facts if row[-1] is None]

    def write() -> None:
        rep.entities_added = insert(
            kg, "entities", list(new_entities.values()), steps, ("id", "name")
        )
        rep.facts_added = insert(kg, "triples", stamped, steps, COLUMNS) + insert(
            kg, "triples", unstamped, steps, COLUMNS[:-1]
        )

    return write


def _words(row: list) -> str:
    return f"{row[SUBJECT]} {row[PREDICATE]} {row[OBJECT]}"


def _known_id(line: int, row: list, there: dict, rep: ImportReport) -> None:
    """A row whose id the graph has: the same fact again is skipped, another one rejected."""
    same = (there["subject"], there["predicate"], there["object"]) == (
        row[SUBJECT],
        row[PREDICATE],
        row[OBJECT],
    ) and (there["valid_from"], there["valid_to"]) == (row[VALID_FROM], row[VALID_TO])
    if same:
        rep.skipped.append(Problem(line, f"the fact {row[ID]!r} is already in the graph"))
    else:
        rep.rejected.append(
            Problem(
                line,
                f"the graph already has another fact with the id {row[ID]!r} ({describe(there)})",
            )
        )


def _give_ids(kg, rows: list[list]) -> None:
    """A new id (contract §3.4) for each row without one, unused in the graph and the file."""
    taken = {row[ID] for row in rows if row[ID] is not None}
    pending = [row for row in rows if row[ID] is None]
    while pending:
        for row in pending:
            row[ID] = new_triple_id(row[SUBJECT], row[PREDICATE], row[OBJECT])
        clash = set(kg.rows_with_ids("triples", [row[ID] for row in pending]))
        again = []
        for row in pending:
            if row[ID] in clash or row[ID] in taken:
                again.append(row)
            else:
                taken.add(row[ID])
        pending = again
