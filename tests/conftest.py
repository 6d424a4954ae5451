import os
import sys
import time
from pathlib import Path

# Before any QApplication exists: no display needed, and stored days never shift with a zone.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["TZ"] = "UTC"
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
if hasattr(time, "tzset"):
    time.tzset()

APP = Path(__file__).resolve().parent.parent / "app"
if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))

import pytest  # noqa: E402

from factlines import KnowledgeGraph  # noqa: E402
from factlines.core.demo import create_demo  # noqa: E402


@pytest.fixture
def kg_path(tmp_path):
    return tmp_path / "knowledge_graph.sqlite3"


@pytest.fixture
def kg(kg_path):
    graph = KnowledgeGraph(kg_path)
    yield graph
    graph.close()


@pytest.fixture
def demo(tmp_path):
    """The demo graph, written into a temporary file."""
    kg = create_demo(str(tmp_path))
    yield kg
    kg.close()


class GraphPlaces:
    """Where graphs of one engine go, for tests that copy a graph between places: ``new()`` a
    location where no graph is yet, ``exists(location)`` whether one is there now."""

    def __init__(self, engine: str, folder: Path):
        self.engine = engine
        self._folder = folder
        self._made = 0

    def new(self, name: str = "graph") -> str:
        self._made += 1
        return str(self._folder / f"{name}-{self._made}.sqlite3")

    def exists(self, location: str) -> bool:
        return Path(location).exists()


# One engine now; the PostgreSQL engine adds its param here (a throwaway database per new()).
@pytest.fixture(params=["sqlite"])
def graph_places(request, tmp_path) -> GraphPlaces:
    folder = tmp_path / f"places-{request.param}"
    folder.mkdir()
    return GraphPlaces(request.param, folder)
