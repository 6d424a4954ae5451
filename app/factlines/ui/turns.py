"""Work a person would feel as one stall, done a step per turn of the event loop.

A step (a page of the entity list, one view's reload) is short; between two steps the event
loop paints and answers the person. :meth:`Turns.run` takes a generator of steps: it runs up to
the first ``yield`` at once, then one step per turn; a newer ``run`` (or :meth:`Turns.stop`)
drops the one going on. ``done`` comes when the steps ran to their end.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QObject, QTimer, Signal


class Turns(QObject):
    done = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._steps: Iterator[None] | None = None
        self._next = QTimer(self)
        self._next.setSingleShot(True)
        self._next.setInterval(0)
        self._next.timeout.connect(self._step)

    @property
    def running(self) -> bool:
        return self._steps is not None

    def run(self, steps: Iterator[None]) -> None:
        self._steps = steps
        self._step()

    def stop(self) -> None:
        self._steps = None
        self._next.stop()

    def _step(self) -> None:
        steps = self._steps
        if steps is None:
            return
        try:
            next(steps)
        except StopIteration:
            if self._steps is steps:
                self._steps = None
                self.done.emit()
            return
        except BaseException:  # a bug: these steps end here, the error handler shows it
            if self._steps is steps:
                self._steps = None
            raise
        if self._steps is steps:  # a step may have started other steps, or stopped these
            self._next.start()
