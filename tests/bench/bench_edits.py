"""Benchmark: edits through the façade on a big graph, and what is asked after them: one
edit and the figures (the counts of ``kg.stats()`` and ``kg.time_span()``, the window's status
bar and time control); a merge of the biggest entity into another, and its undo.

    python tests/bench/bench_edits.py --graph /work/benchtmp/g1m.sqlite3   # on a copy of it
    python tests/bench/bench_edits.py            # builds bench_store's 100k / 1M graph
    python tests/bench/bench_edits.py --quick    # 10k / 100k: does it run

Works on a copy (the graph given is never written). For the file as MemPalace made it and
then with the index of the facts' ends (``fl_triples_to``: a default index of a graph
Factlines creates or opens small, a speed index of a big one), each the median of five:

- ``stats() + time_span()`` on a store just opened (as the window's worker reads them after a
  write, and as the window reads them at open);
- an edit through the façade: ``end_fact`` of an open fact, ``add_fact`` of a new one;
- ``stats() + time_span()`` right after that edit, on the store that made it.

Targets: the person's clock, 100 ms, for each. Then the entity with the most facts merged into
the next one, and undone, as the window ran it (one logged write) and as it runs a big merge now
(short transactions on a worker's store), a writer waiting beside it (target 1 s).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build  # noqa: E402

from factlines import KnowledgeGraph, open_graph  # noqa: E402
from factlines.core.store.sqlite import indexes  # noqa: E402

END_INDEX = "fl_triples_to"
TARGET = 0.1
ROUNDS = 5


def figures(kg: KnowledgeGraph) -> tuple:
    return kg.stats(), kg.time_span()


def timed(call) -> float:
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


def measure(path: Path, tag: str) -> list[tuple[str, float]]:
    fresh = [timed(lambda: _fresh_figures(path)) for _ in range(ROUNDS)]
    ends, adds, after = [], [], []
    with KnowledgeGraph(path) as kg:
        open_ids = [
            row[0]
            for row in kg._conn().execute(
                "SELECT id FROM triples WHERE valid_to IS NULL LIMIT ? OFFSET 1000", (ROUNDS,)
            )
        ]
        figures(kg)
        for n, tid in enumerate(open_ids):
            ends.append(timed(lambda t=tid: kg.end_fact(t, "2026-02-01")))
            after.append(timed(lambda: figures(kg)))
            adds.append(timed(lambda i=n: kg.add_fact("Bench Probe", tag, f"Round {i}")))
            after.append(timed(lambda: figures(kg)))
    return [
        ("stats() + time_span(), store just opened", statistics.median(fresh)),
        ("end_fact", statistics.median(ends)),
        ("add_fact", statistics.median(adds)),
        ("stats() + time_span() after the edit", statistics.median(after)),
    ]


def merge_the_biggest(path: Path) -> None:
    """The biggest entity merged into the next one and undone, two ways: one logged write on
    the window's store (how the window ran every merge), and in short transactions on a store
    of its own (how it runs a merge of more than 500 facts now, on a worker); the longest wait
    of a writer beside it (sqlite3, MemPalace's 10 s busy timeout, a fact every 50 ms)."""
    for words, on_its_own in (("one logged write", False), ("in parts, own store", True)):
        with KnowledgeGraph(path) as kg:
            hub, other = kg.list_entities(order="current", descending=True, limit=2)
            facts = kg.fact_count(hub["id"])
            text = f"Merge {hub['name']} into {other['name']}"
            with Beside(path) as beside:
                began = time.perf_counter()
                if on_its_own:
                    with open_graph(path) as own, own.recording() as change, own.batched(text):
                        own.merge_entities(hub["id"], other["id"])
                    kg.adopt(change)
                else:
                    with kg.recording() as change, kg.logged(text):
                        kg.merge_entities(hub["id"], other["id"])
                merged = time.perf_counter() - began
            undone = timed(lambda: kg.revert(change, force=True))
        print(f"merge of the biggest entity ({facts:,} facts), {words}")
        print(
            f"  {'merge':<42} {merged:7.2f} s  (a writer beside it waited {beside.longest:.2f} s)"
        )
        print(f"  {'its undo':<42} {undone:7.2f} s")


class Beside:
    """A writer beside the merge: another connection adding a row every 50 ms."""

    def __init__(self, path: Path):
        self._path, self.longest, self._stop = path, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._write)

    def __enter__(self) -> Beside:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()

    def _write(self) -> None:
        conn = sqlite3.connect(self._path, timeout=10)
        try:
            n = 0
            while not self._stop.is_set():
                began = time.perf_counter()
                with conn:
                    conn.execute(
                        "INSERT OR REPLACE INTO fl_meta (key, value) VALUES (?, '')", (f"b{n}",)
                    )
                self.longest = max(self.longest, time.perf_counter() - began)
                n += 1
                self._stop.wait(0.05)
        finally:
            conn.close()


def _fresh_figures(path: Path) -> None:
    with open_graph(path, read_only=True) as kg:
        figures(kg)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graph", help="a graph to measure a copy of")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-figures-")) / "graph"
    folder.mkdir()
    path = folder / "knowledge_graph.sqlite3"
    if args.graph:
        shutil.copy(args.graph, path)
    else:
        entities, facts = (10_000, 100_000) if args.quick else (100_000, 1_000_000)
        build(path, entities, facts)
    try:
        indexes.drop(str(path), [END_INDEX])  # as MemPalace made it
        with KnowledgeGraph(path) as kg:
            size = kg.stats()["triples"]
        print(f"{size:,} facts, {path.stat().st_size / 1e6:.0f} MB")
        for tag, words in (("plain", "as MemPalace made it"), ("indexed", f"with {END_INDEX}")):
            if tag == "indexed":
                began = time.perf_counter()
                indexes.build(str(path), [END_INDEX])
                print(f"built {END_INDEX} in {time.perf_counter() - began:.1f} s")
            print(words)
            for label, seconds in measure(path, tag):
                verdict = "PASS" if seconds <= TARGET else "MISS"
                print(f"  {label:<42} {seconds * 1000:7.1f} ms  (target 100)  {verdict}")
        merge_the_biggest(path)
    finally:
        shutil.rmtree(folder.parent)


if __name__ == "__main__":
    main()
