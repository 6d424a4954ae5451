"""Where MemPalace keeps its knowledge graph: the files MemPalace 3.11 itself would open.

MemPalace has two places for the graph, and a user can have both:

1. **default**: ``~/.mempalace/knowledge_graph.sqlite3`` (``knowledge_graph.DEFAULT_KG_PATH``).
   ``KnowledgeGraph()`` with no path opens it, and so does the MCP server unless it was started
   with ``--palace``.
2. **palace**: ``<palace>/knowledge_graph.sqlite3``. ``mempalace mine``, the fact checker and
   the MCP server started with ``--palace`` open the graph inside the palace folder, and
   ``mempalace kg normalize`` prefers it when it exists.

The palace folder is resolved as ``MempalaceConfig().palace_path`` does:

- ``MEMPALACE_PALACE_PATH``, else ``MEMPALACE_PALACE``, else ``MEMPAL_PALACE_PATH`` (the first
  that is set and not empty), with ``~`` expanded and made absolute;
- else ``palace_path`` from ``<config folder>/config.json``, ``~`` expanded but *not* made
  absolute (a relative value is relative to the working folder), defaulting to
  ``<config folder>/palace``. A config.json that is missing, unreadable, not UTF-8, not JSON or
  not a JSON object counts as empty (MemPalace warns and uses its defaults); one whose
  ``palace_path`` is not a string makes MemPalace fail, so no palace candidate comes of it.

and the config folder as ``config._default_config_dir()`` does:

- ``MEMPALACE_CONFIG_DIR`` when it is not blank (``~`` expanded, used as given);
- else ``~/.mempalace`` when it is a folder holding ``config.json`` or ``people_map.json`` or
  ``palace/chroma.sqlite3`` (a bare leftover folder does not count);
- else ``$XDG_CONFIG_HOME/mempalace`` when XDG_CONFIG_HOME is not blank and, ``~`` expanded,
  absolute;
- else ``~/.config/mempalace``.

``~`` means the ``home`` argument when given, else HOME of ``env`` (as ``os.path.expanduser``
reads it). Not covered: the Hermes integration keeps its graph beside its palace folder
(``<palace>/../knowledge_graph.sqlite3``) and may have a palace of its own configuration.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

KG_FILE = "knowledge_graph.sqlite3"
DEFAULT = "default"
PALACE = "palace"
PALACE_ENV_VARS = ("MEMPALACE_PALACE_PATH", "MEMPALACE_PALACE", "MEMPAL_PALACE_PATH")
_LEGACY_MARKERS = ("config.json", "people_map.json")


@dataclass(frozen=True)
class GraphCandidate:
    """One place MemPalace keeps a graph, with the rules that lead there (MemPalace's order)."""

    path: Path
    rules: tuple[str, ...]
    exists: bool
    palace: Path | None = None
    palace_source: str | None = None

    def describe(self) -> str:
        """The candidate in words, naming the rules that found it."""
        parts: list[str] = []
        if DEFAULT in self.rules:
            parts.append("MemPalace's default graph")
        if PALACE in self.rules:
            parts.append(f"the graph inside the palace {self.palace} ({self.palace_source})")
        return f"{' and '.join(parts)}: {self.path}"


def mempalace_graph_candidates(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> list[GraphCandidate]:
    """Every place MemPalace would open a graph, existing or not: the default first, then the
    palace's; one entry when both rules lead to the same file."""
    env = os.environ if env is None else env
    home_dir = _home(env, home)
    found: list[GraphCandidate] = []
    keys: list[str] = []
    places: list[tuple[str, str, Path | None, str | None]] = [
        (_expanduser(f"~/.mempalace/{KG_FILE}", home_dir), DEFAULT, None, None)
    ]
    palace = _palace_path(env, home_dir)
    if palace is not None:
        palace_dir, source = palace
        places.append((os.path.join(palace_dir, KG_FILE), PALACE, Path(palace_dir), source))
    for path, rule, palace_dir, source in places:
        absolute = Path(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))
        key = os.path.normcase(os.path.realpath(absolute))
        if key in keys:
            i = keys.index(key)
            seen = found[i]
            found[i] = GraphCandidate(
                seen.path, (*seen.rules, rule), seen.exists, palace_dir, source
            )
            continue
        keys.append(key)
        exists = os.path.isfile(absolute)
        found.append(GraphCandidate(absolute, (rule,), exists, palace_dir, source))
    return found


def mempalace_config_dir(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> Path:
    """MemPalace's config folder, as ``config._default_config_dir()`` resolves it (see above)."""
    env = os.environ if env is None else env
    return _config_dir(env, _home(env, home))


def mempalace_write_log(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> Path:
    """Where MemPalace appends its write log (``<config folder>/wal/write_log.jsonl``, its
    ``wal._WAL_FILE``), whether or not it exists."""
    return mempalace_config_dir(env, home) / "wal" / "write_log.jsonl"


def mempalace_palace(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> tuple[Path, str] | None:
    """MemPalace's palace folder as ``MempalaceConfig().palace_path`` resolves it (see above),
    made absolute, and the rule that gave it; None where MemPalace itself would fail."""
    env = os.environ if env is None else env
    found = _palace_path(env, _home(env, home))
    if found is None:
        return None
    return Path(os.path.abspath(found[0])), found[1]


def mempalace_config(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> dict[str, Any]:
    """MemPalace's ``config.json`` as MemPalace reads it (empty where it would use defaults)."""
    env = os.environ if env is None else env
    try:
        return _read_config(mempalace_config_dir(env, home))
    except OSError:
        return {}


def mempalace_graphs(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> list[Path]:
    """The MemPalace knowledge-graph files that exist, in MemPalace's order (default, palace)."""
    return [c.path for c in mempalace_graph_candidates(env, home) if c.exists]


def describe_mempalace_graphs(candidates: list[GraphCandidate]) -> str:
    """One sentence on which of MemPalace's graphs exist, for a status line or a dialog."""
    existing = [c for c in candidates if c.exists]
    if not existing:
        looked = " or ".join(str(c.path) for c in candidates)
        return f"No MemPalace graph at {looked}"
    if len(existing) == 1:
        return existing[0].describe()
    return "MemPalace's default graph and a palace-local one both exist: " + "; ".join(
        c.describe() for c in existing
    )


# ── MemPalace's resolution, step by step ──────────────────────────────────


def _home(env: Mapping[str, str], home: str | os.PathLike[str] | None) -> str:
    """What ``~`` stands for: read from ``env`` as ``os.path.expanduser`` reads os.environ."""
    if home is not None:
        return os.fspath(home)
    if os.name == "nt":
        if "USERPROFILE" in env:
            return env["USERPROFILE"]
        if "HOMEPATH" in env:
            return os.path.join(env.get("HOMEDRIVE", ""), env["HOMEPATH"])
        return os.path.expanduser("~")
    if "HOME" in env:
        return env["HOME"]
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return os.path.expanduser("~")


def _expanduser(path: str, home: str) -> str:
    """``os.path.expanduser`` with ``home`` for ``~``; ``~user`` asks the system, as it does."""
    if not path.startswith("~"):
        return path
    seps = "/\\" if os.name == "nt" else "/"
    end = next((i for i, ch in enumerate(path) if i and ch in seps), len(path))
    if end != 1:
        return os.path.expanduser(path)
    if os.name == "nt":
        return home + path[1:]
    return (home.rstrip("/") + path[1:]) or "/"


def _config_dir(env: Mapping[str, str], home: str) -> Path:
    explicit = env.get("MEMPALACE_CONFIG_DIR")
    if explicit and explicit.strip():
        return Path(_expanduser(explicit, home))
    legacy = Path(_expanduser("~", home)) / ".mempalace"
    try:
        if legacy.is_dir() and (
            any((legacy / marker).is_file() for marker in _LEGACY_MARKERS)
            or (legacy / "palace" / "chroma.sqlite3").is_file()
        ):
            return legacy
    except PermissionError:  # another user's home (a HOME we may not look into): not ours
        pass
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg and xdg.strip():
        xdg_path = Path(_expanduser(xdg, home))
        if xdg_path.is_absolute():
            return xdg_path / "mempalace"
    return Path(_expanduser("~", home)) / ".config" / "mempalace"


def _read_config(config_dir: Path) -> dict[str, Any]:
    """config.json as MemPalace reads it; anything it would not use counts as empty."""
    try:
        raw = (config_dir / "config.json").read_bytes()
    except OSError:
        return {}
    try:
        loaded = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return {}
    return cast("dict[str, Any]", loaded) if isinstance(loaded, dict) else {}  # keys: text


def _palace_path(env: Mapping[str, str], home: str) -> tuple[str, str] | None:
    """The palace folder and which rule gave it; None where MemPalace itself would fail."""
    for name in PALACE_ENV_VARS:
        value = env.get(name)
        if value:
            return os.path.abspath(_expanduser(value, home)), name
    try:
        config_dir = _config_dir(env, home)
        config = _read_config(config_dir)
    except OSError:
        return None
    value = config.get("palace_path", str(config_dir / "palace"))
    if not isinstance(value, str):
        return None
    if "palace_path" in config:
        return _expanduser(value, home), f"palace_path in {config_dir / 'config.json'}"
    return _expanduser(value, home), f"the default palace of {config_dir}"
