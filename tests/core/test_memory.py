"""What a worker freed is handed back to the system (glibc keeps it for that thread)."""

from __future__ import annotations

import os
import threading

import pytest

from factlines.core import memory

pytestmark = pytest.mark.skipif(
    memory._TRIM is None, reason="no malloc_trim here: nothing is handed back"
)


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_memory_a_worker_freed_is_handed_back():
    kept: list[bytes] = []

    def read_something_big() -> None:
        # 120 MB in pieces the C library serves (over pymalloc's 512 bytes), a few kept
        # alive among them, as a read's answer is: the rest is freed between them.
        pieces = [bytes(1500) for _ in range(80_000)]
        kept.extend(pieces[::64])

    worker = threading.Thread(target=read_something_big)
    worker.start()
    worker.join()
    freed = _resident_mb()
    memory.give_back()
    assert _resident_mb() < freed - 60
    kept.clear()
