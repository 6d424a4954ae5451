"""Giving way to other programs' writes between the short transactions of a long write.

A program waiting for SQLite's write lock (MemPalace: ``sqlite3``'s busy handler, 10 s) does
not queue: it sleeps and looks again, every 0.1 s once it has waited a while. A long write cut
into transactions that follow one another at once leaves it gaps of microseconds, which it
never hits, and it waits as long as the whole write. So once a long write has held the lock for
:data:`HOLD_S` since it last gave way, it pauses :data:`PAUSE_S` after its transaction: long
enough for the waiting program's next look to find the lock free. Its longest wait is then
about ``HOLD_S`` plus one transaction plus one look. (On PostgreSQL writers queue for locks;
the pause costs little and is kept the same.)
"""

from __future__ import annotations

import time
from collections.abc import Callable

HOLD_S = 0.2
PAUSE_S = 0.12


class GiveWay:
    """The lock time of one long write since it last gave way (see the module)."""

    def __init__(self) -> None:
        self._held = 0.0

    def after(self, began: float, settle: Callable[[], None]) -> None:
        """A transaction of the write that began at ``began`` (monotonic) has committed:
        ``settle()`` what it wrote (outside the lock), then pause if the write has now held
        the lock long enough."""
        self._held += time.monotonic() - began
        settle()
        if self._held >= HOLD_S:
            time.sleep(PAUSE_S)
            self._held = 0.0
