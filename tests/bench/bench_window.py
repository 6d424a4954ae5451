"""Benchmark of the main window on a 10k-entity / 100k-triple graph (prints figures; not a test).

    python tests/bench/bench_window.py [--keep PATH]          # 10k entities, 100k facts, 2k hub
    python tests/bench/bench_window.py --big [--keep PATH]    # 100k entities, 1M facts, 20k hub
    python tests/bench/bench_window.py --keep PATH --against OLD/app [--rounds 2]

``--against`` (another checkout's ``app`` folder, e.g. a worktree of an older commit) measures
both in child processes, one after the other, ``--rounds`` times each, alternating (a shared
machine's pace drifts by the minute), and prints both side by side with their ratio.

The hub is selected twice over: while the whole-graph questions the window asks when it opens
are still being answered on workers, then once they all are (as round 1 measured it: those
questions were answered on the UI thread before the window answered anything); every figure
after the first selections is of the settled window.

Targets: window shown with the entity list populated <= 500 ms from construction; a search
keystroke <= 20 ms; selecting the hub <= 100 ms (2,000 facts) or <= 300 ms (20,000 facts) until
every view is updated; an as_of step <= 16 ms with all views updated and painted, <= 10 ms
(100k) or <= 16 ms (1M) with the chart's paint forced after it; ending one of the hub's facts
<= 50 ms until every view shows it, <= 100 ms until the histogram does; peak memory (RSS)
<= 350 MB. The machine's load stretches the wall clock: the selection and the step also print
the UI thread's own CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ["TZ"] = "UTC"
if hasattr(time, "tzset"):
    time.tzset()
# The code measured: this checkout's, or (a child of --against) the one named here.
APP = str(Path(__file__).resolve().parents[2] / "app")
sys.path.insert(0, os.environ.get("FL_BENCH_APP") or APP)

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from factlines import KnowledgeGraph  # noqa: E402

SIZES = {"normal": (10_000, 100_000, 2_000), "big": (100_000, 1_000_000, 20_000)}
ENTITIES, TRIPLES, HUB_FACTS = SIZES["normal"]
PREDICATES = ("works_on", "knows", "uses", "lives_in", "mentors", "depends_on", "reports_to")


def build(path: Path) -> None:
    """A fresh graph: ENTITIES entities, TRIPLES triples, a hub with HUB_FACTS facts."""
    import random

    rng = random.Random(7)
    kg = KnowledgeGraph(path)
    entities = [("hub", "Hub", "organisation")] + [
        (f"entity_{i:05d}", f"Entity {i:05d}", ("person", "project", "tool", "place")[i % 4])
        for i in range(1, ENTITIES)
    ]

    def fact(n: int, subject: str, obj: str):
        year = rng.randint(2005, 2025)
        start = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        end = None
        if rng.random() < 0.4:
            end = f"{min(year + rng.randint(0, 4), 2026)}-{rng.randint(1, 12):02d}-28"
            end = max(end, start)
        pred = PREDICATES[n % len(PREDICATES)]
        return (f"t_{subject}_{pred}_{obj}_{n:012x}", subject, pred, obj, start, end, 1.0)

    rows = []
    for n in range(HUB_FACTS):
        other = entities[1 + (n * 37) % (ENTITIES - 1)][0]
        rows.append(fact(n, "hub", other) if n % 2 else fact(n, other, "hub"))
    for n in range(HUB_FACTS, TRIPLES):
        a = entities[1 + rng.randrange(ENTITIES - 1)][0]
        b = entities[1 + rng.randrange(ENTITIES - 1)][0]
        rows.append(fact(n, a, b))
    with kg.transaction():
        conn = kg._conn()
        conn.executemany("INSERT INTO entities (id, name, type) VALUES (?, ?, ?)", entities)
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, "
            "confidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    kg.close()


def settle(app: QApplication) -> None:
    app.processEvents()
    app.processEvents()


def settle_views(app: QApplication, window) -> None:
    """Events until every view shows the state: a big entity's views reload a turn of the
    event loop apart, and the entity list pages to it a turn at a time (none of that in the
    code before)."""
    settle(app)
    turns = (getattr(window.state, "reloads", None), getattr(window.browser, "finding", None))
    run_until(lambda: not any(t is not None and t.running for t in turns))


def run_until(done) -> None:
    """Run the event loop until ``done()``: the UI thread idle between events, as in the
    app's own loop. (A loop of processEvents(), even waiting for more events, keeps the
    interpreter's lock from the worker it waits for: a hub's read there took 5-10 times as
    long.)"""
    if done():
        return
    loop, check = QEventLoop(), QTimer()
    check.setInterval(1)
    check.timeout.connect(lambda: loop.quit() if done() else None)
    check.start()
    loop.exec()
    check.stop()


def settle_jobs(window, timeout_s: float = 300.0) -> None:
    """Run the event loop until the window's whole-graph questions, asked by its opening and
    answered on workers, have all been answered."""
    deadline = time.perf_counter() + timeout_s
    busy = (window.panels, getattr(window, "figures", window.panels))
    run_until(lambda: not any(b.busy for b in busy) or time.perf_counter() > deadline)
    run_until(lambda: True)


def peak_rss_mb() -> float:
    """The process's peak resident memory so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def ms(seconds: float) -> float:
    return seconds * 1000.0


def select_hub(
    app: QApplication, window, runs: int
) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds of each of ``runs`` selections of the hub, until every view is painted;
    the same until the chart, the table and the graph are (before the entity list has paged
    to the hub); and the UI thread's own CPU time of each selection (the machine's load,
    other threads' included, stretches the wall clock, not this)."""
    selects, views, cpu = [], [], []
    for _ in range(runs):
        window.state.select_entity(None)
        settle(app)
        started, started_cpu = time.perf_counter(), time.thread_time()
        window.select_entity("Hub")
        settle(app)
        run_until(lambda: not window.state.reloads.running)
        window.repaint()
        views.append(ms(time.perf_counter() - started))
        settle_views(app, window)
        window.repaint()
        selects.append(ms(time.perf_counter() - started))
        cpu.append(ms(time.thread_time() - started_cpu))
    return selects, views, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="build the graph at this path (reused if it exists)")
    parser.add_argument("--big", action="store_true", help="100k entities, 1M facts, 20k hub")
    parser.add_argument("--against", help="another checkout's app folder: measure it too")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each, with --against")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a child
    args = parser.parse_args()
    if args.against:
        return side_by_side(args)
    figures = measure(args)
    if args.json:
        print(json.dumps(figures))
        return 0
    print_figures(figures)
    return 0


def measure(args) -> dict:
    """Every figure of the window, as ``{"notes", "table", "parts"}``."""
    global ENTITIES, TRIPLES, HUB_FACTS
    ENTITIES, TRIPLES, HUB_FACTS = SIZES["big" if args.big else "normal"]
    select_target = 300 if args.big else 100
    step_target = 16 if args.big else 10
    folder = tempfile.mkdtemp(prefix="factlines-bench-")
    os.environ.setdefault("FACTLINES_SETTINGS", str(Path(folder) / "settings.ini"))
    path = Path(args.keep) if args.keep else Path(folder) / "bench.sqlite3"
    if not path.exists():
        started = time.perf_counter()
        build(path)
        print(f"built {path} in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from factlines.ui.app import collect_on_the_ui_thread

    collect_on_the_ui_thread()  # as `factlines` does before its window: no collection on a worker
    from factlines.ui import MainWindow
    from factlines.ui.app import settle_after_startup

    kg = KnowledgeGraph(path)
    stats = kg.stats()
    notes = [f"{stats['entities']:,} entities, {stats['triples']:,} triples"]

    started = time.perf_counter()
    window = MainWindow(kg)
    window.backups.set_enabled(False, remember=False)  # the edit timed below, not a copy
    window.resize(1500, 950)
    window.show()
    settle(app)
    window.repaint()
    shown = ms(time.perf_counter() - started)
    assert window.browser.model.rowCount() > 0
    settle_after_startup()  # as `factlines` does once its window is up
    # The search index is built off the UI thread (the code before built it in the first turn
    # of the event loop, inside "shown"): typed once it is ready, as a person would a moment
    # after the window appears.
    started = time.perf_counter()
    builder = getattr(window.browser, "index_builder", None)
    while builder is not None and builder.busy:
        app.processEvents()
        time.sleep(0.002)
    index_ready = ms(time.perf_counter() - started)

    keystrokes, queries = [], []
    for text in ("e", "en", "ent", "enti", "entity 0", "entity 01", "entity 012", "12", "hub", ""):
        started = time.perf_counter()
        window.browser.set_search(text)  # what the debounce timer runs after typing
        queries.append(ms(time.perf_counter() - started))
        settle(app)  # ... and the list painted
        keystrokes.append(ms(time.perf_counter() - started))
    search = statistics.median(keystrokes)

    # this 2-core machine is noisy: a median of few runs swings by 50 ms
    busy_selects, _, _ = select_hub(app, window, 11)
    # Then as round 1 measured it, its whole-graph questions asked on the UI thread before the
    # window answered: once the window has settled (their reads on workers ended), and the
    # rest of the figures too.
    settle_jobs(window)
    selects, select_views, select_cpu = select_hub(app, window, 11)
    select = statistics.median(selects)
    # One edit on the hub (end one of its open facts), until every view shows it; undone after.
    open_facts = [f["id"] for f in kg.intervals("hub") if f["valid_to"] is None][:11]
    edits = []
    for tid in open_facts:
        started = time.perf_counter()
        window.end_fact(tid, "2026-01-01")
        settle(app)
        window.repaint()
        edits.append(ms(time.perf_counter() - started))
        assert (
            window.facts_table.model.facts[window.facts_table.model.row_of(tid)]["valid_to"]
            == "2026-01-01"
        )
        window.undo_stack.undo()
        settle(app)
    edit = statistics.median(edits)
    # The same edit until the histogram under the slider shows it too: its counts read again
    # on a worker after the writes pause, or moved at once where the write noted the facts'
    # former times (and the worker's time the read took from the window, saved).
    histogram = window.panels.histogram
    settle_jobs(window)
    in_histogram = []
    for tid in open_facts[:5]:
        started = time.perf_counter()
        window.end_fact(tid, "2026-01-01")
        run_until(lambda: not histogram.busy)
        in_histogram.append(ms(time.perf_counter() - started))
        window.undo_stack.undo()
        run_until(lambda: not histogram.busy)
    # Where the selection's time goes, view by view (each on its own, after a fresh query):
    # the wall clock and, in brackets, the UI thread's own CPU.
    parts = {}

    def timed(name: str, run) -> None:
        started, started_cpu = time.perf_counter(), time.thread_time()
        run()
        parts[name] = (ms(time.perf_counter() - started), ms(time.thread_time() - started_cpu))

    timed(f"store: kg.intervals(hub) (one query, {HUB_FACTS:,} rows)", lambda: kg.intervals("hub"))
    window.state.notify_data_changed()
    settle_views(app, window)
    for name, reload in (
        ("facts table reload (shared facts cached)", window.facts_table.reload),
        ("neighbourhood graph rebuild", window.graph_view.rebuild),
        ("Gantt chart reload (shared facts cached)", window.gantt.reload),
        ("Story panel reload", window.panels.narrative.reload),
    ):
        window.state.entity_facts()
        timed(name, reload)
    timed("paint the whole window", window.repaint)
    drawn = len(window.gantt.drawn_intervals())
    rows = window.facts_table.model.rowCount()

    window.set_as_of("2015-01-01")
    settle(app)
    steps, steps_cpu, painted = [], [], []
    repaints = []
    for i in range(40):
        started, started_cpu = time.perf_counter(), time.thread_time()
        window.time_control.step(days=1 if i % 4 else 0, months=0 if i % 4 else 1)
        settle(app)  # the views restyle and paint what changed
        steps.append(ms(time.perf_counter() - started))
        window.gantt.canvas.viewport().repaint()  # the chart painted now, as a person sees it
        painted.append(ms(time.perf_counter() - started))
        steps_cpu.append(ms(time.thread_time() - started_cpu))
        started = time.perf_counter()
        window.repaint()  # for comparison: every widget of the window painted again
        repaints.append(ms(time.perf_counter() - started))
    step = statistics.median(steps)
    hidden_steps = []
    window.facts_table.hide_invalid.setChecked(True)
    for _ in range(20):
        started = time.perf_counter()
        window.time_control.step(days=7)
        settle(app)
        hidden_steps.append(ms(time.perf_counter() - started))

    notes.append(f"hub: {rows} rows in the triple table, {drawn} bars drawn")
    notes.append(f"the search index was ready {index_ready:.0f} ms after the window was shown")
    table = [
        ("window shown, entity list populated (from construction)", shown, 500),
        ("search keystroke over 10k entities (median of 10)", search, 20),
        ("  worst keystroke", max(keystrokes), 20),
        ("  of which count + first page + model reset (median)", statistics.median(queries), 20),
        (
            f"select the {HUB_FACTS:,}-fact hub while the open's reads run (median)",
            statistics.median(busy_selects),
            select_target,
        ),
        (f"select the {HUB_FACTS:,}-fact hub, all views updated (median)", select, select_target),
        (
            "  chart, table and graph shown (the list paging after them)",
            statistics.median(select_views),
            select_target,
        ),
        (
            "  the UI thread's CPU of a selection (median)",
            statistics.median(select_cpu),
            select_target,
        ),
        ("end one of the hub's facts, every view shows it (median)", edit, 50),
        (
            "  the histogram under the slider shows it (median of 5)",
            statistics.median(in_histogram),
            100,
        ),
        ("as_of step, all views updated and painted (median of 40)", step, 16),
        ("  90th percentile step", sorted(steps)[int(len(steps) * 0.9)], 16),
        (
            "  the step, then the chart's paint forced (median)",
            statistics.median(painted),
            step_target,
        ),
        ("  the UI thread's CPU of that (median)", statistics.median(steps_cpu), step_target),
        ("as_of step with 'hide not valid' on (median of 20)", statistics.median(hidden_steps), 16),
        ("  (a full window.repaint() after a step, median)", statistics.median(repaints), 16),
        (MEMORY, peak_rss_mb(), 350),
    ]
    window.close()
    kg.close()
    return {"notes": notes, "table": table, "parts": parts}


MEMORY = "peak memory (RSS) of the window"


def unit(name: str) -> str:
    return "MB" if name == MEMORY else "ms"


def print_figures(figures: dict) -> None:
    print("\n".join(figures["notes"]))
    print()
    print(f"{'measure':<58} {'figure':>10} {'target':>9}  result")
    for name, figure, target in figures["table"]:
        verdict = "PASS" if figure <= target else "MISS"
        print(f"{name:<58} {figure:>8.1f}{unit(name)} {target:>7}{unit(name)}  {verdict}")
    print()
    print(f"selecting the {HUB_FACTS:,}-fact hub, by part:")
    for name, (figure, cpu) in figures["parts"].items():
        print(f"  {name:<56} {figure:>8.1f}ms ({cpu:.1f} ms CPU)")


def alternating(child: list[str], against: str, rounds: int) -> dict[str, list[dict]]:
    """The JSON that ``child`` prints last, run ``rounds`` times with the code ``against``
    (another checkout's app folder) and with this checkout's, alternating (a shared
    machine's pace drifts by the minute): ``{"before": [...], "now": [...]}``. Says which
    code is which and the machine's load."""
    apps = {"before": str(Path(against).resolve()), "now": APP}
    runs: dict[str, list[dict]] = {"before": [], "now": []}
    for _ in range(rounds):
        for which in ("before", "now"):
            env = {**os.environ, "FL_BENCH_APP": apps[which]}
            out = subprocess.run(child, env=env, check=True, capture_output=True, text=True)
            runs[which].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"before: {apps['before']}; now: {apps['now']}; {rounds} runs of each, alternating")
    print(f"load {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return runs


def spread(values: list[float]) -> str:
    """Figures of several runs as their range; of one, as it is."""
    return f"{min(values):.0f}-{max(values):.0f}" if len(values) > 1 else f"{values[0]:.1f}"


def side_by_side(args) -> int:
    """This checkout and ``args.against``, each in child processes, alternating."""
    child = [sys.executable, __file__, "--json"] + (["--big"] if args.big else [])
    path = Path(args.keep or Path(tempfile.mkdtemp(prefix="factlines-bench-")) / "bench.sqlite3")
    child += ["--keep", str(path)]
    runs = alternating(child, args.against, args.rounds)
    print(runs["now"][0]["notes"][0])
    print()
    print(f"{'measure':<58} {'before':>15} {'now':>15} {'ratio':>6} {'target':>8}  result")
    for name, _figure, target in runs["now"][0]["table"]:  # by name: the code before may lack one
        before = [
            figure for run in runs["before"] for row, figure, _ in run["table"] if row == name
        ]
        now = [figure for run in runs["now"] for row, figure, _ in run["table"] if row == name]
        ratio = f"{statistics.median(now) / max(statistics.median(before), 1e-9):>6.2f}"
        verdict = "PASS" if statistics.median(now) <= target else "MISS"
        u = unit(name)
        was = f"{spread(before)}{u}" if before else "-"
        print(
            f"{name:<58} {was:>15} {spread(now):>13}{u} {ratio if before else '':>6} "
            f"{target:>6}{u}  {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
