"""Benchmark: MemPalace's clock. A real MemPalace process writes the graph (``add_triple`` every
0.2 s, its busy timeout 10 s) while Factlines does one long piece of work beside it; for each
step, MemPalace's longest wait and its failed writes.

    python tests/bench/bench_mempalace_waits.py            # 150k CSV rows, 100k-fact graph
    python tests/bench/bench_mempalace_waits.py --quick    # 15k rows, 10k facts: does it run
    python tests/bench/bench_mempalace_waits.py --dir D    # keep (and reuse) the files in D

The steps: File → Import… of 150,000 CSV rows (what the window runs: recorded for one undo step,
logged) and its undo; ``factlines import`` of the same rows (the command, in its own process);
a copy of the graph into an empty graph MemPalace has open (MemPalace begins writing once the
first rows are copied); renaming a predicate that 10,000 facts carry (history kept); merging
a 2,000-fact hub into another; building the speed indexes; a backup of a ~300 MB graph (1M
facts; skipped with ``--quick``). The graph is ``bench_io``'s (MemPalace's shape). Target for
every step: MemPalace waits <= 1 s, 0 writes fail. Prints one table with PASS/MISS; exits 0
unless a step failed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_io import APP, build

from factlines import open_graph
from factlines.core.transfer import copy_graph, import_recorded

TARGET_S = 1.0
# A MemPalace process: opens the graph, says "ready", writes every 0.2 s from "go" to "stop",
# then prints every call's duration and every failure as JSON.
WRITER = r"""
import json, sys, threading, time
from mempalace.knowledge_graph import KnowledgeGraph

kg = KnowledgeGraph(db_path=sys.argv[1])
go, stop = threading.Event(), threading.Event()

def listen():
    for line in sys.stdin:
        if line.strip() == "go":
            go.set()
        elif line.strip() == "stop":
            break
    go.set()
    stop.set()

threading.Thread(target=listen, daemon=True).start()
print("ready", flush=True)
go.wait()
waits, failures, n = [], [], 0
while not stop.is_set():
    n += 1
    began = time.perf_counter()
    try:
        kg.add_triple("MemPalace writer", "records", f"note {time.time_ns()} {n}")
    except Exception as exc:
        failures.append(f"{type(exc).__name__}: {exc}")
    waits.append(time.perf_counter() - began)
    stop.wait(0.2)
kg.close()
print(json.dumps({"waits": waits, "failures": failures}), flush=True)
"""


class MemPalace:
    """A MemPalace process writing ``path`` (see WRITER)."""

    def __init__(self, path: Path):
        self._proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self._proc.stdout.readline().strip() != "ready":
            raise SystemExit("the MemPalace writer did not start")
        self._going = False

    def go(self, *_args) -> None:
        if not self._going:
            self._going = True
            self._proc.stdin.write("go\n")
            self._proc.stdin.flush()

    def go_once_rows_are_written(self, done: int, _total: int) -> bool:
        """A copy's progress: MemPalace begins writing once the first rows are copied (before,
        the target is still empty and MemPalace's fact would make the copy refuse it)."""
        if done:
            self.go()
        return True

    def stop(self) -> dict:
        self.go()
        self._proc.stdin.write("stop\n")
        self._proc.stdin.close()
        answer = json.loads(self._proc.stdout.readline())
        self._proc.wait(timeout=30)
        return answer


def beside_mempalace(path: Path, step, starts_itself: bool = False) -> tuple[float, float, list]:
    """Run ``step(mempalace)`` while MemPalace writes ``path``: (seconds the step took, longest
    MemPalace wait, failures). MemPalace writes from 0.4 s before the step to 0.4 s after it,
    unless ``starts_itself`` (the step calls ``mempalace.go`` itself)."""
    mempalace = MemPalace(path)
    if not starts_itself:
        mempalace.go()
        time.sleep(0.4)
    began = time.perf_counter()
    try:
        step(mempalace)
    finally:
        took = time.perf_counter() - began
        time.sleep(0.4)
        written = mempalace.stop()
    return took, max(written["waits"], default=0.0), written["failures"]


def write_rows(path: Path, rows: int, seed: int = 7) -> None:
    """``rows`` new facts in the CSV's short form (names, dates), every one good."""
    rng = random.Random(seed)
    names = [f"Person {i:06d}" for i in range(max(1000, rows // 5))]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(("subject", "predicate", "object", "valid_from", "valid_to"))
        for i in range(rows):
            year = rng.randrange(2000, 2025)
            ended = rng.random() < 0.4
            writer.writerow(
                (
                    rng.choice(names),
                    f"imported_{rng.randrange(30):02d}",
                    f"Thing {i:07d}",
                    f"{year}-{rng.randrange(1, 13):02d}-01",
                    f"{year + 1}-06-30" if ended else "",
                )
            )


def cli(*args) -> None:
    env = {**os.environ, "PYTHONPATH": str(APP)}
    done = subprocess.run(
        [sys.executable, "-m", "factlines", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    if done.returncode != 0:
        raise SystemExit(f"factlines {' '.join(map(str, args))} failed:\n{done.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="15k rows into 10k facts")
    parser.add_argument("--dir", type=Path, help="keep the files here (and reuse them)")
    args = parser.parse_args()
    entities, triples, rows = (1_000, 10_000, 15_000) if args.quick else (10_000, 100_000, 150_000)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_mempalace_"))
    folder.mkdir(parents=True, exist_ok=True)
    graph, csv_rows = folder / f"graph_{triples}.sqlite3", folder / f"rows_{rows}.csv"
    renamed = triples // 10
    if not graph.exists():
        build(graph, entities, triples)
        with sqlite3.connect(str(graph)) as conn:
            conn.execute(
                "UPDATE triples SET predicate = 'works_on' WHERE rowid IN "
                "(SELECT rowid FROM triples ORDER BY random() LIMIT ?)",
                (renamed,),
            )
        conn.close()
    if not csv_rows.exists():
        write_rows(csv_rows, rows)

    def fresh(name: str) -> Path:
        copy = folder / f"{name}.sqlite3"
        for side in ("", "-wal", "-shm"):
            Path(f"{copy}{side}").unlink(missing_ok=True)
        shutil.copy(graph, copy)
        return copy

    measures = []  # (step, seconds, longest wait, failures)

    def measure(name: str, path: Path, step, starts_itself: bool = False) -> None:
        took, longest, failures = beside_mempalace(path, step, starts_itself)
        measures.append((name, took, longest, failures))
        print(f"  {name}: {took:.1f} s", flush=True)

    label = f"{rows:,}"
    window = fresh("window_import")
    recorded = {}

    def window_import(_mp) -> None:
        recorded["change"] = import_recorded(window, csv_rows, f"Import {csv_rows.name}")[1]

    measure(f"File → Import… of {label} CSV rows", window, window_import)

    def undo(_mp) -> None:
        # MemPalace wrote while the import ran: the window asks "Undo anyway?", and the person
        # says yes (force); refused, the undo would take no lock at all.
        with open_graph(window) as kg:
            kg.revert(recorded["change"], force=True)

    measure("undo of that import", window, undo)
    command = fresh("command_import")
    measure(
        f"factlines import of {label} CSV rows",
        command,
        lambda _mp: cli("import", command, csv_rows),
    )
    target = folder / "copy_target.sqlite3"
    for side in ("", "-wal", "-shm"):
        Path(f"{target}{side}").unlink(missing_ok=True)
    measure(
        f"copy of the {triples:,}-fact graph into the empty graph MemPalace opened",
        target,
        lambda mp: copy_graph(graph, target, progress=mp.go_once_rows_are_written),
        starts_itself=True,
    )
    predicates = fresh("rename")

    def rename(_mp) -> None:
        with open_graph(predicates) as kg:
            kg.rename_predicate("works_on", "working_on")

    measure(f"rename of a predicate with {renamed:,} facts (history kept)", predicates, rename)

    def merge(_mp) -> None:
        with open_graph(predicates) as kg:
            kg.merge_entities("entity_000000", "entity_000001")

    measure("merge of a hub entity into another", predicates, merge)

    def speed_indexes(_mp) -> None:
        with open_graph(command) as kg:
            kg.add_speed_indexes()

    measure(f"speed indexes built on {triples + rows:,} facts", command, speed_indexes)
    if not args.quick:
        big = folder / "graph_1000000.sqlite3"
        if not big.exists():
            build(big, 100_000, 1_000_000)
        backup = folder / "backup.sqlite3"

        def keep_backup(_mp) -> None:
            backup.unlink(missing_ok=True)
            with open_graph(big) as kg:
                kg.backup_to(backup)

        size = big.stat().st_size / 1e6
        measure(f"backup of a {size:,.0f} MB graph (1M facts)", big, keep_backup)

    width = max(len(name) for name, *_ in measures)
    print(f"\n{'step (MemPalace writes every 0.2 s)':<{width}}  took s  longest wait s  failed  "
          "target            result")  # fmt: skip
    for name, took, longest, failures in measures:
        verdict = "PASS" if longest <= TARGET_S and not failures else "MISS"
        print(
            f"{name:<{width}}  {took:>6.1f}  {longest:>14.2f}  {len(failures):>6}  "
            f"<= {TARGET_S:g} s, 0 failed  {verdict}"
        )
        for failure in sorted(set(failures)):
            print(f"    MemPalace: {failure}")
    print(f"\nfiles in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
