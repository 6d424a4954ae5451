"""Finding facts by text: predicate, entity names and provenance, with as_of applied."""

from __future__ import annotations

import pytest

from factlines.core.errors import Refused


@pytest.fixture
def graph(kg):
    kg.add_triple("Kai", "works_at", "Acme", valid_from="2020-01-01", valid_to="2022-12-31")
    kg.add_triple(
        "Kai", "works_at", "Globex", valid_from="2023-01-01", source_file="notes/hr/2023.md"
    )
    kg.add_triple("Ada", "lives_in", "Berlin", source_closet="closet_home")
    kg.add_triple("Ada", "knows", "Kai", source_drawer_id="drawer_42", adapter_name="chat")
    kg.add_triple("Bob", "uses", "100%_pure", valid_from="2021-01-01")
    return kg


def found(kg, *args, **kwargs) -> set[tuple[str, str, str]]:
    rows = kg.find_facts(*args, limit=1000, **kwargs)
    assert kg.count_found_facts(*args, **kwargs) == len(rows)
    return {(r["subject_name"], r["predicate"], r["object_name"]) for r in rows}


def test_text_is_found_in_predicate_names_and_provenance(graph):
    assert found(graph, "works") == {("Kai", "works_at", "Acme"), ("Kai", "works_at", "Globex")}
    assert found(graph, "globex") == {("Kai", "works_at", "Globex")}  # object, any case
    assert found(graph, "ADA") == {("Ada", "lives_in", "Berlin"), ("Ada", "knows", "Kai")}
    assert found(graph, "hr/2023") == {("Kai", "works_at", "Globex")}  # source file
    assert found(graph, "closet_home") == {("Ada", "lives_in", "Berlin")}
    assert found(graph, "drawer_4") == {("Ada", "knows", "Kai")}
    assert found(graph, "chat") == {("Ada", "knows", "Kai")}  # adapter


def test_wildcards_are_plain_text(graph):
    assert found(graph, "100%_") == {("Bob", "uses", "100%_pure")}
    assert found(graph, "%") == {("Bob", "uses", "100%_pure")}
    assert found(graph, "_") >= {("Bob", "uses", "100%_pure"), ("Kai", "works_at", "Acme")}
    assert found(graph, "zzz") == set()


def test_as_of_and_an_exact_predicate(graph):
    assert found(graph, "kai", as_of="2021-06-01") == {
        ("Kai", "works_at", "Acme"),
        ("Ada", "knows", "Kai"),
    }
    assert found(graph, "", predicate="works_at", as_of="2024-01-01") == {
        ("Kai", "works_at", "Globex")
    }
    assert found(graph, predicate="works_at") == {
        ("Kai", "works_at", "Acme"),
        ("Kai", "works_at", "Globex"),
    }
    # A date-only end covers its last day.
    assert ("Kai", "works_at", "Acme") in found(graph, "acme", as_of="2022-12-31T12:00:00Z")


def test_pages_cover_every_match_once(graph):
    pages = [graph.find_facts("", limit=2, offset=offset) for offset in range(0, 6, 2)]
    ids = [row["id"] for page in pages for row in page]
    assert len(ids) == len(set(ids)) == graph.count_found_facts() == 5


def test_bad_input_is_refused(graph):
    with pytest.raises(Refused):
        graph.find_facts("x", as_of="yesterday")
    with pytest.raises(Refused):
        graph.find_facts(42)
