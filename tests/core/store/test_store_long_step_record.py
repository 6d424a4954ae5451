"""A long step's undo record (an import as File → Import… runs it, a big merge) keeps its rows'
images in a file of its own once past a batch, not in memory; its undo and redo stay exact, a
row its later transactions wrote again included."""

from __future__ import annotations

import tracemalloc

import pytest

from factlines.core.store import changes, giving_way
from factlines.core.transfer import csv_rows, import_recorded
from store_helpers import dump

# Three batches past the point where the record goes to its file: a fourth of the real batch
# and threshold (tests patch them), as replaying a row on PostgreSQL costs a query or two.
ROWS = 1_500
BATCH = 500
NOTE = "a note of the kind a real file carries in its provenance columns " * 4


def _csv(folder, rows: int = ROWS):
    path = folder / "rows.csv"
    with path.open("w", encoding="utf-8") as out:
        out.write("subject,predicate,object,valid_from,source_file\n")
        for n in range(rows):
            out.write(f"Entity {n % 700},p{n % 9},Entity {n * 7 % 701},2025-01-01,{NOTE}{n}\n")
    return path


@pytest.mark.slow
def test_a_recorded_import_keeps_its_undo_record_in_a_file_and_undoes_exactly(
    kg, graph_url, tmp_path, monkeypatch
):
    monkeypatch.setattr(giving_way, "PAUSE_S", 0)
    monkeypatch.setattr(changes, "SPILL_ROWS", BATCH)
    monkeypatch.setattr(csv_rows, "PLAN_BATCH", BATCH)
    kg.add_triple("Kai", "works_on", "Orion")
    before = dump(graph_url)
    path = _csv(tmp_path)

    tracemalloc.start()
    try:
        held_before = tracemalloc.get_traced_memory()[0]
        report, change = import_recorded(graph_url, path, "Import rows.csv")
        held = tracemalloc.get_traced_memory()[0] - held_before
    finally:
        tracemalloc.stop()

    assert report.written and report.facts_added == ROWS
    after = dump(graph_url)
    assert len(after["triples"]) == ROWS + 1
    # The images of 1,500 facts and 701 entities were held in memory (3 to 4.5 MB here, a
    # 150,000-row import's in the hundreds); now they are in the change's file.
    assert len(change.rows) == 0, f"{len(change.rows):,} rows' images held in memory"
    assert held < 1_000_000, f"{held / 1e6:.1f} MB held after the import"

    kg.adopt(change)
    added = {row["id"] for row in after["triples"]} - {row["id"] for row in before["triples"]}
    assert change and change.touched().facts == added
    kg.revert(change)
    assert dump(graph_url) == before
    kg.reapply(change)
    assert dump(graph_url) == after
    kg.revert(change, log="Undo Import rows.csv")
    assert dump(graph_url) == before
    entities = len(after["entities"]) - len(before["entities"])
    assert kg.edit_log(limit=1)[0]["rows_total"] == ROWS + entities


def test_a_row_written_again_after_the_record_went_to_its_file_undoes_to_where_it_began(
    kg, graph_url, monkeypatch
):
    monkeypatch.setattr(giving_way, "PAUSE_S", 0)
    monkeypatch.setattr(changes, "SPILL_ROWS", 10)
    kept = kg.add_triple("Kai", "works_on", "Orion")
    before = dump(graph_url)
    with kg.recording() as change, kg.batched("Add and end"):
        ids = []
        for part in range(4):
            with kg.batch():
                ids += [kg.add_triple(f"Ann {part}", "wrote", f"Note {n}") for n in range(30)]
        assert change.in_file and len(change.rows) == 0
        with kg.batch():  # rows the file holds, written again
            for tid in ids[:5]:
                kg.end_fact(tid, "2026-01-01")
            kg.end_fact(kept, "2026-02-01")
    after = dump(graph_url)
    assert len(change.rows) == 0

    kg.revert(change)
    assert dump(graph_url) == before
    kg.reapply(change)
    assert dump(graph_url) == after
    log = kg.edit_log(limit=1)[0]
    entities = len(after["entities"]) - len(before["entities"])
    assert log["what"] == "Add and end" and log["rows_total"] == 120 + entities + 1
