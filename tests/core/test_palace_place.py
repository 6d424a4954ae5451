"""Which palace and which backend, as MemPalace 3.11's resolve_backend_name chooses them; and
what a memory says when its palace cannot be read from here."""

from __future__ import annotations

import json
import sqlite3

import pytest

from factlines import KnowledgeGraph
from factlines.core.palace import Memories, find_palace


@pytest.fixture
def home(tmp_path):
    config = tmp_path / "home" / "cfg"
    config.mkdir(parents=True)
    return {"HOME": str(tmp_path / "home"), "MEMPALACE_CONFIG_DIR": str(config)}


def sqlite_file(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()


def test_the_files_present_choose_the_backend(tmp_path, home):
    sqlite_file(tmp_path / "p" / "sqlite_exact.sqlite3")
    assert find_palace(None, tmp_path / "p", env=home).backend == "sqlite_exact"
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "chroma.sqlite3").write_bytes(b"")  # not a database: not chroma's
    assert find_palace(None, tmp_path / "q", env=home).backend == "chroma"  # the default


def test_the_explicit_flag_then_the_config_then_the_environment(tmp_path, home):
    palace = tmp_path / "p"
    sqlite_file(palace / "sqlite_exact.sqlite3")
    config = {"palace_path": str(palace), "backend": "Qdrant "}
    (tmp_path / "home" / "cfg" / "config.json").write_text(json.dumps(config))
    env = {**home, "MEMPALACE_BACKEND": "pgvector"}
    assert find_palace(None, palace, env=env).backend == "qdrant"
    assert (
        find_palace(None, palace, env={**env, "MEMPALACE_BACKEND_EXPLICIT": "milvus"}).backend
        == "milvus"
    )
    # The config's backend is for the config's palace only.
    assert find_palace(None, tmp_path / "other", env=env).backend == "pgvector"


def test_a_palace_local_graph_is_in_its_palace_else_the_configured_one(tmp_path, home):
    sqlite_file(tmp_path / "local" / "sqlite_exact.sqlite3")
    graph = tmp_path / "local" / "knowledge_graph.sqlite3"
    assert find_palace(graph, env=home).path == tmp_path / "local"
    assert find_palace(tmp_path / "knowledge_graph.sqlite3", env=home) is None  # none made
    (tmp_path / "home" / "cfg" / "palace").mkdir()
    assert find_palace(tmp_path / "g.sqlite3", env=home).path == tmp_path / "home/cfg/palace"


def test_a_palace_on_a_server_says_so(tmp_path, home):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "qdrant_backend.json").write_text("{}")
    memory = Memories(find_palace(None, tmp_path / "p", env=home)).memory("drawer_1")
    assert memory["status"] == "on a server" and memory["text"] is None
    assert "server (qdrant)" in memory["message"]


def test_a_backend_factlines_cannot_read_says_so(tmp_path, home):
    (tmp_path / "p").mkdir()
    palace = find_palace(None, tmp_path / "p", env={**home, "MEMPALACE_BACKEND": "lancedb"})
    memory = Memories(palace).memory("drawer_1")
    assert memory["status"] == "unknown backend" and "'lancedb'" in memory["message"]


def test_no_palace_at_all(tmp_path, monkeypatch, home):
    for name, value in home.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("MEMPALACE_PALACE_PATH", raising=False)
    with KnowledgeGraph(tmp_path / "kg.sqlite3") as kg:
        fact = kg.add_triple("Kai", "works_on", "Orion", source_drawer_id="drawer_1")
        memory = kg.source_memory(fact)
        assert memory["status"] == "no palace" and memory["palace"] is None
        assert kg.facts_from_source(fact) == {"memory": [], "file": []}


def test_a_file_that_is_not_a_palace_is_unreadable_saying_why(tmp_path, home):
    sqlite_file(tmp_path / "p" / "chroma.sqlite3")
    memory = Memories(find_palace(None, tmp_path / "p", env=home)).memory("drawer_1")
    assert memory["status"] == "unreadable" and memory["text"] is None
    assert "cannot be read: no such table" in memory["message"]


def test_a_palace_folder_with_nothing_filed_yet(tmp_path, home):
    (tmp_path / "p").mkdir()
    memory = Memories(find_palace(None, tmp_path / "p", env=home)).memory("drawer_1")
    assert memory["status"] == "no palace" and memory["palace"] == str(tmp_path / "p")
    assert "chroma.sqlite3 is missing" in memory["message"]
    assert list((tmp_path / "p").iterdir()) == []
