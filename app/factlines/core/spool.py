"""Batches of Python values kept in a nameless temporary file instead of memory: what a long
write (an import's checked rows, a big step's row images) holds until it reads them back.

Memory keeps an offset and a length per batch; the file lives as long as the spool (closed
with it, or when the process ends) and is never seen by anyone: it has no name.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import Any


class Spool:
    """Batches (any picklable values) appended one at a time, read back in order or newest
    first, as many times as wanted."""

    def __init__(self, prefix: str = "factlines-") -> None:
        self._prefix = prefix
        self._file = None
        self._blocks: list[tuple[int, int]] = []  # (offset, length) of each batch

    def append(self, batch: object) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix=self._prefix)  # noqa: SIM115 (closed in close)
        data = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)
        offset = self._file.seek(0, 2)
        self._file.write(data)
        self._blocks.append((offset, len(data)))

    def batch(self, index: int) -> object:
        """The batch at ``index`` (in the order they were appended)."""
        offset, length = self._blocks[index]
        assert self._file is not None  # it holds the blocks
        self._file.seek(offset)
        return pickle.loads(self._file.read(length))

    def oldest_first(self) -> Iterator[Any]:
        for index in range(len(self._blocks)):
            yield self.batch(index)

    def newest_first(self) -> Iterator[Any]:
        for index in reversed(range(len(self._blocks))):
            yield self.batch(index)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._blocks = []
