"""The app's own edits: names resolve to existing entities (also after a rename), duplicates are
refused, supersede by id, and a write SQLite cannot do becomes a refusal that wrote nothing."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import KnowledgeGraph, KnowledgeGraphError
from factlines.core.columns import Provenance
from factlines.core.errors import Unavailable
from factlines.core.store import DuplicateFact
from store_helpers import dump


@pytest.fixture
def renamed(kg):
    """Kai works on Orion; then both entities got new display names (ids unchanged)."""
    fact = kg.add_triple("Kai Moreno", "works_on", "Orion", valid_from="2025-06-01")
    kg.rename_entity("Kai Moreno", "Kai M.")
    kg.rename_entity("Orion", "Project Orion")
    return kg, fact


def test_supersede_fact_after_a_rename_keeps_to_the_entities(renamed):
    kg, fact = renamed
    new = kg.supersede_fact(fact, "Nova", at="2026-03-15")
    assert kg.get_fact(fact)["valid_to"] == "2026-03-15T00:00:00Z"
    successor = kg.get_fact(new)
    assert (successor["subject"], successor["object"]) == ("kai_moreno", "nova")
    assert successor["valid_from"] == "2026-03-15T00:00:00Z"
    assert {e["id"] for e in dump(kg.db_path)["entities"]} == {"kai_moreno", "orion", "nova"}


def test_supersede_fact_records_the_successors_own_provenance(renamed):
    kg, fact = renamed
    source = Provenance(source_file="notes.md", adapter_name="hand")
    successor = kg.get_fact(kg.supersede_fact(fact, "Nova", at="2026-03-15", provenance=source))
    assert Provenance.of(successor) == source
    assert Provenance.of(kg.get_fact(fact)) == Provenance()


def test_supersede_fact_to_a_renamed_entity_by_its_new_name(renamed):
    kg, fact = renamed
    kg.end_fact(fact, "2025-12-31")
    back = kg.add_fact("Kai M.", "works_on", "Nova", valid_from="2026-01-01")
    successor = kg.get_fact(kg.supersede_fact(back, "project orion", at="2026-06-01"))
    assert successor["object"] == "orion"  # found by display name, case-insensitively


@pytest.mark.parametrize(
    ("new_object", "at", "match"),
    [
        ("Orion", None, "already has"),
        ("Nova", "2020-01-01", "before valid_from"),
        ("Nova", "someday", "expected"),
        ("", None, "empty|nothing left"),
    ],
)
def test_supersede_fact_refusals_write_nothing(renamed, new_object, at, match):
    kg, fact = renamed
    before = dump(kg.db_path)
    with pytest.raises(ValueError, match=match):
        kg.supersede_fact(fact, new_object, at=at)
    assert dump(kg.db_path) == before


def test_an_ended_fact_is_not_superseded(renamed):
    kg, fact = renamed
    kg.end_fact(fact, "2025-07-01")
    before = dump(kg.db_path)
    with pytest.raises(KnowledgeGraphError, match="already ended on 2025-07-01"):
        kg.supersede_fact(fact, "Nova")
    assert dump(kg.db_path) == before


def test_add_fact_resolves_display_names_and_refuses_an_open_duplicate(renamed):
    kg, fact = renamed
    before = dump(kg.db_path)
    with pytest.raises(DuplicateFact) as refused:
        kg.add_fact("Kai M.", "works on", "PROJECT ORION")
    assert refused.value.fact_id == fact
    assert "already an open fact" in str(refused.value)
    assert dump(kg.db_path) == before
    added = kg.get_fact(kg.add_fact("Kai M.", "mentors", "Priya"))
    assert (added["subject"], added["object"], added["object_name"]) == (
        "kai_moreno",
        "priya",
        "Priya",
    )


def test_update_fact_resolves_a_renamed_entity(renamed):
    kg, _ = renamed
    other = kg.add_triple("Ida", "works_on", "Atlas")
    assert (
        kg.update_fact(other, subject="Kai M.", object="Project Orion", valid_to="2026-01-01")[
            "subject"
        ]
        == "kai_moreno"
    )
    assert kg.get_fact(other)["object"] == "orion"


def test_renamed_entities_are_found_and_merged_by_their_new_names(renamed):
    kg, _ = renamed
    kg.add_entity("Orion Project")
    assert kg.get_entity("Project Orion")["id"] == "orion"
    assert kg.merge_entities("Orion Project", "Project Orion") == "orion"
    assert [f["other"] for f in kg.intervals("Kai M.")] == ["orion"]


@pytest.mark.sqlite_only  # another program writes the SQLite file
def test_a_locked_file_is_unavailable_not_a_refusal_and_writes_nothing(kg):
    """docs/store-contract.md, errors: a lock is the environment's "not now", not a refusal."""
    fact = kg.add_triple("a", "p", "b", valid_from="2026-01-01")
    before = dump(kg.db_path)
    blocker = sqlite3.connect(kg.db_path, timeout=0)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        kg.write_wait = 0.05  # the app's edits wait briefly; do not wait even that in a test
        with pytest.raises(Unavailable, match=r"could not be written.*nothing was written") as exc:
            kg.end_fact(fact, "2026-02-01")
        assert not isinstance(exc.value, ValueError)
        with kg.recording() as change, pytest.raises(Unavailable, match="locked"):
            kg.add_fact("c", "p", "d")
        assert not change
    finally:
        blocker.rollback()
        blocker.close()
    assert dump(kg.db_path) == before
    kg.end_fact(fact, "2026-02-01")  # and the store works again afterwards
    assert KnowledgeGraph(kg.db_path).get_fact(fact)["valid_to"] == "2026-02-01"
