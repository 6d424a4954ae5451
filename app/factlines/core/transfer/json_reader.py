"""Reading a JSON import file a piece at a time: Factlines' export of any size in memory
bounded by a batch of rows, MemPalace's ``entity_facts`` seed (small) whole.

The file is walked value by value with ``raw_decode`` over a window of its text, knowing each
value's line. A first pass checks the whole file (its shape, each row storable, the header
of an export) keeping none of the export's rows; :func:`array_batches` reads them again, a
batch at a time, when they are planned and when they are written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO, cast

from factlines.core.errors import Refused
from factlines.core.progress import Progress, report
from factlines.core.store.extra_columns import checked_extras
from factlines.core.transfer.repeats import RepeatedIds
from factlines.core.transfer.rows_file import ImportFile, Problem
from factlines.core.transfer.values import untag

# What Factlines' JSON export says it is, in its header (the writer is formats/json_format).
FORMAT = "factlines-graph"
VERSION = 1
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
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_WINDOW = 1 << 20  # characters read at a time
TABLES = ("entities", "triples")
# (line, (key, facts)) of an entry of a seed.
_Entry = tuple[int, tuple[str, object]]


class _Stream:
    """JSON text read from a file a window at a time, walked value by value."""

    def __init__(self, handle: TextIO, name: str):
        self._handle, self._name = handle, name
        self.text, self.pos, self._ended = "", 0, False
        # The line of text[0]; the line of text[_counted], for counting forward.
        self._first_line, self._counted, self._counted_line = 1, 0, 1

    def _more(self) -> bool:
        """Read the next window, dropping the text before ``pos``; False at the end."""
        if self._ended:
            return False
        try:
            piece = self._handle.read(_WINDOW)
        except UnicodeDecodeError as exc:
            raise Refused(f"{self._name} is not UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise Refused(f"cannot read {self._name}: {exc.strerror or exc}") from None
        if not piece:
            self._ended = True
            return False
        self._first_line = self.line(self.pos)
        self.text = self.text[self.pos :] + piece
        self.pos, self._counted, self._counted_line = 0, 0, self._first_line
        return True

    def line(self, pos: int) -> int:
        if pos < self._counted:
            self._counted, self._counted_line = 0, self._first_line
        self._counted_line += self.text.count("\n", self._counted, pos)
        self._counted = pos
        return self._counted_line

    def peek(self) -> str:
        """The next character that is not white space ('' at the end), not consumed."""
        while True:
            space = _SPACE.match(self.text, self.pos)
            assert space is not None  # white space or none: it matches anywhere
            self.pos = space.end()
            if self.pos < len(self.text) or not self._more():
                return self.text[self.pos : self.pos + 1]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise Refused(f"line {self.line(self.pos)}: expected {char!r} in the JSON")
        self.pos += 1

    def value(self) -> tuple[int, object]:
        """The next value and the line it starts on."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if self._more():
                    continue  # perhaps only cut short by the window
                raise Refused(f"line {self.line(exc.pos)}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise Refused(
                    f"line {self.line(self.pos)}: the JSON nests lists or objects too deeply to "
                    "be a graph's rows"
                ) from None
            if end == len(self.text) and self._more():
                continue  # a number or a word may go on in the next window
            line = self.line(self.pos)
            self.pos = end
            return line, value

    def members(self) -> Iterator[tuple[str, int]]:
        """(key, line) of each member of the object that comes next; the caller reads each
        member's value before asking for the next."""
        self.expect("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            line, key = self.value()
            if not isinstance(key, str):
                raise Refused(f"line {line}: expected a key in the JSON")
            self.expect(":")
            yield key, line
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("}")
            return

    def elements(self) -> Iterator[tuple[int, object]]:
        """(line, value) of each element of the array that comes next."""
        self.expect("[")
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]")
            return

    def skip(self) -> None:
        """Walk past the value that comes next, an array's or an object's a member at a time."""
        opening = self.peek()
        if opening == "[":
            for _ in self.elements():
                pass
        elif opening == "{":
            for _ in self.members():
                self.value()
        else:
            self.value()

    def end(self) -> None:
        if self.peek():
            raise Refused(f"line {self.line(self.pos)}: unexpected text after the JSON")


def _open(path: Path) -> TextIO:
    try:
        return open(path, encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from None


def read_json(path: Path, progress: Progress | None = None) -> ImportFile:
    """Check the whole JSON file at ``path``: Factlines' export (its rows left in the file,
    :func:`array_batches`) or MemPalace's seed (its entries read); refused otherwise."""
    with _open(path) as handle:
        walker = _Stream(handle, path.name)
        if walker.peek() != "{":
            raise Refused(f"{path.name} is neither a Factlines export nor MemPalace's entity_facts")
        found: dict[str, object] = {}
        lines: dict[str, int] = {}
        counts: dict[str, int] = {}
        unstorable: dict[str, set[int]] = {table: set() for table in TABLES}  # by place
        repeats = RepeatedIds(path.stat().st_size)
        # (the member it is under, or None: bare; its entries)
        seed: tuple[str | None, int] | None = None
        bare = 0  # a bare seed's entries, perhaps, and their problems
        bare_problems: list[Problem] = []
        problems: list[Problem] = []
        for key, line in walker.members():
            # A later one would silently win over the first: refused (the entries of a bare
            # seed, any number of them, in the filter; the others, a few, by name).
            if key in lines:
                raise Refused(f"line {line}: the key {key!r} is given twice")
            repeats.add("keys", key)
            lines[key] = line
            opening = walker.peek()
            if key in TABLES and opening == "[":
                counts[key] = 0
                for row_line, value in walker.elements():
                    if not _storable(row_line, value, problems):
                        unstorable[key].add(counts[key])
                    elif isinstance(value, dict):
                        repeats.add(key, _id_of(cast("dict[str, object]", value).get("id")))
                    counts[key] += 1
                    if sum(counts.values()) % 20_000 == 0:
                        report(progress, sum(counts.values()), 0)
            elif key == "entity_facts" and opening == "{":
                seed = ("entity_facts", sum(1 for _ in _seed_entries(walker, problems)))
            else:
                value = walker.value()[1]
                if _seed_like(value):  # a bare seed's entry, perhaps: not kept
                    bare += 1
                    _storable(line, [key, value], bare_problems)
                    del lines[key]
                else:
                    found[key] = value
        walker.end()
    if "keys" in repeats.maybe:
        _refuse_a_key_given_twice(path, repeats.maybe["keys"])
    if found.get("format") == FORMAT:
        return _export_file(path, found, lines, counts, problems, unstorable, repeats)
    if seed is None and bare and not found and not counts:
        seed = (None, bare)  # every top-level value an object of facts
        problems += bare_problems
    if seed is not None:
        return ImportFile(
            "seed",
            {},
            problems,
            batches=lambda _table, size: seed_batches(path, seed[0], size),
            counts={"seed": seed[1]},
            repeats=repeats,
        )
    raise Refused(
        f'{path.name} is neither a Factlines export ("format": "{FORMAT}") nor MemPalace\'s '
        "entity_facts (an object of {name: facts})"
    )


def _refuse_a_key_given_twice(path: Path, keys: set[str | bytes]) -> None:
    """Refused, naming its line, when one of ``keys`` (those the filter may have seen before)
    is given twice in the object at the top of the JSON at ``path``."""
    with _open(path) as handle:
        walker = _Stream(handle, path.name)
        seen: set[str] = set()
        for key, line in walker.members():
            if key in seen:
                raise Refused(f"line {line}: the key {key!r} is given twice")
            if key in keys:
                seen.add(key)
            walker.skip()


def _seed_like(value: object) -> bool:
    return isinstance(value, dict) and bool(cast("dict[str, object]", value).keys() & SEED_KEYS)


def _seed_entries(walker: _Stream, problems: list[Problem] | None) -> Iterator[_Entry]:
    """(line, (key, facts)) of each storable entry of the seed object that comes next (the
    others are problems, when ``problems`` is given)."""
    for entry, line in walker.members():
        _, value = walker.value()
        if _storable(line, [entry, value], problems if problems is not None else []):
            yield line, (entry, value)


def seed_batches(path: Path, under: str | None, size: int) -> Iterator[list[_Entry]]:
    """The (line, (key, facts)) of the seed at ``path`` (checked whole by :func:`read_json`),
    ``size`` at a time: the entries of its member ``under``, or (None) the whole object's."""
    with _open(path) as handle:
        walker = _Stream(handle, path.name)
        if under is None:
            entries = _seed_entries(walker, None)
        else:
            entries = iter(())
            for key, _ in walker.members():
                if key == under and walker.peek() == "{":
                    entries = _seed_entries(walker, None)
                    break
                walker.value()
        batch: list[_Entry] = []
        for entry in entries:
            batch.append(entry)
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch


def array_batches(
    path: Path, table: str, size: int, unstorable: set[int]
) -> Iterator[list[tuple[int, object]]]:
    """The (line, row) of ``table``'s array in the export at ``path`` (checked whole by
    :func:`read_json`), ``size`` at a time, but those at the places ``unstorable`` names."""
    with _open(path) as handle:
        walker = _Stream(handle, path.name)
        batch: list[tuple[int, object]] = []
        for key, _ in walker.members():
            if key in TABLES and walker.peek() == "[":
                for place, (line, value) in enumerate(walker.elements()):
                    if key == table and place not in unstorable:
                        batch.append((line, value))
                        if len(batch) == size:
                            yield batch
                            batch = []
                if key == table:
                    break
            else:
                walker.value()
        if batch:
            yield batch


def _storable(line: int, value: object, problems: list[Problem]) -> bool:
    """Whether ``value`` holds only what a graph can store; else its line is a problem."""
    reason = _unstorable(value)
    if reason is not None:
        problems.append(Problem(line, reason))
    return reason is None


def _id_of(value: object) -> object:
    """A row's id as it is stored (a ``$blob`` as its bytes), or None when it is none."""
    try:
        return untag(value)
    except ValueError:
        return None


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
            members = cast("dict[object, object]", item)
            stack.extend(members.keys())
            stack.extend(members.values())
        elif isinstance(item, list):
            stack.extend(cast("list[object]", item))
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


def _export_file(
    path: Path,
    found: dict[str, object],
    lines: dict[str, int],
    counts: dict[str, int],
    problems: list[Problem],
    unstorable: dict[str, set[int]],
    repeats: RepeatedIds,
) -> ImportFile:
    version = found.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise Refused(
            f"line {lines.get('version', 1)}: this export is of format version {version!r}; "
            f"this Factlines reads versions up to {VERSION}"
        )
    for table in TABLES:
        if table not in counts:
            problems.append(Problem(lines.get(table, 1), f"the export has no {table!r} list"))
    declared: object = found.get("extra_columns") or {}
    by_table = cast("dict[str, Any]", declared) if isinstance(declared, dict) else None
    try:
        if by_table is None or not set(by_table) <= set(TABLES):
            raise Refused("extra_columns must be an object of entities and triples")
        extras = {table: checked_extras(table, by_table.get(table) or []) for table in counts}
    except Refused as exc:
        raise Refused(f"line {lines.get('extra_columns', 1)}: {exc}") from None
    return ImportFile(
        "json",
        {},
        problems,
        extras=extras,
        batches=lambda table, size: array_batches(path, table, size, unstorable[table]),
        counts={table: counts.get(table, 0) for table in TABLES},
        repeats=repeats,
    )
