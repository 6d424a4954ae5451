"""Writes from the window never freeze it: while another program holds the file's
write lock, an edit, an undo and a redo each wait briefly (the store's 1.5 s), then say
"locked by another program, try again" in the status bar; nothing is written, an undo or
redo step is kept, and the same command works once the lock is gone."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from factlines.core.store.protocol import WRITE_WAIT
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, find_fact, messages_of

LOCKED = "locked by another program, try again"


@pytest.fixture
def lock(demo):
    """Another program's write transaction on the demo file: ``lock.take()`` / ``release()``."""
    conn = sqlite3.connect(demo.db_path, timeout=0, check_same_thread=False)

    class Lock:
        def take(self):
            conn.execute("BEGIN IMMEDIATE")

        def release(self):
            if conn.in_transaction:
                conn.rollback()

    held = Lock()
    yield held
    held.release()
    conn.close()


def _while_locked(lock, call):
    """``call`` with the lock held until well after the store's wait and well before
    MemPalace's 10 s: a call that waits too long gets through, and the test sees it."""
    released = threading.Timer(WRITE_WAIT + 2.0, lock.release)
    released.start()
    try:
        return call()
    finally:
        released.cancel()


def test_edits_undo_and_redo_during_another_program_s_write(window, demo, lock):
    assert demo.write_wait == WRITE_WAIT == 1.5
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    assert window.end_fact(nova["id"], "2026-06-30")  # one step to undo
    stack = window.undo_stack
    said = messages_of(window)
    ended = dump(demo.db_path)

    lock.take()
    added = _while_locked(lock, lambda: window.fact_actions.add_fact("Kai Moreno", "knows", "Zoe"))
    assert added is None
    assert LOCKED in said[-1] and said[-1].startswith("Add Kai Moreno knows Zoe not done: ")
    assert stack.count() == 1 and dump(demo.db_path) == ended

    _while_locked(lock, window.action_undo.trigger)
    assert said[-1].startswith("Cannot undo “End ") and LOCKED in said[-1]
    assert said[-1].endswith("nothing was written and the step is kept: try again")
    assert (stack.count(), stack.index()) == (1, 1) and window.action_undo.isEnabled()
    assert dump(demo.db_path) == ended

    lock.release()
    window.action_undo.trigger()  # the same step, tried again: done
    assert (stack.count(), stack.index()) == (1, 0)
    assert demo.get_fact(nova["id"])["valid_to"] is None

    lock.take()
    _while_locked(lock, window.action_redo.trigger)
    assert said[-1].startswith("Cannot redo “End ") and LOCKED in said[-1]
    assert (stack.count(), stack.index()) == (1, 0) and window.action_redo.isEnabled()
    lock.release()
    window.action_redo.trigger()
    assert dump(demo.db_path) == ended


def test_a_form_keeps_what_was_typed_when_the_file_is_locked(window, demo, lock, answer_dialogs):
    window.select_entity("Kai Moreno")
    reasons = []

    def fill(dialog):
        dialog.predicate.setCurrentText("knows")
        dialog.object.setText("Zoe")
        reasons.append(dialog.apply())  # OK pressed while MemPalace writes
        return False  # then Cancel

    lock.take()
    answer_dialogs.append(fill)
    assert window.fact_actions.add_fact_dialog() is None
    assert reasons and LOCKED in reasons[0]
    assert window.undo_stack.count() == 0
