"""Files shipped with the app: the top-level ``resources/``, installed as factlines.resources."""

from __future__ import annotations

from importlib import resources as importlib_resources
from pathlib import Path


def resource_path(name: str) -> Path:
    try:
        candidate = Path(str(importlib_resources.files("factlines.resources") / name))
        if candidate.exists():
            return candidate
    except ModuleNotFoundError:
        pass
    # A source checkout run without installing: app/factlines/core -> resources/
    candidate = Path(__file__).resolve().parents[3] / "resources" / name
    if candidate.exists():
        return candidate
    raise FileNotFoundError(f"the resource {name!r} is not installed with factlines")
