"""Benchmark: the undo of a big import, as Edit → Undo runs it in the window: how long the
window's UI thread stalls, and how long MemPalace waits beside it.

    python tests/bench/bench_undo_lock.py            # 150k CSV rows
    python tests/bench/bench_undo_lock.py --quick    # 15k: does it run

A CSV of 150,000 facts (exported from bench_io's graph) is imported into a new file as the
window does it (one undo step, recorded through a store of its own, then adopted by the
window's), then undone through the real window's Edit → Undo (offscreen), while a real
MemPalace process adds a fact every 20 ms to the same file with its own 10 s busy timeout.
MemPalace writes, so the undo asks first ("Undo anyway?"): the person says yes. A 5 ms timer
beats on the UI thread meanwhile. Prints how long the undo took, the UI thread's longest stall
(the longest gap between two beats, from just before Undo until it has ended; and apart, in
the 3 s after, while the views reload), MemPalace's longest wait for one write and its failed
writes. Targets: the person's clock, no stall over
100 ms; MemPalace's, no write waits over 1 s, none fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_io
from bench_heartbeat import Heartbeat, run_loop
from PySide6.QtWidgets import QApplication

from factlines import open_graph
from factlines.core.transfer import import_file

TARGET_STALL_MS = 100
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


def window_with_the_step(graph: Path, change):
    """The window on ``graph``, its start-up answers read, ``change`` (recorded on another
    store) its undo step, as File → Import… leaves it."""
    from factlines.ui import MainWindow
    from factlines.ui.session.commands import StoreCommand

    window = MainWindow(open_graph(graph))
    window.backups.set_enabled(False, remember=False)
    window.ask = lambda _title, _question: True  # MemPalace wrote: "Undo anyway?" yes
    window.show()
    run_loop(1.0)
    while window.panels.busy:  # the whole graph's answers at start-up
        run_loop(0.2)
    window.kg.adopt(change)
    stack = window.undo_stack
    stack.push(StoreCommand(window.state, stack, "Import facts.csv", change))
    return window


def undo_in(window) -> tuple[float, float, float]:
    """Edit → Undo until it has ended; (seconds, the UI thread's longest stall in ms while it
    ran, and in the 3 s after, until the window is quiet: the views reloading)."""

    def running() -> bool:  # the code before ran it here: no job
        job = getattr(getattr(window, "replays", None), "job", None)
        return job is not None and job.running

    heartbeat = Heartbeat()
    since = heartbeat.mark()
    started = time.perf_counter()
    window.action_undo.trigger()
    while True:
        while running():
            run_loop(0.01)
        run_loop(0.01)  # a refusal asked, and its undo started again
        if not running():
            break
    took = time.perf_counter() - started
    during = heartbeat.longest_gap(since)
    since = heartbeat.mark()
    run_loop(3.0)
    while window.panels.busy:
        run_loop(0.1)
    after = heartbeat.longest_gap(since)
    heartbeat.timer.stop()
    return took, during, after


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="15k facts instead of 150k")
    args = parser.parse_args()
    entities, triples = (1_500, 15_000) if args.quick else (15_000, 150_000)
    folder = Path(tempfile.mkdtemp(prefix="factlines-bench-"))
    os.environ.setdefault("FACTLINES_SETTINGS", str(folder / "settings.ini"))
    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    rows = bench_io.facts_csv(folder, entities, triples)
    graph = folder / "graph.sqlite3"
    with open_graph(graph) as kg, kg.recording() as change, kg.logged("Import facts.csv"):
        import_file(kg, rows)
    print(f"imported {triples:,} rows into {graph}", flush=True)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = window_with_the_step(graph, change)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(graph)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout.readline().strip() == "ready"
    run_loop(0.3)
    took, stall, after = undo_in(window)
    run_loop(0.3)
    out, _ = writer.communicate("")
    seen = json.loads(out.strip().splitlines()[-1])
    left = window.kg.stats()["triples"]
    window.close()
    app.processEvents()
    longest, failed = seen["longest"], seen["failed"]
    print(f"Edit → Undo of {triples:,} imported rows: {took:.2f} s (load {os.getloadavg()[0]:.1f})")
    assert left < triples, "the undo was not done"
    verdict = "PASS" if stall <= TARGET_STALL_MS else "MISS"
    print(
        f"the UI thread's longest stall while it ran: {stall:,.0f} ms (target {TARGET_STALL_MS}): "
        f"{verdict}; in the 3 s after (the views reloading): {after:,.0f} ms"
    )
    verdict = "PASS" if longest <= TARGET_WAIT and not failed else "MISS"
    print(
        f"MemPalace beside it: {seen['writes']} writes, longest wait {longest:.2f} s "
        f"(target {TARGET_WAIT:.0f} s), {len(failed)} failed: {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
