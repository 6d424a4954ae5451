"""Benchmark: what opening a MemPalace file costs that file, and MemPalace writing it meanwhile.

    python tests/bench/bench_open.py              # 100k facts (10k entities)
    python tests/bench/bench_open.py --big        # and 1M facts (100k entities): minutes
    python tests/bench/bench_open.py --dir D      # keep the built files in D (reused next time)

For each size, on a file written in MemPalace's schema (bench_store's ``build``, then opened by
MemPalace itself), while a MemPalace writer process runs ``add_triple`` in a loop:

- the first open (to a store that answers), then the default index build on a worker
  thread's own connection, as the app does;
- the writer's longest wait for one ``add_triple`` during that open + build;
- the file's growth (checkpointed) after the open and after the build;
- the first and the warm times of ``stats``, the entity list's first page, ``time_span`` and
  the entity with the most open facts (what the window opens on);
- on the largest file, a read-only open: in place (MemPalace holding the file open, as when it
  runs) and, when run as root, as another user through a private copy; with the proof that
  nothing was written: bytes (SHA-256) and mtimes of the file and its -wal, and the file list.

Prints one table; targets with PASS/MISS. Exits 0 unless something failed to run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pwd
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build  # noqa: E402

from factlines import KnowledgeGraph  # noqa: E402

SIZES = {"100k": (10_000, 100_000), "1M": (100_000, 1_000_000)}
TARGET_OPEN = {"100k": 0.5, "1M": 1.5}

# A MemPalace writer: add_triple in a loop, 5 ms apart, until stdin closes; then prints the
# (monotonic start, seconds) of every call as JSON.
WRITER = """
import json, sys, threading, time
from mempalace.knowledge_graph import KnowledgeGraph
kg = KnowledgeGraph(sys.argv[1])
calls, stop = [], threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
i = 0
while not stop.is_set():
    start = time.monotonic()
    kg.add_triple(f"writer {i}", "wrote", "bench", valid_from="2026-01-01")
    calls.append((start, time.monotonic() - start))
    if i == 3:
        print("ready", flush=True)
    i += 1
    time.sleep(0.005)
kg.close()
print(json.dumps(calls), flush=True)
"""


class Writer:
    """MemPalace writing the file from another process."""

    def __init__(self, path: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the MemPalace writer did not start")

    def stop(self) -> list[tuple[float, float]]:
        out, _ = self.process.communicate("", timeout=120)
        return json.loads(out.strip().splitlines()[-1])


def _checkpointed_size(path: Path) -> int:
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path.stat().st_size


def _timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def _first_and_warm(call, rounds: int = 7) -> tuple[float, float]:
    first, _ = _timed(call)
    return first, statistics.median(_timed(call)[0] for _ in range(rounds))


def measure_size(label: str, base: Path, work: Path) -> list[tuple]:
    path = work / f"open-{label}.sqlite3"
    shutil.copyfile(base, path)
    size_before = _checkpointed_size(path)
    writer = Writer(path)
    window_start = time.monotonic()
    opened, kg = _timed(lambda: KnowledgeGraph(path))
    usable, _ = _timed(lambda: (kg.list_entities(limit=100), kg.stats(), kg.time_span()))
    open_end = time.monotonic()
    missing = kg.missing_indexes()
    builder = threading.Thread(target=kg.build_indexes)  # its own connection, as the app does
    built, _ = _timed(lambda: (builder.start(), builder.join()))
    window_end = time.monotonic()
    time.sleep(0.2)
    calls = writer.stop()
    waits_open = [d for s, d in calls if s + d >= window_start and s <= open_end] or [0.0]
    waits_all = [d for s, d in calls if s + d >= window_start and s <= window_end] or [0.0]
    kg.close()
    after_open_and_build = _checkpointed_size(path)
    with KnowledgeGraph(path) as kg:
        kg.changed_externally()
        stats = _first_and_warm(kg.stats)
        page = _first_and_warm(lambda: kg.list_entities(limit=100))
        span = _first_and_warm(kg.time_span)
        busiest = _first_and_warm(
            lambda: kg.list_entities(order="current", descending=True, limit=1)
        )
    grown = (after_open_and_build - size_before) / size_before * 100
    rows = [
        (f"{label}: file before", f"{size_before / 1e6:.1f} MB", "", None),
        (
            f"{label}: growth after first open + default indexes",
            f"{grown:.1f} %",
            "<= 15 %",
            grown <= 15,
        ),
        (
            f"{label}: first open to a store that answers",
            f"{(opened + usable) * 1000:.0f} ms",
            f"<= {TARGET_OPEN[label] * 1000:.0f} ms",
            opened + usable <= TARGET_OPEN[label],
        ),
        (f"{label}:   of which KnowledgeGraph(path)", f"{opened * 1000:.0f} ms", "", None),
        (
            f"{label}: default indexes built ({', '.join(missing)})",
            f"{built * 1000:.0f} ms",
            "",
            None,
        ),
        (
            f"{label}: longest MemPalace add_triple, during the open",
            f"{max(waits_open) * 1000:.0f} ms",
            "<= 200 ms",
            max(waits_open) <= 0.2,
        ),
        (
            f"{label}: longest MemPalace add_triple, open + index build",
            f"{max(waits_all) * 1000:.0f} ms",
            "<= 200 ms",
            max(waits_all) <= 0.2,
        ),
        (f"{label}:   MemPalace calls in that window", str(len(waits_all)), "", None),
    ]
    for name, (first, warm) in (("stats", stats), ("entity list, first page", page),
                                ("time_span", span),
                                ("entity with the most open facts", busiest)):  # fmt: skip
        rows.append(
            (
                f"{label}: {name} (first / warm)",
                f"{first * 1000:.1f} / {warm * 1000:.2f} ms",
                "",
                None,
            )
        )
    return rows


# ── Read-only ─────────────────────────────────────────────────────────────


def _evidence(folder: Path) -> dict:
    """Every file in the folder: owner, size, mtime, and a hash of all but the -shm (SQLite's
    shared-memory index, which readers update in memory)."""
    out = {}
    for item in sorted(folder.iterdir()):
        st = item.stat()
        digest = None
        if not item.name.endswith("-shm"):
            digest = hashlib.sha256(item.read_bytes()).hexdigest()
        out[item.name] = (st.st_uid, st.st_size, st.st_mtime_ns, digest)
    return out


def _read_only_open(path: str) -> tuple[float, float, int, bool, str]:
    start = time.perf_counter()
    kg = KnowledgeGraph(path, read_only=True)
    opened = time.perf_counter() - start
    triples = kg.stats()["triples"]
    kg.list_entities(limit=100)
    kg.time_span()
    usable = time.perf_counter() - start
    private, reason = kg._store.private_copy, kg.read_only_reason
    kg.close()
    return opened, usable, triples, private, reason


def _as_other_user(fn, *args):
    """Run ``fn`` in a forked child as ``nobody``; returns its result (root only)."""
    account = pwd.getpwnam("nobody")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        try:
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            os.environ.pop("TMPDIR", None)  # root's may be private: find nobody's own
            tempfile.tempdir = None
            result = ("ok", fn(*args))
        except BaseException as exc:
            result = ("error", repr(exc))
        with os.fdopen(write_end, "w") as pipe:
            json.dump(result, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        kind, value = json.load(pipe)
    os.waitpid(pid, 0)
    if kind == "error":
        raise RuntimeError(value)
    return value


def measure_read_only(label: str, base: Path) -> list[tuple]:
    # A folder another user can reach (the work folder may be private).
    outer = Path(tempfile.mkdtemp(prefix="fl-bench-read-only-", dir="/tmp"))
    outer.chmod(0o755)
    try:
        return _measure_read_only(label, base, outer / "palace")
    finally:
        shutil.rmtree(outer, ignore_errors=True)


def _measure_read_only(label: str, base: Path, folder: Path) -> list[tuple]:
    folder.mkdir()
    path = folder / "knowledge_graph.sqlite3"
    shutil.copyfile(base, path)
    rows = []
    # MemPalace holds the file open (as when it runs): its -wal and -shm exist.
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    holder.stdout.readline()
    os.chmod(folder, 0o755)  # MemPalace made the folder its owner's alone; let others look
    before = _evidence(folder)
    opened, usable, _, _, _ = _read_only_open(str(path))
    after = _evidence(folder)
    same = before == after
    rows.append(
        (
            f"{label}: read-only open, own file in place (and first answers)",
            f"{opened * 1000:.0f} ms ({usable * 1000:.0f} ms)",
            "<= 1500 ms",
            usable <= 1.5,
        )
    )
    rows.append(
        (
            f"{label}:   nothing written (bytes, mtimes, file list)",
            "unchanged" if same else f"CHANGED: {sorted(set(before) ^ set(after)) or 'content'}",
            "unchanged",
            same,
        )
    )
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        before = _evidence(folder)
        opened, usable, _, private, _ = _as_other_user(_read_only_open, str(path))
        after = _evidence(folder)
        same = before == after
        rows.append(
            (
                f"{label}: read-only open as another user (private copy: {private})",
                f"{opened * 1000:.0f} ms ({usable * 1000:.0f} ms)",
                "<= 1500 ms",
                usable <= 1.5,
            )
        )
        rows.append(
            (
                f"{label}:   nothing written, no file of that user beside the graph",
                "unchanged" if same else "CHANGED",
                "unchanged",
                same,
            )
        )
    holder.stdin.close()
    holder.wait(timeout=60)
    return rows


_HOLDER = """
import sys
from mempalace.knowledge_graph import KnowledgeGraph
kg = KnowledgeGraph(sys.argv[1])
kg.stats()
print("open", flush=True)
sys.stdin.read()
kg.close()
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also the 1M-fact file (minutes)")
    parser.add_argument("--dir", help="keep (and reuse) the built files here")
    args = parser.parse_args(argv)
    work = Path(args.dir or tempfile.mkdtemp(prefix="fl-bench-open-"))
    work.mkdir(parents=True, exist_ok=True)
    labels = ["100k", "1M"] if args.big else ["100k"]
    rows: list[tuple] = []
    try:
        for label in labels:
            entities, triples = SIZES[label]
            base = work / f"mempalace-{label}.sqlite3"
            if not base.exists():
                took, _ = _timed(lambda b=base, e=entities, t=triples: build(b, e, t, seed=11))
                print(f"built {label}: {entities:,} entities / {triples:,} facts in {took:.0f} s")
            rows += measure_size(label, base, work)
        rows += measure_read_only(labels[-1], work / f"mempalace-{labels[-1]}.sqlite3")
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    print(f"\n{'measure':<{width}}  {'figure':>22}  {'target':>11}  result")
    for name, figure, target, ok in rows:
        verdict = "" if ok is None else ("PASS" if ok else "MISS")
        print(f"{name:<{width}}  {figure:>22}  {target:>11}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
