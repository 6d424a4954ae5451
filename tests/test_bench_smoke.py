"""The benchmark runs (in --quick mode) and its answers match MemPalace's. No timing asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent / "bench" / "bench_store.py"


@pytest.mark.slow
@pytest.mark.interop
def test_bench_quick_runs_and_matches_mempalace(tmp_path):
    pytest.importorskip("mempalace.knowledge_graph", reason="mempalace 3.11 is not installed")
    result = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "results differ" not in result.stdout
    measured = [line for line in result.stdout.splitlines() if re.search(r"  (PASS|MISS)  ", line)]
    assert len(measured) >= 14, result.stdout  # every measure printed a verdict
