"""Progress and cancelling, for a progress bar driving long work: an export or an import,
every conflict of a big graph.

A caller passes ``progress(done, total)``: it is called from time to time (every batch of a
thousand or so rows, or between the steps of a long read; never per row) on the caller's
thread. ``total`` is 0 while it is not known yet (a file still being read). Returning
``False`` cancels, and so does raising :class:`Cancelled`; anything else carries on. A
cancelled export leaves no file behind, a cancelled import writes nothing, a cancelled read
returns nothing.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int], object]


class Cancelled(Exception):
    """Cancelled through the progress callback: nothing was written."""

    def __init__(self, message: str = "cancelled; nothing was written"):
        super().__init__(message)


def report(progress: Progress | None, done: int, total: int) -> None:
    """Tell ``progress`` how far the work is; raise :class:`Cancelled` if it says to stop."""
    if progress is not None and progress(done, total) is False:
        raise Cancelled()


class RowCounter:
    """Rows done out of ``total``, told to ``progress`` as each batch is added."""

    def __init__(self, progress: Progress | None, total: int):
        self.progress, self.total, self.done = progress, total, 0

    def add(self, rows: int) -> None:
        self.done += rows
        report(self.progress, self.done, self.total)
