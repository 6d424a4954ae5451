"""The memory behind a fact, read from palaces MemPalace 3.11 built (chroma and sqlite_exact),
as MemPalace itself reads it back, without changing a byte of the palace."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from palace_helpers import palace_files

from factlines import KnowledgeGraph

pytestmark = pytest.mark.interop


def test_a_mined_drawer_is_its_text_and_metadata_as_mempalace_reads_them(sourced):
    memory = sourced["kg"].source_memory(sourced["ids"]["mined"])
    stored = sourced["stored"][sourced["mined"][0]]
    assert memory["status"] == "found" and memory["message"] is None
    assert memory["drawer_id"] == memory["group_id"] == sourced["mined"][0]
    assert memory["text"] == stored["text"] and "Kai joined Orion" in memory["text"]
    assert memory["metadata"] == stored["metadata"]
    assert memory["metadata"]["wing"] == "work" and memory["metadata"]["room"] == "team"
    assert memory["metadata"]["source_file"] == sourced["source_file"]
    assert memory["backend"] == sourced["backend"] and memory["palace"] == str(sourced["palace"])


def test_the_closet_a_fact_names_is_read_too(sourced):
    closet = sourced["kg"].source_memory(sourced["ids"]["mined"])["closet"]
    assert closet["id"] == sourced["closets"][0]
    assert sourced["mined"][0] in closet["text"]  # a closet points at its drawers


def test_a_drawer_filed_through_the_mcp_tool(sourced):
    memory = sourced["kg"].source_memory(sourced["ids"]["mcp"])
    stored = sourced["stored"][sourced["mcp"]]
    assert memory["text"] == "Ada chose Postgres for Nova." == stored["text"]
    assert memory["metadata"] == stored["metadata"]
    assert memory["metadata"]["room"] == "decisions"


def test_a_split_drawer_is_its_chunks_joined_in_order(sourced):
    split = sourced["split"]
    memory = sourced["kg"].source_memory(sourced["ids"]["split"])
    assert memory["status"] == "found"
    assert memory["text"] == split["text"]
    assert memory["chunk_ids"] == split["chunks"] and len(split["chunks"]) > 1
    assert memory["drawer_id"] == memory["group_id"] == split["group"]
    assert memory["metadata"]["parent_drawer_id"] == split["group"]


def test_a_fact_naming_one_chunk_shows_that_chunk_of_its_group(sourced):
    split = sourced["split"]
    memory = sourced["kg"].source_memory(sourced["ids"]["chunk"])
    assert memory["text"] == sourced["stored"][split["chunks"][2]]["text"]
    assert memory["drawer_id"] == split["chunks"][2] and memory["group_id"] == split["group"]


@pytest.mark.parametrize("fact", ["dangling", "free_text"])
def test_an_id_with_no_drawer_is_missing_in_words(sourced, fact):
    memory = sourced["kg"].source_memory(sourced["ids"][fact])
    assert memory["status"] == "missing" and memory["text"] is None
    assert memory["drawer_id"] in memory["message"] and str(sourced["palace"]) in memory["message"]


def test_a_fact_with_no_source_has_no_memory(sourced):
    kg = sourced["kg"]
    assert kg.source_memory(sourced["ids"]["none"]) is None
    assert kg.facts_from_source(sourced["ids"]["none"]) == {"memory": [], "file": []}


def test_a_fact_naming_only_its_file_says_so(sourced):
    memory = sourced["kg"].source_memory(sourced["ids"]["file_only"])
    assert memory["status"] == "no drawer" and memory["text"] is None


def test_the_other_facts_from_the_same_memory_and_the_same_file(sourced):
    kg, ids = sourced["kg"], sourced["ids"]
    found = kg.facts_from_source(ids["mined"])
    assert [f["id"] for f in found["memory"]] == [ids["same_drawer"]]
    assert {f["id"] for f in found["file"]} == {ids["other_drawer"], ids["file_only"]}
    assert found["file"][0]["subject_name"] and "source_drawer_id" in found["file"][0]


def test_a_split_drawer_and_its_chunks_are_one_memory(sourced):
    kg, ids = sourced["kg"], sourced["ids"]
    assert [f["id"] for f in kg.facts_from_source(ids["split"])["memory"]] == [ids["chunk"]]
    assert [f["id"] for f in kg.facts_from_source(ids["chunk"])["memory"]] == [ids["split"]]


def test_reading_changes_no_byte_and_leaves_no_file_in_the_palace(sourced):
    before = palace_files(sourced["palace"])
    kg, ids = sourced["kg"], sourced["ids"]
    for fact in ids.values():
        kg.source_memory(fact)
        kg.facts_from_source(fact)
    after = palace_files(sourced["palace"])
    assert after.keys() == before.keys()
    assert after == before


def test_no_chromadb_nor_mempalace_is_imported(sourced):
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from factlines import KnowledgeGraph\n"
        "kg = KnowledgeGraph(sys.argv[2], read_only=True)\n"
        "assert kg.source_memory(sys.argv[3])['status'] == 'found'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('chromadb', 'mempalace')))"
    )
    app = Path(__file__).resolve().parents[2] / "app"
    args = [str(app), str(sourced["kg"].db_path), sourced["ids"]["mined"]]
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


# ── Where the palace is ───────────────────────────────────────────────────


def test_a_palace_local_graph_finds_its_own_folder(mempalace_env, tmp_path):
    palace = shutil.copytree(mempalace_env["palace"], tmp_path / "elsewhere")
    with KnowledgeGraph(palace / "knowledge_graph.sqlite3") as kg:
        fact = kg.add_triple("Ada", "chose", "Postgres", source_drawer_id=mempalace_env["mcp"])
        memory = kg.source_memory(fact)
    assert memory["palace"] == str(palace) and memory["status"] == "found"


def test_mempalace_configuration_names_the_palace(sourced, tmp_path, monkeypatch):
    moved = shutil.copytree(sourced["palace"], tmp_path / "moved")
    # A config folder of this test's: one written into the session's palace home named
    # "moved" to every later test on the worker, long after this test's folder was gone.
    config = tmp_path / "cfg"
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(config))
    config.mkdir()
    (config / "config.json").write_text(json.dumps({"palace_path": str(moved)}))
    with KnowledgeGraph(sourced["kg"].db_path) as kg:
        assert kg.source_memory(sourced["ids"]["mcp"])["palace"] == str(moved)
        monkeypatch.setenv("MEMPALACE_PALACE_PATH", str(sourced["palace"]))
    with KnowledgeGraph(sourced["kg"].db_path) as kg:
        assert kg.source_memory(sourced["ids"]["mcp"])["palace"] == str(sourced["palace"])
        assert kg.source_memory(sourced["ids"]["mcp"], palace=moved)["palace"] == str(moved)


# ── While MemPalace writes ────────────────────────────────────────────────


# chroma's alone: sqlite_exact writes a drawer in one transaction, it has no queue.
@pytest.mark.parametrize("built", ["chroma"], indirect=True)
def test_a_drawer_still_in_chromas_queue_is_being_written(sourced, tmp_path):
    palace = shutil.copytree(sourced["palace"], tmp_path / "copy")
    with sqlite3.connect(palace / "chroma.sqlite3") as conn:
        topic = conn.execute("SELECT topic FROM embeddings_queue LIMIT 1").fetchone()
        (seq,) = conn.execute("SELECT MAX(seq_id) FROM embeddings_queue").fetchone()
        conn.execute(
            "INSERT INTO embeddings_queue (seq_id, operation, topic, id) VALUES (?, 0, ?, ?)",
            (seq + 1000, topic[0], "drawer_being_filed"),
        )
    conn.close()
    kg = sourced["kg"]
    fact = kg.add_triple("Kai", "filed", "a note", source_drawer_id="drawer_being_filed")
    memory = kg.source_memory(fact, palace=palace)
    assert memory["status"] == "being written" and "writing" in memory["message"]


def test_a_palace_a_writer_holds_is_being_written_then_read(sourced, tmp_path):
    palace = shutil.copytree(sourced["palace"], tmp_path / "copy")
    database = next(palace.glob("*.sqlite3"))
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        during = palace_files(palace)
        memory = sourced["kg"].source_memory(sourced["ids"]["mcp"], palace=palace)
        # A rollback journal (chroma) keeps readers out of a write; WAL (sqlite_exact) does not.
        wal = sourced["backend"] == "sqlite_exact"
        assert memory["status"] == ("found" if wal else "being written")
        assert palace_files(palace) == during
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    memory = sourced["kg"].source_memory(sourced["ids"]["mcp"], palace=palace)
    assert memory["status"] == "found"


@pytest.mark.slow
def test_reading_while_mempalace_files_drawers(sourced, tmp_path):
    """A MemPalace process files a drawer at a time for 4 s; meanwhile every read answers (found,
    or being written), and none of MemPalace's writes fails."""
    palace = shutil.copytree(sourced["palace"], tmp_path / "live")
    env = {**os.environ, "MEMPALACE_PALACE_PATH": str(palace)}
    out = tmp_path / "filed.json"
    builder = Path(__file__).with_name("build_palace.py")
    command = [sys.executable, str(builder), sourced["backend"], str(palace), "--keep-filing"]
    said = tmp_path / "writer.err"
    # Its stderr into a file: a pipe nobody reads while we poll would fill and stop MemPalace.
    with said.open("wb") as errors:
        writer = subprocess.Popen([*command, "4", str(out)], env=env, stderr=errors)
        kg, statuses = sourced["kg"], []
        try:
            while writer.poll() is None:
                statuses.append(kg.source_memory(sourced["ids"]["mcp"], palace=palace)["status"])
                statuses.append(kg.source_memory(sourced["ids"]["split"], palace=palace)["status"])
        finally:
            writer.wait(timeout=60)
    assert writer.returncode == 0, said.read_text(errors="replace")[-2000:]
    filed = json.loads(out.read_text())
    assert filed["filed"] and filed["failed"] == []
    assert len(statuses) > 20 and set(statuses) <= {"found", "being written"}
    assert statuses.count("found") > len(statuses) / 2
    last = filed["filed"][-1]
    fact = kg.add_triple("Kai", "noted", "a live note", source_drawer_id=last)
    assert kg.source_memory(fact, palace=palace)["text"].startswith("Live note")


def test_a_fact_naming_only_a_closet_gets_the_closet(sourced):
    kg = sourced["kg"]
    fact = kg.add_triple("Ada", "reviews", "Orion", source_closet=sourced["closets"][0])
    memory = kg.source_memory(fact)
    assert memory["status"] == "no drawer" and memory["text"] is None
    assert sourced["mined"][0] in memory["closet"]["text"]
