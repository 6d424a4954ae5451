"""Memory freed by a big read handed back to the system.

glibc keeps what a thread frees in that thread's heap, for its next allocations: after the
reads a window makes of a million facts on its workers (each a few hundred megabytes at its
peak), the window kept ~590 MB resident of which Python used ~110 MB. ``malloc_trim`` returns
the free pages (``bench_window.py --big``: the window's peak RSS 567-583 MB before, 497-514 MB
after). And glibc maps a big block apart, which freeing unmaps, but raises the size it calls
big each time it frees one (up to 32 MB): blocks a read's rows need then stay in the heap.
Fixed at 2 MB, the window's peak at a million facts was 329-336 MB, 346-354 MB rising.
Elsewhere (macOS, Windows, musl) there is nothing to call, and nothing is done.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

BIG_BLOCK_BYTES = 2 * 1024 * 1024
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def _glibc(name: str) -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL(None), name)  # releases the interpreter's lock while it runs
    except (OSError, AttributeError):
        return None


_TRIM = _glibc("malloc_trim")
_MALLOPT = _glibc("mallopt")


def hand_back_big_blocks() -> bool:
    """Have blocks of :data:`BIG_BLOCK_BYTES` or more mapped apart, whatever was freed before,
    so that freeing one hands it back (glibc); whether it could be set."""
    return _MALLOPT is not None and _MALLOPT(_M_MMAP_THRESHOLD, BIG_BLOCK_BYTES) == 1


def give_back() -> None:
    """Return the memory freed so far to the system, where the C library can (glibc)."""
    if _TRIM is not None:
        _TRIM(0)
