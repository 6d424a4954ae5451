"""Python's cycle collector paused while a whole-graph read builds its answer.

Such a read (every conflict, every change over the span) builds hundreds of thousands of
tuples and dicts, none of them in a cycle. The collector still runs each time young objects
outnumber its threshold, and its older generations walk everything built so far: at a
million facts, a fifth of the read. Paused, the objects are freed as usual by their
reference counts; the collector runs again as soon as the last pause ends.

The window asks these reads on a worker thread, and the pause matters most there: a full
collection holds the interpreter's lock while it walks the worker's objects, and the UI
thread waits that long (on 90,000 facts, 300-370 ms after an edit, Undo or Redo without the
pause; 40-70 ms with it).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Generator
from contextlib import contextmanager

_lock = threading.Lock()
# Pauses under way (reads on several threads may overlap), and whether the collector was
# running before the first: only that decides whether the last one starts it again.
_pauses = 0
_was_enabled = False


def turned_off() -> None:
    """Python's automatic collector off for good (the app collects by hand): a pause under
    way then ends without turning it back on."""
    global _was_enabled
    with _lock:
        _was_enabled = False
        gc.disable()


def paused() -> bool:
    """Whether a read has paused the collector now (a collector run by hand waits too)."""
    return _pauses > 0


@contextmanager
def collector_paused() -> Generator[None, None, None]:
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
