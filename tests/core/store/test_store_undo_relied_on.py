"""Undo and redo never take away a fact another writer may rely on.

MemPalace's ``add_triple`` of a fact that is already open returns that row's id and writes
nothing. So after a step of Factlines (a predicate renamed with its history kept, an import,
an entity merge), MemPalace may assert one of the step's facts and leave no trace in the
graph. An undo that would then delete or end such a fact is refused, naming why, when the
graph was written by anyone else since the step, or when MemPalace's write log shows that
add; the person may still undo on purpose (``force``). Between two PostgreSQL clients every
write, an add that found its fact open included, is counted.
"""

from __future__ import annotations

import pytest

from factlines import KnowledgeGraph
from factlines.core.errors import WrittenSince
from factlines.core.transfer import import_file
from store_helpers import dump, mempalace_class, mempalace_tools

CSV = "subject,predicate,object,valid_from\nKai,works_on,Orion,2025-01-01\nAnn,knows,Kai,\n"


def _rename(kg, folder):
    kg.rename_predicate("works_on", "member_of", at="2026-01-01")
    return ("Kai", "member_of", "Orion")


def _import(kg, folder):
    path = folder / "facts.csv"
    path.write_text(CSV, encoding="utf-8")
    import_file(kg, path)
    return ("Kai", "works_on", "Orion")


def _merge(kg, folder):
    kg.merge_entities("Kay", "Kai")
    return ("Kai", "works_on", "Orion")


def _graph_before(kg):
    kg.add_triple("Kay", "works_on", "Orion", valid_from="2025-01-01")
    kg.add_entity("Kai")


STEPS = {"rename": _rename, "import": _import, "merge": _merge}


def _step(kg, name, folder):
    """The graph before one of the steps, then the step, recorded: (change, the fact it
    leaves open that MemPalace will assert)."""
    if name == "rename":
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    elif name == "merge":
        _graph_before(kg)
    with kg.recording() as change:
        fact = STEPS[name](kg, folder)
    return change, fact


@pytest.fixture
def write_log(tmp_path, monkeypatch):
    """Where MemPalace's MCP tools log their writes, and Factlines reads them."""
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config" / "wal" / "write_log.jsonl"


@pytest.mark.sqlite_only
@pytest.mark.parametrize("name", list(STEPS))
def test_an_undo_refuses_to_delete_a_fact_mempalace_asserted_since(
    kg, name, write_log, monkeypatch, tmp_path
):
    change, (subject, predicate, obj) = _step(kg, name, tmp_path)
    tools = mempalace_tools(kg.db_path, write_log, monkeypatch)
    asserted = tools["tool_kg_add"](subject, predicate, obj)["triple_id"]
    tools["close"]()
    assert kg.has_fact(asserted)  # MemPalace found the step's fact open: nothing written
    before = dump(kg.db_path)

    with pytest.raises(WrittenSince, match=f"MemPalace asserted “{subject} {predicate} {obj}”"):
        kg.revert(change)

    assert dump(kg.db_path) == before
    assert kg.get_fact(asserted)["valid_to"] is None


@pytest.mark.sqlite_only
@pytest.mark.parametrize("name", list(STEPS))
def test_an_undo_refuses_when_mempalace_wrote_the_graph_since(kg, name, tmp_path):
    change, (subject, predicate, obj) = _step(kg, name, tmp_path)
    mempalace = mempalace_class()(kg.db_path)
    asserted = mempalace.add_triple(subject, predicate, obj)  # found open: writes nothing
    mempalace.add_triple("Zoe", "knows", "Ann")  # ... but this one is seen in the file
    mempalace.close()
    before = dump(kg.db_path)

    with pytest.raises(WrittenSince, match="another program wrote the graph since this step"):
        kg.revert(change)

    assert dump(kg.db_path) == before
    assert kg.get_fact(asserted)["valid_to"] is None


@pytest.mark.sqlite_only
def test_the_person_may_undo_anyway(kg, tmp_path):
    change, _ = _step(kg, "import", tmp_path)
    mempalace = mempalace_class()(kg.db_path)
    mempalace.add_triple("Zoe", "knows", "Ann")
    mempalace.close()

    kg.revert(change, force=True)

    assert kg.find_open_fact("Kai", "works_on", "Orion") is None
    assert kg.find_open_fact("Zoe", "knows", "Ann") is not None


@pytest.mark.sqlite_only
def test_another_program_writing_between_a_step_s_own_writes_counts_too(kg):
    with kg.recording() as change:
        kg.add_triple("Kai", "works_on", "Orion")
        mempalace = mempalace_class()(kg.db_path)
        mempalace.add_triple("Kai", "works_on", "Orion")  # found open
        mempalace.add_triple("Zoe", "knows", "Ann")
        mempalace.close()
        kg.add_triple("Ann", "knows", "Kai")

    with pytest.raises(WrittenSince):
        kg.revert(change)
    assert kg.find_open_fact("Kai", "works_on", "Orion") is not None


def test_an_undo_nobody_else_wrote_since_goes_ahead_and_so_does_its_redo(kg, tmp_path):
    change, _ = _step(kg, "merge", tmp_path)

    kg.revert(change)
    assert kg.find_open_fact("Kay", "works_on", "Orion") is not None
    kg.reapply(change)
    assert kg.find_open_fact("Kai", "works_on", "Orion") is not None


@pytest.mark.sqlite_only
def test_a_redo_refuses_to_end_a_fact_mempalace_asserted_since_the_undo(kg, write_log, monkeypatch):
    tid = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    with kg.recording() as change:
        kg.end_fact(tid, "2026-01-01")
    kg.revert(change)
    tools = mempalace_tools(kg.db_path, write_log, monkeypatch)
    assert tools["tool_kg_add"]("Kai", "works_on", "Orion")["triple_id"] == tid
    tools["close"]()

    with pytest.raises(WrittenSince, match="redoing it would delete or end"):
        kg.reapply(change)
    assert kg.get_fact(tid)["valid_to"] is None


# ── Two PostgreSQL clients ────────────────────────────────────────────────


@pytest.fixture
def colleague(postgres_url):
    other = KnowledgeGraph(postgres_url)
    yield other
    other.close()


@pytest.mark.parametrize("name", list(STEPS))
def test_postgres_an_undo_refuses_to_delete_a_fact_another_client_asserted(
    postgres_url, colleague, name, tmp_path
):
    with KnowledgeGraph(postgres_url) as kg:
        change, (subject, predicate, obj) = _step(kg, name, tmp_path)
        asserted = colleague.add_triple(subject, predicate, obj)  # found open
        before = dump(postgres_url)

        with pytest.raises(WrittenSince, match="another client wrote the graph since"):
            kg.revert(change)

        assert dump(postgres_url) == before
        assert colleague.get_fact(asserted)["valid_to"] is None
