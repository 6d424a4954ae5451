"""What the app keeps between runs: window layout, as_of per file, recent files; typed, and
mended when an older version wrote them."""

from __future__ import annotations

import textwrap

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt

from factlines import KnowledgeGraph
from factlines.ui import MainWindow
from factlines.ui.session import settings as app_settings
from ui_fixtures import *  # noqa: F403


def test_window_state_as_of_and_recent_files_persist(qtbot, tmp_path, isolated_settings):
    path = tmp_path / "graph.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Ada", "knows", "Bo", valid_from="2020-01-01")
    first = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(first)
    first.show()
    assert first.open_path(path)
    first.set_as_of("2021-06-01")
    first.graph_dock.hide()
    first.facts_table.hide_invalid.setChecked(True)
    first.time_control.speed.setCurrentIndex(0)
    first.close()
    assert isolated_settings.exists() and isolated_settings.stat().st_size > 0

    second = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(second)
    second.show()
    assert app_settings.last_file(second.settings) == str(path.resolve())
    assert [a.text() for a in second.recent_menu.actions()] == [str(path.resolve())]
    assert second.graph_dock.isHidden()
    assert second.facts_table.hide_invalid.isChecked()
    assert second.time_control.speed.currentIndex() == 0
    second.recent_menu.actions()[0].trigger()
    assert second.as_of() == "2021-06-01"
    assert str(path.name) in second.windowTitle()
    second.close()


# ── Typed values ───────────────────────────────────────────────────────────


def _ini(tmp_path, text: str) -> QSettings:
    """A settings file as another run (or an older version) left it, read afresh."""
    path = tmp_path / "written.ini"
    path.write_text(textwrap.dedent(text))
    return QSettings(str(path), QSettings.Format.IniFormat)


def test_values_read_back_from_an_ini_file_have_their_types(tmp_path):
    settings = _ini(
        tmp_path,
        """
        [view]
        hideInvalid=true
        [time]
        playSpeed=3
        [files]
        recent=/graphs/only.sqlite3
        last=/graphs/only.sqlite3
        [mainWindow]
        geometry=@ByteArray(\\x1\\x2)
        """,
    )
    # INI gives back strings: "true", "3", and a one-item list as a bare string.
    assert settings.value("view/hideInvalid") == "true"
    assert app_settings.HIDE_INVALID.get(settings) is True
    assert app_settings.PLAY_SPEED.get(settings) == 3
    assert app_settings.RECENT_FILES.get(settings) == ["/graphs/only.sqlite3"]
    assert app_settings.LAST_FILE.get(settings) == "/graphs/only.sqlite3"
    assert app_settings.WINDOW_GEOMETRY.get(settings) == QByteArray(b"\x01\x02")


def test_missing_or_unreadable_values_read_as_their_defaults(tmp_path):
    settings = _ini(
        tmp_path,
        """
        [view]
        hideInvalid=perhaps
        [time]
        playSpeed=fast
        """,
    )
    assert app_settings.HIDE_INVALID.get(settings) is False
    assert app_settings.PLAY_SPEED.get(settings) is None
    assert app_settings.RECENT_FILES.get(settings) == []
    assert app_settings.LAST_FILE.get(settings) is None
    assert app_settings.WINDOW_STATE.get(settings) is None
    # a default list is a fresh one each time: changing it changes no other reader's
    app_settings.RECENT_FILES.get(settings).append("x")
    assert app_settings.RECENT_FILES.get(settings) == []


def test_set_then_get_round_trips_every_kind(tmp_path):
    settings = QSettings(str(tmp_path / "round.ini"), QSettings.Format.IniFormat)
    app_settings.HIDE_INVALID.set(settings, True)
    app_settings.PLAY_SPEED.set(settings, 2)
    app_settings.RECENT_FILES.set(settings, ["/a.sqlite3", "/b.sqlite3"])
    app_settings.WINDOW_STATE.set(settings, QByteArray(b"\x00layout"))
    app_settings.LAST_FILE.set(settings, None)  # None keeps nothing
    assert app_settings.HIDE_INVALID.get(settings) is True
    assert app_settings.PLAY_SPEED.get(settings) == 2
    assert app_settings.RECENT_FILES.get(settings) == ["/a.sqlite3", "/b.sqlite3"]
    assert app_settings.WINDOW_STATE.get(settings) == QByteArray(b"\x00layout")
    assert not app_settings.LAST_FILE.known(settings)


def test_as_of_is_kept_per_file_and_all_time_is_a_value(tmp_path):
    settings = QSettings(str(tmp_path / "asof.ini"), QSettings.Format.IniFormat)
    one, two = tmp_path / "one.sqlite3", tmp_path / "sub" / "two.sqlite3"
    app_settings.AS_OF_BY_FILE.of(one).set(settings, "2021-06-01")
    app_settings.AS_OF_BY_FILE.of(two).set(settings, None)
    assert app_settings.AS_OF_BY_FILE.of(one).get(settings) == "2021-06-01"
    assert app_settings.AS_OF_BY_FILE.of(two).get(settings) is None
    assert app_settings.AS_OF_BY_FILE.of(two).known(settings)  # "all time", not "never set"
    assert "/" not in app_settings.AS_OF_BY_FILE.of(two).key.removeprefix("asOf/")


def test_recent_files_are_most_recent_first_without_repeats(tmp_path):
    settings = QSettings(str(tmp_path / "recent.ini"), QSettings.Format.IniFormat)
    for name in ("a", "b", "a", *"cdefghij"):
        app_settings.remember_file(settings, str(tmp_path / f"{name}.sqlite3"))
    recent = app_settings.recent_files(settings)
    assert len(recent) == app_settings.MAX_RECENT
    assert recent[0] == str(tmp_path / "j.sqlite3") and len(set(recent)) == len(recent)
    app_settings.forget_file(settings, recent[0])
    assert recent[0] not in app_settings.recent_files(settings)
    assert app_settings.last_file(settings) is None


# ── What older versions wrote ──────────────────────────────────────────────


def test_upgrade_moves_old_keys_and_mends_old_values(tmp_path):
    settings = _ini(
        tmp_path,
        """
        [window]
        geometry=@ByteArray(geo)
        state=@ByteArray(docks)
        [files]
        recent=/graphs/old.sqlite3
        [time]
        playSpeed=fast
        [view]
        hideInvalid=false
        [asOf]
        |graphs|old.sqlite3=all
        |graphs|new.sqlite3=2021-06-01
        """,
    )
    app_settings.upgrade(settings)
    assert app_settings.VERSION.get(settings) == app_settings.CURRENT_VERSION
    assert not settings.contains("window/geometry") and not settings.contains("window/state")
    assert app_settings.WINDOW_GEOMETRY.get(settings) == QByteArray(b"geo")
    assert app_settings.WINDOW_STATE.get(settings) == QByteArray(b"docks")
    assert app_settings.RECENT_FILES.get(settings) == ["/graphs/old.sqlite3"]
    assert not app_settings.PLAY_SPEED.known(settings)  # unreadable: dropped, default applies
    assert app_settings.HIDE_INVALID.get(settings) is False
    assert settings.value("asOf/|graphs|new.sqlite3") == "2021-06-01"
    assert settings.value("asOf/|graphs|old.sqlite3") == "all"
    # Once upgraded, never again: a value set later under an old key stays where it is.
    settings.setValue("window/state", QByteArray(b"later"))
    app_settings.upgrade(settings)
    assert app_settings.WINDOW_STATE.get(settings) == QByteArray(b"docks")


def test_a_window_opens_with_the_layout_an_older_version_kept(qtbot, isolated_settings):
    first = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(first)
    first.show()
    first.graph_dock.hide()
    first.close()
    # As an older version wrote it: under "window/…", with no version.
    settings = QSettings(str(isolated_settings), QSettings.Format.IniFormat)
    settings.setValue("window/state", settings.value("mainWindow/state"))
    settings.remove("mainWindow")
    settings.remove("settings/version")
    settings.sync()

    second = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(second)
    second.show()
    assert second.graph_dock.isHidden()
    assert not second.settings.contains("window/state")
    second.close()


def test_a_kept_layout_too_wide_for_this_screen_gives_way_to_the_first_run_layout(
    qtbot, isolated_settings
):
    """Every panel laid side by side on a big monitor, then opened on this (smaller) screen:
    a window wider than the screen cannot be used."""
    first = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(first)
    room = first.minimumSizeHint()
    first.show()
    for dock in first.panels.docks:
        first.removeDockWidget(dock)
        first.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock, Qt.Orientation.Horizontal)
        dock.show()
    first.layout().activate()
    screen = first.screen().availableGeometry()
    assert first.minimumSizeHint().width() > max(screen.width(), room.width())
    first.close()

    second = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(second)
    second.show()
    assert second.minimumSizeHint().width() <= max(screen.width(), room.width())
    assert all(second.tabifiedDockWidgets(dock) for dock in second.panels.docks)  # tabs again
    qtbot.waitUntil(lambda: "bigger screen" in second.statusBar().currentMessage())
    second.close()

    # What fits is kept as it was left, without a word.
    third = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(third)
    third.show()
    third.graph_dock.hide()
    third.close()
    fourth = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(fourth)
    fourth.show()
    qtbot.wait(50)
    assert fourth.graph_dock.isHidden()
    assert "bigger screen" not in fourth.statusBar().currentMessage()
    fourth.close()


def test_a_first_run_window_asks_no_more_than_the_screen_has(qtbot, isolated_settings):
    """1500×950 where there is room; on a smaller screen (the test's is 800×800), the screen."""
    window = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(window)
    screen = window.screen().availableGeometry().size()
    assert screen.width() < 1500
    assert window.size() == QSize(1500, 950).boundedTo(screen)
