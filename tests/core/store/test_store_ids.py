"""Entities are addressed by id; names are resolved only where a person types them
(docs/store-contract.md, names)."""

from __future__ import annotations

import sqlite3

from factlines import KnowledgeGraph


def test_after_a_rename_every_reader_finds_the_same_facts(kg):
    kg.add_triple("Kai Moreno", "works_on", "Orion", valid_from="2025-01-01")
    kg.add_triple("Rosa", "mentors", "Kai Moreno", valid_from="2024-01-01")
    kg.rename_entity("Kai Moreno", "Kai M.")
    ids = {f["id"] for f in kg.intervals("kai_moreno")}
    assert len(ids) == 2
    assert {f["id"] for f in kg.intervals("Kai M.")} == ids
    assert {r["id"] for r in kg.timeline("Kai M.")} == ids
    assert kg.timeline_total("Kai M.") == 2
    assert {r["id"] for r in kg.query_entity("Kai M.", direction="both")} == ids
    assert kg.get_entity("Kai M.")["id"] == "kai_moreno"


def test_ids_that_differ_only_in_case_stay_apart(kg_path):
    """A file written by hand or an older tool: ``Ann`` beside ``ann``."""
    KnowledgeGraph(kg_path).close()
    with sqlite3.connect(kg_path) as conn:
        conn.executemany(
            "INSERT INTO entities (id, name) VALUES (?, ?)",
            [("Ann", "Ann"), ("ann", "ann"), ("tea", "tea"), ("coffee", "coffee")],
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object) VALUES (?, ?, ?, ?)",
            [("t_upper", "Ann", "likes", "tea"), ("t_lower", "ann", "likes", "coffee")],
        )
    with KnowledgeGraph(kg_path) as kg:
        assert [f["id"] for f in kg.intervals("Ann")] == ["t_upper"]
        assert [f["id"] for f in kg.intervals("ann")] == ["t_lower"]
        assert kg.get_entity("Ann")["id"] == "Ann"
        assert kg.resolve_entity("Ann") == "Ann"
        # MemPalace's own lookups keep MemPalace's rule: the name "Ann" means the id "ann".
        assert [r["id"] for r in kg.query_entity("Ann")] == ["t_lower"]


def test_a_typed_display_name_finds_its_entity(kg):
    kg.add_triple("Dr. Chen", "works_at", "Lab")
    kg.rename_entity("Dr. Chen", "Doctor Chen")
    assert kg.resolve_entity("doctor chen") == "dr._chen"
    assert kg.resolve_entity("Nobody") is None
