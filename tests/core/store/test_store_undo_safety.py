"""Undo and redo never harm another writer.

MemPalace keeps writing the file while the app is open. A recorded step put back (undo) or
written again (redo) must never take away what another program added since, never double a
fact, and a failure of the environment (a lock, a full disk) must leave both the file and the
step as they were, so the same step can be tried again.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from factlines import Unavailable
from factlines.core.store import ConflictError
from store_helpers import dump, mempalace_class

TABLES = ("entities", "triples", "fl_meta")


# MemPalace's own code on the SQLite connection (kg._conn()); across PostgreSQL clients
# see test_store_postgres_clients.py.
pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def mempalace(kg):
    other = mempalace_class()(kg.db_path)
    yield other
    other.close()


def _recorded(kg, edit):
    with kg.recording() as change:
        edit(kg)
    assert change
    return change


# ── An entity another writer now uses is kept ─────────────────────────────
# Another program wrote since the step, so the undo deletes a fact only when the person says
# so (``force``; see test_store_undo_relied_on.py for the refusal).


def test_undo_keeps_an_entity_another_program_s_fact_now_uses(kg, mempalace):
    change = _recorded(kg, lambda g: g.add_fact("Ann", "mentors", "Zoe"))
    mempalace.add_triple("Zoe", "works_on", "Nova")

    kg.revert(change, force=True)

    assert kg.find_open_fact("Ann", "mentors", "Zoe") is None  # the user's fact is gone
    assert kg.get_entity("zoe") is not None  # ... but not the entity MemPalace's fact uses
    assert kg.get_entity("ann") is None  # the step's own entity, used by nobody, goes with it
    seen = mempalace.query_entity("Zoe")
    assert [(f["predicate"], f["object"]) for f in seen] == [("works_on", "Nova")]


def test_redo_after_such_an_undo_brings_the_fact_back_and_undo_works_again(kg, mempalace):
    change = _recorded(kg, lambda g: g.add_fact("Ann", "mentors", "Zoe"))
    mempalace.add_triple("Zoe", "works_on", "Nova")
    kg.revert(change, force=True)

    kg.reapply(change)
    assert kg.find_open_fact("Ann", "mentors", "Zoe") is not None
    kg.revert(change)
    assert kg.find_open_fact("Ann", "mentors", "Zoe") is None
    assert [f["object"] for f in mempalace.query_entity("Zoe")] == ["Nova"]


def test_undo_keeps_an_entity_another_program_rewrote(kg, mempalace):
    change = _recorded(kg, lambda g: g.add_fact("Ann", "mentors", "Zoe"))
    mempalace.add_entity("Zoe", "person", {"role": "intern"})

    kg.revert(change, force=True)

    assert kg.find_open_fact("Ann", "mentors", "Zoe") is None
    assert kg.get_entity("zoe")["properties"] == {"role": "intern"}


def test_redo_of_a_merge_keeps_the_source_when_another_program_uses_it_again(kg, mempalace):
    kg.add_triple("Bob", "knows", "Ann")
    kg.add_entity("Robert", "person")
    change = _recorded(kg, lambda g: g.merge_entities("Bob", "Robert"))
    kg.revert(change)
    mempalace.add_triple("Cy", "knows", "Bob")

    kg.reapply(change, force=True)

    assert kg.find_open_fact("Robert", "knows", "Ann") is not None
    assert kg.get_entity("bob") is not None
    assert [f["subject"] for f in mempalace.query_entity("Bob", direction="incoming")] == ["Cy"]


# ── Never a second identical open fact ────────────────────────────────────


def test_redo_refuses_to_double_a_fact_another_program_added_meanwhile(kg, mempalace):
    change = _recorded(kg, lambda g: g.add_fact("Ann", "mentors", "Zoe", valid_from="2026-01-01"))
    kg.revert(change)
    mempalace.add_triple("Ann", "mentors", "Zoe")
    before = dump(kg.db_path, TABLES)

    with pytest.raises(ConflictError, match=r"Ann mentors Zoe.*already") as refused:
        kg.reapply(change)

    assert "t_" not in str(refused.value)  # said in words, not ids
    assert dump(kg.db_path, TABLES) == before
    assert len(mempalace.query_entity("Ann")) == 1


def test_undo_refuses_to_reopen_a_fact_another_program_opened_again(kg, mempalace):
    tid = kg.add_triple("Ann", "mentors", "Zoe", valid_from="2025-01-01")
    change = _recorded(kg, lambda g: g.end_fact(tid, "2025-06-01"))
    mempalace.add_triple("Ann", "mentors", "Zoe", valid_from="2026-01-01")
    before = dump(kg.db_path, TABLES)

    with pytest.raises(ConflictError, match="already"):
        kg.revert(change)

    assert dump(kg.db_path, TABLES) == before


def test_a_fact_changed_by_another_program_still_refuses_the_whole_step(kg, mempalace):
    change = _recorded(kg, lambda g: g.add_fact("Ann", "mentors", "Zoe"))
    mempalace.invalidate("Ann", "mentors", "Zoe", ended="2026-02-01")
    before = dump(kg.db_path, TABLES)

    with pytest.raises(ConflictError, match="another program"):
        kg.revert(change)

    assert dump(kg.db_path, TABLES) == before


# ── A transient failure keeps the step, whole ─────────────────────────────


def _big_step(g):
    for n in range(40):
        g.add_fact(f"Ann {n}", "wrote", f"Note {n}", source_file="x" * 3000)


def test_an_undo_that_meets_a_lock_fails_soon_writes_nothing_and_can_be_retried(kg):
    change = _recorded(kg, _big_step)
    after = dump(kg.db_path, TABLES)
    conn = sqlite3.connect(kg.db_path, timeout=0, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")
    # Released after the store's wait, before MemPalace's 10 s: an undo that waited that long
    # (the window frozen) would get through.
    released = threading.Timer(kg.write_wait + 2.0, conn.rollback)
    released.start()
    try:
        with pytest.raises(Unavailable, match="locked by another program, try again"):
            kg.revert(change)
    finally:
        released.cancel()
        conn.rollback()
        conn.close()
    assert dump(kg.db_path, TABLES) == after

    kg.revert(change)  # the same step, tried again
    assert kg.stats()["triples"] == 0


def test_a_redo_that_meets_a_full_disk_writes_nothing_and_can_be_retried(kg):
    change = _recorded(kg, _big_step)
    expected = dump(kg.db_path, TABLES)
    kg.revert(change)
    conn = kg._conn()
    conn.execute("VACUUM")  # no free pages left to reuse: the redo must grow the file
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    reverted = dump(kg.db_path, TABLES)

    with pytest.raises(Unavailable, match="disk is full") as failed:
        kg.reapply(change)
    assert not isinstance(failed.value, ValueError)
    assert dump(kg.db_path, TABLES) == reverted

    conn.execute("PRAGMA max_page_count = 1073741823")
    kg.reapply(change)
    assert dump(kg.db_path, TABLES) == expected
