"""Benchmark: the review's whole-graph reads, off the UI thread as the window asks them.

    python tests/bench/bench_review.py            # 100,000 entities, 300,000 facts
    python tests/bench/bench_review.py --quick    # 10,000 entities: does it run
    python tests/bench/bench_review.py --big      # 333,334 entities, 1,000,002 facts

Builds a MemPalace-shaped file (written with SQL, as MemPalace's schema makes it): people,
projects and places whose names repeat the way extraction repeats them ("Kai Moreno", "kai
moreno", "Kái-Moreno", "Kai"), three facts per entity, a few hubs, and a week of recent
``extracted_at`` stamps over a year of older ones. Then, each the median of three runs on a
worker thread with a store of its own (as the window's background reads), a progress callback
listening:

- ``duplicate_entities()`` over every entity (target: 2 s at 100,000 entities; not at --big);
- ``recorded_since(a week ago)``, first as the file is, then with the speed index of when facts
  were recorded (``fl_triples_recorded``; target: 0.2 s at 1M facts, with it).

The rows are written in the order they were recorded, as MemPalace writes them (its
``extracted_at`` is the time of the insert); ``--shuffled`` writes them in no order, as a graph
put together from others may hold them: the week's rows are then spread over the whole file.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))

from factlines import KnowledgeGraph, open_graph  # noqa: E402
from factlines.core.names import entity_id  # noqa: E402
from factlines.core.store.sqlite import indexes  # noqa: E402

RECORDED_INDEX = "fl_triples_recorded"

FIRST = ["Kai", "Ada", "Rosa", "Mira", "Theo", "Lena", "Jonas", "Priya", "Sam", "Li", "Noor"]
VARIANTS = (lambda n: n, str.lower, lambda n: n.replace(" ", "-"), lambda n: n.split()[0])
TYPES = ("person", "project", "place", "tool")
PREDICATES = ("works_on", "knows", "lives_in", "uses", "reports_to")


def build(path: Path, entities: int, shuffled: bool, seed: int = 11) -> None:
    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    names: dict[str, tuple[str, str]] = {}
    while len(names) < entities:
        base = f"{rng.choice(FIRST)} {rng.randrange(entities // 3):05d}x"
        if rng.random() < 0.05:  # extraction wrote it another way too
            base = rng.choice(VARIANTS)(base)
        names.setdefault(entity_id(base), (base, rng.choice(TYPES)))
    ids = list(names)
    hubs = ids[:20]
    KnowledgeGraph(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, ?)",
            [(eid, name, kind) for eid, (name, kind) in names.items()],
        )
        rows = []
        for n, subject in enumerate(ids * 3):
            obj = rng.choice(hubs) if rng.random() < 0.05 else rng.choice(ids)
            days = rng.random() * (7 if rng.random() < 0.02 else 365)
            stamp = (now - timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S")
            rows.append((f"t_{n:08d}", subject, rng.choice(PREDICATES), obj, stamp))
        if not shuffled:
            rows.sort(key=lambda row: row[4])
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, extracted_at) "
            "VALUES (?, ?, ?, ?, ?)",
            rows,
        )
    conn.close()


def on_worker(path: Path, read) -> tuple[float, object, int, float]:
    """Seconds ``read(kg, progress)`` took on a thread with a store of its own, its answer,
    how many times progress was told, and the seconds of CPU the thread used (on a busy
    machine the wall clock also counts the other programs' turns)."""
    out: dict = {}
    told = [0]

    def progress(_done, _total) -> bool:
        told[0] += 1
        return True

    def work() -> None:
        with open_graph(path, read_only=True) as kg:
            began, cpu = time.perf_counter(), time.thread_time()
            out["answer"] = read(kg, progress)
            out["seconds"] = time.perf_counter() - began
            out["cpu"] = time.thread_time() - cpu

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return out["seconds"], out["answer"], told[0], out["cpu"]


def main() -> None:
    parser = argparse.ArgumentParser()
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true")
    size.add_argument("--big", action="store_true")
    parser.add_argument("--shuffled", action="store_true")
    parser.add_argument("--dir")
    args = parser.parse_args()
    entities = 10_000 if args.quick else 333_334 if args.big else 100_000
    folder = Path(args.dir or tempfile.mkdtemp(prefix="bench-review-")) / "graph"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "knowledge_graph.sqlite3"
    if not path.exists():  # kept by --dir between runs
        began = time.perf_counter()
        build(path, entities, args.shuffled)
        seconds = time.perf_counter() - began
        print(f"built {entities:,} entities, {3 * entities:,} facts in {seconds:.1f} s")
    week_ago = (datetime.now(timezone.utc) - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
    none = folder / "no_write_log.jsonl"

    def recorded(kg, _progress):
        return kg.recorded_since(week_ago, write_log=none)

    indexes.drop(str(path), [RECORDED_INDEX])  # a kept file: as MemPalace made it
    measures = (
        []
        if args.big
        else [
            ("duplicate_entities()", 2.0, lambda kg, p: kg.duplicate_entities(progress=p)),
        ]
    )
    measures.append(("recorded_since(a week ago)", None, recorded))
    for words, target, read in measures:
        _report(words, target, [on_worker(path, read) for _ in range(3)])
    began = time.perf_counter()
    indexes.build(str(path), [RECORDED_INDEX])
    print(f"built the index of when facts were recorded in {time.perf_counter() - began:.1f} s")
    target = 0.2 if args.big else None
    _report("  with that index", target, [on_worker(path, recorded) for _ in range(5)])
    if not args.dir:
        path.unlink()


def _report(words: str, target: float | None, runs: list) -> None:
    seconds = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[3] for run in runs)
    answer, told = runs[0][1], runs[0][2]
    verdict = "" if target is None else ("  PASS" if seconds <= target else "  MISS")
    goal = "" if target is None else f" (target {target:.1f} s)"
    print(
        f"{words:<30} {seconds:6.2f} s{goal}{verdict}  (CPU {cpu:.2f} s)  "
        f"{len(answer):,} found, progress told {told} times"
    )


if __name__ == "__main__":
    main()
