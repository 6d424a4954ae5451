"""Benchmark: the review's whole-graph reads, off the UI thread as the window asks them.

    python tests/bench/bench_review.py            # 100,000 entities, 300,000 facts
    python tests/bench/bench_review.py --quick    # 10,000 entities: does it run
    python tests/bench/bench_review.py --big      # 333,334 entities, 1,000,002 facts
    python tests/bench/bench_review.py --graph G  # a copy of graph G: the week before its newest

Builds a MemPalace-shaped file (written with SQL, as MemPalace's schema makes it): people,
projects and places whose names repeat the way extraction repeats them ("Kai Moreno", "kai
moreno", "Kái-Moreno", "Kai"), three facts per entity, a few hubs, and a week of recent
``extracted_at`` stamps over a year of older ones. Then, each the median of three runs on a
worker thread with a store of its own (as the window's background reads), a progress callback
listening:

- the inbox as the window reads it (``waiting_summary``), and the peak memory so far;
- ``duplicate_entities()`` over every entity (target: 2 s at 100,000 entities; not at --big);
- ``recorded_since(a week ago)``, first as the file is, then with the speed indexes it reads
  (when facts were recorded, ``fl_triples_recorded``, and entity names by id,
  ``fl_entities_id_name``; target: 0.2 s at 1M facts, with them).

The rows are written in the order they were recorded, as MemPalace writes them (its
``extracted_at`` is the time of the insert); ``--shuffled`` writes them in no order, as a graph
put together from others may hold them: the week's rows are then spread over the whole file.
``--graph G`` measures a copy of a graph made elsewhere (the week before its newest record).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
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
from factlines.core import temporal  # noqa: E402
from factlines.core.names import entity_id  # noqa: E402
from factlines.core.store.sqlite import indexes  # noqa: E402

REVIEW_INDEXES = ["fl_triples_recorded", "fl_entities_id_name"]
LOG_LINES = 200_000  # MemPalace's write log after a year of a busy assistant's kg_add calls

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
    size.add_argument("--graph", help="measure a copy of this graph")
    parser.add_argument("--shuffled", action="store_true")
    parser.add_argument("--dir")
    args = parser.parse_args()
    entities = 10_000 if args.quick else 333_334 if args.big else 100_000
    folder = Path(args.dir or tempfile.mkdtemp(prefix="bench-review-")) / "graph"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "knowledge_graph.sqlite3"
    newest = datetime.now(timezone.utc)
    if args.graph:
        shutil.copyfile(args.graph, path)
        newest = _newest_record(path)
        print(f"a copy of {args.graph}: the week before {newest:%Y-%m-%d %H:%M:%S}")
    elif not path.exists():  # kept by --dir between runs
        began = time.perf_counter()
        build(path, entities, args.shuffled)
        seconds = time.perf_counter() - began
        print(f"built {entities:,} entities, {3 * entities:,} facts in {seconds:.1f} s")
    week_ago = (newest - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
    none = folder / "no_write_log.jsonl"

    def recorded(kg, _progress):
        return kg.recorded_since(week_ago, write_log=none)

    indexes.drop(str(path), REVIEW_INDEXES)  # a kept file: as MemPalace made it
    _inbox(path, none)
    measures = (
        []
        if args.big or args.graph
        else [
            ("duplicate_entities()", 2.0, lambda kg, p: kg.duplicate_entities(progress=p)),
        ]
    )
    measures.append(("recorded_since(a week ago)", None, recorded))
    for words, target, read in measures:
        _report(words, target, [on_worker(path, read) for _ in range(3)])
    began = time.perf_counter()
    indexes.build(str(path), REVIEW_INDEXES)
    seconds = time.perf_counter() - began
    print(f"built the indexes of when facts were recorded and of names by id in {seconds:.1f} s")
    big = args.big or _facts(path) >= 1_000_000
    _report(
        "  with those indexes", 0.2 if big else None, [on_worker(path, recorded) for _ in range(5)]
    )
    _write_log_reads(path, folder / "write_log.jsonl", week_ago)
    if not args.dir:
        path.unlink()


def _write_log_reads(path: Path, log: Path, since: str) -> None:
    """The inbox read again after each of MemPalace's writes (a store of its own each time, as
    the window's worker), beside MemPalace's write log as its MCP tools write it: a kg_add for
    each fact recorded in the week, after older ones, LOG_LINES lines in all. The first read
    (the whole log parsed), then the next ones (one more add logged before each)."""
    conn = sqlite3.connect(path)
    try:
        week = conn.execute(
            "SELECT t.id, s.name, t.predicate, o.name, t.extracted_at FROM triples t "
            "JOIN entities s ON s.id = t.subject JOIN entities o ON o.id = t.object "
            "WHERE t.extracted_at > ? ORDER BY t.extracted_at",
            (since[:10] + " " + since[11:19],),
        ).fetchall()
    finally:
        conn.close()
    began = datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ") - timedelta(days=30)
    with open(log, "w", encoding="utf-8") as handle:
        for n in range(max(0, LOG_LINES // 2 - len(week))):  # the older writes, a month before
            moment = began + timedelta(seconds=10 * n)
            handle.write(_logged_add(moment, f"t_older_{n:08d}", f"Kai {n:05d}x", "knows", "Ada"))
        for tid, subject, predicate, obj, stamp in week:
            moment = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
            handle.write(_logged_add(moment, tid, subject, predicate, obj))
    words = f"  with MemPalace's {LOG_LINES // 1000}k-line write log"

    def read(kg, _progress):
        return kg.recorded_since(since, write_log=log)

    runs = []
    for n in range(6):
        runs.append(on_worker(path, read))
        with open(log, "a", encoding="utf-8") as handle:  # MemPalace writes one more fact
            now = datetime.now(timezone.utc)
            handle.write(_logged_add(now, f"t_new_{n}", "Kai", "knows", f"Ada {n}"))
    told = sum(item["by"] == "MemPalace" for item in runs[0][1])
    _report(f"{words}, first", None, runs[:1])
    _report(f"{words}, next", None, runs[1:])
    print(f"{'':<30} {told:,} found told added by MemPalace")


def _logged_add(moment: datetime, tid: str, subject: str, predicate: str, obj: str) -> str:
    """A kg_add as MemPalace's MCP tool logs it (local time, no zone): intent, then outcome."""
    stamp = moment.astimezone().replace(tzinfo=None).isoformat()
    params = {"subject": subject, "predicate": predicate, "object": obj}
    intent = {"timestamp": stamp, "operation": "kg_add", "params": params, "result": None}
    result = {"success": True, "triple_id": tid, "fact": f"{subject} → {predicate} → {obj}"}
    outcome = {"timestamp": stamp, "operation": "kg_add", "result": result}
    return json.dumps(intent) + "\n" + json.dumps(outcome) + "\n"


def _newest_record(path: Path) -> datetime:
    conn = sqlite3.connect(path)
    try:
        stamp = conn.execute("SELECT MAX(extracted_at) FROM triples").fetchone()[0]
    finally:
        conn.close()
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)


def _facts(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT MAX(rowid) FROM triples").fetchone()[0] or 0
    finally:
        conn.close()


def _inbox(path: Path, none: Path) -> None:
    """The inbox as the window reads it (``waiting_summary``: the rows it shows, the counts),
    first, so that the peak memory printed is its own."""
    now = temporal.now_instant()
    runs = [
        on_worker(path, lambda kg, _p: kg.waiting_summary(500, now, write_log=none))
        for _ in range(3)
    ]
    seconds = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[3] for run in runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{'the inbox, as the window reads':<30} {seconds:6.2f} s  (CPU {cpu:.2f} s)  "
        f"{runs[0][1]['total']:,} rows waiting; peak memory so far {peak:.0f} MB"
    )


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
