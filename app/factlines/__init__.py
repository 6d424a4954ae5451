"""Factlines: browse and hand-edit a temporal knowledge graph.

``from factlines import KnowledgeGraph`` is the public store; it never imports Qt.
"""

__version__ = "0.1.0"

from factlines.core.mempalace_paths import mempalace_graphs
from factlines.core.store import KnowledgeGraph, KnowledgeGraphError, NotAKnowledgeGraph

__all__ = [
    "KnowledgeGraph",
    "KnowledgeGraphError",
    "NotAKnowledgeGraph",
    "__version__",
    "mempalace_graphs",
]
