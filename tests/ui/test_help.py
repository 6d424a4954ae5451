"""The Help menu: every shortcut listed from the actions, the time page, About."""

from __future__ import annotations

import platform
import sqlite3

import numpy
import pyqtgraph
import PySide6
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication

from factlines import __version__
from factlines.ui.menus import file_menu
from factlines.ui.menus import help_menu as help
from ui_fixtures import *  # noqa: F403


def help_menu_texts(window) -> list[str]:
    bar = window.menuBar()
    menu = next(a.menu() for a in bar.actions() if a.text() == "&Help")
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def test_the_help_menu(window):
    assert help_menu_texts(window) == [
        "&Keyboard shortcuts",
        "How Factlines reads &time",
        "&About Factlines",
    ]


def test_every_action_with_a_shortcut_is_listed(window):
    shortcuts = window.help_actions.show_shortcuts()
    listed = shortcuts.listed()
    with_keys = {
        action
        for action in window.findChildren(QAction)
        if any(not keys.isEmpty() for keys in action.shortcuts())
    }
    assert len(with_keys) > 20
    for action in with_keys:
        keys = help.shortcut_text(action)
        assert any(
            name == action.objectName() and shown == keys for name, shown, _where in listed
        ), (action.objectName(), action.text(), keys)
    names = [name for name, _keys, _where in listed if name]
    assert len(names) == len(set(names)), "an action is listed once"
    assert len(names) == len(with_keys)


def test_rows_say_where_and_what(window):
    rows = {row["name"]: row for row in help.shortcut_rows(window)}
    end = rows["actionEndFact"]
    # The action says where it would end the fact now: today while showing all time.
    assert end["text"].startswith("End fact") and end["where"] == "Edit"
    assert end["tip"] == window.action_end_fact.toolTip() and end["tip"]
    assert rows["actionDeleteFact"]["where"] == "Edit (in Facts)"
    assert rows["actionPlay"]["where"] == "Time" and rows["actionPlay"]["tip"] == "Play / pause"
    assert rows["actionShortcuts"]["where"] == "Help"
    redo = window.action_redo
    assert rows["actionRedo"]["shortcut"] == ", ".join(
        k.toString(QKeySequence.SequenceFormat.NativeText) for k in redo.shortcuts()
    )


def test_no_two_actions_share_a_shortcut(window):
    seen: dict[str, str] = {}
    for row in help.shortcut_rows(window):
        for keys in row["shortcut"].split(", "):
            assert keys not in seen, (keys, seen.get(keys), row["name"])
            seen[keys] = row["name"]


def test_the_chart_keys_listed_are_the_keys_the_chart_takes(window):
    window.select_entity("Kai Moreno")
    chart = window.gantt
    for keys, _written, _what in help.CHART_KEYS:
        for key in keys:
            if key in (help.K.Key_Return, help.K.Key_Delete):
                continue  # they act on a selected bar (and Delete asks first)
            assert chart.handle_key(key), key
    listed = window.help_actions.show_shortcuts().listed()
    assert sum(where == help.CHART_PLACE for _n, _k, where in listed) == len(help.CHART_KEYS)


def test_opening_a_help_window_again_raises_the_same_one(window):
    first = window.help_actions.show_shortcuts()
    assert window.help_actions.show_shortcuts() is first
    assert first.isVisible() and not first.isModal()
    page = window.help_actions.show_time_help()
    assert window.help_actions.show_time_help() is page


def test_the_time_page_says_the_rules(window):
    text = window.help_actions.show_time_help().text.toPlainText()
    for words in (
        "2026-03-01",
        "2026-03-01T14:30:00Z",
        "whole last day",
        "not on 2 March",
        "as_of",
        "current",
        "All time",
        "half-open",
    ):
        assert words.lower() in text.lower(), words


def test_about_says_the_version_the_file_and_the_libraries(window):
    box = window.help_actions.about()
    text = box.label.text()
    assert f"Factlines {__version__}" in text
    assert "MemPalace 3.11 schema: yes" in text
    assert "source_drawer_id/adapter_name: present" in text
    assert "fl_meta" in text and "fl_schema" in text and "fl_entities_name_cover" in text
    for name, version in (
        ("Python", platform.python_version()),
        ("PySide6", PySide6.__version__),
        ("pyqtgraph", pyqtgraph.__version__),
        ("NumPy", numpy.__version__),
        ("SQLite", sqlite3.sqlite_version),
    ):
        assert f"{name} {version}" in text


def test_about_names_what_an_older_file_lacks(window, demo):
    with sqlite3.connect(demo.db_path) as conn:
        conn.execute("ALTER TABLE triples DROP COLUMN adapter_name")
    lines = help.compatibility_lines(window.document)
    assert "MemPalace 3.11 schema: no (triples lacks adapter_name)" in lines
    assert "Columns source_drawer_id/adapter_name: missing (adapter_name)" in lines


def test_about_without_a_graph(qtbot, isolated_settings):
    from factlines.ui import MainWindow

    win = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(win)
    assert help.compatibility_lines(win.document) == ["No graph is open."]
    assert "No graph is open." in win.help_actions.about().label.text()
    QApplication.processEvents()


def test_the_open_dialog_offers_all_files():
    assert "All files (*)" in file_menu.FILE_FILTER.split(";;")
