"""Import a file into a graph, all or nothing, with a report of every row not imported.

- Factlines' JSON export is a **copy**: its rows are written as they are stored in it, ids,
  provenance and values the time rules refuse included (``apply_row``'s rule: unchecked).
- **CSV** (the export's columns; only ``subject``, ``predicate``, ``object`` required) and
  MemPalace's **entity_facts** seed are new facts: checked by the same rules as ``add_triple``
  (names, time values, an interval that ends before it starts, a confidence between 0 and 1).
  A CSV's ``id``, ``subject_id`` and ``object_id`` are used when given; otherwise ids are made
  by MemPalace's rules and a missing entity is created with the name as spelled.

The whole file is read and checked, and the graph read for what it holds already, before
anything is written; then the rows are written in short transactions, so that MemPalace's
writes go on in between (``KnowledgeGraph.batched``): all or nothing still, a failure or a
cancel takes back what the earlier ones wrote (inside the caller's :meth:`recording`, it is
one undo step). A row that breaks a rule is **rejected**; a file with any rejected row writes
nothing, and takes no write lock, unless ``good_rows`` is asked for. A row the graph already
holds is **skipped** and reported, never doubled: a fact whose (subject, predicate, object)
is already open (an open row only), a fact of the copy whose id the graph already has
unchanged, an entity of the copy the graph already has (kept as the graph has it; also one
another program makes while the rows are written). Each problem names the file's line (the
header, or the JSON's first line, is line 1).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from factlines.core.errors import Refused
from factlines.core.progress import Progress
from factlines.core.store import open_graph
from factlines.core.store.replication import REPLICATED
from factlines.core.transfer import formats
from factlines.core.transfer.csv_rows import plan_csv
from factlines.core.transfer.json_reader import TABLES
from factlines.core.transfer.plan import CHUNK, PLAN_BATCH, ImportReport, Steps, describe, insert
from factlines.core.transfer.rows_file import ImportFile, Problem
from factlines.core.transfer.seed import plan_seed
from factlines.core.transfer.values import untag

if TYPE_CHECKING:
    from factlines.core.store.changes import Change
    from factlines.core.store.facade import KnowledgeGraph

# (place, line, row) of a row of the file: None for a row rejected.
_Placed = tuple[int, int, dict[str, Any] | None]

_REQUIRED = {"entities": ("name",), "triples": ("predicate",)}
# Values JSON gives as SQLite stores them (a bool is an int's subclass, not one of these).
_AS_STORED = {str, float, int, type(None)}


def import_file(
    kg: KnowledgeGraph,
    path: str | os.PathLike[str],
    *,
    good_rows: bool = False,
    progress: Progress | None = None,
    words: str | None = None,
) -> ImportReport:
    """Import ``path`` into ``kg`` (see the module's rules) and say what happened; with
    ``words``, logged under them in the edit log.

    ``progress(done, total)`` may cancel (:mod:`.progress`; then nothing is written).
    Refused: a file that cannot be read or is none of the three kinds, a read-only graph,
    another program's write meanwhile of a fact the import would add.
    """
    reader = formats.to_read(path).reader
    assert reader is not None  # to_read gives a format that reads
    data = reader(Path(path), progress)
    rep = ImportReport(data.kind, rejected=list(data.problems))
    planner = {"json": _plan_copy, "csv": plan_csv, "seed": plan_seed}[data.kind]
    with kg.batched(words):
        steps = Steps(progress, data.row_count())
        steps.add(0)
        write = planner(kg, data, rep, steps)
        if rep.rejected and not good_rows:
            return rep
        write()
        rep.written = True
    return rep


def import_recorded(
    location: str | os.PathLike[str],
    path: str | os.PathLike[str],
    words: str,
    *,
    good_rows: bool = False,
    progress: Progress | None = None,
) -> tuple[ImportReport, Change]:
    """Import ``path`` into the graph at ``location`` as one undo step, logged in the edit log
    under ``words`` (what File → Import… runs, on a connection of its own): ``(report,
    change)``, the change for :meth:`~factlines.core.store.KnowledgeGraph.revert`."""
    with open_graph(location) as kg, kg.recording() as change:
        report = import_file(kg, path, good_rows=good_rows, progress=progress, words=words)
    return report, change


# ── Factlines' JSON: a copy ───────────────────────────────────────────────


def _copy_row(table: str, value: object, columns: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Refused(f"a {table} row must be a JSON object")
    value = cast("dict[str, Any]", value)  # JSON's: keyed by text
    unknown = sorted(set(value) - set(columns))
    if unknown:
        raise Refused(f"{table} has no column {', '.join(map(repr, unknown))}")
    row = {column: value.get(column) for column in columns}
    for column, cell in row.items():
        if cell.__class__ not in _AS_STORED:
            try:
                row[column] = untag(cell)
            except ValueError as exc:
                raise Refused(f"{column}: {exc}") from None
    if table == "entities":
        lacks = _lacks_id(row["id"])
        if lacks:
            raise Refused(f"the entity {row['name']!r} has {lacks} id")
    else:
        lacks = _lacks_id(row["id"])
        if lacks:
            raise Refused(f"the fact {describe(row)} has {lacks} id")
        for end in ("subject", "object"):
            lacks = _lacks_id(row[end])
            if lacks:
                raise Refused(f"the fact {row['id']!r} has {lacks} {end} (an entity's id)")
    missing = [column for column in _REQUIRED[table] if row[column] is None]
    if missing:
        what = "entity" if table == "entities" else "fact"
        raise Refused(f"the {what} {row['id']!r} has no {', '.join(missing)}")
    return row


def _lacks_id(value: object) -> str | None:
    """How a row's id (or a fact's subject or object) is missing: "no" (null), "an empty"
    (no character), "a number for its"; None when it is one. Any other text or BLOB id is
    MemPalace's table's too (one of spaces, one its export wrote as a $blob): it comes back."""
    if value is None:
        return "no"
    if isinstance(value, (int, float)):
        return "a number for its"
    return None if value else "an empty"


def _plan_copy(
    kg: KnowledgeGraph, data: ImportFile, rep: ImportReport, steps: Steps
) -> Callable[[], None]:
    """Check the copy's rows a batch at a time against the file and the graph, keeping only
    which rows are not to be written (by their place in their list); ``write`` reads the file
    again for the others."""
    left_out: dict[str, set[int]] = {}
    for table in TABLES:
        left_out[table] = set()
        given: dict[object, tuple[int, int]] = {}  # (place, line) of each id that may repeat, first
        for batch in _copy_rows(data, table, PLAN_BATCH, rep):
            rows: list[tuple[int, int, dict[str, Any]]] = []
            for place, line, row in batch:
                if row is None:
                    left_out[table].add(place)
                    continue
                first = place, line
                if data.repeats.may_repeat(table, row["id"]):
                    first = given.setdefault(row["id"], first)
                if first[0] == place:
                    rows.append((place, line, row))
                    continue
                what = "an entity" if table == "entities" else "a fact"
                rep.rejected.append(
                    Problem(line, f"{what} id {row['id']!r} was already given on line {first[1]}")
                )
                left_out[table].add(place)
            left_out[table] |= _against_the_graph(kg, table, rows, rep)
            steps.add(len(batch))

    def write() -> None:
        for table, extras in data.extras.items():
            kg.add_columns(table, extras)
        for table in TABLES:
            # A row rejected (None) is one of those left out.
            rows = cast(
                "Iterator[dict[str, Any]]",
                (
                    row
                    for batch in _copy_rows(data, table, CHUNK)
                    for place, _, row in batch
                    if place not in left_out[table]
                ),
            )
            added = insert(kg, table, rows, steps)
            if table == "entities":
                rep.entities_added = added
            else:
                rep.facts_added = added

    return write


def _copy_rows(
    data: ImportFile, table: str, size: int, rep: ImportReport | None = None
) -> Iterator[list[_Placed]]:
    """Batches of (place, line, row) of ``table`` in the file, ``row`` as :func:`_copy_row`
    makes it, or None when it is rejected (then reported in ``rep``, when given)."""
    columns = (*REPLICATED[table], *(name for name, _ in data.extras.get(table, [])))
    place = 0
    for batch in data.batches(table, size):
        rows: list[_Placed] = []
        for line, value in batch:
            try:
                row = _copy_row(table, value, columns)
            except Refused as exc:
                if rep is not None:
                    rep.rejected.append(Problem(line, str(exc)))
                row = None
            rows.append((place, line, row))
            place += 1
        yield rows


def _against_the_graph(
    kg: KnowledgeGraph, table: str, rows: list[tuple[int, int, dict[str, Any]]], rep: ImportReport
) -> set[int]:
    """The places of ``rows`` (place, line, row) not to write, as the graph holds them: a row
    it holds exactly (unchanged), an entity it holds otherwise (skipped), another fact of the
    id (rejected), a fact whose (subject, predicate, object) it holds open (skipped)."""
    left_out: set[int] = set()
    have = kg.rows_with_ids(table, [row["id"] for _, _, row in rows])
    fresh: list[tuple[int, int, dict[str, Any]]] = []
    for place, line, row in rows:
        there = have.get(row["id"])
        if there is None:
            fresh.append((place, line, row))
            continue
        left_out.add(place)
        if all(there.get(column) == row.get(column) for column in there.keys() | row.keys()):
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
                    f"({describe(there)})",
                )
            )
    if table == "triples":
        opened = [(place, line, row) for place, line, row in fresh if row["valid_to"] is None]
        keys = [(row["subject"], row["predicate"], row["object"]) for _, _, row in opened]
        already = kg.open_fact_ids(keys) if keys else {}
        for place, line, row in opened:
            twin = already.get((row["subject"], row["predicate"], row["object"]))
            if twin is not None:
                left_out.add(place)
                rep.skipped.append(
                    Problem(
                        line, f"{describe(row)} is already an open fact ({twin}); not added again"
                    )
                )
    return left_out
