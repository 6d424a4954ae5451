"""Benchmark: the store against MemPalace 3.11 on the same graph, in one process, interleaved.

    python tests/bench/bench_store.py            # 10k entities / 100k facts, and 100k / 1M
    python tests/bench/bench_store.py --quick    # small sizes: does it run, do results match
    python tests/bench/bench_store.py --speed    # with the opt-in speed indexes built

Builds a graph with MemPalace-compatible rows once (a few hubs with ~2,000 facts, 40
predicates, dates and instants, ~45% of facts ended), copies it, and times each query on our
store and on MemPalace's KnowledgeGraph alternately (the order flips each round), reporting
medians and the ratio ours/MemPalace. Every answer is checked against MemPalace's (ignoring our
extra ``id`` key) before anything is timed. Also times opening the file, and entity search on a
bigger file. Prints a table with the targets and PASS/MISS; exits 1 if results differ.
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
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))

from factlines import KnowledgeGraph  # noqa: E402
from factlines.core.names import entity_id  # noqa: E402
from factlines.core.store.sqlite.schema import MEMPALACE_SCHEMA  # noqa: E402

FIRST = ["Alice", "Bob", "Chen", "Dana", "Emil", "Farah", "Goro", "Hana", "Ivan", "Jun", "Kira",
         "Lena", "Milo", "Nia", "Omar", "Pia", "Quinn", "Rosa", "Sven", "Tara", "Uma", "Vik",
         "Wen", "Xia", "Yuri", "Zoe"]  # fmt: skip
SYLLABLES = ["ka", "lo", "mir", "son", "ten", "ba", "ri", "vel", "dor", "an", "zu", "pe",
             "qui", "sh", "ul", "gra", "ne", "to", "wi", "xe"]  # fmt: skip
START = date(2000, 1, 1)


def _names(rng: random.Random, count: int) -> list[str]:
    """Distinct, varied display names: 'First Lastname', numbered when they repeat."""
    seen: dict[str, int] = {}
    names = []
    while len(names) < count:
        last = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize()
        name = f"{rng.choice(FIRST)} {last}"
        n = seen.get(name, 0)
        seen[name] = n + 1
        names.append(name if n == 0 else f"{name} {n + 1}")
    return names


def _time_value(rng: random.Random, day: int) -> str:
    moment = START + timedelta(days=day)
    if rng.random() < 0.5:
        return moment.isoformat()
    return f"{moment.isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"


def build(path: Path, entities: int, triples: int, hubs: int = 5, seed: int = 7) -> dict:
    """A MemPalace-compatible graph written with executemany; returns names worth querying."""
    from mempalace.knowledge_graph import KnowledgeGraph as MemPalaceKG

    # MemPalace's tables first, its indexes after the rows (MemPalace adds them on open): the
    # rows are exactly what MemPalace's add_triple writes, only faster to load.
    conn = sqlite3.connect(str(path))
    conn.executescript(MEMPALACE_SCHEMA.split("CREATE INDEX")[0])
    conn.close()
    rng = random.Random(seed)
    names = _names(rng, entities)
    ids = [entity_id(n) for n in names]
    predicates = [f"pred_{i:02d}" for i in range(40)]
    hub_facts = min(2_000, triples // (4 * hubs))
    rows = []
    for i in range(triples):
        if i < hubs * hub_facts:
            hub = i // hub_facts
            other = rng.randrange(hubs, entities)
            s, o = (hub, other) if i % 2 else (other, hub)
        else:
            s, o = rng.randrange(entities), rng.randrange(entities)
        p = rng.choice(predicates)
        day = rng.randrange(9000)
        vf = None if rng.random() < 0.1 else _time_value(rng, day)
        vt = _time_value(rng, day + rng.randrange(0, 2000)) if rng.random() < 0.45 else None
        tid = f"t_{ids[s]}_{p}_{ids[o]}_{rng.getrandbits(48):012x}"
        rows.append((tid, ids[s], p, ids[o], vf, vt, rng.choice([1.0, 0.8]), f"closet_{i % 97}"))
    conn = sqlite3.connect(str(path))
    with conn:
        conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, ?)",
            [
                (eid, name, rng.choice(["person", "project", "place"]))
                for eid, name in zip(ids, names)
            ],
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to, "
            "confidence, source_closet) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.close()
    MemPalaceKG(str(path)).close()
    return {"hubs": names[:hubs], "ordinary": names[hubs + 1], "names": names, "preds": predicates}


# ── Comparing and timing ──────────────────────────────────────────────────


def _plain(rows):
    if isinstance(rows, dict):
        return rows
    return [{k: v for k, v in row.items() if k != "id"} for row in rows]


def _same(ours, theirs) -> bool:
    a, b = _plain(ours), _plain(theirs)
    if isinstance(a, dict) or a == b:
        return a == b
    return sorted(map(repr, a)) == sorted(map(repr, b))  # no order promised


def interleaved(ours_call, mem_call, rounds: int) -> tuple[float, float]:
    """Median seconds of each, calling them alternately (order flipped every round)."""
    ours_t, mem_t = [], []
    for r in range(rounds):
        pair = [(ours_call, ours_t), (mem_call, mem_t)]
        for call, sink in pair if r % 2 else reversed(pair):
            t0 = time.perf_counter()
            call()
            sink.append(time.perf_counter() - t0)
    return statistics.median(ours_t), statistics.median(mem_t)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:9.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    parser.add_argument("--dir", help="where to build the files (default: a temporary folder)")
    parser.add_argument("--speed", action="store_true", help="with the opt-in speed indexes built")
    args = parser.parse_args(argv)

    from mempalace.knowledge_graph import KnowledgeGraph as MemPalaceKG

    size = (
        (1_000, 10_000, 5_000, 50_000, 15)
        if args.quick
        else (10_000, 100_000, 100_000, 1_000_000, 60)
    )
    entities, triples, big_entities, big_triples, rounds = size
    workdir = Path(args.dir or tempfile.mkdtemp(prefix="fl-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    base, ours_path, mem_path = (workdir / f"{n}.sqlite3" for n in ("base", "ours", "mem"))

    t0 = time.perf_counter()
    info = build(base, entities, triples)
    print(f"built {entities:,} entities / {triples:,} facts in {time.perf_counter() - t0:.1f} s")
    shutil.copy(base, ours_path)
    shutil.copy(base, mem_path)

    rows, mismatches = [], []

    def row(label, figure, target, ok, note=""):
        rows.append((label, figure, target, "PASS" if ok else "MISS", note))

    t0 = time.perf_counter()
    with KnowledgeGraph(ours_path) as kg:
        first_open = time.perf_counter() - t0
        # As the app does after opening (off its UI thread): the default indexes, and the speed
        # indexes only when asked for.
        t0 = time.perf_counter()
        kg.build_indexes()
        if args.speed:
            kg.add_speed_indexes()
        indexing = time.perf_counter() - t0
    opens = []
    for _ in range(max(5, rounds // 4)):
        t0 = time.perf_counter()
        KnowledgeGraph(ours_path).close()
        opens.append(time.perf_counter() - t0)
    opened = statistics.median(opens)
    note = (
        f"first open {first_open * 1000:.0f} ms, then "
        f"{'default + speed' if args.speed else 'default'} indexes {indexing * 1000:.0f} ms"
    )
    row("open", f"{_ms(opened)} ms", "<= 100 ms", opened <= 0.1, note)

    ours, mem = KnowledgeGraph(ours_path), MemPalaceKG(str(mem_path))
    hub, ordinary = info["hubs"][0], info["ordinary"]
    as_of = "2012-06-15"
    cases = [
        ("query_entity hub outgoing", 0.8, lambda kg: kg.query_entity(hub)),
        ("query_entity hub incoming", 0.8, lambda kg: kg.query_entity(hub, direction="incoming")),
        ("query_entity hub both as_of", 0.8,
         lambda kg: kg.query_entity(hub, as_of=as_of, direction="both")),
        ("query_entity ordinary outgoing", 0.8, lambda kg: kg.query_entity(ordinary)),
        ("query_entity ordinary incoming", 0.8,
         lambda kg: kg.query_entity(ordinary, direction="incoming")),
        ("query_relationship as_of date", 0.5,
         lambda kg: kg.query_relationship("pred_07", as_of=as_of)),
        ("query_relationship as_of instant", 0.5,
         lambda kg: kg.query_relationship("pred_21", as_of="2015-02-03T04:05:06Z")),
        ("timeline whole graph", 0.8, lambda kg: kg.timeline()),
        ("timeline whole graph, page 50", 0.8, lambda kg: kg.timeline(limit=100, offset=5000)),
        ("timeline hub", 0.8, lambda kg: kg.timeline(hub)),
        ("timeline ordinary", 0.8, lambda kg: kg.timeline(ordinary)),
        ("stats", 0.5, lambda kg: kg.stats()),
    ]  # fmt: skip
    for label, target, call in cases:
        if not _same(call(ours), call(mem)):
            mismatches.append(label)
            row(label, "results differ", f"<= {target}", False)
            continue
        ours_t, mem_t = interleaved(lambda c=call: c(ours), lambda c=call: c(mem), rounds)
        ratio = ours_t / mem_t
        note = f"ours {_ms(ours_t)} ms, MemPalace {_ms(mem_t)} ms, {len(call(ours))} rows"
        row(label, f"{ratio:9.2f} x", f"<= {target}", ratio <= target, note)
    ours.close()
    mem.close()

    big = workdir / "big.sqlite3"
    t0 = time.perf_counter()
    big_info = build(big, big_entities, big_triples, seed=11)
    built = time.perf_counter() - t0
    print(f"built {big_entities:,} entities / {big_triples:,} facts in {built:.1f} s")
    mem_size = big.stat().st_size
    t0 = time.perf_counter()
    with KnowledgeGraph(big) as kg:
        kg.build_indexes()
        if args.speed:
            kg.add_speed_indexes()
        indexing = time.perf_counter() - t0
        searches = ["e", "ali", "son", "Chen Ka", "zz", "dorvel", big_info["names"][1234].lower()]
        page, count = {}, {}
        for text in searches:
            for sink, call in ((page, kg.list_entities), (count, kg.count_entities)):
                samples = []
                for _ in range(max(5, rounds // 6)):
                    # After an unrelated search, neither the last result nor the narrowing of a
                    # growing query helps: each sample is a search from scratch.
                    kg.count_entities("\x01")
                    t0 = time.perf_counter()
                    call(text)
                    samples.append(time.perf_counter() - t0)
                sink[text] = statistics.median(samples)
    size_note = (
        f"file {mem_size / 1e6:.0f} MB as MemPalace wrote it, {big.stat().st_size / 1e6:.0f} MB "
        f"with our indexes (open and index builds {indexing:.1f} s)"
    )
    for label, times in (("page (list_entities)", page), ("count (count_entities)", count)):
        worst = max(times, key=times.get)
        typical = _ms(statistics.median(times.values())).strip()
        note = f"worst {worst!r}; median of {len(times)} searches {typical} ms"
        row(
            f"entity search {label}",
            f"{_ms(times[worst])} ms",
            "<= 20 ms",
            times[worst] <= 0.02,
            note,
        )
    print(f"{big_entities:,} entities / {big_triples:,} facts: {size_note}")

    width = max(len(r[0]) for r in rows)
    print(f"\n{'measure':<{width}}  {'ours/MemPalace or time':>14}  {'target':>10}  result")
    for label, figure, target, verdict, note in rows:
        print(f"{label:<{width}}  {figure:>14}  {target:>10}  {verdict}  {note}")
    if not args.dir:
        shutil.rmtree(workdir, ignore_errors=True)
    if mismatches:
        print(f"\nRESULTS DIFFER from MemPalace's: {', '.join(mismatches)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
