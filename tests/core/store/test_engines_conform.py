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


PROBE = (
    "from factlines.core.store.protocol import GraphStore\n"
    "from factlines.core.store.sqlite import SQLiteStore\n\n"
    "class Short(SQLiteStore):\n"
    "    def settle(self, hard: bool) -> None: ...  # type: ignore[override]\n\n"
    "def check(store: Short) -> GraphStore:\n"
    "    return store\n"
)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """One pyright run over both files (each run reads the whole package again): its summary
    and each file's diagnostics."""
    probe = tmp_path_factory.mktemp("pyright") / "probe.py"
    probe.write_text(PROBE)
    conform = HERE / "engines_conform.py"
    report = pyright(conform, probe)
    found = {conform: [], probe: []}
    for diagnostic in report["generalDiagnostics"]:
        found[Path(diagnostic["file"])].append(diagnostic)
    return report["summary"], found[conform], found[probe]


@pytest.mark.slow
def test_both_engines_keep_the_store_protocol(checked):
    summary, diagnostics, _ = checked
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert errors == [], "\n".join(d["message"] for d in errors)
    assert summary["filesAnalyzed"] >= 2


@pytest.mark.slow
def test_the_check_can_fail(checked):
    # An engine whose method drifted from the protocol is refused: the check is not vacuous.
    _, _, diagnostics = checked
    assert [d["rule"] for d in diagnostics] == ["reportReturnType"]
    assert "incompatible with protocol" in diagnostics[0]["message"]
