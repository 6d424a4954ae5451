"""Benchmark: export, import and copy from the command line, the whole command timed (start-up
of ``python -m factlines`` included), on a graph of 10k entities and 100k facts.

    python tests/bench/bench_io.py            # 100k facts
    python tests/bench/bench_io.py --quick    # 10k facts: does it run
    python tests/bench/bench_io.py --dir D    # keep the files in D

The graph has MemPalace's shape (dates and instants, ~10% unknown starts, ~45% ended, five
hubs, provenance on every fact). Each figure is the median of three runs of the command in a
fresh process; imports go into a new file each time. Targets: export 100k facts to
JSON <= 2 s and to CSV <= 2 s; import 100k CSV rows into a new file <= 5 s; ours:
copy the graph into a new file <= 5 s, beside the export + import of the JSON copy it replaces.
Prints one table with PASS/MISS; exits 0 unless a command failed.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
sys.path.insert(0, str(APP))

from factlines import KnowledgeGraph, open_graph  # noqa: E402
from factlines.core.store.sqlite.schema import MEMPALACE_SCHEMA  # noqa: E402
from factlines.core.transfer import export_graph  # noqa: E402

RUNS = 3
START = date(2000, 1, 1)


def _value(rng: random.Random, day: int) -> str:
    moment = START + timedelta(days=day)
    if rng.random() < 0.5:
        return moment.isoformat()
    return f"{moment.isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"


def build(path: Path, entities: int, triples: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    names = [f"Entity {i:06d}" for i in range(entities)]
    ids = [name.lower().replace(" ", "_") for name in names]
    predicates = [f"pred_{i:02d}" for i in range(40)]
    hub_facts = min(2_000, triples // 20)
    rows = []
    for i in range(triples):
        if i < 5 * hub_facts:
            hub, other = i // hub_facts, rng.randrange(5, entities)
            s, o = (hub, other) if i % 2 else (other, hub)
        else:
            s, o = rng.randrange(entities), rng.randrange(entities)
        p = rng.choice(predicates)
        day = rng.randrange(9000)
        vf = None if rng.random() < 0.1 else _value(rng, day)
        vt = None
        if rng.random() < 0.45:
            end = day + rng.randrange(0, 2000)
            # An end on the start's own day is a date (its key is the day's last second): the
            # graph holds no inverted interval, which an import would rightly reject.
            vt = (START + timedelta(days=end)).isoformat() if end == day else _value(rng, end)
        tid = f"t_{ids[s]}_{p}_{ids[o]}_{rng.getrandbits(48):012x}"
        rows.append(
            (
                tid,
                ids[s],
                p,
                ids[o],
                vf,
                vt,
                rng.choice([1.0, 0.8]),
                f"closet_{i % 97}",
                f"notes/{i % 500}.md",
                f"drawer_{i % 1000}",
                "convo_miner",
                "2026-01-01 10:00:00",
            )
        )
    conn = sqlite3.connect(str(path))
    conn.executescript(MEMPALACE_SCHEMA)
    with conn:
        conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, 'person')", zip(ids, names)
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, "
            "confidence, source_closet, source_file, source_drawer_id, adapter_name, "
            "extracted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.close()
    KnowledgeGraph(path).close()  # as a file Factlines has opened once


def facts_csv(folder: Path, entities: int, triples: int) -> Path:
    """This benchmark's graph built in ``folder`` and exported as a CSV of its facts: what the
    import benchmarks read."""
    source = folder / "source.sqlite3"
    build(source, entities, triples)
    rows = folder / "facts.csv"
    with open_graph(source, read_only=True) as kg:
        export_graph(kg, rows)
    return rows


def command(*args) -> float:
    env = {**os.environ, "PYTHONPATH": str(APP)}
    began = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "factlines", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    took = time.perf_counter() - began
    if result.returncode != 0:
        raise SystemExit(f"factlines {' '.join(map(str, args))} failed:\n{result.stderr}")
    return took


def median_of(make_args) -> float:
    return statistics.median(command(*make_args(run)) for run in range(RUNS))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k facts instead of 100k")
    parser.add_argument("--dir", type=Path, help="keep the files here")
    args = parser.parse_args()
    entities, triples = (1_000, 10_000) if args.quick else (10_000, 100_000)
    label = f"{triples // 1000}k"
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_io_"))
    folder.mkdir(parents=True, exist_ok=True)
    graph = folder / f"graph_{label}.sqlite3"
    if not graph.exists():
        began = time.perf_counter()
        build(graph, entities, triples)
        took = time.perf_counter() - began
        print(f"built {entities:,} entities / {triples:,} facts in {took:.0f} s")
    out = {ext: folder / f"out_{label}.{ext}" for ext in ("json", "csv", "graphml")}
    minimal = folder / f"minimal_{label}.csv"

    def fresh(run: int, kind: str) -> Path:
        target = folder / f"import_{kind}_{run}.sqlite3"
        for side in ("", "-wal", "-shm"):
            Path(f"{target}{side}").unlink(missing_ok=True)
        return target

    measures = []  # (name, seconds, target or None)
    for ext in ("json", "csv", "graphml"):
        seconds = median_of(lambda run, ext=ext: ("export", graph, out[ext]))
        target = 2.0 if ext in ("json", "csv") else None
        measures.append((f"export {label} facts to {ext.upper()}", seconds, target))
    seconds = median_of(
        lambda run: ("export", graph, folder / "as_of.json", "--as-of", "2012-06-01")
    )
    measures.append((f"export the snapshot at an instant ({label}) to JSON", seconds, None))
    with (
        open(out["csv"], newline="", encoding="utf-8") as source,
        open(minimal, "w", newline="", encoding="utf-8") as target,
    ):
        reader, writer = csv.DictReader(source), csv.writer(target)
        columns = ("subject", "predicate", "object", "valid_from", "valid_to")
        writer.writerow(columns)
        writer.writerows([row[c] for c in columns] for row in reader)
    seconds = median_of(lambda run: ("import", fresh(run, "csv"), out["csv"]))
    measures.append((f"import {label} CSV rows (the export, ids) into a new file", seconds, 5.0))
    seconds = median_of(lambda run: ("import", fresh(run, "min"), minimal))
    measures.append((f"import {label} CSV rows (names, dates) into a new file", seconds, 5.0))
    seconds = median_of(lambda run: ("import", fresh(run, "json"), out["json"]))
    measures.append((f"import the {label} JSON copy into a new file", seconds, None))
    seconds = median_of(lambda run: ("copy", graph, fresh(run, "copy")))
    measures.append((f"copy the {label} graph into a new file", seconds, 5.0))
    check = fresh(9, "check")
    command("import", check, out["json"])
    copy = folder / f"import_copy_{RUNS - 1}.sqlite3"  # the last run's, kept
    for what, path in (("the JSON copy imported", check), ("the copy holds", copy)):
        with sqlite3.connect(str(path)) as conn:
            copied = conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0]
        conn.close()
        if copied != triples:
            raise SystemExit(f"{what} {copied} facts, not {triples}")

    width = max(len(name) for name, _, _ in measures)
    heading = "measure (whole command, median of 3)"
    print(f"\n{heading:<{width}}  {'seconds':>8}  {'target':>7}  result")
    for name, seconds, target in measures:
        verdict = "" if target is None else ("PASS" if seconds <= target else "MISS")
        limit = "" if target is None else f"<= {target:g}"
        print(f"{name:<{width}}  {seconds:>8.2f}  {limit:>7}  {verdict}")
    print(f"\nfiles in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
