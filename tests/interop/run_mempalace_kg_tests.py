"""Run MemPalace's own knowledge-graph tests with Factlines' KnowledgeGraph in its place.

    python tests/interop/run_mempalace_kg_tests.py [MEMPALACE_TESTS_DIR] [--against mempalace]
                                                   [-- PYTEST_ARGS...]

MEMPALACE_TESTS_DIR is a folder holding MemPalace's ``tests/test_knowledge_graph.py``,
``tests/test_knowledge_graph_extra.py`` and ``tests/test_kg_thread_safety.py`` and the
``conftest.py`` beside them (a checkout of MemPalace's ``tests/``; default:
``$MEMPALACE_KG_TESTS``, else ``/tmp/notes/mempalace-tests``). Nothing is fetched and nothing
of MemPalace's is kept in this repository: the test files are copied into a scratch folder and
run there, and the fixtures they use (``kg``, ``seeded_kg`` and what those need) are taken from
that ``conftest.py`` at run time, without the rest of it (MemPalace's own conftest imports
chromadb). ``mempalace.knowledge_graph.KnowledgeGraph`` is replaced by Factlines' class before
the test files import it; ``--against mempalace`` runs them against MemPalace's own class, for
comparison; ``--against factlines-postgres`` runs them against Factlines on PostgreSQL (a
server as the tests get one, tests/postgres_server.py: each file path a test opens stands for a
fresh database of its own). The exit status is pytest's.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import shutil
import sys
import tempfile
import types
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
TEST_FILES = (
    "test_knowledge_graph.py",
    "test_knowledge_graph_extra.py",
    "test_kg_thread_safety.py",
)
FIXTURES = ("tmp_dir", "kg", "seeded_kg")
DEFAULT_DIR = os.environ.get("MEMPALACE_KG_TESTS", "/tmp/notes/mempalace-tests")


def fixture_plugin(conftest: Path, knowledge_graph: type) -> types.ModuleType:
    """A plugin holding only the fixtures ``FIXTURES`` defined in ``conftest``."""
    import pytest

    tree = ast.parse(conftest.read_text(encoding="utf-8"), str(conftest))
    wanted = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in FIXTURES]
    module = types.ModuleType("mempalace_kg_fixtures")
    module.__dict__.update(
        os=os, shutil=shutil, tempfile=tempfile, pytest=pytest, KnowledgeGraph=knowledge_graph
    )
    code = compile(ast.Module(body=wanted, type_ignores=[]), str(conftest), "exec")
    exec(code, module.__dict__)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests_dir", nargs="?", default=DEFAULT_DIR)
    parser.add_argument(
        "--against", choices=("factlines", "factlines-postgres", "mempalace"), default="factlines"
    )
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args(argv)
    source = Path(args.tests_dir)
    files = [source / name for name in TEST_FILES if (source / name).is_file()]
    conftest = source / "conftest.py"
    if not files or not conftest.is_file():
        parser.error(f"{source} holds none of {', '.join(TEST_FILES)} or no conftest.py")

    # Factlines first: importing mempalace drops PYTHONPATH entries from sys.path.
    sys.path.insert(0, str(APP))
    import factlines

    scratch = Path(tempfile.mkdtemp(prefix="mempalace_kg_tests_"))
    os.environ["HOME"] = str(scratch / "home")  # MemPalace's default graph path lives there
    (scratch / "home").mkdir()
    import mempalace.knowledge_graph as mempalace_kg

    with contextlib.ExitStack() as stack:
        if args.against == "factlines":
            mempalace_kg.KnowledgeGraph = factlines.KnowledgeGraph
        elif args.against == "factlines-postgres":
            mempalace_kg.KnowledgeGraph = _on_postgres(factlines.KnowledgeGraph, stack)
        return _run(mempalace_kg.KnowledgeGraph, files, conftest, scratch, args.pytest_args)


def _on_postgres(knowledge_graph: type, stack: contextlib.ExitStack) -> type:
    """Factlines' class with each file path standing for a fresh PostgreSQL database."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import postgres_server

    admin = stack.enter_context(postgres_server.server())
    databases: dict[str, str] = {}

    class OnPostgres(knowledge_graph):
        def __init__(self, db_path=None, **options):
            key = str(db_path)
            if key not in databases:
                databases[key] = stack.enter_context(postgres_server.fresh_database(admin))
            super().__init__(databases[key], **options)

    return OnPostgres


def _run(kg_class: type, files: list[Path], conftest: Path, scratch: Path, pytest_args) -> int:
    import pytest

    where = sys.modules[kg_class.__module__].__file__
    print(f"KnowledgeGraph under test: {kg_class.__module__}.{kg_class.__qualname__} ({where})")
    try:
        run = scratch / "tests"
        run.mkdir()
        for path in files:
            shutil.copy(path, run / path.name)
        (run / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        options = ["-c", str(run / "pytest.ini"), "-p", "no:cacheprovider", "-q", "-rf"]
        return pytest.main(
            [str(run), *options, *pytest_args],
            plugins=[fixture_plugin(conftest, kg_class)],
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
