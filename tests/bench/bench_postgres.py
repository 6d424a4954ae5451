"""Benchmark of the window on a PostgreSQL graph, beside the same graph in SQLite (prints
figures; not a test): 10k entities / 100k facts with a 2,000-fact hub (bench_window's graph).

    python tests/bench/bench_postgres.py
    python tests/bench/bench_postgres.py --against OLD/app [--rounds 2]

``--against`` (another checkout's ``app`` folder, e.g. a worktree of an older commit) measures
both on the same server and graph, in child processes, one after the other, ``--rounds`` times
each, alternating, and prints PostgreSQL's figures side by side with their ratio.

The server: ``FACTLINES_TEST_POSTGRES`` (a URL whose role may CREATE DATABASE), else a
throwaway one from the machine's PostgreSQL binaries (as the tests start it), on this machine.

Targets (PostgreSQL): open + window shown <= 1 s; selecting the hub <= 150 ms until every view
is updated, while the open's whole-graph reads run and after they are answered; an as_of step
makes no query; another client's write is in the window <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_window  # noqa: E402  (sets up Qt offscreen, TZ and the path to the app)
from bench_window import ms, select_hub, settle, settle_jobs, spread  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import postgres_server  # noqa: E402
from factlines import KnowledgeGraph  # noqa: E402
from factlines.core.store.rows import ENTITY_COLUMNS, TRIPLE_COLUMNS  # noqa: E402


def copy_into(source: Path, url: str) -> None:
    """The SQLite graph's rows, as stored, into the (empty) PostgreSQL graph."""
    with KnowledgeGraph(source) as sqlite_kg, KnowledgeGraph(url) as pg:
        bulk = pg._store.bulk
        with sqlite_kg._store.bulk.selection(None, None) as rows, pg.transaction():
            for batch in rows.entity_rows(5000):
                bulk.insert_rows("entities", ENTITY_COLUMNS, batch)
            for batch in rows.fact_rows(5000):
                bulk.insert_rows("triples", TRIPLE_COLUMNS, batch)
        with pg._store.lock, pg._store._db.read() as conn:
            conn.execute("ANALYZE")


def queries_of(kg) -> list[int]:
    """A counter of the store's reads (each read or snapshot is at least one query)."""
    db, count = kg._store._db, [0]
    read = db.read

    def counted():
        count[0] += 1
        return read()

    db.read = counted
    return count


def measure(app: QApplication, location) -> dict[str, float]:
    from factlines.ui import MainWindow

    started = time.perf_counter()
    kg = KnowledgeGraph(location)
    window = MainWindow(kg)
    window.backups.set_enabled(False, remember=False)
    window.resize(1500, 950)
    window.show()
    settle(app)
    window.repaint()
    figures = {"open + window shown": ms(time.perf_counter() - started)}
    assert window.browser.model.rowCount() > 0

    busy_selects, _views, _cpu = select_hub(app, window, 7)
    figures[BUSY_SELECT] = statistics.median(busy_selects)
    settle_jobs(window)  # the open's whole-graph reads answered: the window as a person finds it
    selects, _views, cpu = select_hub(app, window, 7)
    figures[SELECT] = statistics.median(selects)
    figures["  the UI thread's CPU of that (median)"] = statistics.median(cpu)

    window.set_as_of("2015-01-01")
    settle(app)
    reads = queries_of(kg)
    steps = []
    for i in range(40):
        started = time.perf_counter()
        window.time_control.step(days=1 if i % 4 else 0, months=0 if i % 4 else 1)
        settle(app)
        steps.append(ms(time.perf_counter() - started))
    figures["as_of step (median of 40)"] = statistics.median(steps)
    figures["  queries during the 40 steps"] = reads[0]

    shown = window.facts_table.model.rowCount()
    with KnowledgeGraph(location) as colleague:
        started = time.perf_counter()
        # A new fact each run (an open one already there would be written again as nothing).
        colleague.add_triple("Hub", "uses", f"Benchmark {time.time_ns()}", valid_from="2026-01-01")
    while window.facts_table.model.rowCount() == shown and time.perf_counter() - started < 5:
        app.processEvents()
        time.sleep(0.002)
    figures["another client's write in the window"] = ms(time.perf_counter() - started)
    window.close()
    kg.close()
    return figures


BUSY_SELECT = "select the 2,000-fact hub while the open's reads run (median of 7)"
SELECT = "select the 2,000-fact hub (median of 7)"
TARGETS = {
    "open + window shown": 1000,
    BUSY_SELECT: 150,
    SELECT: 150,
    "  queries during the 40 steps": 0,
    "another client's write in the window": 1000,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="another checkout's app folder: measure it too")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each, with --against")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)  # SQLite path, PG URL
    args = parser.parse_args()
    if args.child:  # measured in this process, for a parent's --against: JSON out
        # A settings file of its own: not the layout and choices an earlier child left there.
        settings = Path(tempfile.mkdtemp(prefix="factlines-bench-pg-")) / "settings.ini"
        os.environ["FACTLINES_SETTINGS"] = str(settings)
        app = QApplication.instance() or QApplication(sys.argv[:1])
        path, url = args.child
        print(json.dumps({"SQLite": measure(app, Path(path)), "PostgreSQL": measure(app, url)}))
        return 0
    folder = Path(tempfile.mkdtemp(prefix="factlines-bench-pg-"))
    # A settings file of its own: never the person's, nor a layout another run left there.
    os.environ.setdefault("FACTLINES_SETTINGS", str(folder / "settings.ini"))
    reason = postgres_server.why_not()
    if reason is not None:
        print(reason)
        return 1
    path = folder / "bench.sqlite3"
    started = time.perf_counter()
    bench_window.build(path)
    print(f"built {path} in {time.perf_counter() - started:.1f} s")
    with postgres_server.server() as admin, postgres_server.fresh_database(admin) as url:
        started = time.perf_counter()
        copy_into(path, url)
        print(f"copied into {url} in {time.perf_counter() - started:.1f} s")
        if args.against:
            return side_by_side(args, path, url)
        app = QApplication.instance() or QApplication(sys.argv[:1])
        results = {"SQLite": measure(app, path), "PostgreSQL": measure(app, url)}
    print()
    rows = {**dict.fromkeys(results["SQLite"]), **TARGETS}
    width = max(map(len, rows))
    print(f"{'measure':<{width}} {'SQLite':>10} {'PostgreSQL':>11} {'target':>8}  result")
    for name, target in rows.items():
        lite, pg = results["SQLite"][name], results["PostgreSQL"][name]
        unit = "" if name.startswith("  queries") else "ms"
        verdict = "" if target is None else ("PASS" if pg <= target else "MISS")
        shown = "" if target is None else f"{target}{unit}"
        print(f"{name:<{width}} {lite:>8.1f}{unit:2} {pg:>9.1f}{unit:2} {shown:>8}  {verdict}")
    return 0


def side_by_side(args, path: Path, url: str) -> int:
    """This checkout and ``args.against`` on the same server and graph, each in child
    processes, alternating: PostgreSQL's figures (and SQLite's beside them) of both."""
    child = [sys.executable, __file__, "--child", str(path), url]
    runs = bench_window.alternating(child, args.against, args.rounds)
    print()

    def figures(engine: str, which: str, name: str) -> tuple[str, float]:
        values = [run[engine][name] for run in runs[which] if name in run[engine]]
        if not values:
            return "-", math.nan
        return spread(values), statistics.median(values)

    print(
        f"{'measure (PostgreSQL; SQLite now)':<68} {'before':>9} {'now':>9} {'ratio':>6} "
        f"{'SQLite':>9} {'target':>7}  result"
    )
    for name in {**dict.fromkeys(runs["now"][0]["PostgreSQL"]), **TARGETS}:
        (was, before), (now, figure) = (
            figures("PostgreSQL", "before", name),
            figures("PostgreSQL", "now", name),
        )
        lite = figures("SQLite", "now", name)[0]
        target = TARGETS.get(name)
        verdict = "" if target is None else ("PASS" if figure <= target else "MISS")
        goal = "" if target is None else str(target)
        ratio = "" if math.isnan(before) or before <= 0 else f"{figure / before:.2f}"
        print(f"{name:<68} {was:>9} {now:>9} {ratio:>6} {lite:>9} {goal:>7}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
