"""A big undo or redo is written in short parts, so MemPalace never waits long, and is still
all or nothing as the person sees it: a refusal is found before anything is written, and a
part refused or failing puts back the parts written before it.

The parts are made small here (``ONE_WRITE``, ``PART``) so a handful of facts is a big step; another
writer's write is made just as a given part's write begins (a hook on the connection).
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from factlines import KnowledgeGraph
from factlines.core.errors import ConflictError, WrittenSince
from factlines.core.progress import Cancelled
from factlines.core.store import giving_way, replay
from store_helpers import dump, mempalace_class, raw_sql

FACTS = 7


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(replay, "ONE_WRITE", 2)
    monkeypatch.setattr(replay, "PART", 2)
    monkeypatch.setattr(giving_way, "PAUSE_S", 0)


def _imported(kg):
    """A step adding ``FACTS`` facts (and their entities): 4 parts of 2 facts, then entities."""
    with kg.recording() as change, kg.transaction():
        for n in range(FACTS):
            kg.add_triple(f"Ann {n}", "wrote", f"Note {n}")
    return change


def _other_writer_adds(graph_url, subject: str) -> None:
    """Another writer adds a fact: MemPalace on the file; another client on PostgreSQL."""
    if graph_url.startswith("postgresql://"):
        with KnowledgeGraph(graph_url) as other:
            other.add_triple(subject, "knows", "Ann 0")
        return
    mempalace = mempalace_class()(graph_url)
    try:
        mempalace.add_triple(subject, "knows", "Ann 0")
    finally:
        mempalace.close()


def _writes_of(monkeypatch, kg, at_write: int | None = None, do=None) -> list[int]:
    """Count ``kg``'s write transactions (outermost) from now; run ``do()`` just before the
    ``at_write``-th begins (1 is the first)."""
    db = kg._store._db
    begin = db.transaction
    begun: list[int] = []

    @contextmanager
    def transaction(*args, **kwargs):
        if not db.writing:
            begun.append(len(begun) + 1)
            if begun[-1] == at_write:
                do()
        with begin(*args, **kwargs) as conn:
            yield conn

    monkeypatch.setattr(db, "transaction", transaction)
    return begun


def test_a_big_undo_is_written_in_short_parts(kg, small_parts, monkeypatch):
    change = _imported(kg)
    writes = _writes_of(monkeypatch, kg)

    kg.revert(change)

    assert len(writes) > FACTS // 2  # one write per part, not one for the whole step
    assert kg.stats()["triples"] == 0


def test_another_writer_writes_between_the_parts_of_an_undo_the_person_confirmed(
    kg, graph_url, small_parts, monkeypatch
):
    change = _imported(kg)
    _writes_of(monkeypatch, kg, at_write=2, do=lambda: _other_writer_adds(graph_url, "Cy"))

    kg.revert(change, force=True)

    assert [(f["subject"], f["object"]) for f in kg.timeline()] == [("Cy", "Ann 0")]


def test_another_writer_between_the_parts_refuses_the_undo_and_the_parts_are_put_back(
    kg, graph_url, small_parts, monkeypatch
):
    change = _imported(kg)
    before = dump(graph_url)
    _writes_of(monkeypatch, kg, at_write=2, do=lambda: _other_writer_adds(graph_url, "Cy"))

    with pytest.raises(WrittenSince, match="while this step was being undone"):
        kg.revert(change)

    after = dump(graph_url)
    theirs = [row for row in after["triples"] if row["subject"] == "cy"]
    assert len(theirs) == 1
    assert [row for row in after["triples"] if row not in theirs] == before["triples"]
    assert [row for row in after["entities"] if row["id"] != "cy"] == before["entities"]
    assert kg.stats()["triples"] == FACTS + 1


def test_a_row_changed_between_the_parts_refuses_the_undo_and_the_parts_are_put_back(
    kg, graph_url, small_parts, monkeypatch
):
    change = _imported(kg)
    last = kg.find_open_fact("Ann 6", "wrote", "Note 6")["id"]
    before = dump(graph_url)

    def end_the_last_fact():
        raw_sql(graph_url, "UPDATE triples SET valid_to = '2026-01-01' WHERE id = ?", (last,))
        before["triples"] = [
            {**row, "valid_to": "2026-01-01"} if row["id"] == last else row
            for row in before["triples"]
        ]

    _writes_of(monkeypatch, kg, at_write=2, do=end_the_last_fact)

    with pytest.raises(ConflictError, match="Ann 6 wrote Note 6"):
        kg.revert(change, force=True)

    assert dump(graph_url) == before


def test_a_big_undo_refused_from_the_start_takes_no_write_lock(
    kg, graph_url, small_parts, monkeypatch
):
    change = _imported(kg)
    last = kg.find_open_fact("Ann 6", "wrote", "Note 6")["id"]
    raw_sql(graph_url, "UPDATE triples SET valid_to = '2026-01-01' WHERE id = ?", (last,))
    before = dump(graph_url)
    writes = _writes_of(monkeypatch, kg)

    with pytest.raises(ConflictError, match="changed by another program"):
        kg.revert(change, force=True)

    assert writes == [] and dump(graph_url) == before


def test_a_big_undo_logged_in_the_window_s_way_is_one_entry(kg, small_parts):
    change = _imported(kg)

    kg.revert(change, log="Undo Import notes")

    (entry,) = kg.edit_log()
    assert (entry["what"], entry["rows_total"]) == ("Undo Import notes", 2 * FACTS + FACTS)


def test_putting_back_leaves_a_row_another_writer_changed_before_the_undo(
    kg, graph_url, small_parts, monkeypatch
):
    change = _imported(kg)
    first = kg.find_open_fact("Ann 0", "wrote", "Note 0")["id"]
    last = kg.find_open_fact("Ann 6", "wrote", "Note 6")["id"]
    raw_sql(graph_url, "DELETE FROM triples WHERE id = ?", (first,))  # as the undo wants it
    before = dump(graph_url)

    def end_the_last_fact():
        raw_sql(graph_url, "UPDATE triples SET valid_to = '2026-01-01' WHERE id = ?", (last,))

    _writes_of(monkeypatch, kg, at_write=2, do=end_the_last_fact)

    with pytest.raises(ConflictError):
        kg.revert(change, force=True)

    assert not kg.has_fact(first)  # not brought back: the undo never wrote it
    assert len(dump(graph_url)["triples"]) == len(before["triples"])


def test_a_big_undo_tells_its_progress_and_cancelled_puts_back_what_it_wrote(
    kg, graph_url, small_parts
):
    change = _imported(kg)
    before = dump(graph_url)
    heard: list[tuple[int, int]] = []

    def progress(done, total):
        heard.append((done, total))
        return done < 4  # cancel once two parts (4 rows) are written

    with pytest.raises(Cancelled):
        kg.revert(change, log="Undo notes", progress=progress)

    assert (0, 0) in heard  # while it was checked
    total = len(change.rows)
    assert (4, total) in heard and heard[-1][1] == total
    assert dump(graph_url) == before and kg.edit_log() == []
    kg.revert(change)  # the step can be undone again
    assert kg.stats()["triples"] == 0


def test_a_step_handed_to_another_store_keeps_another_writer_s_write_before_it(
    kg, graph_url, small_parts
):
    change = _imported(kg)
    _other_writer_adds(graph_url, "Cy")
    kg.hand_over(change)
    with KnowledgeGraph(graph_url) as worker:
        worker.adopt(change)  # its view now: the write above is before it

        with pytest.raises(WrittenSince, match="wrote the graph since this step"):
            worker.revert(change)
