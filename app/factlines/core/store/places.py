"""Looking at a place where a graph file may be, in words when the system says no.

MemPalace keeps its folder to its owner (0700): another user may not even look inside, and
Python then raises ``PermissionError`` from a mere ``exists()``. That is the environment
saying no, so it is :class:`Unavailable`, naming the folder that may not be opened.
"""

from __future__ import annotations

import os
from pathlib import Path

from factlines.core.errors import Unavailable


def look_at(path: str | os.PathLike[str]) -> os.stat_result | None:
    """``os.stat(path)``, None when nothing is there; Unavailable when it cannot be looked
    at (a folder on the way that may not be opened, or another reason, in words)."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise cannot_look(path, exc) from None


def exists(path: str | os.PathLike[str]) -> bool:
    """Whether something is at ``path`` (a dangling link counts); Unavailable as :func:`look_at`."""
    return look_at(path) is not None or os.path.islink(path)


def cannot_look(path: str | os.PathLike[str], exc: OSError) -> Unavailable:
    """``exc`` (from looking at ``path``) in words: the folder that may not be opened, when
    that is why."""
    if isinstance(exc, PermissionError):
        folder = _closed_folder(Path(path))
        if folder is not None:
            return Unavailable(
                f"unavailable: you may not open the folder {folder}, where {Path(path).name} is"
            )
    return Unavailable(f"{path} could not be opened: {exc.strerror or exc}")


def _closed_folder(path: Path) -> Path | None:
    """The first folder on the way to ``path`` this user may not search."""
    for folder in reversed(Path(os.path.abspath(path)).parents):
        if not os.access(folder, os.X_OK):
            return folder
    return None
