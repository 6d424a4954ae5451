"""Where the window keeps its state: QSettings, redirectable for tests.

``FACTLINES_SETTINGS=/some/file.ini`` (or a path / QSettings passed to the window) puts every
value in that INI file; otherwise the platform's usual place for "Factlines" is used.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

SETTINGS_ENV = "FACTLINES_SETTINGS"
MAX_RECENT = 8


def open_settings(where: QSettings | str | os.PathLike | None = None) -> QSettings:
    if isinstance(where, QSettings):
        return where
    if where is None:
        where = os.environ.get(SETTINGS_ENV) or None
    if where is not None:
        return QSettings(str(where), QSettings.Format.IniFormat)
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Factlines", "Factlines"
    )


def _file_key(path: str) -> str:
    # QSettings keys may not hold slashes as plain text; a stable, readable escape.
    return str(Path(path).resolve()).replace("\\", "|").replace("/", "|")


def recent_files(settings: QSettings) -> list[str]:
    value = settings.value("files/recent", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in (value or []) if v]


def remember_file(settings: QSettings, path: str) -> None:
    path = str(Path(path).resolve())
    recent = [p for p in recent_files(settings) if p != path]
    settings.setValue("files/recent", [path, *recent][:MAX_RECENT])
    settings.setValue("files/last", path)


def forget_file(settings: QSettings, path: str) -> None:
    path = str(Path(path).resolve())
    settings.setValue("files/recent", [p for p in recent_files(settings) if p != path])
    if settings.value("files/last") == path:
        settings.remove("files/last")


def last_file(settings: QSettings) -> str | None:
    value = settings.value("files/last")
    return str(value) if value else None


def saved_as_of(settings: QSettings, path: str) -> tuple[bool, str | None]:
    """(known, value): whether a position was kept for ``path``, and it (None = all time)."""
    key = "asOf/" + _file_key(path)
    if not settings.contains(key):
        return False, None
    value = settings.value(key)
    return True, (str(value) if value not in (None, "", "all") else None)


def save_as_of(settings: QSettings, path: str, as_of: str | None) -> None:
    settings.setValue("asOf/" + _file_key(path), as_of or "all")
