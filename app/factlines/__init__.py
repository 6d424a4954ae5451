"""Factlines: browse and hand-edit a temporal knowledge graph.

``from factlines import KnowledgeGraph`` is the public store; it never imports Qt.
"""

__version__ = "0.1.0"

from factlines.core.store import KnowledgeGraph, KnowledgeGraphError, NotAKnowledgeGraph

# The reverse-DNS id of the desktop file, its icon and the AppStream metainfo (packaging/).
APP_ID = "io.github.factlines.Factlines"

__all__ = ["KnowledgeGraph", "KnowledgeGraphError", "NotAKnowledgeGraph", "__version__"]
