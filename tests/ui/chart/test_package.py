"""The chart package's shape: its modules import in one direction, and only the adapter reaches
into pyqtgraph beyond its documented API."""

from __future__ import annotations

import ast
from pathlib import Path

import factlines.ui.chart

CHART = Path(factlines.ui.chart.__file__).parent
# The order of the package docstring: a module may import only the ones before it.
ORDER = [
    "look",
    "layout",
    "pg_adapter",
    "line_labels",
    "time_axis",
    "painting",
    "navigation",
    "interaction",
    "export",
    "toolbar",
    "widget",
]


def _tree(name: str) -> ast.Module:
    return ast.parse((CHART / f"{name}.py").read_text(encoding="utf-8"))


def _chart_imports(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "factlines.ui.chart"
        ):
            if node.module == "factlines.ui.chart":
                found |= {alias.name for alias in node.names}
            else:
                found.add(node.module.rsplit(".", 1)[1])
    return found


def test_every_module_is_in_the_order():
    assert {p.stem for p in CHART.glob("*.py")} - {"__init__"} == set(ORDER)


def test_modules_import_only_the_ones_before_them():
    for i, name in enumerate(ORDER):
        assert _chart_imports(_tree(name)) <= set(ORDER[:i]), name


def test_pyqtgraph_internals_only_in_the_adapter():
    for name in ORDER:
        if name == "pg_adapter":
            continue
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("pyqtgraph.Qt"), name
            if isinstance(node, ast.Import):
                assert "importlib" not in {alias.name for alias in node.names}, name
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                if node.attr.endswith("__"):
                    continue  # super().__init__ and the like
                # private attributes of the chart's own objects only (self._x)
                assert isinstance(node.value, ast.Name) and node.value.id == "self", (
                    f"{name}: .{node.attr}"
                )
