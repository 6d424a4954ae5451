"""The main window: entity browser, triple editor, chart, graph, time control, files, undo."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QFont, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QToolBar,
    QWidget,
)

from factlines import __version__
from factlines.core.store import DEFAULT_KG_PATH, KnowledgeGraph, KnowledgeGraphError
from factlines.ui import settings as app_settings
from factlines.ui.actions import FactActions
from factlines.ui.browser import EntityBrowser
from factlines.ui.gantt import GanttChart
from factlines.ui.graphview import GraphView
from factlines.ui.state import AppState
from factlines.ui.timecontrol import TimeControl
from factlines.ui.triple_editor import TripleEditor

EXTERNAL_POLL_MS = 1000
MESSAGE_MS = 10000
KG_SUFFIXES = (".sqlite3", ".sqlite", ".db")
FILE_FILTER = "Knowledge graphs (*.sqlite3 *.sqlite *.db);;All files (*)"


def open_graph(path: str | Path) -> KnowledgeGraph:
    """Open an existing knowledge graph file; a ValueError says why it cannot be."""
    path = Path(path).expanduser()
    if not path.exists():
        raise KnowledgeGraphError(f"{path} does not exist")
    if not path.is_file():
        raise KnowledgeGraphError(f"{path} is not a file")
    try:
        return KnowledgeGraph(path)
    except KnowledgeGraphError:
        raise
    except (sqlite3.Error, OSError) as exc:
        raise KnowledgeGraphError(f"{path} cannot be opened as a knowledge graph: {exc}") from None


def default_new_path() -> Path:
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder or Path.home() / ".factlines") / "knowledge_graph.sqlite3"


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
        self.quiet = quiet  # errors go to the status bar and ``errors``, not to dialogs
        self.errors: list[str] = []
        self._owned = False
        self._path: str | None = None
        self._keep_position = True

        self.state = AppState(None, self)
        self.undo_stack = QUndoStack(self)
        self.fact_actions = FactActions(self.state, self.undo_stack, self)

        self.gantt = GanttChart(self.state, self.fact_actions, self)
        self.setCentralWidget(self.gantt)
        self.browser = EntityBrowser(self.state, self.fact_actions, self)
        self.triple_editor = TripleEditor(self.state, self.fact_actions, self)
        self.graph_view = GraphView(self.state, self)
        self.time_control = TimeControl(self.state, self)
        self.entities_dock = self._dock(
            "entitiesDock", "Entities", self.browser, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.facts_dock = self._dock(
            "factsDock", "Facts", self.triple_editor, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.graph_dock = self._dock(
            "graphDock", "Neighbourhood", self.graph_view, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.splitDockWidget(self.facts_dock, self.graph_dock, Qt.Orientation.Horizontal)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        time_bar = QToolBar("Time", self)
        time_bar.setObjectName("timeToolBar")
        time_bar.setMovable(True)
        time_bar.addWidget(self.time_control)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, time_bar)
        self.time_bar = time_bar

        self._make_actions()
        self._make_menus()
        self.stats_label = QLabel(self)
        self.stats_label.setObjectName("statsLabel")
        self.statusBar().addPermanentWidget(self.stats_label)

        self.state.message.connect(self._show_message)
        self.state.dataChanged.connect(self._update_stats)
        self.state.graphChanged.connect(self._update_title)
        # Bound methods, not lambdas: Qt drops them with the window.
        self.state.factChanged.connect(self._update_fact_actions)
        self.state.dataChanged.connect(self._update_fact_actions)
        self.state.entityChanged.connect(self._update_fact_actions)

        self._poll = QTimer(self)
        self._poll.setInterval(EXTERNAL_POLL_MS)
        self._poll.timeout.connect(self.check_external_changes)
        self._poll.start()
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(1000)
        self._save_timer.timeout.connect(self._save_as_of)
        self.state.asOfChanged.connect(self._schedule_save)

        self.resize(1500, 950)
        self._docks_sized = self._restore_window()
        self._update_recent_menu()
        self._update_file_actions()
        if kg is not None:
            self._set_graph(kg, owned=False, remember=False)
        else:
            self._update_title()
            self._update_stats()
            self._update_fact_actions()

    # ── Building ──────────────────────────────────────────────────────────

    def _dock(self, name: str, title: str, widget: QWidget, area) -> QDockWidget:
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

    def _action(self, name: str, text: str, slot, keys=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        self.action_new = self._action(
            "actionNew", "&New graph…", self.new_file, QKeySequence.StandardKey.New
        )
        self.action_open = self._action(
            "actionOpen", "&Open…", self.open_dialog, QKeySequence.StandardKey.Open
        )
        self.action_open_mempalace = self._action(
            "actionOpenMemPalace",
            "Open &MemPalace's graph",
            self.open_mempalace,
            tip=DEFAULT_KG_PATH,
        )
        self.action_open_demo = self._action(
            "actionOpenDemo", "Open the &demo graph", self.open_demo
        )
        self.action_quit = self._action(
            "actionQuit", "&Quit", self.close, QKeySequence.StandardKey.Quit
        )
        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setObjectName("actionUndo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setObjectName("actionRedo")
        redo.setShortcut(QKeySequence.StandardKey.Redo)
        self.addAction(undo)
        self.addAction(redo)
        self.action_undo, self.action_redo = undo, redo
        self.action_add_fact = self._action(
            "actionAddFact",
            "&Add fact…",
            lambda: self.fact_actions.add_fact_dialog(),
            "Ctrl+Shift+N",
        )
        self.action_edit_fact = self._action(
            "actionEditFact",
            "&Edit fact…",
            self.fact_actions.edit_selected,
            "Ctrl+Return",
        )
        self.action_end_fact = self._action(
            "actionEndFact",
            "E&nd fact",
            self.fact_actions.end_selected,
            "Ctrl+E",
            "End the selected fact at as_of (or today when showing all time)",
        )
        self.action_end_fact_at = self._action(
            "actionEndFactAt",
            "End fact &at…",
            self.fact_actions.end_selected_at,
            "Ctrl+Shift+E",
        )
        self.action_replace_fact = self._action(
            "actionReplaceFact",
            "&Replace with…",
            self.fact_actions.replace_selected,
            "Ctrl+R",
        )
        self.action_delete_fact = self._action(
            "actionDeleteFact",
            "&Delete fact…",
            self.fact_actions.delete_selected,
            QKeySequence.StandardKey.Delete,
        )
        # Delete is a key many widgets use: it deletes a fact only from the triple editor.
        self.action_delete_fact.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.removeAction(self.action_delete_fact)
        self.triple_editor.addAction(self.action_delete_fact)
        self.action_rename = self._action(
            "actionRenameEntity",
            "Re&name entity…",
            self._on_entity("Rename", self.fact_actions.rename_entity_dialog),
            "Ctrl+Shift+R",
        )
        self.action_merge = self._action(
            "actionMergeEntity",
            "&Merge entity into…",
            self._on_entity("Merge", self.fact_actions.merge_entity_dialog),
            "Ctrl+Shift+M",
        )
        self.action_single_valued = self._action(
            "actionSingleValued",
            "&Single-valued predicates…",
            self.fact_actions.single_valued_dialog,
            tip="Mark predicates that allow one object at a time; their overlaps are conflicts",
        )
        self.action_find = self._action(
            "actionFind", "&Find entity", self.focus_search, QKeySequence.StandardKey.Find
        )
        self.action_hide_invalid = self._action(
            "actionHideInvalid",
            "&Hide facts not valid at as_of",
            lambda on: self.triple_editor.hide_invalid.setChecked(on),
            "Ctrl+H",
        )
        self.action_hide_invalid.setCheckable(True)
        self.triple_editor.hide_invalid.toggled.connect(self.action_hide_invalid.setChecked)
        self.action_about = self._action("actionAbout", "&About Factlines", self.about)

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.aboutToShow.connect(self._update_file_actions)
        file_menu.addActions([self.action_new, self.action_open, self.action_open_mempalace])
        self.recent_menu = QMenu("Open &recent", self)
        self.recent_menu.setObjectName("recentMenu")
        file_menu.addMenu(self.recent_menu)
        file_menu.addAction(self.action_open_demo)
        file_menu.addSeparator()
        file_menu.addAction(self.action_quit)
        edit = bar.addMenu("&Edit")
        edit.addActions([self.action_undo, self.action_redo])
        edit.addSeparator()
        edit.addActions(
            [
                self.action_add_fact,
                self.action_edit_fact,
                self.action_end_fact,
                self.action_end_fact_at,
                self.action_replace_fact,
                self.action_delete_fact,
            ]
        )
        edit.addSeparator()
        edit.addActions([self.action_rename, self.action_merge])
        edit.addSeparator()
        edit.addAction(self.action_single_valued)
        edit.addSeparator()
        edit.addAction(self.action_find)
        view = bar.addMenu("&View")
        for dock in (self.entities_dock, self.facts_dock, self.graph_dock):
            view.addAction(dock.toggleViewAction())
        view.addAction(self.time_bar.toggleViewAction())
        view.addSeparator()
        view.addAction(self.action_hide_invalid)
        time_menu = bar.addMenu("&Time")
        for name in (
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
        ):
            if name is None:
                time_menu.addSeparator()
            else:
                time_menu.addAction(self.time_control.actions_by_name[name])
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.action_about)

    # ── The automation surface ────────────────────────────────────────────

    @property
    def kg(self) -> KnowledgeGraph | None:
        return self.state.kg

    def set_as_of(self, value: str | None) -> None:
        """Set as_of (a date, a UTC instant, or None for all time); a bad value raises."""
        try:
            self.state.set_as_of(value)
        except ValueError as exc:
            self.state.message.emit(f"as_of not changed: {exc}")
            raise

    def as_of(self) -> str | None:
        return self.state.as_of

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
        return self._path

    # ── Files ─────────────────────────────────────────────────────────────

    def open_path(self, path: str | Path, remember: bool = True) -> bool:
        """Open a knowledge graph file; a bad path or a non-KG file is reported, nothing changes."""
        try:
            kg = open_graph(path)
        except (ValueError, OSError) as exc:
            self.report_error("Cannot open file", str(exc))
            if remember:
                app_settings.forget_file(self.settings, str(path))
                self._update_recent_menu()
            return False
        self._set_graph(kg, owned=True, remember=remember)
        return True

    def _set_graph(
        self, kg: KnowledgeGraph | None, owned: bool, remember: bool, keep_position: bool = True
    ) -> None:
        """Show ``kg``; ``remember`` puts it in the recent files, ``keep_position`` keeps its
        as_of across sessions (not for the demo's temporary copies)."""
        self._save_as_of()
        old, old_owned = self.state.kg, self._owned
        self.time_control.pause()
        self.undo_stack.clear()
        self._owned = owned
        self._path = str(Path(kg.db_path).resolve()) if kg is not None else None
        self._keep_position = keep_position
        self.state.set_kg(kg)
        if old is not None and old_owned and old is not kg:
            old.close()
        as_of = None
        if self._path is not None:
            if remember:
                app_settings.remember_file(self.settings, self._path)
                self._update_recent_menu()
            if keep_position:
                as_of = app_settings.AS_OF_BY_FILE.of(self._path).get(self.settings)
        try:
            self.state.set_as_of(as_of)
        except ValueError:
            self.state.set_as_of(None)
        self._update_title()
        self._update_fact_actions()
        if kg is not None:
            self.state.message.emit(f"Opened {self._path}")

    def open_dialog(self) -> None:
        start = str(Path(self._path).parent) if self._path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Open a knowledge graph", start, FILE_FILTER)
        if path:
            self.open_path(path)

    def new_file(self) -> None:
        start = str(default_new_path().parent)
        path, _ = QFileDialog.getSaveFileName(
            self, "New knowledge graph", start + "/knowledge_graph.sqlite3", FILE_FILTER
        )
        if path:
            self.new_graph(path)

    def new_graph(self, path: str | Path) -> bool:
        path = Path(path)
        if path.exists():
            self.report_error(
                "Cannot create file",
                f"{path} already exists; open it instead, or choose a new name",
            )
            return False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            kg = KnowledgeGraph(path)
        except (ValueError, OSError, sqlite3.Error) as exc:
            self.report_error("Cannot create file", f"{path}: {exc}")
            return False
        self._set_graph(kg, owned=True, remember=True)
        return True

    def open_mempalace(self) -> bool:
        if not Path(DEFAULT_KG_PATH).exists():
            self.report_error(
                "MemPalace's graph not found", f"There is no MemPalace graph at {DEFAULT_KG_PATH}"
            )
            return False
        return self.open_path(DEFAULT_KG_PATH)

    def open_demo(self) -> bool:
        from factlines.core.demo import create_demo

        try:
            kg = create_demo()
        except (ValueError, OSError, sqlite3.Error) as exc:
            self.report_error("Cannot open the demo", str(exc))
            return False
        self._set_graph(kg, owned=True, remember=False, keep_position=False)
        self.state.message.emit("Opened the demo graph (a temporary copy: edit freely)")
        return True

    def _update_file_actions(self) -> None:
        exists = Path(DEFAULT_KG_PATH).exists()
        self.action_open_mempalace.setEnabled(exists)
        self.action_open_mempalace.setStatusTip(
            DEFAULT_KG_PATH if exists else f"No MemPalace graph at {DEFAULT_KG_PATH}"
        )

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = app_settings.recent_files(self.settings)
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))
        self.recent_menu.setEnabled(bool(recent))

    def dragEnterEvent(self, event) -> None:
        if self._dropped_path(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = self._dropped_path(event.mimeData())
        if path is not None:
            event.acceptProposedAction()
            self.open_path(path)

    @staticmethod
    def _dropped_path(mime) -> str | None:
        if not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile():
                return url.toLocalFile()
        return None

    # ── Edits on the selection ────────────────────────────────────────────

    def _selected_entity(self, verb: str) -> str | None:
        if self.state.entity is None:
            self.state.message.emit(f"{verb}: select an entity first")
        return self.state.entity

    def _on_entity(self, verb: str, method):
        def slot(_checked: bool = False) -> None:
            if entity := self._selected_entity(verb):
                method(entity)

        return slot

    def _schedule_save(self, *_as_of) -> None:
        self._save_timer.start()

    def _update_fact_actions(self, *_changed) -> None:
        has_kg = self.state.kg is not None
        has_entity = has_kg and self.state.entity is not None
        self.action_add_fact.setEnabled(has_kg)
        self.action_single_valued.setEnabled(has_kg)
        self.action_rename.setEnabled(has_entity)
        self.action_merge.setEnabled(has_entity)
        # Fact actions stay enabled: with nothing selected they say so in the status bar.

    def focus_search(self) -> None:
        self.entities_dock.show()
        self.entities_dock.raise_()
        self.browser.search_field.setFocus()
        self.browser.search_field.selectAll()

    # ── Feedback ──────────────────────────────────────────────────────────

    def report_error(self, title: str, text: str) -> None:
        """A refusal the user must see: a dialog (or, when quiet, the status bar only)."""
        self.errors.append(text)
        self.state.message.emit(text)
        if not self.quiet:
            QMessageBox.warning(self, title, text)

    def _show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, MESSAGE_MS)

    def _update_stats(self) -> None:
        kg = self.state.kg
        if kg is None or kg.closed:
            self.stats_label.setText("No graph open")
            return
        stats = kg.stats()
        self.stats_label.setText(
            f"{stats['entities']:,} entities · {stats['triples']:,} facts · "
            f"{stats['current_facts']:,} current · {stats['expired_facts']:,} ended · "
            f"{len(stats['relationship_types']):,} predicates"
        )

    def _update_title(self) -> None:
        # Which file, and where: every edit is written at once, so there is no unsaved state
        # to mark ("[*]") and nothing to save.
        if self._path is None:
            self.setWindowTitle("Factlines")
            return
        path = Path(self._path)
        self.setWindowTitle(f"{path.name} — {path.parent} — Factlines")

    def about(self) -> None:
        QMessageBox.about(
            self,
            "About Factlines",
            f"<b>Factlines {__version__}</b><p>Browse and hand-edit a temporal knowledge graph "
            "(MemPalace's SQLite file). A fact that stops being true is ended, never deleted; "
            "every view answers as of the instant on the time control.</p>",
        )

    def check_external_changes(self) -> bool:
        """Reload the views when another process wrote the file (polled every second)."""
        kg = self.state.kg
        if kg is None or kg.closed:
            return False
        try:
            changed = kg.changed_externally()
        except (ValueError, sqlite3.Error) as exc:
            self.state.message.emit(f"Cannot read the file: {exc}")
            return False
        if changed:
            self.state.notify_data_changed()
            self.state.message.emit("The file was changed by another program: views reloaded")
        return changed

    # ── Window state ──────────────────────────────────────────────────────

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._docks_sized:
            self._docks_sized = True
            self.size_docks()
            QTimer.singleShot(0, self.size_docks)

    def size_docks(self) -> None:
        """The first-run layout: room for the lists (dock sizes only take once laid out)."""
        width, height = self.width(), self.height()
        entities = max(300, width * 22 // 100)
        graph = max(340, width * 30 // 100)
        self.resizeDocks([self.entities_dock], [entities], Qt.Orientation.Horizontal)
        self.resizeDocks(
            [self.facts_dock, self.graph_dock],
            [width - entities - graph, graph],
            Qt.Orientation.Horizontal,
        )
        self.resizeDocks(
            [self.facts_dock, self.graph_dock],
            [max(300, height * 45 // 100)] * 2,
            Qt.Orientation.Vertical,
        )

    def _restore_window(self) -> bool:
        """Geometry, dock layout and column widths as last left; False when none were kept."""
        settings = self.settings
        if (geometry := app_settings.WINDOW_GEOMETRY.get(settings)) is not None:
            self.restoreGeometry(geometry)
        restored = False
        if (layout := app_settings.WINDOW_STATE.get(settings)) is not None:
            restored = self.restoreState(layout)
        if (header := app_settings.TRIPLE_HEADER.get(settings)) is not None:
            self.triple_editor.view.horizontalHeader().restoreState(header)
        self.triple_editor.hide_invalid.setChecked(app_settings.HIDE_INVALID.get(settings))
        speed = app_settings.PLAY_SPEED.get(settings)
        if speed is not None and 0 <= speed < self.time_control.speed.count():
            self.time_control.speed.setCurrentIndex(speed)
        return restored

    def save_window(self) -> None:
        settings = self.settings
        app_settings.WINDOW_GEOMETRY.set(settings, self.saveGeometry())
        app_settings.WINDOW_STATE.set(settings, self.saveState())
        header = self.triple_editor.view.horizontalHeader()
        app_settings.TRIPLE_HEADER.set(settings, header.saveState())
        app_settings.HIDE_INVALID.set(settings, self.triple_editor.hide_invalid.isChecked())
        app_settings.PLAY_SPEED.set(settings, self.time_control.speed.currentIndex())
        self._save_as_of()
        settings.sync()

    def _save_as_of(self) -> None:
        if self._path is not None and self._keep_position:
            app_settings.AS_OF_BY_FILE.of(self._path).set(self.settings, self.state.as_of)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.time_control.pause()
        self._poll.stop()
        self.save_window()
        if self._owned and self.state.kg is not None:
            self.state.kg.close()
        super().closeEvent(event)
