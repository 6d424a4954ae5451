"""A fresh Debian / Ubuntu desktop lacks some libraries Qt's X11 plugin needs: the app names
them all, with the command that installs them, instead of Qt aborting on the first."""

from __future__ import annotations

import argparse
from pathlib import Path

from factlines.ui import app
from factlines.ui.system_libraries import XCB_LIBRARIES, missing_packages, uses_x11

README = Path(__file__).resolve().parents[1] / "README.md"
FRESH = {"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"}  # as the report found


def test_the_missing_libraries_are_named_by_their_packages():
    loads = lambda name: name not in FRESH  # noqa: E731
    x11 = {"DISPLAY": ":0"}
    assert missing_packages(loads, x11, "linux") == [
        "libxcb-cursor0",
        "libxcb-icccm4",
        "libxcb-keysyms1",
    ]
    assert missing_packages(lambda name: True, x11, "linux") == []
    assert missing_packages(loads, {"WAYLAND_DISPLAY": "wayland-0"}, "linux") == []
    assert missing_packages(loads, {"QT_QPA_PLATFORM": "offscreen"}, "linux") == []
    assert missing_packages(loads, x11, "darwin") == []
    assert uses_x11({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "w"}, "linux")


def test_start_up_says_which_are_missing_and_how_to_install_them(monkeypatch, capsys):
    from factlines.ui import system_libraries

    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setattr(system_libraries, "_loads", lambda name: name not in FRESH)
    args = argparse.Namespace(screenshot=None)
    assert app.run(args) == 2
    said = capsys.readouterr().err
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in said


def test_the_readme_names_every_library_and_the_command():
    text = README.read_text(encoding="utf-8")
    for package in XCB_LIBRARIES.values():
        assert package in text, package
    assert "sudo apt install" in text
