"""Benchmark: the memory ``factlines import`` takes for a JSON copy, against the file's size; and
an import as File → Import… runs it (one undo step), then its undo.

    python tests/bench/bench_import_memory.py           # 25k and 250k facts (~9 and ~90 MB)
    python tests/bench/bench_import_memory.py --quick   # 5k and 50k facts
    python tests/bench/bench_import_memory.py --dir D   # keep the files in D
    python tests/bench/bench_import_memory.py --app /other/checkout/app   # its import instead

Two graphs of bench_io's shape, ten times apart in size, are exported to JSON; each JSON is
imported into a new file by the whole command in a fresh process, and the process's peak
resident memory (its rusage) is printed beside the file's size. Target: the import reads the
file a batch at a time, so its peak grows by at most 60 MB from the small file to the big one
(before: 82 MB of JSON peaked at 828 MB). The window's import (``import_recorded``: every row
recorded for its undo, one edit-log entry) and then its undo (``kg.revert``) run in a fresh
process too, with the same target: its undo record is kept in a file past a batch.
Prints PASS/MISS; exits 0 unless a command failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_io import APP

GROWTH_MB = 60
BENCH = Path(__file__).resolve().parent
BUILD = (
    f"import sys; sys.path.insert(0, {str(BENCH)!r}); from pathlib import Path; "
    "from bench_io import build; build(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))"
)


# What File → Import… runs on its worker, then Edit → Undo: ARGS are the graph and the file.
WINDOW_IMPORT = (
    "import sys; from factlines import open_graph; "
    "from factlines.core.transfer import import_recorded; "
    "report, change = import_recorded(sys.argv[1], sys.argv[2], 'Import'); "
    "kg = open_graph(sys.argv[1]); kg.adopt(change); kg.revert(change); kg.close()"
)


def peak_mb(*args, app: Path = APP, code: str | None = None) -> float:
    """Run ``python -m factlines ARGS`` (or ``python -c CODE ARGS``) of ``app`` and return its
    peak resident memory in MB."""
    env = {**os.environ, "PYTHONPATH": str(app)}
    how = ["-m", "factlines"] if code is None else ["-c", code]
    child = subprocess.Popen(
        [sys.executable, *how, *map(str, args)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(how + list(map(str, args)))} failed:\n{child.stderr.read()}")
    return usage.ru_maxrss / 1024  # kilobytes on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5k and 50k facts")
    parser.add_argument("--dir", type=Path, help="keep the files here")
    parser.add_argument("--app", type=Path, default=APP, help="the app folder whose import runs")
    parsed = parser.parse_args()
    sizes = (5_000, 50_000) if parsed.quick else (25_000, 250_000)
    folder = parsed.dir or Path(tempfile.mkdtemp(prefix="bench_import_memory_"))
    folder.mkdir(parents=True, exist_ok=True)
    peaks: dict[str, list[float]] = {"command": [], "window": []}
    for facts in sizes:
        graph = folder / f"graph_{facts}.sqlite3"
        if not graph.exists():
            # In a process of its own: a child's peak memory counts its parent's at the fork
            # (Linux keeps the high-water mark across exec), and building the big graph here
            # made every import after it read 178 MB.
            subprocess.run(
                [sys.executable, "-c", BUILD, str(graph), str(facts // 10), str(facts)],
                env={**os.environ, "PYTHONPATH": str(parsed.app)},
                check=True,
            )
        exported = folder / f"copy_{facts}.json"
        if not exported.exists():
            peak_mb("export", graph, exported)
        size = exported.stat().st_size / 1e6
        for how, code in (("command", None), ("window", WINDOW_IMPORT)):
            target = folder / f"imported_{how}_{facts}.sqlite3"
            for side in ("", "-wal", "-shm"):
                Path(f"{target}{side}").unlink(missing_ok=True)
            args = (target, exported) if code else ("import", target, exported)
            peak = peak_mb(*args, app=parsed.app, code=code)
            peaks[how].append(peak)
            what = "factlines import" if code is None else "the window's import + its undo"
            print(f"{what:<30} {facts:>7,} facts, JSON {size:6.1f} MB: peak memory {peak:6.0f} MB")
    for how, what in (("command", "factlines import"), ("window", "the window's")):
        growth = peaks[how][1] - peaks[how][0]
        verdict = "PASS" if growth <= GROWTH_MB else "MISS"
        print(
            f"{what}: growth from the small file to the big one: {growth:.0f} MB "
            f"(target <= {GROWTH_MB}) {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
