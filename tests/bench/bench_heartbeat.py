"""Benchmark of the person's clock: the longest stall of the window's UI thread after each step.

    python tests/bench/bench_heartbeat.py [--keep PATH]         # 9k entities, 90k facts, 1.8k hub
    python tests/bench/bench_heartbeat.py --big [--keep PATH]   # 100k entities, 1M facts, 20k hub
    ... --stacks FILE   # every thread's stack whenever the UI thread misses its beats too long

A 5 ms QTimer beats on the UI thread while the real window (bench_window's graph, its
automation surface) goes through what a person does: start-up, selecting the hub, ending one
of its facts, Undo, Redo, another program's write (MemPalace's own ``KnowledgeGraph`` adding a
fact, found by the window's watch), File → Import of 1,000 CSV rows, the whole graph's
changes since 2023 in the Changes panel, File → Export to JSON, and the backup before the
first edit. Each step is timed from just before the action until
things settle: 3 s after it returned, and until every job it started has ended. The figure is
the longest gap between two beats in that time (the action's own time on the UI thread
included). Target: no gap over 100 ms.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_window
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from factlines import KnowledgeGraph

LOAD = os.getloadavg()[0]
SIZES = {"normal": (9_000, 90_000, 1_800), "big": (100_000, 1_000_000, 20_000)}
BEAT_MS = 5
SETTLE_S = 3.0
TARGET_MS = 100
IMPORT_ROWS = 1_000
CHANGES_SINCE = "2023-01-01"  # a quarter of the facts started or ended since
MEMPALACE_WRITES = """
import sys
from mempalace.knowledge_graph import KnowledgeGraph
kg = KnowledgeGraph(db_path=sys.argv[1])
for predicate in ("audited_by", "reviewed_by"):
    kg.add_triple("Hub", predicate, "Outside Auditor", valid_from="2026-02-01")
"""


class Heartbeat:
    """A timer beating every BEAT_MS on the UI thread; :meth:`longest_gap` since a mark.

    Each beat also notes the UI thread's own CPU time and (on Linux) how long it waited for a
    core: on a loaded machine a gap is mostly that wait. In the last :meth:`longest_gap`,
    :attr:`longest_cpu` is the UI thread's CPU and :attr:`longest_queued` its wait for a core
    (the rest of the gap it waited on something: the interpreter's lock, held by a worker).
    Without schedstat (not Linux) the wait for a core counts as blocked."""

    def __init__(self, stacks=None):
        self._schedstat = _thread_schedstat()
        self._stacks = stacks
        self.beats: list[tuple[float, float, float]] = [self._beat()]
        self.longest_cpu = 0.0
        self.longest_queued = 0.0
        self.longest_blocked = 0.0
        self.timer = QTimer()
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(lambda: self.beats.append(self._beat()))
        if stacks is not None:
            self.timer.timeout.connect(self._watch)
        self.timer.start()

    def _watch(self) -> None:
        """Each beat puts off the stacks' dump: it comes only when no beat came for longer
        than the target (faulthandler's own thread: it needs no turn of the interpreter)."""
        faulthandler.dump_traceback_later(TARGET_MS / 1000, file=self._stacks)

    def _beat(self) -> tuple[float, float, float]:
        queued = 0.0
        if self._schedstat is not None:
            self._schedstat.seek(0)
            queued = int(self._schedstat.read().split()[1]) / 1e9
        return time.perf_counter(), time.thread_time(), queued

    def longest_parts(self) -> tuple[float, float, float]:
        """(CPU, wait for a core) in the last longest gap, and the longest blocked time."""
        return self.longest_cpu, self.longest_queued, self.longest_blocked

    def mark(self) -> float:
        """Now, as the start of a step: a beat of its own, which the gaps count from."""
        self.beats.append(self._beat())
        return self.beats[-1][0]

    def longest_gap(self, since: float) -> float:
        """Milliseconds: the longest time without a beat from the mark ``since`` to the last
        beat. Also :attr:`longest_blocked`: of all those gaps, the longest time the UI thread
        neither ran nor waited for a core (nor, for a beat's 5 ms, slept): it waited for the
        interpreter's lock, which a worker held, or for something else."""
        beats = [b for b in self.beats if b[0] >= since]
        if len(beats) < 2:
            return 0.0
        before, after = max(pairwise(beats), key=lambda pair: pair[1][0] - pair[0][0])
        self.longest_cpu = (after[1] - before[1]) * 1000.0
        self.longest_queued = (after[2] - before[2]) * 1000.0
        self.longest_blocked = (
            max((b[0] - a[0]) - (b[1] - a[1]) - (b[2] - a[2]) for a, b in pairwise(beats)) * 1000.0
            - BEAT_MS
        )
        return (after[0] - before[0]) * 1000.0


def _thread_schedstat():
    """The UI thread's scheduler figures (Linux): its time waiting for a core is the second."""
    try:
        return open(f"/proc/self/task/{threading.get_native_id()}/schedstat")
    except OSError:
        return None


def run_loop(seconds: float) -> None:
    """Let the event loop run (timers, queued signals, the file watch) for ``seconds``."""
    loop = QEventLoop()
    QTimer.singleShot(round(seconds * 1000), loop.quit)
    loop.exec()


# Processes of another program writing beside the window: the window never waits for them,
# the step lasts until they ended.
WRITERS: list[subprocess.Popen] = []


def busy(window) -> bool:
    """Whether a job the window started (a whole-graph read, an import, an export, an index
    build, the undo of a big step) is still running, a whole-graph question waits for writes
    to stop, or another program is still writing."""
    jobs = (window.transfer.job, window.indexing.job, window.replays.job)
    return (
        window.panels.busy
        or getattr(window, "figures", window.panels).busy  # (the code before had none)
        or any(job is not None and job.running for job in jobs)
        or any(writer.poll() is None for writer in WRITERS)
    )


def settle(window, since: float, wait: float = SETTLE_S) -> float:
    """Run the event loop ``wait`` seconds and until every job ended; the longest gap."""
    deadline = time.perf_counter() + 120
    run_loop(wait)
    while busy(window) and time.perf_counter() < deadline:
        run_loop(0.1)
    run_loop(0.2)  # what the end of a job set off
    return window.heartbeat.longest_gap(since)


def write_csv(path: Path, rows: int) -> None:
    lines = ["subject,predicate,object,valid_from"]
    lines += [f"Import {n:05d},imported_with,Hub,2024-{1 + n % 12:02d}-01" for n in range(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="build the graph at this path (reused if it exists)")
    parser.add_argument("--big", action="store_true", help="100k entities, 1M facts, 20k hub")
    parser.add_argument(
        "--stacks",
        type=argparse.FileType("w"),
        help="write every thread's stack to this file whenever the UI thread misses its beats "
        "for over the target (what it waited for)",
    )
    args = parser.parse_args()
    size = SIZES["big" if args.big else "normal"]
    bench_window.ENTITIES, bench_window.TRIPLES, bench_window.HUB_FACTS = size
    folder = Path(tempfile.mkdtemp(prefix="factlines-heartbeat-"))
    os.environ.setdefault("FACTLINES_SETTINGS", str(folder / "settings.ini"))
    os.environ["XDG_DATA_HOME"] = str(folder / "data")  # the backups go there
    kept = Path(args.keep) if args.keep else folder / "kept.sqlite3"
    if not kept.exists():
        started = time.perf_counter()
        bench_window.build(kept)
        print(f"built {kept} in {time.perf_counter() - started:.1f} s")
    path = folder / "bench.sqlite3"  # the steps write: each run starts from the same graph
    shutil.copyfile(kept, path)
    # On disk before the window opens: else the first commit's fsync may wait behind the
    # copy's writeback (an Undo at 1M once waited 284 ms in COMMIT, no other thread running).
    os.sync()
    rows = folder / "rows.csv"
    write_csv(rows, IMPORT_ROWS)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from factlines.ui.app import collect_on_the_ui_thread

    collect_on_the_ui_thread()  # as `factlines` does before its window: no collection on a worker
    app.setQuitOnLastWindowClosed(False)
    from factlines.ui import MainWindow
    from factlines.ui.app import settle_after_startup

    # (step, longest gap, the UI thread's CPU in it, its wait for a core, longest blocked)
    figures: list[tuple[str, float, float, float, float]] = []
    heartbeat = Heartbeat(args.stacks)
    since = time.perf_counter()
    kg = KnowledgeGraph(path)
    window = MainWindow(kg)
    window.heartbeat = heartbeat
    said: list[str] = []
    window.state.message.connect(said.append)
    window.backups.set_enabled(False, remember=False)  # the backup is a step of its own
    window.transfer._exec = lambda _dialog: False  # an import's report is not read
    window.resize(1500, 950)
    window.show()
    built = (time.perf_counter() - since) * 1000
    shown = heartbeat.mark()
    settle_after_startup()  # as `factlines` does once its window is up
    gap = settle(window, shown)
    figures.append(("start-up: after the window is shown", gap, *heartbeat.longest_parts()))
    if args.stacks:
        args.stacks.write("=== after: start-up\n")
    print(f"{kg.stats()['triples']:,} facts; window built and shown in {built:.0f} ms")

    def step(name: str, action, wait: float = SETTLE_S) -> None:
        since = heartbeat.mark()
        action()
        gap = settle(window, since, wait)
        figures.append((name, gap, *heartbeat.longest_parts()))
        print(f"  {name}: {figures[-1][1]:.0f} ms", flush=True)
        if args.stacks:
            args.stacks.write(f"=== after: {name}\n")
            args.stacks.flush()

    step("select the hub", lambda: window.select_entity("Hub"))
    open_facts = [f["id"] for f in kg.intervals("hub") if f["valid_to"] is None]
    step("end one of the hub's facts", lambda: window.end_fact(open_facts[0], "2026-01-01"))
    step("undo", window.undo_stack.undo)
    step("redo", window.undo_stack.redo)

    def another_program_writes() -> None:
        # MemPalace in a process of its own; two facts: a lone first write after the window
        # opened can go unseen by SQLite's data_version (noted in the README's table).
        # Started, not waited for on the UI thread: MemPalace writes beside the window.
        WRITERS.append(subprocess.Popen([sys.executable, "-c", MEMPALACE_WRITES, str(path)]))

    step("another program's write (the watch finds it)", another_program_writes)
    if WRITERS[-1].returncode != 0:
        raise SystemExit(f"MemPalace's process failed ({WRITERS[-1].returncode})")
    if not any("changed by another program" in words for words in said):
        print("  (the window did not notice that write)")
    step(f"File → Import of {IMPORT_ROWS:,} CSV rows", lambda: window.transfer.import_from(rows))

    def whole_graph_changes() -> None:
        panels = window.panels
        panels.changes_dock.show()
        panels.changes_dock.raise_()
        panels.changes.whole_graph.setChecked(True)
        panels.changes.set_instants(CHANGES_SINCE, None)

    step(f"the whole graph's changes since {CHANGES_SINCE} (Changes panel)", whole_graph_changes)
    target = folder / "export.json"
    step("File → Export to JSON", lambda: window.transfer.export_to(target))
    window.backups.set_enabled(True, remember=False)
    step(
        "the backup before the first edit (ending a fact)",
        lambda: window.end_fact(open_facts[1], "2026-01-01"),
    )

    print()
    print(f"load average before the run: {LOAD:.1f} on {os.cpu_count()} cores")
    print(
        f"{'longest stall of the UI thread after':<58} {'figure':>10} {'target':>9}  result"
        "   (in it: the UI thread's CPU; its wait for a core)  blocked"
    )
    for name, figure, cpu, queued, blocked in figures:
        verdict = "PASS" if figure <= TARGET_MS else "MISS"
        print(
            f"{name:<58} {figure:>8.0f}ms {TARGET_MS:>7}ms  {verdict}"
            f"   ({cpu:.0f} ms; {queued:.0f} ms)  {max(blocked, 0):.0f} ms"
        )
    print(
        "blocked: the longest time in the step the UI thread waited for the interpreter's lock "
        "(a worker held it) or anything but a core"
    )
    window.close()
    kg.close()
    shutil.rmtree(folder, ignore_errors=True)  # the copy, the export, the backup
    return 0


if __name__ == "__main__":
    sys.exit(main())
