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


BIG_BLOCKS_CHILD = """
import os, sys
from factlines.core import memory

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

if sys.argv[1] == "handed back":
    assert memory.hand_back_big_blocks()
big = bytearray(16 * 2**20)
del big  # freed: glibc now calls only blocks of 16 MB or more big
before = resident_mb()
blocks, kept = [], []
for _ in range(8):
    blocks.append(bytearray(4 * 2**20))  # a read's rows
    kept.append(bytearray(200_000))  # what it keeps, after each: the heap cannot shrink past it
del blocks
print(resident_mb() - before)
"""


def test_freed_big_blocks_are_handed_back_whatever_was_freed_before():
    # A process of its own: the C library's choice depends on what the process freed before.
    import subprocess
    import sys

    def kept_mb(how: str) -> float:
        run = [sys.executable, "-c", BIG_BLOCKS_CHILD, how]
        return float(subprocess.run(run, check=True, capture_output=True, text=True).stdout)

    assert kept_mb("as glibc does") > 24  # of the 32 MB freed
    assert kept_mb("handed back") < 8
