"""What the app keeps between runs: window layout, as_of per file, recent files."""

from __future__ import annotations

from factlines import KnowledgeGraph
from factlines.ui import MainWindow
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
    first.triple_editor.hide_invalid.setChecked(True)
    first.time_control.speed.setCurrentIndex(0)
    first.close()
    assert isolated_settings.exists() and isolated_settings.stat().st_size > 0

    second = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(second)
    second.show()
    from factlines.ui import settings as app_settings

    assert app_settings.last_file(second.settings) == str(path.resolve())
    assert [a.text() for a in second.recent_menu.actions()] == [str(path.resolve())]
    assert second.graph_dock.isHidden()
    assert second.triple_editor.hide_invalid.isChecked()
    assert second.time_control.speed.currentIndex() == 0
    second.recent_menu.actions()[0].trigger()
    assert second.as_of() == "2021-06-01"
    assert str(path.name) in second.windowTitle()
    second.close()
