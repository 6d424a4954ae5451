"""A guard against a binding bug that kills long Qt sessions on Python 3.11.

With PySide6/shiboken6 6.12 on CPython 3.11, every call of a C++ ``void`` method (``QPainter.
fillRect``, ``QWidget.update``, ``QRectF.setLeft`` ...) returns ``None`` without taking a
reference to it, so each call drops ``None``'s reference count by one. From Python 3.12 on,
``None`` is immortal and this is harmless (the binding was evidently built for that); on 3.11
the count reaches zero after a few thousand calls and the interpreter aborts with "Fatal Python
error: none_dealloc". A chart repaints often, so it meets this within seconds of scrubbing.

``True`` suffers the same way on some paths (a pyqtgraph plot repainting drops it about once a
repaint; the process then aborts at exit with "bool_dealloc").

The guard measures the bug (a few void calls, before and after) and, only when it is present,
gives ``None``, ``True`` and ``False`` reference counts so large they cannot run out: what 3.12
does by design (they are immortal there).
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QRectF

_HEADROOM = 1 << 40
_applied = False


def void_calls_drop_none() -> bool:
    rect = QRectF()
    before = sys.getrefcount(None)
    for _ in range(16):
        rect.setLeft(0.0)
    return sys.getrefcount(None) <= before - 8


def guard_none_refcount() -> bool:
    """Apply the guard once if the running binding has the bug; return whether it is on."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if not void_calls_drop_none():
        return False
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _HEADROOM
    _applied = True
    return True


guard_none_refcount()
