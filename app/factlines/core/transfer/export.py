"""Export a graph, or a selection of it, to JSON (lossless), CSV or GraphML.

The whole history or the snapshot at ``as_of`` (the facts valid then, contract §2.4), the whole
graph or one ``entity`` (its facts in either direction); the entities written are those the
facts refer to (every entity for a whole, unfiltered export). Everything is read in one
snapshot of the file and written as it is read, batch by batch, to a file beside the target
that replaces it only when complete: a cancelled or failed export leaves no partial file.

**JSON** (``FORMAT``, version ``VERSION``) is a copy: every column of both of MemPalace's
tables, ids included, and the columns a newer MemPalace added (``extra_columns``: their
names and kinds), each value exactly as stored (a time value the rules refuse, a confidence
that is not a number; a blob as ``{"$blob": base64}``), one row per line::

    {"format": "factlines-graph", "version": 1, "exported_at": "…Z", "as_of": null,
     "entity": null, "columns": {"entities": [...], "triples": [...]},
     "extra_columns": {"entities": [["aliases", "TEXT"]], "triples": []},
     "entities": [
    {"id": "kai", "name": "Kai", ...},
    ...],
     "triples": [
    {"id": "t_kai_works_on_orion_…", "subject": "kai", ...},
    ...]}

**CSV**: one row per fact, the header :data:`CSV_HEADER` (``subject``/``object`` are display
names, ``subject_id``/``object_id`` the ids, ``subject_type`` and the like the entities' other
columns), then a newer MemPalace's columns of the facts (``created_by``) and of their entities
(``subject_aliases``, ``object_aliases``); an empty cell is an empty or unknown value.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from factlines.core import temporal
from factlines.core.columns import CSV_HEADER as FACT_CSV_HEADER
from factlines.core.columns import TRIPLE_COLUMNS
from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Progress, RowCounter, report
from factlines.core.store.facade import same_graph
from factlines.core.transfer.graphml import write_graphml
from factlines.core.transfer.values import blob_tag

ENTITY_CSV_COLUMNS = ("type", "properties", "created_at")
FORMAT = "factlines-graph"
VERSION = 1
EXTENSIONS = {".json": "json", ".csv": "csv", ".graphml": "graphml"}
CSV_HEADER = (
    *FACT_CSV_HEADER,
    # Each fact's entities (MemPalace's columns of theirs but id and name, given above).
    *(f"{side}_{column}" for side in ("subject", "object") for column in ENTITY_CSV_COLUMNS),
)
BATCH = 2000
# The first bytes of every SQLite database: an export never replaces one.
_SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    path: Path
    format: str
    entities: int
    facts: int


def format_of(path: str | os.PathLike) -> str:
    """The format a file name asks for (``json``, ``csv`` or ``graphml``); refused otherwise."""
    fmt = EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None:
        raise Refused(
            f"{Path(path).name}: the file name must end in {', '.join(EXTENSIONS)} "
            "to say which format to write"
        )
    return fmt


def export_graph(
    kg,
    path: str | os.PathLike,
    *,
    fmt: str | None = None,
    as_of: str | None = None,
    entity: str | None = None,
    progress: Progress | None = None,
) -> ExportSummary:
    """Write ``kg`` (or its facts valid at ``as_of``, or ``entity``'s facts) to ``path``.

    ``fmt`` defaults to the file name's extension. ``progress(done, total)`` counts rows
    (entities, then facts) and may cancel (:mod:`.progress`). The graph is only read.
    Refused: an unknown format, an ``as_of`` that is not a time, an ``entity`` not in the
    graph. Returns what was written.
    """
    target = Path(path)
    fmt = fmt or format_of(target)
    if fmt not in EXTENSIONS.values():
        raise Refused(f"format must be one of {', '.join(EXTENSIONS.values())}, not {fmt!r}")
    as_of = temporal.parse(as_of, "as_of")
    mode = _mode_for(target, kg)
    with kg.selection(as_of=as_of, entity=entity) as selection:
        total = selection.entity_count + selection.fact_count
        part = _part_beside(target)
        try:
            with open(part, "w", encoding="utf-8", newline="") as handle:
                report(progress, 0, total)
                writer = {"json": _write_json, "csv": _write_csv, "graphml": _write_graphml}[fmt]
                meta = {"as_of": as_of, "entity": entity}
                writer(handle, selection, meta, RowCounter(progress, total))
            if mode is not None:
                os.chmod(part, mode)
            os.replace(part, target)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
        return ExportSummary(target, fmt, selection.entity_count, selection.fact_count)


def _mode_for(target: Path, kg) -> int | None:
    """The mode of the file the export replaces (None: a new file, which keeps the mode it was
    made with, 0666 less the umask). Refused: a target that is the graph being read, or any
    SQLite database (an open graph perhaps: an export never replaces one)."""
    try:
        with open(target, "rb") as existing:
            header = existing.read(len(_SQLITE_MAGIC))
            mode = os.stat(existing.fileno()).st_mode & 0o7777
    except FileNotFoundError:
        return None
    except OSError:
        return None  # not readable: the replace below says why in words, or succeeds
    if header == _SQLITE_MAGIC or same_graph(target, kg.db_path):
        raise Refused(
            f"{target} is a database (perhaps the graph itself): an export never replaces one; "
            "choose another file name"
        )
    return mode


def _part_beside(target: Path) -> str:
    """A new, empty file beside ``target`` to write the export into, made as any new file is
    (0666 less the umask: mkstemp's 0600 would stay on the export); a folder that is missing or
    may not be written is said in words."""
    folder = target.parent
    try:
        while True:
            part = str(folder / f".{target.name}.{secrets.token_hex(6)}.part")
            try:
                fd = os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
                break
            except FileExistsError:
                continue
    except FileNotFoundError:
        raise Refused(f"the folder {folder} does not exist: choose another place") from None
    except PermissionError:
        raise Unavailable(f"you may not write in the folder {folder}") from None
    except OSError as exc:
        raise Unavailable(f"cannot write in {folder}: {exc.strerror or exc}") from None
    os.close(fd)
    return part


def _write_json(out, selection, meta: dict, counter: RowCounter) -> None:
    dumps = json.JSONEncoder(ensure_ascii=False, default=blob_tag).encode
    columns = selection.columns
    header = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": temporal.now_instant(),
        **meta,
        "columns": {table: list(columns[table]) for table in ("entities", "triples")},
        # A newer MemPalace's columns, [name, kind], for an import to make them again.
        "extra_columns": {
            table: [list(pair) for pair in selection.extras[table]]
            for table in ("entities", "triples")
        },
    }
    out.write(dumps(header)[:-1] + ',\n "entities": [\n')
    first = True
    for batch in selection.entity_rows(BATCH):
        lines = [dumps(dict(zip(columns["entities"], row))) for row in batch]
        out.write(("" if first else ",\n") + ",\n".join(lines))
        first = False
        counter.add(len(batch))
    out.write('],\n "triples": [\n')
    first = True
    for batch in selection.fact_rows(BATCH):
        lines = [dumps(dict(zip(columns["triples"], row))) for row in batch]
        out.write(("" if first else ",\n") + ",\n".join(lines))
        first = False
        counter.add(len(batch))
    out.write("]}\n")


def _write_csv(out, selection, meta: dict, counter: RowCounter) -> None:
    fact_extras = [name for name, _ in selection.extras["triples"]]
    entity_extras = [name for name, _ in selection.extras["entities"]]
    writer = csv.writer(out)
    writer.writerow(
        (
            *CSV_HEADER,
            *fact_extras,
            *(f"{side}_{name}" for side in ("subject", "object") for name in entity_extras),
        )
    )
    # Each entity's name, then its other columns (ENTITY_CSV_COLUMNS) and a newer MemPalace's.
    entities: dict[str, tuple] = {}
    for batch in selection.entity_rows(BATCH):  # the facts' entities
        entities.update((row[0], row[1:]) for row in batch)
        counter.add(len(batch))
    # An entity the graph has no row for: its id stands for its name, the rest empty.
    width = len(selection.columns["entities"]) - 1
    missing = (None,) * (width - 1)
    get = entities.get
    mempalace = len(TRIPLE_COLUMNS)
    for batch in selection.fact_rows(BATCH):
        lines = []
        for tid, s, p, o, *rest in batch:
            subject, obj = get(s) or (s, *missing), get(o) or (o, *missing)
            lines.append(
                (
                    tid, s, subject[0], p, o, obj[0], *rest[: mempalace - 4],
                    *subject[1:4], *obj[1:4], *rest[mempalace - 4 :], *subject[4:], *obj[4:],
                )
            )  # fmt: skip
        writer.writerows(lines)
        counter.add(len(batch))


def _write_graphml(out, selection, meta: dict, counter: RowCounter) -> None:
    write_graphml(out, selection, meta, counter.add, BATCH)
