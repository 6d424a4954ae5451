"""The Help menu: the keyboard shortcuts, how Factlines reads time, and About.

The shortcuts window is made from the window's actions each time it opens, so it lists what the
keys do now; the chart's own keys (it handles them itself, they are no actions) are listed from
:data:`CHART_KEYS`, which a test holds to what the chart does.
"""

from __future__ import annotations

import html
import platform
from collections.abc import Iterator

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from factlines import __version__
from factlines.core.columns import NEWER_TRIPLE_COLUMNS
from factlines.ui.actions import make_action
from factlines.ui.session.document import Document

K = Qt.Key
# The chart's keys, while it has the focus: (keys it takes, how they are written, what they do).
CHART_KEYS = (
    ((K.Key_Plus, K.Key_Minus), "+ / −", "Zoom in / out on time"),
    ((K.Key_Left, K.Key_Right), "← / →", "Pan along time"),
    ((K.Key_Up, K.Key_Down), "↑ / ↓", "Scroll the lanes"),
    ((K.Key_PageUp, K.Key_PageDown), "Page Up / Page Down", "Scroll the lanes a page"),
    ((K.Key_F, K.Key_Home), "F or Home", "Fit: show every fact"),
    ((K.Key_Y,), "Y", "Zoom to as_of (or today) ± a year"),
    ((K.Key_Return,), "Enter", "Edit the selected fact"),
    ((K.Key_Delete,), "Delete", "Delete the selected fact (asks first)"),
    ((K.Key_Escape,), "Escape", "Deselect"),
)
CHART_PLACE = "Chart, when focused"
ELSEWHERE = "Window"
COLUMNS = ("Shortcut", "Action", "What it does", "Where")


def shortcut_text(action: QAction) -> str:
    """An action's shortcuts as the platform writes them, e.g. ``Ctrl+Shift+Z, Ctrl+Y``."""
    return ", ".join(
        keys.toString(QKeySequence.SequenceFormat.NativeText) for keys in action.shortcuts()
    )


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def _menus(menu: QMenu, path: str) -> Iterator[tuple[str, QMenu]]:
    yield path, menu
    for action in menu.actions():
        if action.menu() is not None:
            yield from _menus(action.menu(), f"{path} › {_plain(action.text())}")


def shortcut_rows(window: QMainWindow) -> list[dict]:
    """Every action of ``window``, its menus and its children that has a shortcut: ``{name,
    shortcut, text, tip, where}``, in menu order, then the ones in no menu."""
    where: dict[QAction, str] = {}
    for top in window.menuBar().actions():
        if top.menu() is None:
            continue
        for path, menu in _menus(top.menu(), _plain(top.text())):
            for action in menu.actions():
                where.setdefault(action, path)
    found = list(where)
    for action in [*window.actions(), *window.findChildren(QAction)]:
        if action not in where:
            found.append(action)
            where[action] = ELSEWHERE
    rows = []
    for action in found:
        keys = shortcut_text(action)
        if not keys or action.isSeparator():
            continue
        text = _plain(action.text())
        tip = action.statusTip() or action.toolTip()
        tip = tip.removesuffix(f" ({action.shortcut().toString()})")
        rows.append(
            {
                "name": action.objectName(),
                "shortcut": keys,
                "text": text,
                "tip": "" if _plain(tip) == text else tip,
                "where": where[action] + _only_in(action),
            }
        )
    return rows


def _only_in(action: QAction) -> str:
    """`` (in Facts)`` for a shortcut that works only in one view (named by its dock)."""
    local = (Qt.ShortcutContext.WidgetShortcut, Qt.ShortcutContext.WidgetWithChildrenShortcut)
    if action.shortcutContext() not in local:
        return ""
    for owner in action.associatedObjects():
        if isinstance(owner, QWidget) and not isinstance(owner, QMenu):
            while owner is not None and not isinstance(owner, QDockWidget):
                owner = owner.parentWidget()
            if owner is not None:
                return f" (in {owner.windowTitle()})"
    return ""


class ShortcutsWindow(QDialog):
    """Help → Keyboard shortcuts: a table of every shortcut, read from the actions."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.setObjectName("shortcutsWindow")
        self.setWindowTitle("Keyboard shortcuts")
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(close)
        self.resize(940, 640)
        self.fill(window)

    def fill(self, window: QMainWindow) -> None:
        rows = [
            (row["shortcut"], row["text"], row["tip"], row["where"], row["name"])
            for row in shortcut_rows(window)
        ]
        rows += [(keys, what, "", CHART_PLACE, "") for _k, keys, what in CHART_KEYS]
        self.table.setRowCount(len(rows))
        for r, (*cells, name) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, name)
                self.table.setItem(r, c, item)

    def listed(self) -> list[tuple[str, str, str]]:
        """What the table shows: (action's object name, shortcut, where) per row."""
        return [
            (
                self.table.item(r, 0).data(Qt.ItemDataRole.UserRole),
                self.table.item(r, 0).text(),
                self.table.item(r, 3).text(),
            )
            for r in range(self.table.rowCount())
        ]


TIME_HELP = """
<h3>How Factlines reads time</h3>
<p><b>Two kinds of value.</b> A <b>day</b>, <code>2026-03-01</code>, stands for the whole day.
An <b>instant</b>, <code>2026-03-01T14:30:00Z</code>, is one second in UTC. Nothing else is
taken: no partial dates, no local times, no words such as “now”.</p>
<p><b>Half-open: a fact holds from its start up to its end.</b> It is valid at an instant
<i>t</i> when it started at or before <i>t</i> and has not yet ended at <i>t</i>. A day as a
start begins at its first second (<code>00:00:00Z</code>). A day as an <b>end covers its whole
last day</b>: a fact ending <code>2026-03-01</code> is valid all of 1 March and not on 2 March.
An instant as an end is the first moment the fact no longer holds, so a successor starting at
that same instant takes over with no overlap.</p>
<p><b>Unknown start, open end.</b> A fact with no start is valid as far back as anyone knows
(the chart fades its bar in). A fact with no end is still open (the chart's bar ends in an
arrow). “Open” is what MemPalace calls <i>current</i>: it does not depend on as_of.</p>
<p><b>as_of</b> is the instant every view answers for (the time control, the chart's red line).
A day there means its first second. Facts valid at as_of are drawn in full colour; the others
are pale in the chart and dimmed in the table. <b>All time</b> shows every fact, whatever its
dates.</p>
<p><b>Ending and replacing.</b> Ending a fact on day <i>D</i> keeps it valid through <i>D</i>;
a fact added from <i>D</i> is valid on <i>D</i> too. Replacing a fact at day <i>D</i> switches
at <code>D</code>T00:00:00Z: on <i>D</i> only the new fact holds.</p>
<p><b>Values the rules do not accept</b> (<code>2025-06</code>, <code>2025-06-01 10:00</code>,
<code>2025-02-30</code>, an empty text), which older writers and hand edits leave in a file,
are shown as stored, in italics after a ⚠. MemPalace's queries compare them as text, and so
does every view here: <code>2025-06</code> as an end counts as ending at
<code>2025-06-01T00:00:00Z</code>; an end that sorts before every date, such as
<code>0000-00-00</code> or an empty text, is an end nobody knows: valid nowhere, never open.
Hover the value to see how it is read. A confidence that is not a number (MemPalace stores
<code>"high"</code> as given) is shown as stored and drawn as unknown, at full opacity.</p>
"""


class TimeHelp(QDialog):
    """Help → How Factlines reads time."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("timeHelp")
        self.setWindowTitle("How Factlines reads time")
        self.text = QTextBrowser(self)
        self.text.setHtml(TIME_HELP)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(close)
        self.resize(620, 470)


def library_versions(kg=None) -> list[tuple[str, str]]:
    """The libraries Factlines runs on, and the engine holding ``kg`` (SQLite's library when no
    graph is open; a PostgreSQL graph's server)."""
    import numpy
    import pyqtgraph
    import PySide6
    from PySide6.QtCore import qVersion

    from factlines.core.store import engine_version

    open_engine = kg.engine if kg is not None and not kg.closed else engine_version()
    engine, _, engine_number = open_engine.partition(" ")
    return [
        ("Python", platform.python_version()),
        ("PySide6", f"{PySide6.__version__} (Qt {qVersion()})"),
        ("pyqtgraph", pyqtgraph.__version__),
        ("NumPy", numpy.__version__),
        (engine, engine_number),
    ]


def compatibility_lines(document: Document) -> list[str]:
    """What the open file is to MemPalace: its schema, and what Factlines added to it."""
    kg = document.kg
    if kg is None or kg.closed:
        return ["No graph is open."]
    lines = [f"{'Database' if kg.on_server else 'File'}: {document.path}"]
    missing = kg.missing_mempalace_columns()
    if not missing:
        lines.append("MemPalace 3.11 schema: yes")
    else:
        gaps = "; ".join(f"{table} lacks {', '.join(cols)}" for table, cols in missing.items())
        lines.append(f"MemPalace 3.11 schema: no ({gaps})")
    lacking = [c for c in NEWER_TRIPLE_COLUMNS if c in missing.get("triples", [])]
    lines.append(
        f"Columns {'/'.join(NEWER_TRIPLE_COLUMNS)}: "
        + ("present" if not lacking else f"missing ({', '.join(lacking)})")
    )
    objects = kg.factlines_objects()
    tables = [name for kind, name in objects if kind == "table"]
    indexes = [name for kind, name in objects if kind == "index"]
    if not objects:
        lines.append("Added by Factlines: nothing")
    else:
        parts = []
        if tables:
            parts.append(f"table{'s' * (len(tables) > 1)} {', '.join(tables)}")
        if indexes:
            parts.append(f"index{'es' * (len(indexes) > 1)} {', '.join(indexes)}")
        lines.append(f"Added by Factlines: {'; '.join(parts)} (MemPalace ignores them)")
    return lines


def about_html(document: Document) -> str:
    facts = "<br>".join(html.escape(line) for line in compatibility_lines(document))
    libraries = ", ".join(
        f"{name} {html.escape(version)}" for name, version in library_versions(document.kg)
    )
    return (
        f"<h3>Factlines {__version__}</h3>"
        "<p>Browse and hand-edit a temporal knowledge graph (MemPalace's SQLite file). A fact "
        "that stops being true is ended, never deleted; every view answers as of the instant "
        "on the time control.</p>"
        f"<p>{facts}</p>"
        f"<p>{libraries}</p>"
    )


class AboutBox(QDialog):
    """Help → About: the version, the open file's MemPalace compatibility, the libraries."""

    def __init__(self, document: Document, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("aboutBox")
        self.setWindowTitle("About Factlines")
        self.label = QLabel(about_html(document), self)
        self.label.setObjectName("aboutText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setMinimumWidth(460)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(close)


class HelpActions(QObject):
    """The Help menu's actions; each opens its window (not modal), or raises it when open."""

    def __init__(self, document: Document, window: QMainWindow):
        super().__init__(window)
        self._document = document
        self._window = window
        self.shortcuts_window: ShortcutsWindow | None = None
        self.time_help: TimeHelp | None = None
        self.about_box: AboutBox | None = None
        self.action_shortcuts = make_action(
            window,
            "actionShortcuts",
            "&Keyboard shortcuts",
            self.show_shortcuts,
            "Ctrl+/",
            "Every keyboard shortcut, from the menus and the views",
        )
        self.action_time_help = make_action(
            window,
            "actionTimeHelp",
            "How Factlines reads &time",
            self.show_time_help,
            QKeySequence.StandardKey.HelpContents,
            "Days and instants, half-open ends, as_of",
        )
        self.action_about = make_action(window, "actionAbout", "&About Factlines", self.about)

    def fill(self, menu: QMenu) -> None:
        menu.addActions([self.action_shortcuts, self.action_time_help])
        menu.addSeparator()
        menu.addAction(self.action_about)

    def show_shortcuts(self) -> ShortcutsWindow:
        if self.shortcuts_window is None:
            self.shortcuts_window = ShortcutsWindow(self._window)
        else:
            self.shortcuts_window.fill(self._window)
        return _present(self.shortcuts_window)

    def show_time_help(self) -> TimeHelp:
        if self.time_help is None:
            self.time_help = TimeHelp(self._window)
        return _present(self.time_help)

    def about(self) -> AboutBox:
        if self.about_box is not None:
            self.about_box.label.setText(about_html(self._document))
        else:
            self.about_box = AboutBox(self._document, self._window)
        return _present(self.about_box)


def _present(dialog: QDialog) -> QDialog:
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
