"""The columns of a fact, one entry each: MemPalace's ``triples`` table in its order, with the
two entity names a fact row reads beside its ids.

Every list of these columns is derived from here (the engines' CREATE TABLE and upgrade, the
fact row the store reads, the text a search looks in, the CSV header, the GraphML keys, the
facts table, the forms' labels), so a column MemPalace adds is added here and nowhere else.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from factlines.core import temporal

POSTGRES_TEXT = 'TEXT COLLATE "C"'  # compared byte by byte, as SQLite's BINARY does
# MemPalace's timestamp default as SQLite's CURRENT_TIMESTAMP writes it: UTC, a space, seconds.
POSTGRES_NOW = "(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))"


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    label: str  # what the forms and messages call it
    # Its definition after the name in each engine's CREATE TABLE (SQLite's is MemPalace's);
    # None: not stored, read from the fact's entities.
    sqlite: str | None = "TEXT"
    postgres: str | None = POSTGRES_TEXT
    read: str = ""  # SQL of it in a fact row over ``t``, ``s`` and ``o``; "" : ``t.name``
    header: str | None = None  # the facts table's header; None: no column of its own there
    tooltip: str = ""  # the header's tooltip; "": its name
    csv: str | None = ""  # the CSV header; "": its name; None: not exported as a cell
    graphml: str | None = ""  # the GraphML key of an edge's data; "": its name; None: none
    newer: bool = False  # MemPalace 3.x added it to older files (as ALTER TABLE ADD COLUMN)
    provenance: bool = False  # where the fact came from, kept as given
    editable: bool = False  # a person may change it (``update_fact``)
    searched: bool = False  # finding facts by text looks in it

    @property
    def stored(self) -> bool:
        """A column of MemPalace's triples table (the others are read beside it)."""
        return self.sqlite is not None

    @property
    def sql(self) -> str:
        return self.read or f"t.{self.name}"

    @property
    def csv_name(self) -> str | None:
        return self.name if self.csv == "" else self.csv

    @property
    def graphml_key(self) -> str | None:
        return self.name if self.graphml == "" else self.graphml

    @property
    def tip(self) -> str:
        return self.tooltip or self.name


_TIMES = f"{temporal.EXPECTED_FORMS}; empty = unknown / still open"

# In a fact row's order (rows.FACT_FIELDS); the stored ones in MemPalace's.
COLUMNS = (
    Column("id", "Id", sqlite="TEXT PRIMARY KEY", postgres=f"{POSTGRES_TEXT} PRIMARY KEY",
           graphml=None),
    Column("subject", "Subject", sqlite="TEXT NOT NULL", postgres=f"{POSTGRES_TEXT} NOT NULL",
           csv="subject_id", graphml=None, editable=True),
    Column("subject_name", "Subject", sqlite=None, postgres=None,
           read="COALESCE(s.name, t.subject)", csv="subject", graphml=None, searched=True),
    Column("predicate", "Predicate", sqlite="TEXT NOT NULL", postgres=f"{POSTGRES_TEXT} NOT NULL",
           header="Predicate", editable=True, searched=True),
    Column("object", "Object", sqlite="TEXT NOT NULL", postgres=f"{POSTGRES_TEXT} NOT NULL",
           csv="object_id", graphml=None, editable=True),
    Column("object_name", "Object", sqlite=None, postgres=None,
           read="COALESCE(o.name, t.object)", csv="object", graphml=None, searched=True),
    Column("valid_from", "Valid from", header="Valid from", tooltip=f"valid_from: {_TIMES}",
           editable=True),
    Column("valid_to", "Valid to", header="Valid to", tooltip=f"valid_to: {_TIMES}",
           editable=True),
    Column("confidence", "Confidence", sqlite="REAL DEFAULT 1.0",
           postgres="DOUBLE PRECISION DEFAULT 1.0", header="Conf.", editable=True),
    Column("source_closet", "Source closet", header="Closet", provenance=True, editable=True,
           searched=True),
    Column("source_file", "Source file", header="Source file", provenance=True, editable=True,
           searched=True),
    Column("source_drawer_id", "Source drawer id", header="Drawer", newer=True, provenance=True,
           editable=True, searched=True),
    Column("adapter_name", "Adapter name", header="Adapter", newer=True, provenance=True,
           editable=True, searched=True),
    Column("extracted_at", "Extracted at", sqlite="TEXT DEFAULT CURRENT_TIMESTAMP",
           postgres=f"{POSTGRES_TEXT} DEFAULT {POSTGRES_NOW}", header="Extracted at"),
)  # fmt: skip
BY_NAME = {column.name: column for column in COLUMNS}
STORED = tuple(column for column in COLUMNS if column.stored)
TRIPLE_COLUMNS = tuple(column.name for column in STORED)
FACT_FIELDS = tuple(column.name for column in COLUMNS)
PROVENANCE = tuple(column.name for column in COLUMNS if column.provenance)
NEWER_TRIPLE_COLUMNS = tuple(column.name for column in STORED if column.newer)
EDITABLE = frozenset(column.name for column in COLUMNS if column.editable)
CSV_HEADER = tuple(column.csv_name for column in COLUMNS if column.csv_name)


# Untyped: its fields are the provenance columns, known only once COLUMNS is read.
class Provenance(
    namedtuple(  # pyright: ignore[reportUntypedNamedTuple]
        "Provenance", PROVENANCE, defaults=(None,) * len(PROVENANCE)
    )
):
    """Where a fact came from (MemPalace's source columns), each None when not recorded."""

    __slots__ = ()

    @classmethod
    def of(cls, fact: Mapping[str, Any]) -> Provenance:
        """A fact's provenance (a fact row, or the fields of a form)."""
        return cls(*(fact.get(name) for name in cls._fields))


NO_PROVENANCE = Provenance()
