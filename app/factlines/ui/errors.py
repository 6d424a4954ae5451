"""The UI half of the error contract (``factlines.core.errors``), and the one handler for bugs.

A :class:`~factlines.core.errors.Refused` or :class:`~factlines.core.errors.Unavailable` is
caught where the action was asked for and said in words
(:func:`~factlines.ui.look.wording.in_words`). Anything else is a
bug: raised in a Qt slot, it reaches :class:`ErrorHandler` (``sys.excepthook``), which shows it
with its traceback and keeps the app running.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass

from PySide6.QtWidgets import QApplication, QMessageBox

from factlines.core.errors import Unavailable
from factlines.ui.look.wording import in_words

KEPT_REPORTS = 20  # the latest; each holds its traceback's frames alive


@dataclass
class Report:
    """An exception that reached the handler: its one-line summary and its traceback."""

    summary: str
    traceback: str
    exception: BaseException


class ErrorHandler:
    """``sys.excepthook`` for the app: an uncaught exception (in a Qt slot, an event handler, a
    timer) is shown with its traceback in a dialog, printed on stderr, and kept in ``reports``;
    the app goes on. ``quiet`` records without a dialog; by default it is quiet only where no
    one could see one (the offscreen platform).

    An :class:`Unavailable` that got this far (a read from a view while the file is locked or
    gone) is said in words, not as a bug.
    """

    def __init__(self, quiet: bool | None = None):
        self.quiet = quiet
        self.reports: list[Report] = []
        self._showing = False
        self._previous = None

    def install(self) -> ErrorHandler:
        self._previous = sys.excepthook
        sys.excepthook = self
        return self

    def uninstall(self) -> None:
        if sys.excepthook is self:
            sys.excepthook = self._previous or sys.__excepthook__

    def __call__(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, (KeyboardInterrupt, SystemExit)):
            (self._previous or sys.__excepthook__)(exc_type, exc, tb)
            return
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        expected = isinstance(exc, Unavailable)
        summary = in_words(exc) if expected else f"{exc_type.__name__}: {exc}"
        self.reports.append(Report(summary, text, exc))
        del self.reports[:-KEPT_REPORTS]
        print(text, file=sys.stderr, end="")
        if not self._silent():
            self._show(exc, summary, text)

    def _silent(self) -> bool:
        if self._showing:  # an error while the dialog is up: recorded and printed, not stacked
            return True
        if QApplication.instance() is None:
            return True
        if self.quiet is None:
            return QApplication.platformName() in ("offscreen", "minimal")
        return self.quiet

    def _show(self, exc: BaseException, summary: str, text: str) -> None:
        self._showing = True
        try:
            box = QMessageBox(QApplication.activeWindow())
            box.setWindowTitle("Factlines")
            if isinstance(exc, Unavailable):
                box.setIcon(QMessageBox.Icon.Warning)
                box.setText(summary)
            else:
                box.setIcon(QMessageBox.Icon.Critical)
                box.setText(
                    "Something went wrong inside Factlines (a bug). The app keeps running; what "
                    "you did last may not have been done."
                )
                box.setInformativeText(summary)
                box.setDetailedText(text)
            box.exec()
        finally:
            self._showing = False


def install(quiet: bool | None = None) -> ErrorHandler:
    """Make a new :class:`ErrorHandler` the app's ``sys.excepthook``."""
    return ErrorHandler(quiet).install()
