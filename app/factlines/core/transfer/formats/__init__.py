"""The file formats a graph is exported to and imported from: a module each (its name, key,
extensions, writer and/or reader: a :class:`Format`), imported here and a line each in
:data:`FORMATS`, in the order a person is shown them. The CLI, the window's file filters, its
format list and its tips list the formats from here, when they are built, so a new format needs
nothing else."""

from __future__ import annotations

import os
from pathlib import Path

from factlines.core.errors import Refused
from factlines.core.transfer.formats.csv_format import CSV
from factlines.core.transfer.formats.graphml_format import GRAPHML
from factlines.core.transfer.formats.json_format import JSON
from factlines.core.transfer.formats.record import Format

FORMATS: tuple[Format, ...] = (
    JSON,
    CSV,
    GRAPHML,
)
# A file whose name says no format that reads is read as JSON: what it holds says whether it
# is a Factlines export or MemPalace's seed.
READ_OTHERWISE = JSON


def writing() -> tuple[Format, ...]:
    """The formats an export may write."""
    return tuple(fmt for fmt in FORMATS if fmt.writer is not None)


def reading() -> tuple[Format, ...]:
    """The formats an import may read."""
    return tuple(fmt for fmt in FORMATS if fmt.reader is not None)


def extensions(formats: tuple[Format, ...]) -> list[str]:
    """Every extension of ``formats``, in order."""
    return [ext for fmt in formats for ext in fmt.extensions]


def named_by(path: str | os.PathLike[str], formats: tuple[Format, ...]) -> Format | None:
    """The one of ``formats`` whose extension ends ``path`` (any case), if any."""
    suffix = Path(path).suffix.lower()
    return next((fmt for fmt in formats if suffix in fmt.extensions), None)


def to_write(key: str) -> Format:
    """The format an export writes for ``key``; refused when no format writes that."""
    found = next((fmt for fmt in writing() if fmt.key == key), None)
    if found is None:
        keys = ", ".join(fmt.key for fmt in writing())
        raise Refused(f"format must be one of {keys}, not {key!r}")
    return found


def to_read(path: str | os.PathLike[str]) -> Format:
    """The format an import reads ``path`` as: the one its extension names, else JSON."""
    return named_by(path, reading()) or READ_OTHERWISE


def names(formats: tuple[Format, ...]) -> str:
    """The names of ``formats`` as a person lists them: "JSON, CSV or GraphML"."""
    return listed([fmt.name for fmt in formats])


def what_an_import_reads() -> str:
    """Each format an import reads, and what it is: "JSON (…) or CSV (one fact per row)"."""
    return listed([f"{fmt.name} ({fmt.import_words})" for fmt in reading()])


def listed(words: list[str]) -> str:
    """``words`` as a person lists them: "JSON, CSV or GraphML"."""
    return " or ".join(filter(None, [", ".join(words[:-1]), *words[-1:]]))


__all__ = [
    "FORMATS",
    "READ_OTHERWISE",
    "Format",
    "extensions",
    "listed",
    "named_by",
    "names",
    "reading",
    "to_read",
    "to_write",
    "what_an_import_reads",
    "writing",
]
