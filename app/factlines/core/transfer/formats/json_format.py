"""JSON: Factlines' own format, a lossless copy, written and read; also how MemPalace's
``entity_facts`` seed is read (:mod:`..json_reader` tells them apart by what the file holds).

The export (``FORMAT``, version ``VERSION``) is every column of both of MemPalace's tables,
ids included, and the columns a newer MemPalace added (``extra_columns``: their names and
kinds), each value exactly as stored (a time value the rules refuse, a confidence that is not
a number; a blob as ``{"$blob": base64}``), one row per line::

    {"format": "factlines-graph", "version": 1, "exported_at": "…Z", "as_of": null,
     "entity": null, "columns": {"entities": [...], "triples": [...]},
     "extra_columns": {"entities": [["aliases", "TEXT"]], "triples": []},
     "entities": [
    {"id": "kai", "name": "Kai", ...},
    ...],
     "triples": [
    {"id": "t_kai_works_on_orion_…", "subject": "kai", ...},
    ...]}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TextIO

from factlines.core import temporal
from factlines.core.progress import RowCounter
from factlines.core.transfer.formats.record import BATCH, Format
from factlines.core.transfer.json_reader import FORMAT, VERSION, read_json
from factlines.core.transfer.values import blob_tag

if TYPE_CHECKING:
    from factlines.core.store.protocol import Selection


def write_json(
    out: TextIO, selection: Selection, meta: dict[str, Any], counter: RowCounter
) -> None:
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
    _write_objects(out, selection.entity_rows(BATCH), columns["entities"], dumps, counter)
    out.write('],\n "triples": [\n')
    _write_objects(out, selection.fact_rows(BATCH), columns["triples"], dumps, counter)
    out.write("]}\n")


def _write_objects(
    out: TextIO,
    batches: Iterable[list[tuple[Any, ...]]],
    columns: tuple[str, ...],
    dumps: Callable[[object], str],
    counter: RowCounter,
) -> None:
    """A table's rows as JSON objects, one a line, separated by commas."""
    first = True
    for batch in batches:
        lines = [dumps(dict(zip(columns, row))) for row in batch]
        out.write(("" if first else ",\n") + ",\n".join(lines))
        first = False
        counter.add(len(batch))


JSON = Format(
    key="json",
    name="JSON",
    extensions=(".json",),
    writer=write_json,
    export_words="a lossless copy of both tables, ids included",
    reader=read_json,
    import_words="a Factlines export or MemPalace's entity_facts",
)
