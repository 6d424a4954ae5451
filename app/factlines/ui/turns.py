"""Work a person would feel as one stall, done a step per turn of the event loop.

A step (a page of the entity list, one view's reload) is short; between two steps the event
loop paints and answers the person. :meth:`Turns.run` takes a generator of steps: it runs up to
the first ``yield`` at once, then one step per turn; a newer ``run`` (or :meth:`Turns.stop`)
drops the one going on. ``done`` comes when the steps ran to their end. A step may
:meth:`Turns.hold` the steps (waiting for something that comes later) until :meth:`Turns.go_on`.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QObject, QTimer, Signal


class Turns(QObject):
    done = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._steps: Iterator[None] | None = None
        self._held = False
        self._next = QTimer(self)
        self._next.setSingleShot(True)
        self._next.setInterval(0)
        self._next.timeout.connect(self._step)

    @property
    def running(self) -> bool:
        return self._steps is not None

    def run(self, steps: Iterator[None]) -> None:
        self._steps, self._held = steps, False
        self._step()

    def stop(self) -> None:
        self._steps, self._held = None, False
        self._next.stop()

    def hold(self) -> None:
        """No next step until :meth:`go_on` (the steps stay :attr:`running`)."""
        self._held = True
        self._next.stop()

    def go_on(self) -> None:
        """The next step, in a turn of its own, if the steps were held."""
        if self._held:
            self._held = False
            if self._steps is not None:
                self._next.start()

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
        if self._steps is steps and not self._held:  # a step may have started other steps,
            self._next.start()  # stopped or held these
