"""Benchmark: what a hub's selection does on the worker, part by part, without a window.

    python tests/bench/bench_hub_prep.py GRAPH [--entity Hub] [--runs 9] [--app APP]

Reads ``--entity``'s facts as the worker does (``EntityFacts.read_facts``), then times each
view's preparer on them, one after another as the worker runs them: the Gantt chart's
``build_layout``, the facts table's row order, the neighbourhood graph's ``read_picture``.
The collector is off, as it is on a worker (the window collects on the UI thread). Prints the
median and the least of each part over the runs but the first (which fills the caches).

``--app`` measures another checkout's ``app`` folder (run it alternately with this one: the
figures of a busy machine drift). Open a copy of a graph another program may be writing:
``bench_window --keep`` edits its graph and undoes the edits.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import types
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["TZ"] = "UTC"

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("graph")
    parser.add_argument("--entity", default="Hub")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--app", default=str(ROOT / "app"))
    args = parser.parse_args()
    sys.path.insert(0, args.app)

    from PySide6.QtCore import Qt

    from factlines import KnowledgeGraph
    from factlines.ui.chart.layout import build_layout
    from factlines.ui.graph.controls import MAX_NEIGHBOURS
    from factlines.ui.graph.reading import read_picture
    from factlines.ui.models.fact_models import COLUMN, FactModel
    from factlines.ui.session.entity_facts import EntityFacts

    kg = KnowledgeGraph(args.graph)
    # The table's preparer needs only the model's sort: no model (no Qt application) made.
    model = types.SimpleNamespace(_sort=(COLUMN["predicate"], Qt.SortOrder.AscendingOrder))
    model._sorted_positions = lambda facts: FactModel._sorted_positions(model, facts)
    parts: dict[str, list[float]] = {"read": [], "chart": [], "table": [], "graph": []}

    def timed(part: str, run, *args):
        started = time.perf_counter()
        answer = run(*args)
        parts[part].append((time.perf_counter() - started) * 1000)
        return answer

    gc.disable()
    for _ in range(args.runs):
        gc.collect()
        facts = EntityFacts(kg, args.entity, None)
        timed("read", facts.read_facts)
        bounds = (facts.starts, facts.ends)
        timed("chart", build_layout, facts.facts, facts.conflicts, bounds)
        timed("table", FactModel._ordered, model, facts.facts)
        links = facts.facts.links()
        timed("graph", read_picture, kg, facts.record, 1, MAX_NEIGHBOURS, links)
    print(args.app, f"{args.entity}: {len(facts.facts):,} facts, ms (median, least)")
    for part, times in parts.items():
        rest = times[1:] or times
        print(f"  {part:6} {statistics.median(rest):7.1f} {min(rest):7.1f}")


if __name__ == "__main__":
    main()
