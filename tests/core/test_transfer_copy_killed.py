"""A copy to a new file is written beside it under a hidden name and given the target's name
only when complete: killed (SIGKILL), cancelled or refused, it leaves no graph there."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from factlines import KnowledgeGraph, Refused, open_graph
from factlines.core.transfer import Cancelled, copy_graph
from store_helpers import dump

APP = Path(__file__).resolve().parents[2] / "app"


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "source.sqlite3"
    with open_graph(path) as kg:
        kg.insert_rows(
            "triples",
            [(f"t_{n}", f"e{n % 700}", "knows", f"e{n % 300}") for n in range(20_000)],
            columns=("id", "subject", "predicate", "object"),
        )
    return path


def _hidden(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f".{name}.copying-*"))


def test_a_copy_killed_part_way_leaves_no_graph_at_a_new_target(source, tmp_path):
    target = tmp_path / "copy" / "team.sqlite3"
    target.parent.mkdir()
    env = {**os.environ, "PYTHONPATH": str(APP), "HOME": str(tmp_path / "home")}
    child = subprocess.Popen(
        [sys.executable, "-m", "factlines", "copy", str(source), str(target)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        # Killed once rows are being written (a file holds more than a new graph).
        while not any(
            p.exists() and p.stat().st_size > 200_000
            for p in [target, *_hidden(target.parent, target.name)]
        ):
            assert child.poll() is None, "the copy ended before it could be killed"
            assert time.monotonic() < deadline, "the copy never began writing"
            time.sleep(0.02)
    finally:
        child.kill()
        child.wait()
    assert not target.exists()
    copy_graph(source, target)  # the place is free for the next copy
    assert dump(target) == dump(source)


def test_a_cancelled_copy_to_a_new_file_leaves_nothing_beside_it(source, tmp_path):
    target = tmp_path / "team.sqlite3"
    with pytest.raises(Cancelled):
        copy_graph(source, target, progress=lambda done, total: done == 0)
    assert not target.exists() and not _hidden(tmp_path, target.name)


def test_a_target_another_program_makes_meanwhile_is_theirs(source, tmp_path):
    target = tmp_path / "team.sqlite3"

    def meanwhile(done: int, total: int) -> bool:
        if done and not target.exists():
            with KnowledgeGraph(target) as theirs:
                theirs.add_triple("Kai", "works_on", "Orion")
        return True

    with pytest.raises(Refused, match="made by another program while the copy was written"):
        copy_graph(source, target, progress=meanwhile)
    assert [row["object"] for row in dump(target)["triples"]] == ["orion"]
    assert not _hidden(tmp_path, target.name)
