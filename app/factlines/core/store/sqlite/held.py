"""The files this process's connections hold open, and a file's first bytes read without harm.

POSIX locks belong to the process, not to a descriptor: closing any descriptor of a file drops
every lock the process holds on it, SQLite's included. Read through a descriptor of our own (to
look at its header), a graph a connection of ours has open lost its locks: MemPalace, closing
its connection, then found no other reader, checkpointed and deleted the ``-wal`` and ``-shm``
under ours, whose reads failed as "malformed" and whose watch could miss the write. So the
files our connections hold are known here, and their bytes are not read that way (SQLite
itself keeps its descriptors of a file until its last connection to it closes).
"""

from __future__ import annotations

import os
import threading
from collections import Counter

_LOCK = threading.Lock()
_HELD: Counter[tuple[int, int]] = Counter()


def _key(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def hold(path: str) -> tuple[int, int] | None:
    """Note that a connection of this process has ``path`` open; the key to :func:`release`."""
    key = _key(path)
    if key is not None:
        with _LOCK:
            _HELD[key] += 1
    return key


def release(key: tuple[int, int] | None) -> None:
    if key is None:
        return
    with _LOCK:
        _HELD[key] -= 1
        if _HELD[key] <= 0:
            del _HELD[key]


def head(path: str, size: int) -> bytes | None:
    """The first ``size`` bytes of ``path`` (OSError as ``open`` raises it), or None when a
    connection of this process has it open: then it is a database SQLite opened."""
    key = _key(path)
    with _LOCK:
        if key is not None and key in _HELD:
            return None
        with open(path, "rb") as handle:
            return handle.read(size)
