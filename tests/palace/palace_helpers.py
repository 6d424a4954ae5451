"""Palaces built by MemPalace 3.11 itself (``build_palace.py``, in a process of its own)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BUILDER = Path(__file__).with_name("build_palace.py")
BACKENDS = ("chroma", "sqlite_exact")
TEAM_NOTES = (
    "# Team\n\nKai joined Orion in June 2025. Kai works on Orion with Ada, who leads the team "
    "and reviews the design every week.\n\nAda leads Nova since 2024. Nova ships in spring; "
    "Ada and Kai meet on Mondays to plan it, with Orion as the first customer.\n\n"
    + " ".join(["More notes about Orion and Nova."] * 40)
    + "\n"
)


def mempalace_home(folder: Path) -> dict[str, str]:
    """HOME and MemPalace's config folder inside ``folder``: MemPalace writes lock files
    under the home folder, and reads its config.json from the config folder."""
    return {"HOME": str(folder / "home"), "MEMPALACE_CONFIG_DIR": str(folder / "home" / "cfg")}


def build(backend: str, folder: Path, drawers: int = 0) -> dict:
    """MemPalace's default palace for a home in ``folder`` (``<config folder>/palace``), filed
    by MemPalace's own code; what it filed."""
    if importlib.util.find_spec("chromadb") is None:
        reason = 'MemPalace\'s dependencies are missing: pip install -e ".[palace-test]"'
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the palace tests: {reason}")
        pytest.skip(reason)
    source = folder / "notes"
    source.mkdir(parents=True)
    (source / "team.md").write_text(TEAM_NOTES, encoding="utf-8")
    env = {**os.environ, **mempalace_home(folder)}
    out = folder / "filed.json"
    palace = Path(env["MEMPALACE_CONFIG_DIR"]) / "palace"
    command = [sys.executable, str(BUILDER), backend, str(palace), str(source), str(out)]
    subprocess.run([*command, "--drawers", str(drawers)], env=env, check=True, capture_output=True)
    filed = json.loads(out.read_text())
    return {**filed, "palace": palace, "folder": folder, "backend": backend}


def palace_files(palace: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in the palace, by its path, with its bytes and modification time; the
    graph's own file (a palace-local graph) left out."""
    return {
        str(path.relative_to(palace)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(palace.rglob("*"))
        if path.is_file() and not path.name.startswith("knowledge_graph.sqlite3")
    }
