import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

# Before any QApplication exists: no display needed, and stored days never shift with a zone.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["TZ"] = "UTC"
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
if hasattr(time, "tzset"):
    time.tzset()
# The suite starts some hundred Pythons (workers, the command, MemPalace's writers, windows in
# child processes): each compiled the app's modules anew where the environment said not to
# keep their bytecode (0.2 s of CPU per start).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def _temporary_files_in_memory(folder: str = "/dev/shm", room: float = 4e9) -> None:
    """Temporary files (each test's tmp_path, the children's) in a RAM-backed folder where
    there is one with room, unless TMPDIR says where: on a virtual machine's disk the kernel's
    writing back of what the tests' SQLite files wrote cost CPU the tests never showed."""
    if "TMPDIR" in os.environ or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        return
    with contextlib.suppress(OSError):
        if shutil.disk_usage(folder).free > room:
            os.environ["TMPDIR"] = folder
            tempfile.tempdir = None  # gettempdir() reads TMPDIR again


_temporary_files_in_memory()

APP = Path(__file__).resolve().parent.parent / "app"
if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))

import pytest  # noqa: E402

import postgres_server  # noqa: E402
from factlines import KnowledgeGraph  # noqa: E402
from factlines.core.demo import create_demo  # noqa: E402
from store_helpers import raw_sql  # noqa: E402


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two workers more than the cores, to keep each core busy while a test waits
    on a child process, PostgreSQL or the disk (a worker waits for half of its time; on 2
    cores the suite took 167-191 s with 3 workers, 156-181 s with 4, 176 s with 5)."""
    return len(os.sched_getaffinity(0)) + 2 if hasattr(os, "sched_getaffinity") else None


def pytest_collection_modifyitems(config, items):
    """The slow tests first: one started last would leave the other workers idle at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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


class PostgresPlaces:
    """Graphs in PostgreSQL: ``new()`` a fresh empty database (dropped after the test); a
    graph ``exists`` there once it holds a row (the engine may have made empty tables: a
    database is never deleted, so "nothing written" is what a refusal or a cancel leaves)."""

    engine = "postgres"

    def __init__(self, admin_url: str, databases: contextlib.ExitStack):
        self._admin = admin_url
        self._databases = databases

    def new(self, name: str = "graph") -> str:
        return self._databases.enter_context(postgres_server.fresh_database(self._admin))

    def exists(self, location: str) -> bool:
        return any(
            raw_sql(location, "SELECT to_regclass(?)", (table,))[0][0] is not None
            and raw_sql(location, f"SELECT EXISTS (SELECT 1 FROM {table})")[0][0]
            for table in ("triples", "entities")
        )


@pytest.fixture(params=["sqlite", "postgres"])
def graph_places(request, tmp_path):
    if request.param == "postgres":
        with contextlib.ExitStack() as databases:
            yield PostgresPlaces(request.getfixturevalue("postgres_admin"), databases)
        return
    folder = tmp_path / f"places-{request.param}"
    folder.mkdir()
    yield GraphPlaces(request.param, folder)


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
