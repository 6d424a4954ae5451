"""Import a file into a graph, all or nothing, with a report of every row not imported.

- Factlines' JSON export is a **copy**: its rows are written as they are stored in it, ids,
  provenance and values the time rules refuse included (``apply_row``'s rule: unchecked).
- **CSV** (the export's columns; only ``subject``, ``predicate``, ``object`` required) and
  MemPalace's **entity_facts** seed are new facts: checked by the same rules as ``add_triple``
  (names, time values, an interval that ends before it starts, a confidence between 0 and 1).
  A CSV's ``id``, ``subject_id`` and ``object_id`` are used when given; otherwise ids are made
  by MemPalace's rules and a missing entity is created with the name as spelled.

Everything happens in one transaction (inside the caller's :meth:`recording`, it is one undo
step). A row that breaks a rule is **rejected**; a file with any rejected row writes nothing
unless ``good_rows`` is asked for. A row the graph already holds is **skipped** and reported,
never doubled: a fact whose (subject, predicate, object) is already open (an open row only),
a fact of the copy whose id the graph already has unchanged, an entity of the copy the graph
already has (kept as the graph has it). Each problem names the file's line (the header, or the
JSON's first line, is line 1).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id, new_triple_id, predicate_id
from factlines.core.store.mempalace import confidence_value
from factlines.core.store.replication import REPLICATED
from factlines.core.transfer.progress import Progress, report
from factlines.core.transfer.readers import ImportFile, Problem, read_file
from factlines.core.transfer.values import untag

_CHUNK = 5000
_REQUIRED = {"entities": ("name",), "triples": ("subject", "predicate", "object")}
_PROVENANCE = ("source_closet", "source_file", "source_drawer_id", "adapter_name")


@dataclass
class ImportReport:
    """What an import did: ``written`` is False when nothing was (a rejected row without
    ``good_rows``); ``rejected`` and ``skipped`` list the rows not imported, by line."""

    kind: str
    rejected: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    entities_added: int = 0
    facts_added: int = 0
    unchanged: int = 0  # rows of a copy the graph already holds exactly as they are
    written: bool = False

    def lines(self) -> list[str]:
        """Every row not imported, ``line N: reason``, in the file's order."""
        return [str(p) for p in sorted(self.rejected + self.skipped, key=lambda p: p.line)]

    def summary(self) -> str:
        """One sentence on the outcome, for a status line or the command line."""
        if not self.written:
            good = "" if not self.rejected else f"{len(self.rejected)} rows were rejected; "
            return f"{good}nothing was written"
        parts = [f"{self.facts_added:,} facts and {self.entities_added:,} entities imported"]
        if self.rejected:
            parts.append(f"{len(self.rejected):,} rows rejected")
        if self.skipped:
            parts.append(f"{len(self.skipped):,} rows already in the graph")
        if self.unchanged:
            parts.append(f"{self.unchanged:,} rows the graph already holds as they are")
        return "; ".join(parts)


class _Steps:
    """Progress over two passes of the rows: checking them, then writing them."""

    def __init__(self, progress: Progress | None, rows: int):
        self.progress, self.total, self.done = progress, 2 * rows, 0

    def add(self, rows: int) -> None:
        self.done = min(self.total, self.done + rows)
        report(self.progress, self.done, self.total)


def import_file(
    kg,
    path: str | os.PathLike,
    *,
    good_rows: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``path`` into ``kg`` (see the module's rules) and say what happened.

    ``progress(done, total)`` may cancel (:mod:`.progress`; then nothing is written).
    Refused: a file that cannot be read or is none of the three kinds, a read-only graph.
    """
    data = read_file(path, progress)
    rep = ImportReport(data.kind, rejected=list(data.problems))
    planner = {"json": _plan_copy, "csv": _plan_csv, "seed": _plan_seed}[data.kind]
    with kg.transaction():
        steps = _Steps(progress, sum(len(rows) for rows in data.rows.values()))
        steps.add(0)
        write = planner(kg, data, rep, steps)
        if rep.rejected and not good_rows:
            return rep
        write()
        rep.written = True
    return rep


def _insert(kg, table: str, rows: list[dict], steps: _Steps) -> None:
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        kg.insert_rows(table, chunk)
        steps.add(len(chunk))


def _first_seen(rows: list[tuple[int, dict]], rep: ImportReport, what: str) -> list:
    """The rows whose id no earlier row of the file has; the others are rejected."""
    seen: dict[str, int] = {}
    kept = []
    for line, row in rows:
        if row["id"] in seen:
            rep.rejected.append(
                Problem(
                    line, f"{what} id {row['id']!r} was already given on line {seen[row['id']]}"
                )
            )
            continue
        seen[row["id"]] = line
        kept.append((line, row))
    return kept


def _describe(row: dict) -> str:
    return f"{row.get('subject')} {row.get('predicate')} {row.get('object')}"


# ── Factlines' JSON: a copy ───────────────────────────────────────────────


def _copy_row(table: str, value: object) -> dict:
    if not isinstance(value, dict):
        raise Refused(f"a {table} row must be a JSON object")
    columns = REPLICATED[table]
    unknown = sorted(set(value) - set(columns))
    if unknown:
        raise Refused(f"{table} has no column {', '.join(map(repr, unknown))}")
    row = {}
    for column in columns:
        try:
            row[column] = untag(value.get(column))
        except ValueError as exc:
            raise Refused(f"{column}: {exc}") from None
    if not isinstance(row["id"], str) or not row["id"]:
        raise Refused(f"a {table} row needs an id")
    missing = [column for column in _REQUIRED[table] if row[column] is None]
    if missing:
        raise Refused(f"{table} row {row['id']!r} has no {', '.join(missing)}")
    return row


def _plan_copy(kg, data: ImportFile, rep: ImportReport, steps: _Steps):
    planned: dict[str, list] = {}
    for table in ("entities", "triples"):
        rows = []
        for line, value in data.rows[table]:
            try:
                rows.append((line, _copy_row(table, value)))
            except Refused as exc:
                rep.rejected.append(Problem(line, str(exc)))
        rows = _first_seen(rows, rep, "an entity" if table == "entities" else "a fact")
        have = kg.rows_with_ids(table, [row["id"] for _, row in rows])
        fresh = []
        for line, row in rows:
            there = have.get(row["id"])
            if there is None:
                fresh.append((line, row))
            elif there == row:
                rep.unchanged += 1
            elif table == "entities":
                rep.skipped.append(
                    Problem(
                        line,
                        f"the entity {row['id']!r} is already in the graph (as "
                        f"{there['name']!r}); the graph's row was kept",
                    )
                )
            else:
                rep.rejected.append(
                    Problem(
                        line,
                        f"the graph already has another fact with the id {row['id']!r} "
                        f"({_describe(there)})",
                    )
                )
        planned[table] = fresh
        steps.add(len(data.rows[table]))
    opened = [(line, row) for line, row in planned["triples"] if row["valid_to"] is None]
    keys = [(row["subject"], row["predicate"], row["object"]) for _, row in opened]
    already = kg.open_fact_ids(keys) if keys else {}
    duplicates = set()
    for line, row in opened:
        twin = already.get((row["subject"], row["predicate"], row["object"]))
        if twin is not None:
            duplicates.add(row["id"])
            rep.skipped.append(
                Problem(line, f"{_describe(row)} is already an open fact ({twin}); not added again")
            )
    entities = [row for _, row in planned["entities"]]
    facts = [row for _, row in planned["triples"] if row["id"] not in duplicates]

    def write() -> None:
        _insert(kg, "entities", entities, steps)
        _insert(kg, "triples", facts, steps)
        rep.entities_added, rep.facts_added = len(entities), len(facts)

    return write


# ── CSV: new facts, checked ───────────────────────────────────────────────


class _Times:
    """temporal.parse, remembering the values already accepted (dates repeat)."""

    def __init__(self):
        self._seen: dict[str, str | None] = {}

    def parse(self, value: str, name: str) -> str | None:
        known = self._seen.get(value, self)
        if known is not self:
            return known
        parsed = temporal.parse(value, name)
        self._seen[value] = parsed
        return parsed


def _csv_fact(cells: dict, times: _Times) -> dict:
    subject = check_name(cells["subject"], "subject")
    obj = check_name(cells["object"], "object")
    predicate = predicate_id(check_name(cells["predicate"], "predicate"))
    valid_from = times.parse(cells.get("valid_from", ""), "valid_from")
    valid_to = times.parse(cells.get("valid_to", ""), "valid_to")
    temporal.check_interval(valid_from, valid_to)
    confidence = cells.get("confidence", "").strip()
    row = {
        "id": cells.get("id", "").strip() or None,
        "subject": cells.get("subject_id", "").strip() or entity_id(subject),
        "predicate": predicate,
        "object": cells.get("object_id", "").strip() or entity_id(obj),
        "valid_from": valid_from,
        "valid_to": valid_to,
        "confidence": 1.0 if confidence == "" else confidence_value(confidence),
        **{name: cells.get(name) or None for name in _PROVENANCE},
    }
    if cells.get("extracted_at", "").strip():
        row["extracted_at"] = cells["extracted_at"].strip()
    return {"row": row, "names": (subject, obj)}


def _plan_csv(kg, data: ImportFile, rep: ImportReport, steps: _Steps):
    times = _Times()
    facts: list[tuple[int, dict]] = []
    for line, cells in data.rows["facts"]:
        try:
            facts.append((line, _csv_fact(cells, times)))
        except Refused as exc:
            rep.rejected.append(Problem(line, str(exc)))
    given = _first_seen(
        [(line, fact["row"]) for line, fact in facts if fact["row"]["id"]], rep, "a fact"
    )
    given_lines = {line for line, _ in given}
    facts = [(line, f) for line, f in facts if not f["row"]["id"] or line in given_lines]
    have = kg.rows_with_ids("triples", [row["id"] for _, row in given])
    entity_ids = {f["row"][side] for _, f in facts for side in ("subject", "object")}
    entities_there = set(kg.rows_with_ids("entities", sorted(entity_ids)))
    keys = [
        (f["row"]["subject"], f["row"]["predicate"], f["row"]["object"])
        for _, f in facts
        if f["row"]["valid_to"] is None
    ]
    open_there = kg.open_fact_ids(keys) if keys else {}
    steps.add(len(data.rows["facts"]) // 2)

    new_facts, new_entities, opened_here = [], {}, {}
    for line, fact in facts:
        row = fact["row"]
        key = (row["subject"], row["predicate"], row["object"])
        there = have.get(row["id"]) if row["id"] else None
        if there is not None:
            same = all(there[c] == row[c] for c in ("subject", "predicate", "object"))
            if same and (there["valid_from"], there["valid_to"]) == (
                row["valid_from"],
                row["valid_to"],
            ):
                rep.skipped.append(Problem(line, f"the fact {row['id']!r} is already in the graph"))
            else:
                rep.rejected.append(
                    Problem(
                        line,
                        f"the graph already has another fact with the id {row['id']!r} "
                        f"({_describe(there)})",
                    )
                )
            continue
        if row["valid_to"] is None:
            if key in open_there:
                rep.skipped.append(
                    Problem(
                        line,
                        f"{_describe(row)} is already an open fact ({open_there[key]}); "
                        "not added again",
                    )
                )
                continue
            if key in opened_here:
                rep.skipped.append(
                    Problem(
                        line, f"{_describe(row)} repeats line {opened_here[key]}; not added again"
                    )
                )
                continue
            opened_here[key] = line
        for side, name in zip(("subject", "object"), fact["names"]):
            eid = row[side]
            if eid not in entities_there and eid not in new_entities:
                new_entities[eid] = {"id": eid, "name": name}
        new_facts.append(row)
    _give_ids(kg, new_facts)
    steps.add(len(data.rows["facts"]) - len(data.rows["facts"]) // 2)
    entities = list(new_entities.values())

    def write() -> None:
        _insert(kg, "entities", entities, steps)
        _insert(kg, "triples", new_facts, steps)
        rep.entities_added, rep.facts_added = len(entities), len(new_facts)

    return write


def _give_ids(kg, rows: list[dict]) -> None:
    """A new id (contract §3.4) for each row without one, unused in the graph and the file."""
    taken = {row["id"] for row in rows if row["id"]}
    pending = [row for row in rows if not row["id"]]
    while pending:
        for row in pending:
            row["id"] = new_triple_id(row["subject"], row["predicate"], row["object"])
        clash = set(kg.rows_with_ids("triples", [row["id"] for row in pending]))
        again = []
        for row in pending:
            if row["id"] in clash or row["id"] in taken:
                again.append(row)
            else:
                taken.add(row["id"])
        pending = again


# ── MemPalace's entity_facts seed ─────────────────────────────────────────


def _text_field(facts: dict, name: str) -> str | None:
    value = facts.get(name)
    if value is not None and not isinstance(value, str):
        raise Refused(f"{name} must be text, not {type(value).__name__}")
    return value


def _seed_triples(key: str, facts: object) -> list[tuple[str, str, str]]:
    """The (subject, predicate, object) names ``seed_from_entity_facts`` writes for one entry,
    once the entry is checked against the rules it will be written by (contract §4.12)."""
    if not isinstance(facts, dict):
        raise Refused(f"the facts of {key!r} must be a JSON object")
    for name in ("full_name", "type", "gender", "birthday", "relationship"):
        _text_field(facts, name)
    for name in ("parent", "partner", "sibling", "owner"):
        _text_field(facts, name)
    name = check_name(facts.get("full_name", key.capitalize()), "full_name")
    temporal.parse(facts.get("birthday"), "birthday")
    interests = facts.get("interests", [])
    if not isinstance(interests, list) or not all(isinstance(i, str) for i in interests):
        raise Refused("interests must be a list of names")
    triples = []
    if facts.get("parent"):
        triples.append(("child_of", facts["parent"].capitalize()))
    if facts.get("partner"):
        triples.append(("married_to", facts["partner"].capitalize()))
    relationship = facts.get("relationship", "")
    if relationship == "daughter":
        triples.append(("is_child_of", facts.get("parent", "").capitalize() or name))
    elif relationship == "husband":
        triples.append(("is_partner_of", facts.get("partner", name).capitalize()))
    elif relationship == "brother":
        triples.append(("is_sibling_of", facts.get("sibling", name).capitalize()))
    elif relationship == "dog":
        triples.append(("is_pet_of", facts.get("owner", name).capitalize()))
    triples += [("loves", interest.capitalize()) for interest in interests]
    for predicate, other in triples:
        check_name(other, predicate)
    return [(name, predicate, other) for predicate, other in triples]


def _plan_seed(kg, data: ImportFile, rep: ImportReport, steps: _Steps):
    good: list[tuple[str, dict]] = []
    planned: list[tuple[int, tuple[str, str, str]]] = []
    for line, (key, facts) in data.rows["seed"]:
        try:
            triples = _seed_triples(key, facts)
        except Refused as exc:
            rep.rejected.append(Problem(line, f"{key!r}: {exc}"))
            continue
        good.append((key, facts))
        planned += [(line, triple) for triple in triples]
    keys = {(entity_id(s), predicate_id(p), entity_id(o)): (s, p, o) for _, (s, p, o) in planned}
    open_there = kg.open_fact_ids(list(keys)) if keys else {}
    seen: dict[tuple, int] = {}
    for line, (s, p, o) in planned:
        key = (entity_id(s), predicate_id(p), entity_id(o))
        if key in open_there:
            rep.skipped.append(
                Problem(
                    line,
                    f"{s} {p} {o} is already an open fact ({open_there[key]}); not added again",
                )
            )
        elif key in seen:
            rep.skipped.append(
                Problem(line, f"{s} {p} {o} repeats line {seen[key]}; not added again")
            )
        else:
            seen[key] = line
    steps.add(len(data.rows["seed"]))

    def write() -> None:
        before = kg.stats()
        for key, facts in good:
            kg.seed_from_entity_facts({key: facts})
            steps.add(1)
        after = kg.stats()
        rep.entities_added = after["entities"] - before["entities"]
        rep.facts_added = after["triples"] - before["triples"]

    return write
