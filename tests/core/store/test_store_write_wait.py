"""A write never freezes the window: the app's own edits wait briefly for another program's
write lock, then say "locked by another program, try again"; MemPalace's methods keep
MemPalace's own patience."""

from __future__ import annotations

import sqlite3
import threading
import time

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


def test_an_app_edit_during_another_program_s_write_fails_within_two_seconds(kg_path, held):
    kg = KnowledgeGraph(kg_path)
    before = dump(kg_path)
    started = time.monotonic()
    with pytest.raises(Unavailable, match="locked by another program, try again"):
        kg.add_fact("Ann", "mentors", "Zoe")
    assert time.monotonic() - started < 2.0
    assert dump(kg_path) == before
    held()
    kg.add_fact("Ann", "mentors", "Zoe")  # and it works once the other program is done
    kg.close()


def test_the_wait_is_set_per_store(kg_path, held):
    quick = KnowledgeGraph(kg_path, write_wait=0.1)
    assert quick.write_wait == 0.1
    started = time.monotonic()
    with pytest.raises(Unavailable):
        quick.set_single_valued("works_on")
    assert time.monotonic() - started < 0.6
    quick.write_wait = 0.3
    started = time.monotonic()
    with pytest.raises(Unavailable):
        quick.set_single_valued("works_on")
    assert 0.25 < time.monotonic() - started < 1.0
    quick.close()


def test_mempalace_s_methods_wait_as_long_as_mempalace_does(kg_path, held):
    kg = KnowledgeGraph(kg_path, write_wait=0.1)
    threading.Timer(1.0, held).start()
    started = time.monotonic()
    tid = kg.add_triple("Ann", "mentors", "Zoe")  # MemPalace would wait up to 10 s: so do we
    assert time.monotonic() - started > 0.8
    assert kg.get_fact(tid)
    kg.close()


def test_after_a_patient_mempalace_write_the_app_s_edits_are_quick_again(kg_path, held):
    held()
    kg = KnowledgeGraph(kg_path, write_wait=0.1)
    kg.add_triple("Ann", "mentors", "Zoe")
    other = sqlite3.connect(kg_path, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(Unavailable):
            kg.rename_entity("Ann", "Anna")
        assert time.monotonic() - started < 0.6
    finally:
        other.rollback()
        other.close()
    kg.close()
