"""CSV: one row per fact, written and read.

The header is :data:`CSV_HEADER` (``subject``/``object`` are display names,
``subject_id``/``object_id`` the ids, ``subject_type`` and the like the entities' other
columns), then a newer MemPalace's columns of the facts (``created_by``) and of their entities
(``subject_aliases``, ``object_aliases``); an empty cell is an empty or unknown value. An
import needs only ``subject``, ``predicate`` and ``object`` (:mod:`..readers`,
:mod:`..csv_rows`).
"""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING, Any, TextIO

from factlines.core.progress import RowCounter
from factlines.core.store.rows import TRIPLE_COLUMNS
from factlines.core.transfer.csv_rows import CSV_HEADER
from factlines.core.transfer.formats.record import BATCH, Format
from factlines.core.transfer.readers import read_csv

if TYPE_CHECKING:
    from factlines.core.store.protocol import Selection


def write_csv(out: TextIO, selection: Selection, meta: dict[str, Any], counter: RowCounter) -> None:
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
    entities: dict[str, tuple[Any, ...]] = {}
    for batch in selection.entity_rows(BATCH):  # the facts' entities
        entities.update((row[0], row[1:]) for row in batch)
        counter.add(len(batch))
    # An entity the graph has no row for: its id stands for its name, the rest empty.
    width = len(selection.columns["entities"]) - 1
    missing = (None,) * (width - 1)
    get = entities.get
    mempalace = len(TRIPLE_COLUMNS)
    for batch in selection.fact_rows(BATCH):
        lines: list[tuple[Any, ...]] = []
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


CSV = Format(
    key="csv",
    name="CSV",
    extensions=(".csv",),
    writer=write_csv,
    export_words="one row per fact",
    reader=read_csv,
    import_words="one fact per row",
)
