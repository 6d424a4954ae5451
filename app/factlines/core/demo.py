"""The embedded demo graph: ``resources/demo.json`` written into a fresh file."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from factlines.core.resources import resource_path
from factlines.core.store import KnowledgeGraph


def load_demo_data() -> dict[str, Any]:
    return json.loads(resource_path("demo.json").read_text(encoding="utf-8"))


def write_demo(kg: KnowledgeGraph) -> None:
    """Write the demo's entities, facts and single-valued predicates into ``kg``, in one go."""
    data = load_demo_data()
    columns = data["columns"]
    with kg.transaction():
        for name, entity_type, properties in data["entities"]:
            kg.add_entity(name, entity_type, properties)
        for row in data["facts"]:
            fact = dict(zip(columns, row))
            kg.add_triple(fact.pop("subject"), fact.pop("predicate"), fact.pop("object"), **fact)
        for predicate in data["single_valued"]:
            kg.set_single_valued(predicate)


def create_demo(folder: str | None = None) -> KnowledgeGraph:
    """A new demo graph in a temporary file (the shipped data is never opened for writing)."""
    handle, path = tempfile.mkstemp(prefix="factlines-demo-", suffix=".sqlite3", dir=folder)
    os.close(handle)
    kg = KnowledgeGraph(path, initialize_empty=True)  # the empty file mkstemp just made
    write_demo(kg)
    return kg
