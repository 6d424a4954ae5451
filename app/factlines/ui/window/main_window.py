"""The main window: the views, docks, menus and status bar over one open document.

What belongs to the open graph (the store, its file, undo steps, the watch for other programs'
writes, where as_of was left) is the :class:`~factlines.ui.session.document.Document`'s; the File
and Edit menus are :class:`~factlines.ui.menus.file_menu.FileActions` and
:class:`~factlines.ui.menus.edit_menu.EditActions`. The window assembles them, keeps its own layout
between runs, and says what happened.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent, QFont, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from factlines.core.errors import Refused
from factlines.ui.actions import make_action
from factlines.ui.chart import GanttChart
from factlines.ui.graph import GraphView
from factlines.ui.jobs.backups import Backups
from factlines.ui.jobs.entity_reads import EntityReads
from factlines.ui.jobs.indexing import IndexActions
from factlines.ui.jobs.step_replays import StepReplays
from factlines.ui.menus.back_forward import SelectionHistory
from factlines.ui.menus.edit_menu import EditActions
from factlines.ui.menus.edits import FactActions
from factlines.ui.menus.file_menu import FileActions
from factlines.ui.menus.help_menu import HelpActions
from factlines.ui.menus.import_export import TransferActions
from factlines.ui.panels import Panels
from factlines.ui.panels.figures import GraphFigures
from factlines.ui.session import settings as app_settings
from factlines.ui.session.document import Document, counts_unavailable, stats_words
from factlines.ui.session.state import AppState
from factlines.ui.views.entity_list import EntityBrowser
from factlines.ui.views.facts_table import FactsTable
from factlines.ui.views.time_control import TimeControl
from factlines.ui.window.banner import ReadOnlyBanner
from factlines.ui.window.layout import WindowLayout
from factlines.ui.window.panes import PaneFocus
from factlines.ui.window.theme import ThemeActions

if TYPE_CHECKING:
    from factlines import KnowledgeGraph

MESSAGE_MS = 10000
TIME_MENU = (
    "allTime",
    "now",
    None,
    "backDay",
    "forwardDay",
    "backMonth",
    "forwardMonth",
    "backYear",
    "forwardYear",
    None,
    "play",
)


class MainWindow(QMainWindow):
    def __init__(
        self,
        kg: KnowledgeGraph | None = None,
        settings: QSettings | str | Path | None = None,
        parent: QWidget | None = None,
        quiet: bool = False,
    ):
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        # Shaping Latin text only adds kerning and ligatures, and it is most of the cost of
        # painting a table cell; scripts that need shaping still get it.
        font = self.font()
        font.setStyleStrategy(QFont.StyleStrategy.PreferNoShaping)
        self.setFont(font)
        self.settings = app_settings.open_settings(settings)
        self.theme_actions = ThemeActions(self.settings, self)  # before the views: their colours
        self.quiet = quiet  # errors go to the status bar and ``errors``, not to dialogs
        self.errors: list[str] = []

        self.state = AppState(None, self)
        # Weakly: the state must not keep a closed window (and its timers) alive.
        window = weakref.ref(self)
        self.state.ask = lambda title, question: bool(
            (shown := window()) is not None and shown.ask(title, question)
        )
        self.document = Document(self.state, self.settings, self)
        self.backups = Backups(self.document, self.settings, self, self.ask)
        self.fact_actions = FactActions(
            self.state,
            self.document.undo_stack,
            self,
            read_only=lambda: self.document.read_only,
            before_write=self.backups.before_write,
            reasons=self.document.reasons,
        )

        self.gantt = GanttChart(self.state, self.fact_actions, self)
        self.browser = EntityBrowser(self.state, self.fact_actions, self)
        self.facts_table = FactsTable(self.state, self.fact_actions, self)
        self.graph_view = GraphView(self.state, self)
        self.graph_view.depthChanged.connect(self.document.keep_graph_depth)
        self.state.graphChanged.connect(
            lambda: self.graph_view.set_depth(self.document.graph_depth() or self.graph_view.depth)
        )
        self.time_control = TimeControl(self.state, self)
        self._make_docks()
        self.panels = Panels(self)  # conflicts, changes, story, density, fact search

        self.file_actions = FileActions(
            self.document, self.settings, self.report_error, self, ask=self.ask
        )
        self.transfer = TransferActions(  # File → Import… and Export…
            self.document, self.fact_actions, self.report_error, self, self.backups.before_write
        )
        self.fact_actions.long_edit = self.transfer.run_long_edit  # a big merge, on its job
        self.replays = StepReplays(self.document, self)  # the undo of a big step, on its job
        self.entity_reads = EntityReads(self.document, self)  # a hub's facts, on a worker
        self._make_chart_area()
        # Every edit follows the document's read-only state: disabled, the reason in its tip.
        self.document.readOnlyChanged.connect(self.fact_actions.commands.update)
        self.edit_actions = EditActions(
            self.state, self.fact_actions, self.document.undo_stack, self, self.facts_table
        )
        self.help_actions = HelpActions(self.document, self)
        self.indexing = IndexActions(self.document, self, ask=self.ask)
        # The window's actions by the names they have always had: window.action_undo, …
        for owner in (
            self.file_actions,
            self.transfer,
            self.backups,
            self.edit_actions,
            self.indexing,
            self.help_actions,
        ):
            for name, action in vars(owner).items():
                if name.startswith("action_"):
                    setattr(self, name, action)
        self.recent_menu = self.file_actions.recent_menu
        self._make_view_actions()
        self.pane_focus = PaneFocus(self)  # F6 / Shift+F6; Tab leaves a table
        self._make_menus()
        self.stats_label = QLabel(self)
        self.stats_label.setObjectName("statsLabel")
        self.statusBar().addPermanentWidget(self.indexing.label)
        self.statusBar().addPermanentWidget(self.stats_label)

        self.state.message.connect(self._show_message)
        self.state.graphChanged.connect(self._update_stats)
        # After writes the span and the counts are read again off the UI thread.
        self.figures = GraphFigures(self.state, self)
        self.figures.found.connect(self._show_figures)
        self.figures.failed.connect(
            lambda words: self.stats_label.setText(counts_unavailable(words))
        )
        self.state.graphChanged.connect(self._update_title)

        self.window_layout = WindowLayout(self)
        self.window_layout.restore()
        if kg is not None:
            self.document.set_graph(kg, owned=False)
        else:
            self._update_title()
            self._update_stats()

    # ── Building ──────────────────────────────────────────────────────────

    def _make_docks(self) -> None:
        self.entities_dock = self.add_dock(
            "entitiesDock", "Entities", self.browser, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.facts_dock = self.add_dock(
            "factsDock", "Facts", self.facts_table, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.graph_dock = self.add_dock(
            "graphDock", "Neighbourhood", self.graph_view, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.splitDockWidget(self.facts_dock, self.graph_dock, Qt.Orientation.Horizontal)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.time_bar = QToolBar("Time", self)
        self.time_bar.setObjectName("timeToolBar")
        self.time_bar.setMovable(True)
        self.time_bar.addWidget(self.time_control)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.time_bar)

    def _make_chart_area(self) -> None:
        """The chart, with the read-only banner above it (hidden while the graph is writable)."""
        area = QWidget(self)
        area.setObjectName("chartArea")
        layout = QVBoxLayout(area)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.read_only_banner = ReadOnlyBanner(
            self.document, self.file_actions.reopen_for_editing, area
        )
        layout.addWidget(self.read_only_banner)
        layout.addWidget(self.gantt, 1)
        self.setCentralWidget(area)

    def add_dock(self, name: str, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        return dock

    def _make_view_actions(self) -> None:
        self.action_quit = make_action(
            self, "actionQuit", "&Quit", self.close, QKeySequence.StandardKey.Quit
        )
        self.action_find = make_action(
            self, "actionFind", "&Find entity", self.focus_search, QKeySequence.StandardKey.Find
        )
        self.action_hide_invalid = make_action(
            self,
            "actionHideInvalid",
            "&Hide facts not valid at as_of",
            self.facts_table.hide_invalid.setChecked,
            "Ctrl+H",
        )
        self.action_hide_invalid.setCheckable(True)
        self.history = SelectionHistory(self.state, self)  # Back / Forward
        self.facts_table.hide_invalid.toggled.connect(self.action_hide_invalid.setChecked)

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.file_actions.fill(file_menu)
        file_menu.addSeparator()
        self.transfer.fill(file_menu)
        file_menu.addSeparator()
        self.backups.fill(file_menu)
        file_menu.addSeparator()
        file_menu.addAction(self.action_quit)
        edit = bar.addMenu("&Edit")
        self.edit_actions.fill(edit)
        edit.addSeparator()
        edit.addAction(self.action_find)
        edit.addAction(self.panels.action_find_facts)
        view = bar.addMenu("&View")
        self.history.fill(view)
        view.addSeparator()
        for dock in (self.entities_dock, self.facts_dock, self.graph_dock):
            view.addAction(dock.toggleViewAction())
        view.addAction(self.time_bar.toggleViewAction())
        self.panels.fill_view_menu(view)
        view.addSeparator()
        view.addAction(self.action_hide_invalid)
        view.addSeparator()
        view.addActions([self.pane_focus.action_next_pane, self.pane_focus.action_previous_pane])
        view.addSeparator()
        view.addMenu(self.theme_actions.menu)
        view.addSeparator()
        self.indexing.fill(view)
        time_menu = bar.addMenu("&Time")
        for name in TIME_MENU:
            if name is None:
                time_menu.addSeparator()
            else:
                time_menu.addAction(self.time_control.actions_by_name[name])
        self.help_actions.fill(bar.addMenu("&Help"))

    # ── The automation surface ────────────────────────────────────────────

    @property
    def kg(self) -> KnowledgeGraph | None:
        return self.document.kg

    @property
    def undo_stack(self) -> QUndoStack:
        return self.document.undo_stack

    def set_as_of(self, value: str | None) -> None:
        """Set as_of (a date, a UTC instant, or None for all time); a bad value raises."""
        try:
            self.state.set_as_of(value)
        except Refused as exc:
            self.state.message.emit(f"as_of not changed: {exc}")
            raise

    def as_of(self) -> str | None:
        return self.state.as_of

    def selected_entity(self) -> str | None:
        """The selected entity's id (None: none)."""
        return self.state.entity

    def selected_fact(self) -> str | None:
        """The selected fact's id (None: none)."""
        return self.state.fact

    def select_entity(self, name: str) -> bool:
        kg = self.state.kg
        entity = kg.get_entity(name) if kg is not None and isinstance(name, str) else None
        if entity is None:
            self.state.message.emit(f"No entity named {name!r} in this graph")
            return False
        self.state.select_entity(entity["id"])
        return True

    def end_fact(self, triple_id: str, ended: str) -> bool:
        return self.fact_actions.end_fact(triple_id, ended)

    def path(self) -> str | None:
        return self.document.path

    def open_path(self, path: str | Path, remember: bool = True, read_only: bool = False) -> bool:
        return self.file_actions.open_path(path, remember, read_only)

    def new_graph(self, path: str | Path) -> bool:
        return self.file_actions.new_graph(path)

    def open_mempalace(self) -> bool:
        return self.file_actions.open_mempalace()

    def open_demo(self) -> bool:
        return self.file_actions.open_demo()

    def check_external_changes(self) -> bool:
        return self.document.check_external_changes()

    def focus_search(self) -> None:
        self.entities_dock.show()
        self.entities_dock.raise_()
        self.browser.search_field.setFocus()
        self.browser.search_field.selectAll()

    # ── Dropping a file ───────────────────────────────────────────────────

    def dragEnterEvent(self, event) -> None:
        if FileActions.dropped_path(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = FileActions.dropped_path(event.mimeData())
        if path is not None:
            event.acceptProposedAction()
            self.open_path(path)

    # ── Feedback ──────────────────────────────────────────────────────────

    def report_error(self, title: str, text: str) -> None:
        """A refusal the user must see: a dialog (or, when quiet, the status bar only)."""
        self.errors.append(text)
        self.state.message.emit(text)
        if not self.quiet:
            QMessageBox.warning(self, title, text)

    def ask(self, title: str, question: str) -> bool:
        """A yes-or-no question (No is the default); when quiet, nobody answers: no."""
        if self.quiet:
            return False
        answer = QMessageBox.question(
            self,
            title,
            question,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, MESSAGE_MS)

    def _update_stats(self) -> None:
        self.stats_label.setText(self.document.stats_text())

    def _show_figures(self, span: tuple[str, str] | None, stats: dict) -> None:
        self.time_control.set_span(span)
        self.stats_label.setText(stats_words(stats))

    def _update_title(self) -> None:
        self.setWindowTitle(self.document.title())

    # ── Window state ──────────────────────────────────────────────────────

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.window_layout.shown()

    def childEvent(self, event) -> None:
        super().childEvent(event)
        if event.polished():
            WindowLayout.polished(event.child())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().height() < event.oldSize().height():
            self.window_layout.made_smaller()

    def size_docks(self) -> None:
        """The first-run layout (see :meth:`WindowLayout.size_docks`)."""
        self.window_layout.size_docks()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.time_control.pause()
        self.panels.shutdown()
        self.figures.stop()
        self.backups.shutdown()
        self.transfer.shutdown()
        self.replays.shutdown()
        self.entity_reads.wait()
        self.window_layout.save()
        self.indexing.shutdown()
        self.file_actions.copying.shutdown()
        self.browser.index_builder.stop()
        self.document.close()
        super().closeEvent(event)
