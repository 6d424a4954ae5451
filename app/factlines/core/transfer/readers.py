"""Reading an import file into rows, each with the line of the file it starts on.

Three kinds of file: Factlines' own JSON export (:mod:`.export`), CSV with the export's
columns, and MemPalace's ``entity_facts`` seed (a JSON object ``{key: facts}``, what
``seed_from_entity_facts`` takes, bare or under an ``"entity_facts"`` key). Nothing here looks
at the graph; a row that cannot be read is a :class:`Problem` of its line.
"""

from __future__ import annotations

import csv
import io
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from factlines.core.errors import Refused
from factlines.core.progress import Progress, report
from factlines.core.store.extra_columns import checked_extras
from factlines.core.transfer.export import CSV_HEADER, FORMAT, VERSION

CSV_REQUIRED = ("subject", "predicate", "object")
# What ``seed_from_entity_facts`` reads of an entry: a bare object of objects is MemPalace's
# seed only when each entry has some of these (a tsconfig.json has none).
SEED_KEYS = frozenset(
    [
        "full_name",
        "type",
        "gender",
        "birthday",
        "relationship",
        "parent",
        "partner",
        "sibling",
        "owner",
        "interests",
    ]
)
_NO_FIELD_LIMIT = 2**31 - 1  # the C reader's largest (a C long on every platform)
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class Problem:
    """A row not imported: the file's line it starts on (the header is line 1), and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass
class ImportFile:
    """What a file holds: its ``kind`` (``json``, ``csv`` or ``seed``) and its rows as
    ``(line, value)``; for ``json`` two lists (``entities``, ``triples``) of row objects, for
    ``csv`` one (``facts``) of lists of fields, whose positions ``columns`` gives by name, for
    ``seed`` one (``seed``) of ``(key, facts)``. ``problems`` are rows that could not be read
    at all. ``extras`` are the columns of each table beyond MemPalace's the rows carry (a
    newer MemPalace's), as checked (name, kind) pairs."""

    kind: str
    rows: dict[str, list[tuple[int, object]]]
    problems: list[Problem]
    columns: dict[str, int] | None = None
    extras: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def read_file(path: str | Path, progress: Progress | None = None) -> ImportFile:
    """Read ``path`` (UTF-8, a byte-order mark allowed): ``.csv`` as CSV, anything else as
    JSON, Factlines' export or MemPalace's seed as its content says. Refused when the file
    cannot be read or is neither."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise Refused(f"{path.name} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if path.suffix.lower() == ".csv":
        return read_csv(text, progress)
    return read_json(text, progress, path.name)


# ── CSV ───────────────────────────────────────────────────────────────────


def read_csv(text: str, progress: Progress | None = None) -> ImportFile:
    # Any field length MemPalace's text columns hold (Python's reader stops at 128 KiB), and
    # strict: a quote never closed is an error, not the rest of the file read as one value.
    csv.field_size_limit(_NO_FIELD_LIMIT)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
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
    known = set(CSV_HEADER) | (set(unknown) if extras else set())
    seen = {name for name in names if name in known}
    twice = sorted({name for name in seen if names.count(name) > 1})
    if twice:
        raise Refused(f"line 1: the column {', '.join(twice)} is given twice")
    rows: list[tuple[int, object]] = []
    line = reader.line_num + 1
    width = len(names)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            reason = f"not readable as CSV ({exc})"
            if "unexpected end of data" in str(exc):  # only ever at the end of the text
                reason = (
                    "a quote opened on this line is never closed: lines "
                    f"{line}–{reader.line_num} (the rest of the file) were not read"
                )
            problems.append(Problem(line, reason))
            line = reader.line_num + 1
            continue  # the reader starts afresh on the next line
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            line = reader.line_num + 1
            continue  # a blank line
        if len(fields) != width:
            problems.append(Problem(line, f"has {len(fields)} fields where the header has {width}"))
        else:
            rows.append((line, fields))
        line = reader.line_num + 1
        if len(rows) % 20_000 == 0:
            report(progress, len(rows), 0)
    columns = {name: i for i, name in enumerate(names) if name in known}
    return ImportFile("csv", {"facts": rows}, problems, columns, extras)


def _csv_extras(names: list[str]) -> dict[str, list[tuple[str, str]]]:
    """The extra columns an export's further CSV columns stand for, as text."""
    entity = [name.split("_", 1)[1] for name in names if name.startswith(("subject_", "object_"))]
    fact = [name for name in names if not name.startswith(("subject_", "object_"))]
    return {
        "entities": checked_extras("entities", [(name, "TEXT") for name in entity]),
        "triples": checked_extras("triples", [(name, "TEXT") for name in fact]),
    }


# ── JSON, with each value's line ──────────────────────────────────────────


class _Text:
    """JSON text walked value by value with raw_decode, knowing each value's line."""

    def __init__(self, text: str):
        self.text = text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        # Rows read but holding a value no graph can store, by their line.
        self.problems: list[Problem] = []

    def line(self, pos: int) -> int:
        return bisect_right(self._newlines, pos - 1) + 1

    def skip(self, pos: int) -> int:
        return _SPACE.match(self.text, pos).end()

    def expect(self, pos: int, char: str) -> int:
        pos = self.skip(pos)
        if self.text[pos : pos + 1] != char:
            raise Refused(f"line {self.line(pos)}: expected {char!r} in the JSON")
        return pos + 1

    def value(self, pos: int) -> tuple[object, int]:
        pos = self.skip(pos)
        try:
            return _DECODER.raw_decode(self.text, pos)
        except json.JSONDecodeError as exc:
            raise Refused(f"line {exc.lineno}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise Refused(
                f"line {self.line(pos)}: the JSON nests lists or objects too deeply to be "
                "a graph's rows"
            ) from None

    def storable(self, line: int, value: object) -> bool:
        """Whether ``value`` holds only what a graph can store; else its line is a problem."""
        reason = _unstorable(value)
        if reason is not None:
            self.problems.append(Problem(line, reason))
        return reason is None

    def members(self, pos: int, member) -> int:
        """Walk the object starting at ``pos``: ``member(key, key's position, value's
        position)`` reads each value and returns the position after it. Returns the position
        after the object."""
        pos = self.skip(self.expect(pos, "{"))
        if self.text[pos : pos + 1] == "}":
            return pos + 1
        while True:
            key_pos = self.skip(pos)
            key, pos = self.value(key_pos)
            if not isinstance(key, str):
                raise Refused(f"line {self.line(key_pos)}: expected a key in the JSON")
            pos = self.skip(member(key, key_pos, self.skip(self.expect(pos, ":"))))
            if self.text[pos : pos + 1] == ",":
                pos += 1
                continue
            return self.expect(pos, "}")

    def elements(self, pos: int, progress: Progress | None, counted: list[int]):
        """(line, value) of each element of the array starting at ``pos``, and the end."""
        items: list[tuple[int, object]] = []
        pos = self.expect(pos, "[")
        pos = self.skip(pos)
        if self.text[pos : pos + 1] == "]":
            return items, pos + 1
        while True:
            start = self.skip(pos)
            value, pos = self.value(start)
            if self.storable(self.line(start), value):
                items.append((self.line(start), value))
            counted[0] += 1
            if counted[0] % 20_000 == 0:
                report(progress, counted[0], 0)
            pos = self.skip(pos)
            if self.text[pos : pos + 1] == ",":
                pos += 1
                continue
            return items, self.expect(pos, "]")


def read_json(text: str, progress: Progress | None = None, name: str = "the file") -> ImportFile:
    walker = _Text(text)
    start = walker.skip(0)
    if walker.text[start : start + 1] != "{":
        raise Refused(f"{name} is neither a Factlines export nor MemPalace's entity_facts")
    counted = [0]
    found: dict[str, object] = {}
    lines: dict[str, int] = {}
    arrays: dict[str, list] = {}

    def member(key: str, key_pos: int, pos: int) -> int:
        if key in lines:  # a later one would silently win over the first
            raise Refused(f"line {walker.line(key_pos)}: the key {key!r} is given twice")
        lines[key] = walker.line(key_pos)
        opening = walker.text[pos : pos + 1]
        if key in ("entities", "triples") and opening == "[":
            arrays[key], end = walker.elements(pos, progress, counted)
            return end
        if key == "entity_facts" and opening == "{":
            arrays[key] = []
            return walker.members(
                pos, lambda k, kp, vp: _seed_entry(walker, arrays[key], k, kp, vp)
            )
        found[key], end = walker.value(pos)
        return end

    end = walker.skip(walker.members(start, member))
    if end < len(text):
        raise Refused(f"line {walker.line(end)}: unexpected text after the JSON")
    if found.get("format") == FORMAT:
        read = _export_file(found, arrays, lines)
        read.problems[:0] = walker.problems
        return read
    if "entity_facts" in arrays:
        return ImportFile("seed", {"seed": arrays["entity_facts"]}, walker.problems)
    # A bare seed: every top-level value an object of facts.
    entries = [
        (lines[key], (key, value))
        for key, value in found.items()
        if walker.storable(lines[key], [key, value])
    ]
    if (
        found
        and not arrays
        and all(isinstance(value, dict) and value.keys() & SEED_KEYS for value in found.values())
    ):
        return ImportFile("seed", {"seed": entries}, walker.problems)
    raise Refused(
        f'{name} is neither a Factlines export ("format": "{FORMAT}") nor MemPalace\'s '
        "entity_facts (an object of {name: facts})"
    )


def _seed_entry(walker: _Text, entries: list, key: str, key_pos: int, pos: int) -> int:
    value, end = walker.value(pos)
    if walker.storable(walker.line(key_pos), [key, value]):
        entries.append((walker.line(key_pos), (key, value)))
    return end


# SQLite's INTEGER: 64 bits, signed.
_SMALLEST, _LARGEST = -(2**63), 2**63 - 1


def _unstorable(value: object) -> str | None:
    """Why a decoded JSON value cannot be stored (a whole number beyond 64 bits, text with an
    unpaired surrogate escape such as ``\\ud800``), or None. Walked without recursion: the
    decoder already accepted its depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            if not _SMALLEST <= item <= _LARGEST:
                shown = str(item) if len(str(item)) <= 30 else f"{str(item)[:27]}…"
                return f"the number {shown} is too large to store (whole numbers up to 2^63 − 1)"
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = ord(item[exc.start])
                return f"the text holds \\u{code:04x}, half of a character (an unpaired surrogate)"
    return None


def _export_file(found: dict, arrays: dict, lines: dict) -> ImportFile:
    version = found.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise Refused(
            f"line {lines.get('version', 1)}: this export is of format version {version!r}; "
            f"this Factlines reads versions up to {VERSION}"
        )
    problems = []
    for table in ("entities", "triples"):
        if table not in arrays:
            problems.append(Problem(lines.get(table, 1), f"the export has no {table!r} list"))
    declared = found.get("extra_columns") or {}
    try:
        if not isinstance(declared, dict) or not set(declared) <= {"entities", "triples"}:
            raise Refused("extra_columns must be an object of entities and triples")
        extras = {table: checked_extras(table, declared.get(table) or []) for table in arrays}
    except Refused as exc:
        raise Refused(f"line {lines.get('extra_columns', 1)}: {exc}") from None
    return ImportFile(
        "json",
        {"entities": arrays.get("entities", []), "triples": arrays.get("triples", [])},
        problems,
        extras=extras,
    )
