"""Factlines: browse and hand-edit a temporal knowledge graph.

``from factlines import KnowledgeGraph, open_graph`` is the public store; it never imports Qt.
"""

__version__ = "0.1.0"

from factlines.core.errors import KnowledgeGraphError, NotAKnowledgeGraph, Refused, Unavailable
from factlines.core.mempalace_paths import mempalace_graphs
from factlines.core.store import KnowledgeGraph, is_database_url, open_graph

# The reverse-DNS id of the desktop file, its icon and the AppStream metainfo (packaging/).
APP_ID = "io.github.factlines.Factlines"

__all__ = [
    "APP_ID",
    "KnowledgeGraph",
    "KnowledgeGraphError",
    "NotAKnowledgeGraph",
    "Refused",
    "Unavailable",
    "__version__",
    "is_database_url",
    "mempalace_graphs",
    "open_graph",
]
