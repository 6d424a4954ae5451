"""Which palace holds a graph's memories, and which of MemPalace's backends keeps them there.

MemPalace 3.11 keeps its memories ("drawers") in a vector store inside the palace folder. The
palace is the folder of a palace-local graph (``<palace>/knowledge_graph.sqlite3``, what
``mempalace mine`` writes) when that folder holds a backend's files; otherwise MemPalace's
configured palace (:func:`factlines.core.mempalace_paths.mempalace_palace`). The backend is
chosen as ``palace/backend.py:resolve_backend_name`` chooses it: the explicit flag
(``MEMPALACE_BACKEND_EXPLICIT``), then ``backend`` in config.json when that config's palace is
this one, then ``MEMPALACE_BACKEND``, then the files present (backends in name order), then
``chroma``. Nothing here opens a database: only ``stat`` and a 16-byte look at a header.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factlines.core.mempalace_paths import KG_FILE, mempalace_config, mempalace_palace

CHROMA = "chroma"
SQLITE_EXACT = "sqlite_exact"
# The backends whose drawers live in a SQLite file inside the palace, and that file.
LOCAL_FILES = {
    CHROMA: "chroma.sqlite3",
    SQLITE_EXACT: "sqlite_exact.sqlite3",
    "rust_exact": "sqlite_exact.sqlite3",  # shares sqlite_exact's file
}
# The backends keeping the drawers on a server (Milvus Lite's local file is not read either).
SERVER_BACKENDS = ("milvus", "pgvector", "qdrant")
DEFAULT_COLLECTION = "mempalace_drawers"
CLOSETS_COLLECTION = "mempalace_closets"
_SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Palace:
    """A palace folder, its backend, why that backend, and its drawers' collection."""

    path: Path
    backend: str
    collection: str = DEFAULT_COLLECTION
    found_by: str = ""

    @property
    def database(self) -> Path | None:
        """The SQLite file holding the drawers; None for a backend Factlines cannot read."""
        name = LOCAL_FILES.get(self.backend)
        return self.path / name if name else None

    @property
    def on_server(self) -> bool:
        return self.backend in SERVER_BACKENDS


def find_palace(
    graph_path: str | os.PathLike[str] | None,
    palace: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> Palace | None:
    """The palace of the graph at ``graph_path`` (None for a graph on a server): ``palace``
    when given, else the graph's own folder when it is a palace, else MemPalace's configured
    palace; None when there is none."""
    env = os.environ if env is None else env
    config = mempalace_config(env, home)
    if palace is not None:
        folder = Path(os.path.abspath(os.path.expanduser(palace)))
        return _with_backend(folder, "given", config, env, home)
    if graph_path is not None:
        folder = Path(os.path.abspath(os.path.expanduser(graph_path))).parent
        if Path(graph_path).name == KG_FILE and _detected(folder):
            return _with_backend(folder, "the graph's own folder", config, env, home)
    configured = mempalace_palace(env, home)
    if configured is None or not configured[0].is_dir():
        return None
    return _with_backend(configured[0], configured[1], config, env, home)


def _with_backend(
    folder: Path,
    found_by: str,
    config: dict[str, Any],
    env: Mapping[str, str],
    home: str | os.PathLike[str] | None,
) -> Palace:
    collection = config.get("collection_name") or DEFAULT_COLLECTION
    return Palace(folder, _backend(folder, config, env, home), str(collection), found_by)


def _backend(
    folder: Path,
    config: dict[str, Any],
    env: Mapping[str, str],
    home: str | os.PathLike[str] | None,
) -> str:
    explicit = env.get("MEMPALACE_BACKEND_EXPLICIT")
    if explicit:
        return explicit.strip().lower()
    configured = mempalace_palace(env, home)
    if configured is not None and configured[0] == folder and config.get("backend"):
        return str(config["backend"]).strip().lower()
    chosen = env.get("MEMPALACE_BACKEND")
    if chosen and chosen.strip():
        return chosen.strip().lower()
    detected = _detected(folder)
    return detected[0] if detected else CHROMA


def _detected(folder: Path) -> list[str]:
    """The backends whose files are in ``folder``, in name order (MemPalace's detect())."""
    found: list[str] = []
    if _is_sqlite(folder / LOCAL_FILES[CHROMA]):
        found.append(CHROMA)
    if (folder / "milvus_backend.json").is_file() or (folder / "milvus.db").exists():
        found.append("milvus")
    for name in ("pgvector", "qdrant"):
        if (folder / f"{name}_backend.json").is_file():
            found.append(name)
    if _is_sqlite(folder / LOCAL_FILES[SQLITE_EXACT]):
        found.append(SQLITE_EXACT)
    return found


def _is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(16) == _SQLITE_MAGIC
    except OSError:
        return False
