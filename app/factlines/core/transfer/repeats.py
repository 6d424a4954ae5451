"""Which ids an import file may give twice, known from one walk over it in a few bits per row.

Checking every row against every id before it needs the ids in memory (a few hundred bytes
each: a tenth of the file again). A Bloom filter instead, a bit for every 4 bytes of the file
(3 MB for 100 MB): an id it has not seen is new for certain; the few ids it may have seen (a
repeat, or one chance collision in tens of thousands) are kept, and only rows with those ids
are checked exactly, by their lines, when the rows are planned.
"""

from __future__ import annotations

from collections.abc import Iterator

_HASHES = 3
_BYTES_PER_BIT = 4
_SMALLEST = 1 << 12  # bytes of the filter, for a small file


class RepeatedIds:
    """The ids of each table that may be given twice in a file of ``size`` bytes."""

    def __init__(self, size: int):
        self._bits = bytearray(max(_SMALLEST, size // _BYTES_PER_BIT // 8))
        self._width = len(self._bits) * 8
        self.maybe: dict[str, set[str | bytes]] = {}

    def add(self, table: str, row_id: object) -> None:
        """Note one row's id (a str or bytes; any other value is no id, and ignored)."""
        if not isinstance(row_id, (str, bytes)):
            return
        bits, seen = self._bits, True
        for byte, mask in self._places(table, row_id):
            if not bits[byte] & mask:
                bits[byte] |= mask
                seen = False
        if seen:
            self.maybe.setdefault(table, set()).add(row_id)

    def may_repeat(self, table: str, row_id: object) -> bool:
        """Whether the file may give ``row_id`` more than once (False: it does not)."""
        return row_id in self.maybe.get(table, ())

    def may_hold(self, table: str, row_id: object) -> bool:
        """Whether the file may give ``row_id`` at all (False: it does not)."""
        return all(self._bits[byte] & mask for byte, mask in self._places(table, row_id))

    def _places(self, table: str, row_id: object) -> Iterator[tuple[int, int]]:
        """The byte and bit of each of the id's hashes."""
        whole = hash((table, row_id))
        first, step = whole & 0xFFFFFFFF, (whole >> 32) | 1
        for i in range(_HASHES):
            place = (first + i * step) % self._width
            yield place >> 3, 1 << (place & 7)
