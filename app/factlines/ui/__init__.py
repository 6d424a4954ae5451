"""The Qt side: models over the store, undo commands, views and the main window.

``from factlines.ui import MainWindow`` imports Qt only when the name is used.
"""

from __future__ import annotations

__all__ = ["MainWindow"]


def __getattr__(name: str):
    if name == "MainWindow":
        from factlines.ui.window.main_window import MainWindow

        return MainWindow
    raise AttributeError(f"module 'factlines.ui' has no attribute {name!r}")
