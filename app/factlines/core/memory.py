"""Memory freed by a big read handed back to the system.

glibc keeps what a thread frees in that thread's heap, for its next allocations: after the
reads a window makes of a million facts on its workers (each a few hundred megabytes at its
peak), the window kept ~590 MB resident of which Python used ~110 MB. ``malloc_trim`` returns
the free pages (``bench_window.py --big``: the window's peak RSS 567-583 MB before, 497-514 MB
after). Elsewhere (macOS, Windows, musl) there is nothing to call, and nothing is done.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # releases the interpreter's lock while it runs
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def give_back() -> None:
    """Return the memory freed so far to the system, where the C library can (glibc)."""
    if _TRIM is not None:
        _TRIM(0)
