"""Every value the app keeps between runs, typed, in one registry over QSettings.

``FACTLINES_SETTINGS=/some/file.ini`` (or a path / QSettings passed to the window) puts every
value in that INI file; otherwise the platform's usual place for "Factlines" is used.

A :class:`Setting` knows its key, its type and its default, and converts on the way in and out:
an INI file gives back ``"true"``, ``"3"`` or a bare string for a one-item list, and a value it
cannot read as its type reads as the default. :func:`upgrade` rewrites what older versions wrote.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from factlines import is_database_url

SETTINGS_ENV = "FACTLINES_SETTINGS"
MAX_RECENT = 8

T = TypeVar("T")


class _Unreadable:
    """What a converter returns for a stored value it cannot read as its type."""


UNREADABLE: Any = _Unreadable()


def _flag(raw) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    return UNREADABLE


def _number(raw) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    text = str(raw).strip()
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else UNREADABLE


def _positive(raw) -> int:
    number = _number(raw)
    return number if number is not UNREADABLE and number > 0 else UNREADABLE


def _bytes(raw) -> QByteArray:
    if isinstance(raw, (bytes, bytearray)):
        raw = QByteArray(bytes(raw))
    return raw if isinstance(raw, QByteArray) and not raw.isEmpty() else UNREADABLE


def _text(raw) -> str | None:
    if isinstance(raw, (list, tuple)):  # an INI value with a comma reads as a list
        raw = ", ".join(str(part) for part in raw)
    return str(raw) if str(raw) else None


def _text_list(raw) -> list[str]:
    if isinstance(raw, str):  # a one-item list in an INI file, or an older version's bare path
        raw = [raw]
    if not isinstance(raw, (list, tuple)):
        return UNREADABLE
    return [str(item) for item in raw if item not in (None, "")]


THEMES = ("system", "light", "dark")


def _theme(raw) -> str:
    text = _text(raw)
    return text if text in THEMES else UNREADABLE


def _as_of(raw) -> str | None:
    text = _text(raw)
    return None if text in (None, "all") else text


@dataclass(frozen=True)
class Kind(Generic[T]):
    """How a type is stored: ``load`` reads a stored value (or returns UNREADABLE), ``dump``
    makes the value to store."""

    name: str
    load: Callable[[Any], T]
    dump: Callable[[T], Any] = lambda value: value  # None: nothing is kept


FLAG = Kind("flag", _flag)
NUMBER = Kind("number", _number)
POSITIVE = Kind("positive number", _positive)
BYTES = Kind("bytes", _bytes)
TEXT = Kind("text", _text)
TEXT_LIST = Kind("text list", _text_list, lambda value: None if value is None else list(value))
AS_OF = Kind("as_of", _as_of, lambda value: value or "all")  # "all" is all time
THEME_NAME = Kind("theme", _theme)


class Setting(Generic[T]):
    """One kept value: ``get`` returns the default when it is missing or unreadable."""

    def __init__(self, key: str, kind: Kind[T], default: T = None):
        self.key = key
        self.kind = kind
        self.default = default

    def __repr__(self) -> str:
        return f"Setting({self.key!r}, {self.kind.name})"

    def _fallback(self) -> T:
        return list(self.default) if isinstance(self.default, list) else self.default

    def get(self, settings: QSettings) -> T:
        raw = settings.value(self.key)
        if raw is None:
            return self._fallback()
        value = self.kind.load(raw)
        return self._fallback() if value is UNREADABLE else value

    def set(self, settings: QSettings, value: T) -> None:
        stored = self.kind.dump(value)
        if stored is None:
            settings.remove(self.key)
        else:
            settings.setValue(self.key, stored)

    def remove(self, settings: QSettings) -> None:
        settings.remove(self.key)

    def known(self, settings: QSettings) -> bool:
        return settings.contains(self.key)


class PerFile(Generic[T]):
    """A setting kept for each graph file: ``AS_OF_BY_FILE.of(path)`` is that file's Setting."""

    def __init__(self, group: str, kind: Kind[T], default: T = None):
        self.group = group
        self.kind = kind
        self.default = default

    def of(self, path: str | os.PathLike) -> Setting[T]:
        return Setting(f"{self.group}/{file_key(path)}", self.kind, self.default)


def location(path: str | os.PathLike) -> str:
    """A graph's place as kept in the settings: a file resolved, a database's URL as it is."""
    return path if is_database_url(path) else str(Path(path).resolve())


def file_key(path: str | os.PathLike) -> str:
    # QSettings keys may not hold slashes as plain text; a stable, readable escape.
    return location(path).replace("\\", "|").replace("/", "|")


def widget_setting(object_name: str, what: str) -> Setting[QByteArray]:
    """A widget's saved geometry or layout, kept under its objectName."""
    return Setting(f"{object_name}/{what}", BYTES)


# ── The registry: every value the app keeps ────────────────────────────────

WINDOW_GEOMETRY = widget_setting("mainWindow", "geometry")
WINDOW_STATE = widget_setting("mainWindow", "state")  # docks and tool bars
TRIPLE_HEADER = widget_setting("tripleTable", "header")  # column widths and order
HIDE_INVALID = Setting("view/hideInvalid", FLAG, False)
PLAY_SPEED = Setting("time/playSpeed", NUMBER, None)  # an index into the speed list
THEME = Setting("view/theme", THEME_NAME, "system")  # one of THEMES
RECENT_FILES = Setting("files/recent", TEXT_LIST, [])
LAST_FILE = Setting("files/last", TEXT, None)
EXPORT_FOLDER = Setting("files/exportFolder", TEXT, None)  # where File → Export… saved last
BACKUPS_ENABLED = Setting("backups/enabled", FLAG, True)  # before the first edit of a file
BACKUPS_PER_FILE = Setting("backups/keepPerFile", POSITIVE, 2)  # the newest, of each file name
BACKUPS_TOTAL_MB = Setting("backups/keepTotalMB", POSITIVE, 1000)  # all kept, at most
AS_OF_BY_FILE = PerFile("asOf", AS_OF, None)
GRAPH_DEPTH_BY_FILE = PerFile("graphDepth", NUMBER, None)  # the neighbourhood graph's, 1 to 3
READ_ONLY_BY_FILE = PerFile("readOnly", FLAG, False)  # last opened read-only, as asked
VERSION = Setting("settings/version", NUMBER, 0)

SETTINGS = (
    WINDOW_GEOMETRY,
    WINDOW_STATE,
    TRIPLE_HEADER,
    HIDE_INVALID,
    PLAY_SPEED,
    THEME,
    RECENT_FILES,
    LAST_FILE,
    EXPORT_FOLDER,
    BACKUPS_ENABLED,
    BACKUPS_PER_FILE,
    BACKUPS_TOTAL_MB,
    VERSION,
)
PER_FILE = (AS_OF_BY_FILE, GRAPH_DEPTH_BY_FILE, READ_ONLY_BY_FILE)

CURRENT_VERSION = 1
# Keys older versions used, and where their values live now.
MOVED = {"window/geometry": WINDOW_GEOMETRY.key, "window/state": WINDOW_STATE.key}


def upgrade(settings: QSettings) -> None:
    """Bring values written by older versions to today's keys and types, once.

    Moved keys are renamed; a value that cannot be read as its type (e.g. a play speed of
    "fast") is dropped so its default applies; a readable one is written back in today's form
    (e.g. a bare string where a list of files is expected).
    """
    if VERSION.get(settings) >= CURRENT_VERSION:
        return
    for old, new in MOVED.items():
        if settings.contains(old):
            if not settings.contains(new):
                settings.setValue(new, settings.value(old))
            settings.remove(old)
    kept = [setting for setting in SETTINGS if setting is not VERSION]
    for per_file in PER_FILE:
        settings.beginGroup(per_file.group)
        names = settings.childKeys()
        settings.endGroup()
        kept += [Setting(f"{per_file.group}/{name}", per_file.kind) for name in names]
    for setting in kept:
        raw = settings.value(setting.key)
        if raw is None:
            continue
        value = setting.kind.load(raw)
        if value is UNREADABLE:
            setting.remove(settings)
        else:
            setting.set(settings, value)
    VERSION.set(settings, CURRENT_VERSION)


def open_settings(where: QSettings | str | os.PathLike | None = None) -> QSettings:
    if isinstance(where, QSettings):
        settings = where
    else:
        if where is None:
            where = os.environ.get(SETTINGS_ENV) or None
        if where is not None:
            settings = QSettings(str(where), QSettings.Format.IniFormat)
        else:
            settings = QSettings(
                QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Factlines", "Factlines"
            )
    upgrade(settings)
    return settings


# ── Recent files ───────────────────────────────────────────────────────────


def recent_files(settings: QSettings) -> list[str]:
    return RECENT_FILES.get(settings)


def remember_file(settings: QSettings, path: str) -> None:
    path = location(path)
    recent = [p for p in recent_files(settings) if p != path]
    RECENT_FILES.set(settings, [path, *recent][:MAX_RECENT])
    LAST_FILE.set(settings, path)


def forget_file(settings: QSettings, path: str) -> None:
    path = location(path)
    RECENT_FILES.set(settings, [p for p in recent_files(settings) if p != path])
    if LAST_FILE.get(settings) == path:
        LAST_FILE.remove(settings)


def last_file(settings: QSettings) -> str | None:
    return LAST_FILE.get(settings)
