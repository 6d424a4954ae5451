"""One window per graph: ``factlines --entity NAME --as-of DAY PATH`` (a real process) while a
window shows PATH brings that window forward on that entity and instant, and starts none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from factlines import KnowledgeGraph
from factlines.ui.window.single_instance import WindowListener, forward, server_name
from ui_fixtures import *  # noqa: F403
from ui_fixtures import shown_window

APP = Path(__file__).resolve().parents[2] / "app"


def _factlines(tmp_path, *args) -> subprocess.Popen:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["FACTLINES_SETTINGS"] = str(tmp_path / "other-settings.ini")
    env["HOME"] = str(tmp_path / "home")
    env["PYTHONPATH"] = str(APP) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(
        [sys.executable, "-m", "factlines", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _graph(tmp_path, name="graph") -> Path:
    path = tmp_path / name / "knowledge_graph.sqlite3"
    path.parent.mkdir()
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
        kg.add_triple("Rosa", "lives_in", "Lisbon", valid_from="2024-01-01")
    return path


@pytest.mark.slow
def test_a_second_start_on_the_same_graph_brings_the_window_forward(
    qtbot, tmp_path, isolated_settings
):
    path = _graph(tmp_path)
    kg = KnowledgeGraph(path)
    window = shown_window(qtbot, kg, isolated_settings)
    listener = WindowListener(window, window)
    assert listener.name == server_name(path)

    started = _factlines(tmp_path, "--entity", "Rosa", "--as-of", "2025-06-01", str(path))
    qtbot.waitUntil(lambda: started.poll() is not None, timeout=60_000)
    assert started.returncode == 0, started.stderr.read()
    assert (window.selected_entity(), window.as_of()) == ("rosa", "2025-06-01")

    started = _factlines(tmp_path, "--entity", "Nobody", str(path))
    qtbot.waitUntil(lambda: started.poll() is not None, timeout=60_000)
    assert started.returncode == 2
    assert "no entity named 'Nobody'" in started.stderr.read()
    assert window.selected_entity() == "rosa"
    kg.close()


def test_a_window_listens_for_the_graph_it_shows_now(qtbot, tmp_path, isolated_settings):
    first, second = _graph(tmp_path, "one"), _graph(tmp_path, "two")
    kg = KnowledgeGraph(first)
    window = shown_window(qtbot, kg, isolated_settings)
    listener = WindowListener(window, window)
    assert forward(second, "Kai", None) is None  # nobody shows it: the start opens its own
    assert window.open_path(second)
    assert listener.name == server_name(second)
    assert forward(tmp_path / "one" / ".." / "one" / first.name, None, None) is None
    listener.close()
    window.close()
    kg.close()
