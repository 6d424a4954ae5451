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
from collections.abc import Callable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any, cast

from factlines.core import temporal
from factlines.core.columns import CSV_HEADER as FACT_CSV_HEADER
from factlines.core.columns import TRIPLE_COLUMNS
from factlines.core.errors import Refused
from factlines.core.names import check_name, entity_id, new_triple_id, predicate_id
from factlines.core.spool import Spool
from factlines.core.store.mempalace import confidence_value
from factlines.core.transfer.plan import (
    CHUNK,
    PLAN_BATCH,
    ImportReport,
    Steps,
    describe,
    still_new,
)
from factlines.core.transfer.repeats import RepeatedIds
from factlines.core.transfer.rows_file import ImportFile, Problem

if TYPE_CHECKING:
    from factlines.core.store.facade import KnowledgeGraph

# The columns of a CSV export, in order; an import reads them by name.
ENTITY_CSV_COLUMNS = ("type", "properties", "created_at")
CSV_HEADER = (
    *FACT_CSV_HEADER,
    # Each fact's entities (MemPalace's columns of theirs but id and name, given above).
    *(f"{side}_{column}" for side in ("subject", "object") for column in ENTITY_CSV_COLUMNS),
)
# A fact's columns a cell gives as they are (its ids, predicate, times and confidence are read
# apart), and of those the ones a new fact takes as given (MemPalace stamps extracted_at).
_AS_WRITTEN = tuple(
    name
    for name in TRIPLE_COLUMNS
    if name not in ("id", "subject", "predicate", "object", "valid_from", "valid_to", "confidence")
)
_GIVEN = tuple(name for name in _AS_WRITTEN if name != "extracted_at")
_CACHED = 50_000  # checked values each cache keeps for the next rows (a few MB)
# A number as an export writes one (Python's repr of a float; SQLite cannot keep a NaN).
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# A row that can be imported: (line, fact, subject entity, object entity), each a dict of columns.
_Checked = tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]


def _as_written(text: str) -> float | str | None:
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

    def forget_when_full(self) -> None:
        """Start a cache of checked values afresh once it is big: names and dates repeat in a
        real file, but a file of distinct ones must not hold them all."""
        caches = (self.subjects, self.objects, self.predicates, self.starts, self.ends)
        for cache in (*caches, self.confidences):
            if len(cache) > _CACHED:
                cache.clear()

    def repeatable(self, fields: list[str]) -> tuple[str | None, str | None]:
        """What may repeat in a row, as :meth:`fact` makes it of a row it accepts, without
        checking the row (the file's first reading, quick): a stored fact's id, and an open fact's
        (subject, predicate, object) joined in one text."""
        at = self.at
        row_id = fields[at["id"]]
        stored = bool(row_id.strip())
        subject, obj, predicate = (
            fields[at["subject"]],
            fields[at["object"]],
            fields[at["predicate"]],
        )
        sid, oid = fields[at["subject_id"]], fields[at["object_id"]]
        if stored:
            ended = bool(fields[at["valid_to"]])
        else:
            # Any end but spaces is one, or a reason to reject the row: open only when blank.
            row_id, predicate = None, predicate_id(predicate)
            sid, oid = sid.strip(), oid.strip()
            ended = bool(fields[at["valid_to"]].strip())
        if ended:
            return row_id, None
        return row_id, "\x1f".join((sid or entity_id(subject), predicate, oid or entity_id(obj)))

    def fact(self, fields: list[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
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

    def _stored(self, fields: list[str], predicate: str) -> dict[str, Any]:
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
        for column in _AS_WRITTEN:
            fact[column] = fields[at[column]] or None
        return fact

    def _new(self, fields: list[str], raw: str) -> dict[str, Any]:
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
        for column in _GIVEN:
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

    def _entity(
        self, fields: list[str], eid: str, name: str, side: str, stored: bool
    ) -> dict[str, Any]:
        """The entity row to create should the graph lack it: its other cells as written (a
        new fact's empty ones take MemPalace's defaults)."""
        entity: dict[str, str | None] = {"id": eid, "name": name or eid}
        for column, i in self.entity_cells[side]:
            if fields[i] or stored:
                entity[column] = fields[i] or None
        return entity


def _checked(
    reading: _Rows, batch: list[tuple[int, list[str]]], rep: ImportReport
) -> Iterator[_Checked]:
    """(line, fact, subject entity, object entity) of each row of ``batch`` that can be
    imported; the others are rejected (reported in ``rep``). One tight loop: it runs for
    every row of the file."""
    reading.forget_when_full()
    for line, fields in batch:
        fields.append("")
        try:
            yield (line, *reading.fact(fields))
        except Refused as exc:
            rep.rejected.append(Problem(line, str(exc)))


def noting_repeats(
    columns: dict[str, int], extras: dict[str, list[tuple[str, str]]], repeats: RepeatedIds
) -> Callable[[list[str]], None]:
    """``note(fields)`` for each row as the file is first read: what in it may repeat (a
    stored fact's id, an open fact's subject, predicate and object) goes into ``repeats``,
    quickly, without checking the row (:meth:`_Rows.repeatable`)."""
    reading = _Rows(columns, extras)
    rows = 0

    def note(fields: list[str]) -> None:
        nonlocal rows
        rows += 1
        if not rows % PLAN_BATCH:
            reading.forget_when_full()
        fields.append("")
        row_id, key = reading.repeatable(fields)
        if row_id is not None:
            repeats.add("triples", row_id)
        if key is not None:
            repeats.add("open", key)

    return note


def plan_csv(
    kg: KnowledgeGraph, data: ImportFile, rep: ImportReport, steps: Steps
) -> Callable[[], None]:
    """Two more passes over the file's rows (the first, reading it, noted what may repeat:
    :func:`noting_repeats`), a batch at a time: each row checked, against the file and the
    graph, keeping only the lines not to be written; then ``write``: each part's entities,
    then its facts."""
    reading = _Rows(data.columns or {}, data.extras)
    plan = _Plan(data.repeats, rep)
    checked_rows = Spool("factlines-import-")  # read back by ``write``: not checked twice
    for batch in data.batches("facts", PLAN_BATCH):
        checked = list(_checked(reading, batch, rep))
        plan.check(kg, checked)
        checked_rows.append(checked)
        steps.add(len(batch))

    # Entity ids this import has found in the graph or inserted, not looked for again inside
    # a write (MemPalace never deletes an entity); forgotten once many, to stay small.
    there: set[str] = set()

    def write_part(given: tuple[list[_Checked], list[dict[str, Any]]]) -> None:
        part, made = given
        entities: dict[str, dict[str, Any]] = {}
        for _, _, subject, obj in part:
            for entity in (subject, obj):
                if entity["id"] not in there:
                    entities.setdefault(entity["id"], entity)
        fresh = still_new(kg, "entities", list(entities.values()), None) if entities else []
        if fresh:
            kg.insert_rows("entities", fresh)
            rep.entities_added += len(fresh)
        if len(there) > _CACHED:
            there.clear()
        there.update(entities)
        facts = [fact for _, fact, _, _ in part]
        made_ids = {id(fact) for fact in made}
        still_new(kg, "triples", [fact for fact in facts if id(fact) not in made_ids], None)
        _unused_in_graph(kg, made, data.repeats)  # the new ids, inside this write
        kg.insert_rows("triples", facts)
        rep.facts_added += len(facts)

    def write() -> None:
        for table, extras in data.extras.items():
            kg.add_columns(table, extras)
        rows = (
            row
            for batch in cast("Iterator[list[_Checked]]", checked_rows.oldest_first())
            for row in batch
            if row[0] not in plan.left_out
        )
        parts = iter(lambda: list(islice(rows, CHUNK)), [])
        with_ids = ((part, _give_ids(part, data.repeats)) for part in parts)
        try:
            kg.write_in_parts(with_ids, write_part, lambda given: steps.add(len(given[0])))
        finally:
            checked_rows.close()

    return write


class _Plan:
    """What is known of the file's rows across batches: the ids and open facts it may give
    twice, the first line of each such id and the last of each such open fact, and the lines
    not to be written (each reported)."""

    def __init__(self, repeats: RepeatedIds, rep: ImportReport):
        self.repeats, self.rep = repeats, rep
        self.given: dict[str, int] = {}
        self.opened: dict[tuple[str, str, str], int] = {}
        self.left_out: set[int] = set()

    def check(self, kg: KnowledgeGraph, checked: list[_Checked]) -> None:
        """A batch of checked rows, against the earlier lines and the graph."""
        have = kg.rows_with_ids("triples", [fact["id"] for _, fact, _, _ in checked if fact["id"]])
        keys = [_key(fact) for _, fact, _, _ in checked if fact["valid_to"] is None]
        open_there = kg.open_fact_ids(keys) if keys else {}
        for line, fact, _, _ in checked:
            if self._leaves_out(line, fact, have, open_there):
                self.left_out.add(line)

    def _leaves_out(
        self,
        line: int,
        fact: dict[str, Any],
        have: dict[str, dict[str, Any]],
        open_there: dict[tuple[str, str, str], str],
    ) -> bool:
        """Whether the row at ``line`` is not to be written (then reported)."""
        rep, repeats = self.rep, self.repeats
        row_id = fact["id"]
        if row_id is not None and repeats.may_repeat("triples", row_id):
            first = self.given.setdefault(row_id, line)
            if first != line:
                rep.rejected.append(
                    Problem(line, f"a fact id {row_id!r} was already given on line {first}")
                )
                return True
        there = have.get(row_id) if row_id is not None else None
        if there is not None:
            _known_id(line, fact, there, rep)
            return True
        if fact["valid_to"] is not None:
            return False
        key = _key(fact)
        twin = open_there.get(key)
        if twin is not None:
            rep.skipped.append(
                Problem(line, f"{describe(fact)} is already an open fact ({twin}); not added again")
            )
            return True
        if not repeats.may_repeat("open", "\x1f".join(key)):
            return False
        if key in self.opened and row_id is None:  # a stored fact is itself: kept
            rep.skipped.append(
                Problem(line, f"{describe(fact)} repeats line {self.opened[key]}; not added again")
            )
            return True
        self.opened[key] = line
        return False


def _key(fact: dict[str, Any]) -> tuple[str, str, str]:
    return (fact["subject"], fact["predicate"], fact["object"])


def _known_id(line: int, fact: dict[str, Any], there: dict[str, Any], rep: ImportReport) -> None:
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


def _give_ids(part: list[_Checked], repeats: RepeatedIds) -> list[dict[str, Any]]:
    """A new id (contract §3.4) for each fact of ``part`` without one, unused in the part and
    in the file (as far as its filter of ids can tell: a new id it may hold is made again);
    made before the write, which checks them against the graph (:func:`_unused_in_graph`).
    Returns the facts given one."""
    facts = [fact for _, fact, _, _ in part]
    taken = {fact["id"] for fact in facts if fact["id"] is not None}
    made = [fact for fact in facts if fact["id"] is None]
    for fact in made:
        _new_id(fact, taken, repeats)
    return made


def _new_id(fact: dict[str, Any], taken: set[str], repeats: RepeatedIds) -> None:
    while True:
        fact["id"] = new_triple_id(fact["subject"], fact["predicate"], fact["object"])
        if fact["id"] not in taken and not repeats.may_hold("triples", fact["id"]):
            taken.add(fact["id"])
            return


def _unused_in_graph(kg: KnowledgeGraph, made: list[dict[str, Any]], repeats: RepeatedIds) -> None:
    """Inside the write: a new id the graph holds already (where the import's earlier parts
    are) is made again."""
    taken = {fact["id"] for fact in made}
    pending: list[dict[str, Any]] = made
    while pending:
        clash = set(kg.rows_with_ids("triples", [fact["id"] for fact in pending]))
        pending = [fact for fact in pending if fact["id"] in clash]
        for fact in pending:
            _new_id(fact, taken, repeats)
