"""A graph opened again in the same process (each whole-graph question of the window opens a
read-only store of its own) leaves the locks SQLite holds for the connections already open.

POSIX locks belong to the process: closing any descriptor of the file, even one opened only to
read its header, drops every lock the process holds on it. MemPalace, closing its connection,
then found no other reader: it checkpointed and deleted the -wal and -shm under the window's
open connection, whose reads then failed as "database disk image is malformed" and whose
watch could miss the write.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from factlines import KnowledgeGraph, open_graph

MEMPALACE_WRITES_AND_CLOSES = """
import sys
from mempalace.knowledge_graph import KnowledgeGraph
kg = KnowledgeGraph(db_path=sys.argv[1])
kg.add_triple("Cy", "knows", "Dee", valid_from="2024-02-01")
kg.close()
"""


@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "read-write"])
def test_opening_the_graph_again_keeps_the_locks_of_the_open_connection(kg_path, read_only):
    kg = KnowledgeGraph(kg_path)
    try:
        kg.add_triple("Ann", "knows", "Bob", valid_from="2024-01-01")
        kg.external_changes()
        with open_graph(kg_path, read_only=read_only) as again:
            assert again.stats()["triples"] == 1
        subprocess.run(
            [sys.executable, "-c", MEMPALACE_WRITES_AND_CLOSES, str(kg_path)], check=True
        )
        # MemPalace saw our connection open: it left SQLite's side files where they were.
        assert os.path.exists(f"{kg_path}-wal") and os.path.exists(f"{kg_path}-shm")
        assert kg.external_changes()  # and its write is seen
        assert kg.stats()["triples"] == 2
    finally:
        kg.close()
