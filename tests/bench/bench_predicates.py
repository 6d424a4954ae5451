"""Benchmark: renaming a predicate that 10k facts carry in a graph of 100k, the whole command
timed (start-up of ``python -m factlines`` included), and its undo; the vocabulary listing; and
looking up an open fact by (subject, predicate, object), the way every add does, as the search
was before and is now.

    python tests/bench/bench_predicates.py            # 10k of 100k facts
    python tests/bench/bench_predicates.py --quick    # 1k of 10k facts: does it run
    python tests/bench/bench_predicates.py --dir D    # keep the files in D

The graph is ``bench_io``'s (MemPalace's shape: ~45% ended, dates and instants, provenance),
with 10% of its facts given the predicate ``works_on``. Each command figure is the median of
three runs, each on a fresh copy. Target: rename a predicate with 10k facts <= 2 s.
The undo is the app's (``revert`` of the recorded change), checked to give back every row of
both tables as it was. Prints one table with PASS/MISS; exits 0 unless a check failed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_io import RUNS, build, command

from factlines import KnowledgeGraph

LOOKUPS = 300
# How the open fact of (subject, predicate, object) was looked up before: SQLite, without
# statistics, searched the predicate's index (a tenth of the graph here).
BEFORE = (
    "SELECT id, valid_from FROM triples "
    "WHERE subject = ? AND predicate = ? AND object = ? AND valid_to IS NULL"
)
AFTER = (
    "SELECT id, valid_from FROM triples "
    "WHERE subject = ? AND +predicate = ? AND object = ? AND valid_to IS NULL"
)


def dump(path: Path) -> dict:
    with sqlite3.connect(str(path)) as conn:
        return {
            table: conn.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid").fetchall()
            for table in ("entities", "triples")
        }


def lookup_ms(path: Path, sql: str, keys: list[tuple]) -> float:
    with sqlite3.connect(str(path)) as conn:
        began = time.perf_counter()
        for key in keys:
            conn.execute(sql, key).fetchall()
        return (time.perf_counter() - began) / len(keys) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k facts instead of 100k")
    parser.add_argument("--dir", type=Path, help="keep the files here")
    args = parser.parse_args()
    entities, triples = (1_000, 10_000) if args.quick else (10_000, 100_000)
    renamed = triples // 10
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_predicates_"))
    folder.mkdir(parents=True, exist_ok=True)
    graph = folder / f"graph_{triples // 1000}k.sqlite3"
    if not graph.exists():
        build(graph, entities, triples)
        conn = sqlite3.connect(str(graph))
        with conn:
            conn.execute(
                "UPDATE triples SET predicate = 'works_on' WHERE rowid IN "
                "(SELECT rowid FROM triples ORDER BY random() LIMIT ?)",
                (renamed,),
            )
        conn.close()  # the last connection checkpoints: the copies below are the file alone
    with sqlite3.connect(str(graph)) as conn:
        carried, still_open = conn.execute(
            "SELECT COUNT(*), SUM(valid_to IS NULL) FROM triples WHERE predicate = 'works_on'"
        ).fetchone()
        keys = random.Random(5).sample(
            conn.execute("SELECT subject, predicate, object FROM triples").fetchall(), LOOKUPS
        )

    def fresh(run: int) -> Path:
        copy = folder / f"copy_{run}.sqlite3"
        shutil.copy(graph, copy)
        return copy

    measures = []  # (name, figure, target or None, passed or None)

    def timed(name: str, *extra: str, target: float | None = None) -> None:
        took = statistics.median(
            command("rename-predicate", fresh(run), "works_on", "works_for", *extra)
            for run in range(RUNS)
        )
        passed = None if target is None else took <= target
        measures.append((name, f"{took:.2f} s", target, passed))

    label = f"{carried:,} of {triples:,} facts ({still_open:,} open)"
    timed(f"factlines rename-predicate, history kept: {label}", target=2.0)
    timed(f"factlines rename-predicate --in-place: {label}", "--in-place", target=2.0)
    took = statistics.median(command("predicates", graph) for _ in range(RUNS))
    measures.append((f"factlines predicates ({triples:,} facts)", f"{took:.2f} s", None, None))

    for keep_history in (True, False):
        copy = fresh(9)
        before = dump(copy)
        with KnowledgeGraph(copy) as kg:
            began = time.perf_counter()
            with kg.recording() as change:
                kg.rename_predicate("works_on", "works_for", keep_history=keep_history)
            call = time.perf_counter() - began
            began = time.perf_counter()
            kg.revert(change)
            undo = time.perf_counter() - began
        same = dump(copy) == before
        how = "history kept" if keep_history else "in place"
        measures.append((f"the call, {how}", f"{call:.2f} s", None, None))
        measures.append((f"its undo, {how}: identical rows", f"{undo:.2f} s", None, same))

    before_ms = lookup_ms(graph, BEFORE, keys)
    after_ms = lookup_ms(graph, AFTER, keys)
    for how, ms in (("before: predicate index", before_ms), ("now: subject index", after_ms)):
        measures.append((f"open fact by (s, p, o), {how}", f"{ms:.3f} ms", None, None))

    width = max(len(name) for name, *_ in measures)
    print(f"\n{'measure':<{width}}  {'figure':>9}  {'target':>7}  result")
    failed = False
    for name, figure, target, passed in measures:
        limit = "" if target is None else f"<= {target:g} s"
        verdict = "" if passed is None else ("PASS" if passed else ("MISS" if target else "FAIL"))
        failed |= passed is False and target is None
        print(f"{name:<{width}}  {figure:>9}  {limit:>7}  {verdict}")
    print(f"\nfiles in {folder}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
