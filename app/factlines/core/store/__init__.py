"""The store: a narrow interface addressed by ids (:mod:`.protocol`), engines behind it
(:mod:`.sqlite`), and the MemPalace-compatible façade ``KnowledgeGraph`` over them."""

from factlines.core.errors import (
    ConflictError,
    DuplicateFact,
    FactNotFound,
    KnowledgeGraphError,
    NotAKnowledgeGraph,
    TimeValueError,
)
from factlines.core.store.changes import Change, Touched
from factlines.core.store.facade import (
    DEFAULT_KG_PATH,
    MEMPALACE_COLUMNS,
    KnowledgeGraph,
    discard_new_graph,
    engine_version,
    graph_exists,
    is_database_url,
    open_graph,
    same_graph,
)
from factlines.core.store.mempalace import DIRECTIONS
from factlines.core.store.predicate_edits import rename_words, report_words
from factlines.core.store.rows import ENTITY_ORDERS, PROVENANCE, describe

__all__ = [
    "DEFAULT_KG_PATH",
    "DIRECTIONS",
    "ENTITY_ORDERS",
    "MEMPALACE_COLUMNS",
    "PROVENANCE",
    "Change",
    "ConflictError",
    "DuplicateFact",
    "FactNotFound",
    "KnowledgeGraph",
    "KnowledgeGraphError",
    "NotAKnowledgeGraph",
    "TimeValueError",
    "Touched",
    "describe",
    "discard_new_graph",
    "engine_version",
    "graph_exists",
    "is_database_url",
    "open_graph",
    "rename_words",
    "report_words",
    "same_graph",
]
