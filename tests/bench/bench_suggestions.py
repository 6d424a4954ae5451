"""Benchmark: how well the single-valued suggestions find the predicates that are.

    python tests/bench/bench_suggestions.py            # 3 sizes x 3 mistake rates x 2 seeds,
                                                       # as MemPalace is used and tidier
    python tests/bench/bench_suggestions.py --quick    # 2 small graphs: does it run

Writes realistic MemPalace graphs of people (tests/people_graph.py) through MemPalace's own
``KnowledgeGraph``: jobs that end, moves (mostly same-day handovers), a manager per job,
marriages, two employers or homes at once by mistake at the given rate, and the many-valued
rest (knows, visited, met_with, has_role, likes, works_on, child_of), undated facts among
them. Each graph twice: as MemPalace is mostly used (40% of visits, roles and projects ended
once over, the rest left open) and tidy (90% ended: many-valued predicates then rarely hold
two at once, the hard case). Opens each with Factlines, asks ``single_valued_suggestions()``
and scores it against what the generator knows: precision (of the predicates suggested, how
many are single-valued) and recall (of the single-valued predicates some subject changed,
how many are suggested; ``born_in`` never changes, so no data can tell: left out). Also
prints, per graph, how many real overlaps the suggestions would list.
Targets: precision 1.0, recall >= 0.9.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))
sys.path.insert(0, str(ROOT / "tests"))

from mempalace.knowledge_graph import KnowledgeGraph as MemPalaceKG  # noqa: E402

from factlines import KnowledgeGraph  # noqa: E402
from factlines.core.analysis import predicate_figures  # noqa: E402
from people_graph import MANY_VALUED, SINGLE_VALUED, write_people_graph  # noqa: E402

PRECISION_TARGET, RECALL_TARGET = 1.0, 0.9


def score(folder: Path, people, mistakes, seed, tidy) -> tuple[set, set, int, int]:
    """One graph: (suggested, single-valued with evidence, overlaps listed, mistakes made)."""
    path = folder / f"people-{people}-{mistakes}-{seed}-{tidy}" / "knowledge_graph.sqlite3"
    path.parent.mkdir()
    mem = MemPalaceKG(str(path))
    written = write_people_graph(mem, people, mistakes, seed, tidy)
    mem.close()
    kg = KnowledgeGraph(path)
    try:
        found = kg.single_valued_suggestions()
        figures = {s["predicate"]: s for s in found}
        # The evidence: some subject had two objects over time.
        figures_all = predicate_figures(kg._store.history.interval_rows(None, None))
        evidence = {p for p in SINGLE_VALUED if figures_all.get(p, {}).get("changing")}
    finally:
        kg.close()
    suggested = set(figures)
    listed = sum(figures[p]["overlaps"] for p in suggested & set(SINGLE_VALUED))
    for predicate in sorted(suggested):
        print(f"      {figures[predicate]['text']}")
    return suggested, evidence, listed, sum(written.mistakes.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small graphs")
    args = parser.parse_args()
    grid = (
        [(60, 0.08, 1, 0.4), (200, 0.2, 2, 0.9)]
        if args.quick
        else [
            (people, mistakes, seed, tidy)
            for tidy in (0.4, 0.9)
            for people in (60, 200, 800)
            for mistakes in (0.02, 0.08, 0.2)
            for seed in (1, 2)
        ]
    )
    counts = {tidy: [0, 0, 0, 0] for *_, tidy in grid}  # graphs, true, false, missed
    found_in = dict.fromkeys(SINGLE_VALUED, 0)  # graphs each single-valued predicate was found in
    with tempfile.TemporaryDirectory() as tmp:
        for people, mistakes, seed, tidy in grid:
            print(f"  {people} people, mistakes {mistakes:.0%}, seed {seed}, tidy {tidy:.0%}:")
            suggested, evidence, listed, made = score(Path(tmp), people, mistakes, seed, tidy)
            wrong = sorted(suggested - set(SINGLE_VALUED))
            missed = sorted(evidence - suggested)
            tally = counts[tidy]
            tally[0] += 1
            tally[1] += len(suggested & evidence)
            tally[2] += len(suggested - evidence)
            tally[3] += len(missed)
            for predicate in suggested & set(SINGLE_VALUED):
                found_in[predicate] += 1
            print(
                f"    suggested {len(suggested)}, wrongly {wrong or 'none'}, "
                f"missed {missed or 'none'}; {listed} overlaps listed ({made} mistakes written)"
            )
    print(f"\nsingle-valued {', '.join(SINGLE_VALUED)}; many-valued {', '.join(MANY_VALUED)}")
    print("found in: " + ", ".join(f"{p} {n} of {len(grid)}" for p, n in found_in.items()))
    for tidy, (graphs, true_pos, false_pos, false_neg) in counts.items():
        precision = true_pos / (true_pos + false_pos) if true_pos + false_pos else 0.0
        recall = true_pos / (true_pos + false_neg) if true_pos + false_neg else 0.0
        print(f"{graphs} graphs, {tidy:.0%} of many-valued facts ended:")
        for name, value, target in (
            ("precision", precision, PRECISION_TARGET),
            ("recall", recall, RECALL_TARGET),
        ):
            verdict = "PASS" if value >= target else "MISS"
            print(f"  {name:<10} {value:.3f}  target >= {target}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
