"""Benchmark: the Gantt chart on big entities (prints figures; not a timed test).

    python tests/bench/bench_gantt.py            # 2,000 and 20,000 intervals
    python tests/bench/bench_gantt.py --quick    # fewer repetitions

Builds one graph file with four hub entities: 2,000 and 20,000 intervals on many lanes (the
chart scrolls vertically, as it does for real), and 2,000 and 20,000 intervals on few lanes so
that every bar is in view at once (the worst case for painting). Facts mix dates, instants,
open ends and unknown starts, and confidences. Times, on a 1200x700 chart (offscreen):

- an as_of step: ``state.set_as_of`` (a week further) + a synchronous repaint of the whole
  canvas + processEvents: median and 95th percentile over many steps;
- selecting the entity until it is drawn: ``select_entity`` + repaint + processEvents.

Prints a table with the targets and PASS/MISS.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["TZ"] = "UTC"
if hasattr(time, "tzset"):
    time.tzset()

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))

from PySide6.QtGui import QUndoStack  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from factlines import KnowledgeGraph  # noqa: E402
from factlines.core.names import entity_id, new_triple_id, predicate_id  # noqa: E402
from factlines.ui.chart import GanttChart  # noqa: E402
from factlines.ui.menus.edits import FactActions  # noqa: E402
from factlines.ui.session.state import AppState  # noqa: E402

START = date(2000, 1, 1)
HUBS = {
    # name: (intervals, predicates, others per predicate)
    "Hub Two Thousand": (2_000, 40, 12),
    "Hub Twenty Thousand": (20_000, 60, 80),
    "Hub Two Thousand Flat": (2_000, 4, 4),
    "Hub Twenty Thousand Flat": (20_000, 6, 6),
}


def _value(rng: random.Random, day: date, instant: bool) -> str:
    if instant:
        return f"{day.isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
    return day.isoformat()


def build(path: Path, seed: int = 7) -> None:
    """Write the hubs' facts straight into a fresh MemPalace-compatible file."""
    KnowledgeGraph(path).close()  # creates the schema
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    entities: dict[str, str] = {}
    rows = []
    for hub, (count, n_pred, n_other) in HUBS.items():
        entities[entity_id(hub)] = hub
        lanes = [
            (f"rel_{p:02d}", f"{hub.split()[1]} Peer {p:02d}-{o:03d}", rng.random() < 0.15)
            for p in range(n_pred)
            for o in range(n_other)
        ]
        per_lane = max(1, count // len(lanes))
        made = 0
        for lane_no, (predicate, other, incoming) in enumerate(lanes):
            entities[entity_id(other)] = other
            n = per_lane if lane_no < len(lanes) - 1 else count - made
            day = START + timedelta(days=rng.randint(0, 2000))
            for k in range(n):
                instant = rng.random() < 0.3
                unknown = k == 0 and rng.random() < 0.1
                length = rng.randint(1, 900 if n < 20 else 60)
                valid_from = None if unknown else _value(rng, day, instant)
                end_day = day + timedelta(days=length)
                is_open = k == n - 1 and rng.random() < 0.5
                valid_to = None if is_open else _value(rng, end_day, instant)
                if valid_from and valid_to and valid_to < valid_from:
                    valid_to = valid_from
                subject, obj = (other, hub) if incoming else (hub, other)
                sub_id, obj_id, pred = entity_id(subject), entity_id(obj), predicate_id(predicate)
                rows.append(
                    (
                        new_triple_id(sub_id, pred, obj_id),
                        sub_id,
                        pred,
                        obj_id,
                        valid_from,
                        valid_to,
                        round(rng.uniform(0.3, 1.0), 2),
                    )
                )
                day = end_day + timedelta(days=rng.randint(1, 30))
                made += 1
    conn.executemany(
        "INSERT INTO entities (id, name, type) VALUES (?, ?, 'thing')", list(entities.items())
    )
    conn.executemany(
        "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, confidence) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.commit()
    conn.close()


def _ms(seconds: float) -> float:
    return seconds * 1000.0


def time_select(app, state, chart, hub: str, other: str, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        state.select_entity(entity_id(other))
        app.processEvents()
        t0 = time.perf_counter()
        state.select_entity(entity_id(hub))
        chart.canvas.viewport().repaint()
        app.processEvents()
        times.append(time.perf_counter() - t0)
    return times


def time_steps(app, state, chart, steps: int) -> tuple[list[float], int]:
    chart.fit()
    state.set_as_of("2004-01-01")
    app.processEvents()
    chart.canvas.viewport().repaint()
    builds = chart.build_count
    times = []
    day = date(2004, 1, 1)
    for _ in range(steps):
        day += timedelta(days=7)
        t0 = time.perf_counter()
        state.set_as_of(day.isoformat())
        chart.canvas.viewport().repaint()  # paints the whole canvas now, synchronously
        app.processEvents()  # and whatever else the step queued
        times.append(time.perf_counter() - t0)
    assert chart.build_count == builds, "an as_of step rebuilt the bars"
    return times, len(chart.drawn_intervals())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    steps = 40 if args.quick else 200
    rounds = 3 if args.quick else 9

    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp(prefix="factlines-bench-gantt-"))
    path = folder / "knowledge_graph.sqlite3"
    t0 = time.perf_counter()
    build(path)
    print(f"built {path} in {time.perf_counter() - t0:.1f} s")

    kg = KnowledgeGraph(path)
    state = AppState(kg)
    actions = FactActions(state, QUndoStack())
    chart = GanttChart(state, actions)
    chart.resize(1200, 700)
    chart.show()
    app.processEvents()

    results = []  # (measure, value ms, target ms or None)
    for hub, (count, _, _) in HUBS.items():
        flat = hub.endswith("Flat")
        other = next(h for h in HUBS if h != hub)
        select = time_select(app, state, chart, hub, other, rounds)
        step, drawn = time_steps(app, state, chart, steps)
        layout = chart.bars.layout
        shape = f"{drawn:,} bars, {len(layout.lanes)} lanes" + (", all in view" if flat else "")
        target_step = 16.0 if count <= 2_000 else 50.0
        target_select = 150.0 if count <= 2_000 else None
        median = statistics.median(step)
        p95 = sorted(step)[int(len(step) * 0.95) - 1]
        results.append((f"as_of step, median ({shape})", _ms(median), target_step))
        results.append((f"as_of step, p95 ({shape})", _ms(p95), target_step))
        results.append(
            (f"select until drawn, median ({shape})", _ms(statistics.median(select)), target_select)
        )
    kg.close()

    width = max(len(r[0]) for r in results)
    print()
    print(f"{'measure':<{width}}  {'ms':>8}  {'target':>8}  result")
    print("-" * (width + 30))
    misses = 0
    for name, value, target in results:
        if target is None:
            verdict, target_text = "(info)", "-"
        else:
            ok = value <= target
            misses += not ok
            verdict, target_text = ("PASS" if ok else "MISS"), f"<= {target:g}"
        print(f"{name:<{width}}  {value:8.2f}  {target_text:>8}  {verdict}")
    print()
    print(f"{misses} miss(es); {'python ' + ' '.join(sys.argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
