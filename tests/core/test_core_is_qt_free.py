"""factlines.core (and the package's top level) must never import Qt: MemPalace users script it."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import factlines.core

APP = str(Path(__file__).resolve().parents[2] / "app")
QT_PREFIXES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")

PROBE = """
import importlib, json, sys
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""


def test_core_modules_are_all_listed():
    names = {m.name for m in pkgutil.walk_packages(factlines.core.__path__, "factlines.core.")}
    assert {
        "factlines.core.store",
        "factlines.core.store.sqlite",
        "factlines.core.store.sqlite.schema",
        "factlines.core.temporal",
        "factlines.core.names",
        "factlines.core.analysis",
        "factlines.core.errors",
    } <= names


def test_importing_core_imports_no_qt():
    modules = ["factlines", "factlines.core"] + [
        m.name for m in pkgutil.walk_packages(factlines.core.__path__, "factlines.core.")
    ]
    env = {**os.environ, "PYTHONPATH": APP + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(modules)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    loaded = json.loads(result.stdout)
    assert set(modules) <= set(loaded)
    assert [m for m in loaded if m.startswith(QT_PREFIXES)] == []
