"""Both engines keep the store protocol, and the core type-checks strictly, statically by
pyright (it comes with the test extra): the protocol has some eighty methods, and a test that
calls them can miss one; the engines' shared code holds their connections as a protocol too."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CORE = ROOT / "app" / "factlines" / "core"


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


def errors_in(diagnostics: list[dict]) -> list[str]:
    return [
        f"{Path(d['file']).relative_to(ROOT)}:{d['range']['start']['line'] + 1}: "
        f"{d['message']} ({d.get('rule', '')})"
        for d in diagnostics
        if d["severity"] == "error"
    ]


@pytest.mark.slow
def test_the_core_checks_strictly_and_both_engines_keep_the_store_protocol(tmp_path):
    # One pyright run for the three checks: each run reads the whole package again (6 s), and
    # tests of one module go to different workers.
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    conform = HERE / "engines_conform.py"
    report = pyright(CORE, conform, probe)
    found: dict[Path, list[dict]] = {CORE: [], conform: [], probe: []}
    for diagnostic in report["generalDiagnostics"]:
        path = Path(diagnostic["file"])
        found[path if path in (conform, probe) else CORE].append(diagnostic)

    # Both engines keep the protocol (their connections keep the one their shared code holds
    # them as, among the core's checks), and the core type-checks strictly.
    errors = errors_in(found[conform]) + errors_in(found[CORE])
    said = f"pyright finds {len(errors)} errors:"
    assert errors == [], "\n".join([said, *errors])
    assert report["summary"]["filesAnalyzed"] >= 2
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert settings["tool"]["pyright"]["strict"] == ["app/factlines/core"]

    # An engine whose method drifted from the protocol is refused: the check is not vacuous.
    assert [d["rule"] for d in found[probe]] == ["reportReturnType"]
    assert "incompatible with protocol" in found[probe][0]["message"]
