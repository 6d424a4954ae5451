"""Benchmark of the neighbourhood graph on bench_window's graph (prints figures; not a test).

    python tests/bench/bench_graph.py [--keep PATH]    # 10k entities, 100k facts, 2k hub

Targets: the neighbourhood at depth 2 around the 2,000-fact hub <= 200 ms, both the store's
answer on a freshly opened file and from choosing the depth until the graph is drawn and
painted; an as_of step with the graph at depth 2 <= 16 ms; nodes move less than 2 pixels
between two as_of steps a day apart (they should not move at all).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_window  # sets up Qt offscreen, TZ and the path to the app
from PySide6.QtWidgets import QApplication

from factlines import KnowledgeGraph


def ms(seconds: float) -> float:
    return seconds * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="build the graph at this path (reused if it exists)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="factlines-bench-")
    os.environ.setdefault("FACTLINES_SETTINGS", str(Path(folder) / "settings.ini"))
    path = Path(args.keep) if args.keep else Path(folder) / "bench.sqlite3"
    if not path.exists():
        started = time.perf_counter()
        bench_window.build(path)
        print(f"built {path} in {time.perf_counter() - started:.1f} s")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from factlines.ui import MainWindow

    # The store alone, each depth on a fresh open (nothing cached).
    store = {}
    for depth in (1, 2, 3):
        with KnowledgeGraph(path) as kg:
            started = time.perf_counter()
            hood = kg.neighbourhood("hub", depth)
            store[depth] = (ms(time.perf_counter() - started), [len(r) for r in hood.rings])

    kg = KnowledgeGraph(path)
    window = MainWindow(kg)
    window.resize(1500, 950)
    window.show()
    bench_window.settle(app)
    window.select_entity("Hub")
    bench_window.settle(app)
    graph = window.graph_view
    drawn = {}
    for depth in (1, 2, 3):
        times = []
        for _ in range(5 if depth < 3 else 2):
            graph.set_depth(1 if depth > 1 else 2)
            bench_window.settle(app)
            started = time.perf_counter()
            graph.set_depth(depth)
            bench_window.settle(app)
            graph.viewport().repaint()
            times.append(ms(time.perf_counter() - started))
        drawn[depth] = (statistics.median(times), graph.shown_button.text())

    graph.set_depth(2)
    window.set_as_of("2015-01-01")
    bench_window.settle(app)

    def places():
        return {n["id"]: (n["x"], n["y"]) for n in graph.drawn_neighbours()}

    def pixels(a, b):
        return max(
            (
                math.hypot(*(graph.mapFromScene(*a[k]) - graph.mapFromScene(*b[k])).toTuple())
                for k in a
            ),
            default=0.0,
        )

    steps, moved_day, moved_year = [], 0.0, 0.0
    before = places()
    for i in range(60):
        started = time.perf_counter()
        window.time_control.step(days=1) if i % 6 else window.time_control.step(years=1)
        bench_window.settle(app)
        steps.append(ms(time.perf_counter() - started))
        now = places()
        if now.keys() != before.keys():
            moved_day = math.inf
        elif i % 6:
            moved_day = max(moved_day, pixels(before, now))
        else:
            moved_year = max(moved_year, pixels(before, now))
        before = now

    print()
    print("store: kg.neighbourhood('hub', depth), first call after opening")
    for depth, (figure, rings) in store.items():
        print(f"  depth {depth}: {figure:8.1f} ms  rings {rings}")
    print()
    print(f"{'measure':<58} {'figure':>10} {'target':>9}  result")
    table = (
        ("store: depth 2 around the hub, first call after opening", store[2][0], 200),
        ("graph at depth 1 around the 2,000-fact hub (median)", drawn[1][0], None),
        ("graph at depth 2 around the hub, drawn and painted", drawn[2][0], 200),
        ("graph at depth 3 around the hub", drawn[3][0], None),
        ("as_of step with the graph at depth 2 (median of 60)", statistics.median(steps), 16),
    )
    for name, figure, target in table:
        verdict = ("PASS" if figure <= target else "MISS") if target else ""
        shown = f"{target:>7}ms" if target else " " * 9
        print(f"{name:<58} {figure:>8.1f}ms {shown}  {verdict}")
    verdict = "PASS" if moved_day < 2 else "MISS"
    name = "most a node moved between as_of steps a day apart"
    print(f"{name:<58} {moved_day:>8.1f}px {2:>7}px  {verdict}")
    print(f"{'  ... a year apart':<58} {moved_year:>8.1f}px")
    print()
    for depth in (1, 2, 3):
        print(f"depth {depth}: {drawn[depth][1]}")
    window.close()
    kg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
