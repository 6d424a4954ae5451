"""Faults: files that are not knowledge graphs, a killed writer, two programs writing at once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from factlines import KnowledgeGraph, NotAKnowledgeGraph

APP = str(Path(__file__).resolve().parents[3] / "app")


def _siblings(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir()}


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('keep me')")
    conn.commit()
    conn.close()


def _half_a_graph(path: Path) -> None:
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
    conn.commit()
    conn.close()


MAKERS = {
    "random bytes": lambda p: p.write_bytes(os.urandom(4096)),
    "short garbage": lambda p: p.write_bytes(b"hello"),
    "text file": lambda p: p.write_text("id,name\n1,Ann\n"),
    "foreign sqlite": _foreign_sqlite,
    "entities without triples": _half_a_graph,
    "sqlite header, garbage body": lambda p: p.write_bytes(
        b"SQLite format 3\x00" + os.urandom(4080)
    ),
}


@pytest.mark.parametrize("make", list(MAKERS.values()), ids=list(MAKERS))
def test_not_a_knowledge_graph_is_refused_untouched(tmp_path, make):
    path = tmp_path / "file.sqlite3"
    make(path)
    content, listing = path.read_bytes(), _siblings(path)
    stat = path.stat()
    with pytest.raises(NotAKnowledgeGraph) as info:
        KnowledgeGraph(path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == content
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert _siblings(path) == listing  # no -wal, -shm or -journal left behind


def test_foreign_sqlite_message_says_what_it_is(tmp_path):
    path = tmp_path / "notes.db"
    _foreign_sqlite(path)
    with pytest.raises(NotAKnowledgeGraph, match="another application"):
        KnowledgeGraph(path)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(NotAKnowledgeGraph, match="folder"):
        KnowledgeGraph(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_refused_and_not_created(tmp_path):
    path = tmp_path / "nope" / "kg.sqlite3"
    with pytest.raises(NotAKnowledgeGraph, match="does not exist"):
        KnowledgeGraph(path)
    assert not path.parent.exists()


# ── Processes ─────────────────────────────────────────────────────────────

# One writer for both programs; the store class is all that differs. Each acknowledged write
# is printed after its commit returned.
WRITER = """
import os, sys, time
from STORE_MODULE import KnowledgeGraph
kg = KnowledgeGraph(sys.argv[1])
tag, count, go = sys.argv[2], int(sys.argv[3]), sys.argv[4]
print("ready", flush=True)
while not os.path.exists(go):  # start together
    time.sleep(0.001)
for i in range(count):
    tid = kg.add_triple(f"{tag}{i % 50}", "wrote", f"n{i}", valid_from="2026-01-01")
    if i % 3 == 0:
        kg.invalidate(f"{tag}{i % 50}", "wrote", f"n{i}", ended="2026-02-01")
    print(tid, flush=True)
kg.close()
"""
OUR_WRITER = WRITER.replace("STORE_MODULE", "factlines")
MEMPALACE_WRITER = WRITER.replace("STORE_MODULE", "mempalace.knowledge_graph")


def _spawn(script: str, *args) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": APP + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _stored(path: Path) -> dict[str, str | None]:
    conn = sqlite3.connect(str(path))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return dict(conn.execute("SELECT id, valid_to FROM triples"))
    finally:
        conn.close()


@pytest.mark.slow
def test_a_killed_writer_loses_no_acknowledged_write(kg_path):
    KnowledgeGraph(kg_path).close()
    writer = _spawn(OUR_WRITER, kg_path, "k", 100_000, kg_path)
    acknowledged = []
    assert writer.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 10
    while len(acknowledged) < 300 and time.monotonic() < deadline:
        acknowledged.append(writer.stdout.readline().strip())
    writer.send_signal(signal.SIGKILL)  # mid-stream: it is writing the next fact now
    writer.wait(timeout=10)
    assert writer.returncode == -signal.SIGKILL
    assert len(acknowledged) == 300
    stored = _stored(kg_path)
    assert set(acknowledged) <= set(stored)
    for i, tid in enumerate(acknowledged):
        assert stored[tid] == ("2026-02-01" if i % 3 == 0 else None)
    with KnowledgeGraph(kg_path) as kg:  # and the file opens and takes writes
        assert kg.stats()["triples"] == len(stored)
        kg.add_triple("after", "the", "crash")


@pytest.mark.slow
@pytest.mark.interop
def test_ours_and_mempalace_writing_at_once_lose_nothing(kg_path):
    pytest.importorskip("mempalace.knowledge_graph", reason="mempalace 3.11 is not installed")
    KnowledgeGraph(kg_path).close()
    count, go = 300, kg_path.with_name("go")
    writers = {
        "ours": _spawn(OUR_WRITER, kg_path, "ours", count, go),
        "mem": _spawn(MEMPALACE_WRITER, kg_path, "mem", count, go),
    }
    for proc in writers.values():
        assert proc.stdout.readline().strip() == "ready"
    go.touch()
    outputs = {name: proc.communicate(timeout=60) for name, proc in writers.items()}
    for name, proc in writers.items():
        assert proc.returncode == 0, (name, outputs[name][1])
        assert "Traceback" not in outputs[name][1], outputs[name][1]
    stored = _stored(kg_path)
    assert len(stored) == 2 * count
    for name, (out, _) in outputs.items():
        ids = out.split()
        assert len(ids) == count
        for i, tid in enumerate(ids):
            assert tid.startswith(f"t_{name}{i % 50}_wrote_n{i}_")
            assert stored[tid] == ("2026-02-01" if i % 3 == 0 else None)
