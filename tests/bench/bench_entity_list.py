"""Benchmark of the entity list's slow listings: the person's clock while the list is filtered
to the entities valid at as_of, stepped in time with that filter on, sorted by the Open and
Ended counts, scrolled far down a count-sorted list, and while a fact is written meanwhile
(prints figures; not a test).

    python tests/bench/bench_entity_list.py [--big] [--keep PATH]

bench_window's graph (10k entities / 100k facts, or 100k / 1M with ``--big``), worked on in a
copy (a step writes a fact). For each step: the longest gap between two turns of the UI
thread's event loop, the step's own call included (target 100 ms), and how long until the
list shows its answer.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_window
from bench_window import settle, settle_jobs
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from factlines import KnowledgeGraph

STALL_TARGET_MS = 100
FAR_ROW = 6_000


def heartbeat(app: QApplication, action, shown, most: float = 30.0) -> tuple[float, float]:
    """``action()``, then the event loop until ``shown()`` and half a second more (late
    answers): (the longest gap between turns, ms until shown)."""
    started = last = time.perf_counter()
    longest, shown_at = 0.0, None
    action()
    while True:
        app.processEvents()
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
        if shown_at is None and (shown() or now - started > most):
            shown_at = now
        if shown_at is not None and now - shown_at > 0.5:
            return longest * 1000, (shown_at - started) * 1000
        time.sleep(0.001)


def measure(app: QApplication, path: Path) -> list[tuple[str, float, float]]:
    from factlines.ui import MainWindow
    from factlines.ui.app import collect_on_the_ui_thread, settle_after_startup

    collect_on_the_ui_thread()  # as `factlines` does before its window
    kg = KnowledgeGraph(path)
    window = MainWindow(kg)
    window.backups.set_enabled(False, remember=False)
    window.resize(1280, 800)
    window.show()
    settle(app)
    settle_after_startup()
    settle_jobs(window)
    browser, model = window.browser, window.browser.model

    def listed(valid_at=None, order="name") -> bool:
        return (
            not getattr(model, "reading", False)  # (the code before read here, at once)
            and not browser._search_timer.isActive()
            and (model.valid_at, model.order) == (valid_at, order)
        )

    window.set_as_of("2020-01-01")
    settle(app)
    steps = [
        (
            "'Only with facts valid at as_of' on",
            lambda: browser.valid_only.setChecked(True),
            lambda: listed("2020-01-01"),
        ),
        (
            "an as_of step with it on",
            lambda: window.set_as_of("2021-01-01"),
            lambda: listed("2021-01-01"),
        ),
        ("and off again", lambda: browser.valid_only.setChecked(False), lambda: listed()),
        (
            "sort by the Open count",
            lambda: browser.view.sortByColumn(2, Qt.SortOrder.DescendingOrder),
            lambda: listed(order="current") and model.index(0, 2).data() is not None,
        ),
        (
            "sort by the Ended count",
            lambda: browser.view.sortByColumn(3, Qt.SortOrder.DescendingOrder),
            lambda: listed(order="ended") and model.index(0, 3).data() is not None,
        ),
        (
            f"scroll to row {FAR_ROW:,} of that",
            lambda: browser.view.scrollTo(model.index(FAR_ROW, 0)),
            lambda: listed(order="ended") and model.index(FAR_ROW, 0).data() is not None,
        ),
        (
            "a fact written while sorted by Ended",
            lambda: kg.add_triple("Hub", "knows", "Benchmark", valid_from="2020-01-01"),
            lambda: listed(order="ended") and model.index(0, 3).data() is not None,
        ),
    ]
    figures = [(name, *heartbeat(app, action, shown)) for name, action, shown in steps]
    window.close()
    kg.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="build the graph at this path (reused if it exists)")
    parser.add_argument("--big", action="store_true", help="100k entities, 1M facts")
    args = parser.parse_args()
    sizes = bench_window.SIZES["big" if args.big else "normal"]
    bench_window.ENTITIES, bench_window.TRIPLES, bench_window.HUB_FACTS = sizes
    folder = Path(tempfile.mkdtemp(prefix="factlines-bench-list-"))
    source = Path(args.keep) if args.keep else folder / "bench.sqlite3"
    if not source.exists():
        bench_window.build(source)
    path = folder / "copy.sqlite3"
    with sqlite3.connect(source) as kept, sqlite3.connect(path) as copy:
        kept.backup(copy)  # a step writes a fact: never into the kept graph
    app = QApplication.instance() or QApplication(sys.argv[:1])
    figures = measure(app, path)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"{sizes[0]:,} entities, {sizes[1]:,} facts")
    width = max(len(name) for name, _, _ in figures)
    print(f"{'step':<{width}}  {'longest stall':>13}  {'shown after':>11}  target  result")
    for name, stall, shown in figures:
        verdict = "PASS" if stall <= STALL_TARGET_MS else "MISS"
        print(f"{name:<{width}}  {stall:>11.0f}ms  {shown:>9.0f}ms  {STALL_TARGET_MS}ms  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
