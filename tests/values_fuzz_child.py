"""The child process of the values fuzz test: the window over one file, used all over.

``python values_fuzz_child.py PATH`` opens PATH in the main window (offscreen), selects every
entity the browser lists (a row with a NULL id is clicked, which must only say why it cannot
be selected), scrubs as_of across the graph's span and beyond, repaints, asks every table cell
for every role and every bar for its tooltip and context menu, sorts the table by every
column, and steps the time control. It prints what went wrong, one line each, and exits 1 if
anything did: an exception (anywhere: a slot, a virtual override, the code here) or a Qt
warning. A crash shows as a signal in the parent.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["TZ"] = "UTC"
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "app"))

# The offscreen platform's notes about what it cannot do are not the app's warnings.
BENIGN = ("does not support propagateSizeHints", "does not support raise()")
SCRUB_STEPS = 10
problems: list[str] = []


def _record_message(mode, context, message) -> None:
    from PySide6.QtCore import QtMsgType

    if mode in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg):
        return
    if any(benign in message for benign in BENIGN):
        return
    problems.append(f"Qt {mode.name}: {message}")


def _record_exception(kind, value, tb) -> None:
    problems.append("exception: " + "".join(traceback.format_exception(kind, value, tb)))


def _instants(kg) -> list[str | None]:
    """as_of values across the span (and the calendar's ends), then all time."""
    from factlines.core import temporal

    span = kg.time_span()
    low = temporal.to_posix(span[0]) if span else None
    high = temporal.to_posix(span[1]) if span else None
    values: list[str | None] = ["0001-01-01", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]
    if low is not None and high is not None:
        for k in range(SCRUB_STEPS + 1):
            moment = low + (high - low) * k / SCRUB_STEPS
            values.append(temporal.from_posix(moment))
            values.append(temporal.day_of_posix(moment))
    return [*values, None]


def _every_cell(model) -> None:
    from PySide6.QtCore import Qt

    roles = [
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.EditRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.BackgroundRole,
        Qt.ItemDataRole.TextAlignmentRole,
    ]
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            model.flags(index)
            for role in roles:
                model.data(index, role)


def _use_entity(app, win) -> None:
    from PySide6.QtCore import Qt

    chart, editor = win.gantt, win.facts_table
    for as_of in _instants(win.kg):
        win.set_as_of(as_of)
        app.processEvents()
    win.set_as_of(None)
    win.repaint()
    app.processEvents()
    _every_cell(editor.view.model())
    layout = chart.bars.layout
    middle = sum(chart.x_range()) / 2
    for i in range(layout.n):
        chart.tooltip(i)
        chart.tooltip(i, middle)
        chart.select_bar(i)
        chart.bar_menu(i, middle).deleteLater()
    chart.fit()
    app.processEvents()
    win.grab()
    for column in range(editor.view.model().columnCount()):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            editor.view.sortByColumn(column, order)
    control = win.time_control
    win.set_as_of("2025-01-31")
    for step in ({"days": 1}, {"months": 1}, {"years": -1}):
        control.step(**step)
    control._tick()
    win.set_as_of(None)
    app.processEvents()


def _settle(app, seconds: float = 5.0) -> None:
    """Let the jobs the last step started deliver (the panels ask the graph off the UI thread
    and show the answer when it comes): until none has run for a few rounds of events."""
    import time

    from factlines.ui.jobs.progress import jobs_running

    deadline, quiet = time.monotonic() + seconds, 0
    while quiet < 3 and time.monotonic() < deadline:
        app.processEvents()
        quiet = quiet + 1 if jobs_running() == 0 else 0
        time.sleep(0.002)


def _use_panels(app, win) -> None:
    """Every history panel in turn: shown, its rows asked for every role, each row chosen as a
    click and a double-click would."""
    from PySide6.QtWidgets import QAbstractItemView

    panels = win.panels
    panels.changes.set_instants("0001-01-01", "9999-12-31")
    for dock in panels.docks:
        panels.show_dock(dock)
        _settle(app)
        for view in dock.widget().findChildren(QAbstractItemView):
            model = view.model()
            if model is None:
                continue
            _every_cell(model)
            for row in range(min(model.rowCount(), 25)):
                index = model.index(row, 0)
                view.setCurrentIndex(index)
                view.clicked.emit(index)
                view.doubleClicked.emit(index)
                view.activated.emit(index)
                app.processEvents()
    win.facts_dock.raise_()
    app.processEvents()


def main(path: str) -> int:
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    qInstallMessageHandler(_record_message)
    sys.excepthook = _record_exception
    app = QApplication([])

    from factlines import KnowledgeGraph
    from factlines.ui import MainWindow

    kg = KnowledgeGraph(path)
    settings = Path(path).with_suffix(".ini")
    win = MainWindow(kg, settings=str(settings), quiet=True)
    sys.excepthook = _record_exception  # the window installs the app's own handler
    win.resize(1500, 950)
    win.show()
    app.processEvents()
    try:
        browser = win.browser
        model = browser.model
        _every_cell(model)
        for row in range(model.rowCount()):
            entity = model.entity_at(row)
            browser.context_menu(entity).deleteLater()
            browser._clicked(model.index(row, 0))
            app.processEvents()
            if entity["id"] is None:  # listed, marked, never selected
                continue
            if win.state.entity != entity["id"]:
                problems.append(f"clicking {entity['id']!r} did not select it")
                continue
            _use_entity(app, win)
            panels = win.panels
            panels.show_dock(panels.narrative_dock)  # the Story follows the selection
            _settle(app)
            _every_cell(panels.narrative.view.model())
        _use_panels(app, win)
        for search in ("a", "ö", "x'", ""):
            browser.set_search(search)
            app.processEvents()
        win.grab()
    except Exception:
        problems.append("exception: " + traceback.format_exc())
    finally:
        win.close()
        app.processEvents()
        kg.close()
    for problem in problems:
        print(problem)
    print(f"checked {model.rowCount()} entities; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
