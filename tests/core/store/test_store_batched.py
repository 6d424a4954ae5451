"""A write made of several short transactions (``batched``, what import and copy use so that
MemPalace writes in between): all or nothing, as far as another client's writes allow, on both
engines; and a refused import into a new graph removes it only while it holds nothing else."""

from __future__ import annotations

import tracemalloc

import pytest

from factlines import KnowledgeGraph
from factlines.cli_transfer import main as cli
from factlines.core import transfer


def _facts(kg) -> set[tuple]:
    return {
        (f["subject"], f["predicate"], f["object"], f["valid_to"])
        for f in (kg.get_fact(row["id"]) for row in kg.dump_rows("triples", limit=100))
    }


def _entities(kg) -> set[str]:
    return {row["id"] for row in kg.dump_rows("entities", limit=100)}


# Logged, its record is the edit log's rows; unlogged (an import's), a file of its own.
@pytest.mark.parametrize("words", ["Add three facts", None])
def test_a_failed_batched_write_takes_back_only_what_is_still_as_it_wrote(kg, graph_url, words):
    other = KnowledgeGraph(graph_url)  # another client, writing between our transactions
    try:
        with pytest.raises(RuntimeError, match="fails late"), kg.batched(words):
            with kg.transaction():
                kg.add_triple("Ann", "knows", "Bo")
                kg.add_triple("Eve", "knows", "Fay")
            other.add_triple("Zed", "knows", "Kai")
            other.invalidate("Ann", "knows", "Bo", ended="2025-01-01")
            with kg.transaction():
                kg.add_triple("Cy", "knows", "Di")
            with kg.transaction():  # a row written again: taken back to where it began
                kg.invalidate("Eve", "knows", "Fay", ended="2025-02-01")
            raise RuntimeError("fails late")
    finally:
        other.close()
    assert _facts(kg) == {("zed", "knows", "kai", None), ("ann", "knows", "bo", "2025-01-01")}
    assert _entities(kg) == {"zed", "kai", "ann", "bo"}  # ann and bo: the kept fact's
    assert kg.edit_log() == []


def test_a_batched_write_is_one_undo_step_and_one_logged_edit(kg):
    with kg.recording() as change, kg.batched("Add two facts"):
        with kg.transaction():
            kg.add_triple("Ann", "knows", "Bo")
        with kg.transaction():
            kg.add_triple("Cy", "knows", "Di")
    (entry,) = kg.edit_log()
    assert entry["what"] == "Add two facts" and entry["rows_total"] == 6
    assert {row["row"]["subject"] for row in entry["after"] if row["table"] == "triples"} == {
        "ann",
        "cy",
    }
    kg.revert(change)
    assert _facts(kg) == set() and _entities(kg) == set()


def test_a_batched_write_that_writes_nothing_logs_nothing(kg):
    with kg.batched("Import nothing"):
        pass
    assert kg.edit_log() == []


def test_a_refused_import_into_a_new_graph_keeps_another_client_s_fact(
    graph_url, tmp_path, monkeypatch
):
    """``factlines import NEW rows.csv`` with a bad last row creates NEW; another client
    writes into it meanwhile; the refused import leaves NEW and that client's fact."""
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "subject,predicate,object,valid_from,valid_to\nAnn,knows,Bo,2025-05-01,2025-04-01\n",
        encoding="utf-8",
    )
    real = transfer.import_file

    def another_client_writes_first(kg, path, **options):
        with KnowledgeGraph(graph_url) as other:
            other.add_triple("Zed", "knows", "Kai")
        return real(kg, path, **options)

    monkeypatch.setattr(transfer, "import_file", another_client_writes_first)
    assert cli(["import", graph_url, str(rows)]) == 1
    with KnowledgeGraph(graph_url) as kg:
        assert _facts(kg) == {("zed", "knows", "kai", None)}


def test_a_step_of_several_writes_that_writes_a_row_twice_is_undone(kg):
    with kg.recording() as change:
        with kg.transaction():
            kg.add_triple("Eve", "knows", "Fay")
        with kg.transaction():
            kg.invalidate("Eve", "knows", "Fay", ended="2025-02-01")
    assert _facts(kg) == {("eve", "knows", "fay", "2025-02-01")}
    kg.revert(change)
    assert _facts(kg) == set() and _entities(kg) == set()
    kg.reapply(change)
    assert _facts(kg) == {("eve", "knows", "fay", "2025-02-01")}


def test_a_long_write_keeps_no_row_of_its_record_in_memory(kg):
    rows = [(f"e{n:06d}", f"Entity {n}") for n in range(8_000)]
    parts = [rows[start : start + 500] for start in range(0, len(rows), 500)]
    held = []  # the memory Python holds after each part is committed

    def write(part: list) -> None:
        kg.insert_rows("entities", part, ("id", "name"))

    tracemalloc.start()
    try:
        with kg.batched():  # its record only ever taken back: the rows are in a file
            kg.write_in_parts(
                parts, write, lambda _part: held.append(tracemalloc.get_traced_memory()[0])
            )
    finally:
        tracemalloc.stop()
    assert kg.stats()["entities"] == 8_000
    # Before, each row's id and a print of it: 1.7 MB on SQLite.
    assert held[-1] - held[0] < 1_000_000, f"{(held[-1] - held[0]) / 1e6:.1f} MB"
