"""A write never freezes the window: the app's own edits wait briefly for another program's
write lock, then say "locked by another program, try again"; MemPalace's methods keep
MemPalace's own patience."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from factlines import KnowledgeGraph, Unavailable
from store_helpers import dump


@pytest.fixture
def held(kg_path):
    """Another program's write lock on the file, released by calling the fixture's value."""
    KnowledgeGraph(kg_path).close()  # the file exists before the other program opens it
    conn = sqlite3.connect(kg_path, timeout=0, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")

    def release():
        if conn.in_transaction:
            conn.rollback()

    yield release
    release()
    conn.close()


def _later(seconds, call):
    """``call`` on another thread after ``seconds``: a lock released then shows, without a
    clock in the assertion, whether a write gave up before (it fails) or waited (it succeeds)."""
    timer = threading.Timer(seconds, call)
    timer.start()
    return timer


def test_an_app_edit_during_another_program_s_write_gives_up_before_mempalace_would(kg_path, held):
    kg = KnowledgeGraph(kg_path)
    before = dump(kg_path)
    # Released well after the app's wait, well before MemPalace's 10 s.
    released = _later(kg.write_wait + 2.0, held)
    with pytest.raises(Unavailable, match="locked by another program, try again"):
        kg.add_fact("Ann", "mentors", "Zoe")
    assert dump(kg_path) == before
    released.cancel()
    held()
    kg.add_fact("Ann", "mentors", "Zoe")  # and it works once the other program is done
    kg.close()


def test_the_wait_is_set_per_store(kg_path):
    KnowledgeGraph(kg_path).close()
    store = KnowledgeGraph(kg_path, write_wait=0.1)
    assert store.write_wait == 0.1
    for wait, gets_through in ((0.1, False), (10.0, True)):
        store.write_wait = wait
        other = sqlite3.connect(kg_path, timeout=0, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        released = _later(1.0, other.rollback)  # the other program's write takes a second
        try:
            if gets_through:
                store.set_single_valued("works_on")
                assert "works_on" in store.single_valued_predicates()
            else:
                with pytest.raises(Unavailable):
                    store.set_single_valued("works_on")
                assert store.single_valued_predicates() == []
        finally:
            released.join()
            other.close()
    store.close()


def test_mempalace_s_methods_wait_as_long_as_mempalace_does(kg_path, held):
    kg = KnowledgeGraph(kg_path, write_wait=0.1)
    _later(1.0, held)
    # MemPalace would wait up to 10 s: so do we, past the app's own 0.1 s.
    tid = kg.add_triple("Ann", "mentors", "Zoe")
    assert kg.get_fact(tid)
    kg.close()


def test_after_a_patient_mempalace_write_the_app_s_edits_are_quick_again(kg_path, held):
    held()
    kg = KnowledgeGraph(kg_path, write_wait=0.1)
    kg.add_triple("Ann", "mentors", "Zoe")
    other = sqlite3.connect(kg_path, timeout=0, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    released = _later(1.0, other.rollback)
    try:
        with pytest.raises(Unavailable):
            kg.rename_entity("Ann", "Anna")
    finally:
        released.join()
        other.close()
    kg.close()
