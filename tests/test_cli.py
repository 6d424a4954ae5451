"""The command line: version, screenshots of the demo or a file, and clean refusals (exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from factlines import KnowledgeGraph, __version__
from factlines.cli import build_parser


def run(*args, tmp_path, env_extra=None):
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # --screenshot must pick offscreen by itself
    env["FACTLINES_SETTINGS"] = str(tmp_path / "cli-settings.ini")
    env["HOME"] = str(tmp_path / "home")  # never the user's MemPalace graph or data folder
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "factlines", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )


def test_version(tmp_path):
    result = run("--version", tmp_path=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == f"factlines {__version__}"


def test_parser_takes_the_documented_options():
    args = build_parser().parse_args(
        ["kg.sqlite3", "--screenshot", "a.png", "--entity", "Kai", "--as-of", "2026-01-01"]
    )
    assert (args.path, args.screenshot, args.entity, args.as_of) == (
        "kg.sqlite3",
        "a.png",
        "Kai",
        "2026-01-01",
    )
    assert build_parser().parse_args(["--demo", "--size", "800x600"]).size == (800, 600)


@pytest.mark.slow
def test_demo_screenshot(tmp_path):
    target = tmp_path / "window.png"
    result = run(
        "--demo",
        "--screenshot",
        str(target),
        "--entity",
        "Kai Moreno",
        "--as-of",
        "2025-12-01",
        tmp_path=tmp_path,
        env_extra={"TMPDIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Traceback" not in result.stderr
    assert not list(tmp_path.glob("factlines-demo-*"))  # the demo's copy went with the window


@pytest.mark.slow
def test_file_screenshot_and_refusals(tmp_path):
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Ada", "knows", "Bo", valid_from="2020-01-01")
    ok = run(
        str(path), "--screenshot", str(tmp_path / "a.png"), "--entity", "Ada", tmp_path=tmp_path
    )
    assert ok.returncode == 0, ok.stderr
    not_kg = tmp_path / "notes.sqlite3"
    not_kg.write_text("not a database")
    for args, says in (
        ([str(tmp_path / "missing.sqlite3")], "does not exist"),
        ([str(not_kg)], "not a SQLite database"),
        ([str(path), "--entity", "Nobody"], "no entity named"),
        ([str(path), "--as-of", "2026-02-30"], "no such calendar day"),
    ):
        result = run(*args, "--screenshot", str(tmp_path / "b.png"), tmp_path=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert says in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "b.png").exists()
    assert not_kg.read_text() == "not a database"


@pytest.mark.slow
def test_no_arguments_opens_a_new_graph_in_the_data_folder(tmp_path):
    result = run("--screenshot", str(tmp_path / "c.png"), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    created = list((tmp_path / "data").rglob("knowledge_graph.sqlite3"))
    assert len(created) == 1


def test_start_up_leaves_its_objects_out_of_the_collectors_scans_and_shares_the_lock_sooner():
    import gc

    from factlines.ui.app import UI_TURN_S, YOUNG_COLLECTION_THRESHOLD, settle_after_startup

    assert gc.get_freeze_count() == 0
    threshold, turn = gc.get_threshold(), sys.getswitchinterval()
    try:
        settle_after_startup()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG_COLLECTION_THRESHOLD, *threshold[1:])
        assert sys.getswitchinterval() == pytest.approx(UI_TURN_S) != pytest.approx(turn)
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        sys.setswitchinterval(turn)
        gc.enable()


def test_cycles_are_collected_on_the_ui_thread_alone(qtbot):
    """Python's automatic collector is off once the app is up; a timer on the UI thread
    collects what is due, and a worker thread making cycles never collects them there."""
    import gc
    import threading

    from factlines.core import collector
    from factlines.ui.app import collect_on_the_ui_thread

    collected_on: list[str] = []

    class Cycle:
        def __init__(self):
            self.me = self

        def __del__(self):
            collected_on.append(threading.current_thread().name)

    thresholds = gc.get_threshold()
    try:
        collect_on_the_ui_thread()
        gc.set_threshold(100, 10, 10)
        assert not gc.isenabled()
        # The timer waits while a whole-graph read has paused the collector: one a window of
        # an earlier test left running on a worker must end first (a pause never ended fails).
        qtbot.waitUntil(lambda: not collector.paused(), timeout=30_000)

        def worker():
            for _ in range(5_000):  # far past the threshold: Python would collect here
                Cycle()

        thread = threading.Thread(target=worker, name="worker")
        thread.start()
        thread.join()
        assert collected_on == []
        qtbot.waitUntil(lambda: len(collected_on) == 5_000, timeout=5_000)
        assert set(collected_on) == {threading.main_thread().name}
    finally:
        gc.set_threshold(*thresholds)
        gc.enable()
