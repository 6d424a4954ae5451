"""The architecture's import rules (pyproject.toml, [tool.importlinter]) hold."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_import_contracts_are_kept():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "app")}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--config",
            str(ROOT / "pyproject.toml"),
            "--no-cache",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT / "app",
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def _classes() -> list[tuple[str, ast.ClassDef]]:
    found = []
    for path in sorted((ROOT / "app" / "factlines").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [(str(path.relative_to(ROOT)), node) for node in ast.walk(tree)]
    return [(where, node) for where, node in found if isinstance(node, ast.ClassDef)]


def _base_name(base: ast.expr) -> str:
    while isinstance(base, ast.Subscript):
        base = base.value
    return base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")


def test_no_class_inherits_from_more_than_two_of_the_projects_classes():
    classes = _classes()
    ours = {node.name for _, node in classes}
    stacked = [
        f"{where}: {node.name}"
        for where, node in classes
        if sum(_base_name(base) in ours for base in node.bases) > 2
    ]
    assert stacked == []
    assert ours >= {"KnowledgeGraph", "FactEdits", "EntityEdits"}  # the walk found the store
