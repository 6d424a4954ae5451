"""Benchmark: how long the undo of a big import keeps MemPalace waiting.

    python tests/bench/bench_undo_lock.py            # 150k CSV rows
    python tests/bench/bench_undo_lock.py --quick    # 15k: does it run

A CSV of 150,000 facts (exported from bench_io's graph) is imported into a new file as the
window does it (one undo step), then undone (``kg.revert``, what Edit → Undo runs) while a
real MemPalace process adds a fact every 20 ms to the same file with its own 10 s busy timeout.
Prints how long the undo took, MemPalace's longest wait for one write during it, and its failed
writes. Target (MemPalace's clock): no write waits over 1 s, none fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_io

from factlines import open_graph
from factlines.core.transfer import import_file

TARGET_WAIT = 1.0

# A MemPalace writer: one add every 20 ms until told to stop (its stdin closes); then prints
# the longest single add and the failures, as JSON.
WRITER = textwrap.dedent(
    """
    import json, sys, threading, time
    from mempalace.knowledge_graph import KnowledgeGraph
    kg = KnowledgeGraph(sys.argv[1])
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    longest, failed, n = 0.0, [], 0
    while not stop.is_set():
        started = time.perf_counter()
        try:
            kg.add_triple(f"Writer {n}", "writes", "Beside")
        except Exception as exc:
            failed.append(str(exc))
        longest = max(longest, time.perf_counter() - started)
        n += 1
        time.sleep(0.02)
    kg.close()
    print(json.dumps({"longest": longest, "failed": failed, "writes": n}), flush=True)
    """
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="15k facts instead of 150k")
    args = parser.parse_args()
    entities, triples = (1_500, 15_000) if args.quick else (15_000, 150_000)
    folder = Path(tempfile.mkdtemp(prefix="factlines-bench-"))
    rows = bench_io.facts_csv(folder, entities, triples)
    graph = folder / "graph.sqlite3"
    with open_graph(graph) as kg, kg.recording() as change, kg.logged("Import facts.csv"):
        import_file(kg, rows)
    print(f"imported {triples:,} rows into {graph}")

    with open_graph(graph) as kg:
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(graph)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        started = time.perf_counter()
        # As Edit → Undo runs it; MemPalace writes beside it, so the person was asked: yes.
        kg.revert(change, force=True, log="Undo Import facts.csv")
        took = time.perf_counter() - started
        time.sleep(0.3)
        out, _ = writer.communicate("")
        seen = json.loads(out.strip().splitlines()[-1])
    longest, failed = seen["longest"], seen["failed"]
    verdict = "PASS" if longest <= TARGET_WAIT and not failed else "MISS"
    print(f"undo of {triples:,} imported rows: {took:.2f} s")
    print(
        f"MemPalace beside it: {seen['writes']} writes, longest wait {longest:.2f} s "
        f"(target {TARGET_WAIT:.0f} s), {len(failed)} failed: {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
