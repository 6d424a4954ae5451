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
