"""An existing empty file (0 bytes, any name) given on the command line or picked in Open is
made a knowledge graph only when the person says yes; No leaves it untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump

APP = Path(__file__).resolve().parents[2] / "app"
YES, NO = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No


@pytest.fixture
def asked(monkeypatch):
    """The questions put to the person; ``asked.answer`` is what they say."""

    class Asked(list):
        answer = NO

    questions = Asked()

    def question(_parent, title, text, buttons, default):
        questions.append((title, text))
        assert buttons == YES | NO and default == NO  # No unless the person says otherwise
        return questions.answer

    monkeypatch.setattr(QMessageBox, "question", question)
    return questions


@pytest.fixture
def warned(monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: said.append(a[2]))
    return said


def _beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


def test_no_leaves_the_empty_file_untouched(window, demo, tmp_path, asked, warned):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"")
    listing = _beside(notes)
    assert not window.open_path(notes)
    assert asked == [("Empty file", "notes.txt is empty. Make it a new knowledge graph?")]
    assert notes.read_bytes() == b"" and _beside(notes) == listing
    assert "empty file" in warned[-1] and "left untouched" in warned[-1]
    assert window.kg is demo  # what was open stays open


def test_yes_makes_it_a_new_graph(window, tmp_path, asked):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"")
    asked.answer = YES
    assert window.open_path(notes)
    assert window.path() == str(notes.resolve()) and not window.document.read_only
    assert window.fact_actions.add_fact("Ann", "knows", "Bo")
    assert [row[2:5] for row in dump(notes)["triples"]] == [("ann", "knows", "bo")]


def test_picked_in_open_it_asks_too(window, tmp_path, asked, warned, monkeypatch):
    empty = tmp_path / "graph.sqlite3"
    empty.write_bytes(b"")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(empty), ""))
    window.action_open.trigger()
    assert asked == [("Empty file", "graph.sqlite3 is empty. Make it a new knowledge graph?")]
    assert empty.read_bytes() == b""


def test_read_only_never_asks_and_never_makes_a_graph(window, tmp_path, asked, warned):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"")
    assert not window.open_path(notes, read_only=True)
    assert asked == [] and notes.read_bytes() == b""
    assert "empty file" in warned[-1]


def test_the_command_line_cannot_ask_for_a_screenshot_and_leaves_it(tmp_path):
    """A screenshot has nobody to answer: the empty file is refused, untouched (exit 2)."""
    (tmp_path / "mine").mkdir()
    notes = tmp_path / "mine" / "notes.txt"
    notes.write_bytes(b"")
    env = {
        **os.environ,
        "PYTHONPATH": str(APP),
        "FACTLINES_SETTINGS": str(tmp_path / "settings.ini"),
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "factlines", str(notes), "--screenshot", str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "empty file" in result.stderr and "Traceback" not in result.stderr
    assert notes.read_bytes() == b"" and _beside(notes) == ["notes.txt"]


def test_the_command_line_asks_the_person(window, tmp_path, asked, monkeypatch):
    """``factlines notes.txt``: the window is shown, then the question is put."""
    from argparse import Namespace

    from factlines.ui import app as app_module

    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"")
    asked.answer = YES
    args = Namespace(path=str(notes), demo=False, read_only=False)
    assert app_module._open_requested(window, args)
    assert asked[-1][1] == "notes.txt is empty. Make it a new knowledge graph?"
    assert window.path() == str(notes.resolve())
