"""Both engines keep the store protocol, checked statically by pyright (it comes with the test
extra): the protocol has some eighty methods, and a test that calls them can miss one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def pyright(*paths: Path) -> dict:
    command = shutil.which("pyright", path=str(Path(sys.executable).parent)) or shutil.which(
        "pyright"
    )
    if command is None:
        pytest.fail("pyright is not installed: pip install -e '.[test]'")
    done = subprocess.run(
        [command, "--outputjson", "--pythonpath", sys.executable, *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return json.loads(done.stdout)


def test_both_engines_keep_the_store_protocol():
    report = pyright(HERE / "engines_conform.py")
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert errors == [], "\n".join(d["message"] for d in errors)
    assert report["summary"]["filesAnalyzed"] >= 1


def test_the_check_can_fail(tmp_path):
    # An engine whose method drifted from the protocol is refused: the check is not vacuous.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from factlines.core.store.protocol import GraphStore\n"
        "from factlines.core.store.sqlite import SQLiteStore\n\n"
        "class Short(SQLiteStore):\n"
        "    def settle(self, hard: bool) -> None: ...  # type: ignore[override]\n\n"
        "def check(store: Short) -> GraphStore:\n"
        "    return store\n"
    )
    report = pyright(probe)
    assert [d["rule"] for d in report["generalDiagnostics"]] == ["reportReturnType"]
    assert "incompatible with protocol" in report["generalDiagnostics"][0]["message"]
