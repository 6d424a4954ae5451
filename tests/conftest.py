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

import postgres_server  # noqa: E402
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


# ── PostgreSQL (tests/postgres_server.py): skipped saying why without a server, but in CI ──


@pytest.fixture(scope="session")
def postgres_admin():
    """The URL of a server's database that may create databases (the session's server)."""
    reason = postgres_server.why_not()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests: {reason}")
        pytest.skip(reason)
    with postgres_server.server() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_admin):
    """A fresh empty PostgreSQL database (for tests of PostgreSQL alone)."""
    with postgres_server.fresh_database(postgres_admin) as url:
        yield url
