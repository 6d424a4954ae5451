"""Opening a MemPalace file that MemPalace is writing: a short wait, then "locked, try again"
(unavailable), never a long freeze, never a refusal, nothing written."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from factlines import KnowledgeGraph, Refused, Unavailable
from factlines.core.store.protocol import WRITE_WAIT
from factlines.core.store.sqlite.schema import MEMPALACE_SCHEMA
from store_helpers import dump


def test_a_first_open_during_mempalaces_write_is_unavailable_and_quick(tmp_path):
    path = tmp_path / "knowledge_graph.sqlite3"
    with sqlite3.connect(path) as conn:  # MemPalace's file, never opened by Factlines
        conn.executescript(MEMPALACE_SCHEMA)
        conn.execute("INSERT INTO entities (id, name) VALUES ('kai', 'Kai')")
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("BEGIN IMMEDIATE")  # MemPalace in the middle of a write
    before = dump(path)

    # MemPalace's write ends after the app's wait, well before MemPalace's own 10 s: an open
    # that waited that long would get through.
    def end_the_write():
        if writer.in_transaction:
            writer.execute("ROLLBACK")

    ends = threading.Timer(WRITE_WAIT + 3.0, end_the_write)
    ends.start()
    try:
        with pytest.raises(Unavailable, match="locked") as exc:
            KnowledgeGraph(path)
        assert not isinstance(exc.value, Refused)
    finally:
        ends.cancel()
        end_the_write()
        writer.close()
    assert dump(path) == before
    with KnowledgeGraph(path) as kg:  # and once the writer is done, it opens
        assert kg.get_entity("kai")["name"] == "Kai"
