"""MemPalace's palace, read-only: the memories ("drawers") behind a graph's facts.

Pure Python and plain SQLite: never chromadb nor MemPalace's backends (their imports alone take
most of a second, and their ways in write to the palace). See :mod:`.memory`.
"""

from factlines.core.palace.memory import Memories
from factlines.core.palace.place import Palace, find_palace

__all__ = ["Memories", "Palace", "find_palace"]
