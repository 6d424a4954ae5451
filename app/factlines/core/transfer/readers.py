"""Reading a CSV import file (the export's columns, :mod:`.formats.csv_format`) a line at a
time into rows, each with the line of the file it starts on. Nothing here looks at the graph;
a row that cannot be read is a :class:`Problem` of its line. JSON is read by
:mod:`.json_reader`; which reader reads a file, :mod:`.formats` says.
"""

from __future__ import annotations

import csv
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from factlines.core.errors import Refused
from factlines.core.progress import Progress, report
from factlines.core.store.extra_columns import checked_extras
from factlines.core.transfer.csv_rows import CSV_HEADER, noting_repeats
from factlines.core.transfer.repeats import RepeatedIds
from factlines.core.transfer.rows_file import ImportFile, Problem

if TYPE_CHECKING:
    from _csv import Reader

CSV_REQUIRED = ("subject", "predicate", "object")
_NO_FIELD_LIMIT = 2**31 - 1  # the C reader's largest (a C long on every platform)


def read_csv(path: Path, progress: Progress | None = None) -> ImportFile:
    """Check the CSV file at ``path``, a line at a time: its header, and each row readable with
    as many fields, noting what in it may repeat (``repeats``); the rows are left in the file
    (``batches("facts", size)`` reads them again, ``counts`` says how many)."""
    with _reader(path) as reader:
        repeats = RepeatedIds(path.stat().st_size)
        names, columns, extras, problems = _header(reader)
        note = noting_repeats(columns, extras, repeats)
        count = 0
        for _, fields in _records(reader, len(names)):
            if isinstance(fields, Problem):
                problems.append(fields)
                continue
            note(fields)
            count += 1
            if count % 20_000 == 0:
                report(progress, count, 0)
    return ImportFile(
        "csv",
        {},
        problems,
        columns,
        extras,
        batches=lambda _table, size: _csv_batches(path, size),
        counts={"facts": count},
        repeats=repeats,
    )


def _csv_batches(path: Path, size: int) -> Iterator[list[tuple[int, list[str]]]]:
    """The (line, fields) of each readable row of the CSV at ``path``, ``size`` at a time."""
    with _reader(path) as reader:
        names = _header(reader)[0]
        batch: list[tuple[int, list[str]]] = []
        for line, fields in _records(reader, len(names)):
            if not isinstance(fields, Problem):
                batch.append((line, fields))
                if len(batch) == size:
                    yield batch
                    batch = []
        if batch:
            yield batch


@contextmanager
def _reader(path: Path) -> Generator[Reader, None, None]:
    """A strict CSV reader over ``path``: any field length MemPalace's text columns hold
    (Python's reader stops at 128 KiB), and a quote never closed is an error, not the rest of
    the file read as one value."""
    csv.field_size_limit(_NO_FIELD_LIMIT)
    try:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        try:
            yield csv.reader(handle, strict=True)
        except UnicodeDecodeError as exc:
            raise Refused(f"{path.name} is not UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise Refused(f"cannot read {path}: {exc.strerror or exc}") from None


def _header(
    reader: Reader,
) -> tuple[list[str], dict[str, int], dict[str, list[tuple[str, str]]], list[Problem]]:
    """The header's names, the position of each column read by name, the extra columns (an
    export's, §8.4) and the header's problem, if any; refused when it cannot be used."""
    problems: list[Problem] = []
    try:
        header = next(reader)
    except StopIteration:
        raise Refused("the CSV file is empty: it needs a header line") from None
    except csv.Error as exc:
        raise Refused(f"line 1: {exc}") from None
    names = [name.strip() for name in header]
    missing = [name for name in CSV_REQUIRED if name not in names]
    if missing:
        raise Refused(
            f"line 1: the header has no {', '.join(missing)} column; "
            f"the columns are {','.join(CSV_HEADER)} (only subject, predicate, object required)"
        )
    extras: dict[str, list[tuple[str, str]]] = {}
    unknown = [name for name in names if name not in CSV_HEADER]
    if unknown and set(CSV_HEADER) <= set(names):
        # An export's: its further columns are a newer MemPalace's, of the facts or (named
        # subject_… and object_…) of their entities.
        try:
            extras = _csv_extras(unknown)
        except Refused as exc:
            raise Refused(f"line 1: {exc}") from None
    elif unknown:
        problems.append(
            Problem(
                1,
                f"unknown column {', '.join(map(repr, unknown))} (ignored); the "
                f"columns are {','.join(CSV_HEADER)}",
            )
        )
    known = set(CSV_HEADER) | (set(unknown) if extras else set[str]())
    seen = {name for name in names if name in known}
    twice = sorted({name for name in seen if names.count(name) > 1})
    if twice:
        raise Refused(f"line 1: the column {', '.join(twice)} is given twice")
    columns = {name: i for i, name in enumerate(names) if name in known}
    return names, columns, extras, problems


def _records(reader: Reader, width: int) -> Iterator[tuple[int, list[str] | Problem]]:
    """(line, fields) of each row after the header, or (line, the problem) of a row that
    cannot be read or has another number of fields; blank lines left out."""
    line = reader.line_num + 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            reason = f"not readable as CSV ({exc})"
            if "unexpected end of data" in str(exc):  # only ever at the end of the text
                reason = (
                    "a quote opened on this line is never closed: lines "
                    f"{line}–{reader.line_num} (the rest of the file) were not read"
                )
            yield line, Problem(line, reason)
            line = reader.line_num + 1
            continue  # the reader starts afresh on the next line
        if fields and (len(fields) > 1 or fields[0].strip()):  # else a blank line
            if len(fields) != width:
                yield line, Problem(line, f"has {len(fields)} fields where the header has {width}")
            else:
                yield line, fields
        line = reader.line_num + 1


def _csv_extras(names: list[str]) -> dict[str, list[tuple[str, str]]]:
    """The extra columns an export's further CSV columns stand for, as text."""
    entity = [name.split("_", 1)[1] for name in names if name.startswith(("subject_", "object_"))]
    fact = [name for name in names if not name.startswith(("subject_", "object_"))]
    return {
        "entities": checked_extras("entities", [(name, "TEXT") for name in entity]),
        "triples": checked_extras("triples", [(name, "TEXT") for name in fact]),
    }


__all__ = ["ImportFile", "Problem", "read_csv"]
