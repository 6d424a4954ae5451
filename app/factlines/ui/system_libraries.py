"""The system libraries Qt's X11 platform plugin loads, checked before Qt tries: on a fresh
Debian or Ubuntu desktop some are missing, and Qt then aborts with a hint about one of them
("xcb-cursor0 or libxcb-cursor0 is needed"), the next missing one found only at the next try.
Factlines names them all, with the command that installs them."""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

# Each library Qt's xcb plugin links (PySide6 6.x: ldd on libQt6XcbQpa.so.6) that a desktop
# may lack, by its Debian / Ubuntu package.
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
}


def _loads(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def uses_x11(environ=os.environ, platform: str = sys.platform) -> bool:
    """Whether Qt will open its window through X11 (its xcb plugin) here."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(":")[0].split(";")[0] == "xcb"
    return not environ.get("WAYLAND_DISPLAY")


def missing_packages(
    loads: Callable[[str], bool] | None = None, environ=os.environ, platform: str = sys.platform
) -> list[str]:
    """The packages of the libraries Qt will need and cannot load (none off X11)."""
    if not uses_x11(environ, platform):
        return []
    loads = loads or _loads
    return [package for library, package in XCB_LIBRARIES.items() if not loads(library)]


def missing_words(packages: list[str]) -> str:
    return (
        f"Qt cannot open a window: {len(packages)} system "
        f"librar{'ies' if len(packages) != 1 else 'y'} it needs "
        f"{'are' if len(packages) != 1 else 'is'} not installed ({', '.join(packages)}).\n"
        f"On Debian or Ubuntu: sudo apt install {' '.join(packages)}"
    )
