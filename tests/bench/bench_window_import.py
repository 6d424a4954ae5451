"""Benchmark: an import as File → Import… runs it, beside the command line's, in one process.

    python tests/bench/bench_window_import.py            # 100k CSV rows
    python tests/bench/bench_window_import.py --quick    # 10k: does it run

The window's import (``import_recorded``) is the command's plus what makes it one undo step
and one entry of the edit log: every row's image recorded before and after (``kg.recording``)
and the entry written. Both import the same CSV (exported from bench_io's graph) into a new file;
then the window's is undone (``kg.revert``), which is what Edit → Undo runs. No target of its
own (the command's is 5 s for 100k rows); prints the figures, the median of two runs each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_io

from factlines import open_graph
from factlines.core.transfer import import_file, import_recorded

RUNS = 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k facts instead of 100k")
    args = parser.parse_args()
    entities, triples = (1_000, 10_000) if args.quick else (10_000, 100_000)
    folder = Path(tempfile.mkdtemp(prefix="factlines-bench-"))
    rows = bench_io.facts_csv(folder, entities, triples)

    plain, window, undo = [], [], []
    for run in range(RUNS):
        started = time.perf_counter()
        with open_graph(folder / f"plain{run}.sqlite3") as kg:
            done = import_file(kg, rows)
        plain.append(time.perf_counter() - started)

        started = time.perf_counter()
        graph = folder / f"window{run}.sqlite3"
        change = import_recorded(graph, rows, "Import facts.csv")[1]
        window.append(time.perf_counter() - started)
        with open_graph(graph) as kg:
            started = time.perf_counter()
            kg.revert(change)
            undo.append(time.perf_counter() - started)
            left = kg.stats()["triples"]
        if left:
            raise SystemExit(f"the undo left {left} facts")

    label = f"{done.facts_added:,} CSV rows into a new file"
    print(f"{'measure (median of ' + str(RUNS) + ')':<76} {'seconds':>8}")
    for name, figures in (
        (f"import {label}, as the command does", plain),
        (f"import {label}, as the window does (recorded, logged)", window),
        ("undo the window's import (one step)", undo),
    ):
        print(f"{name:<76} {statistics.median(figures):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
