"""Finding MemPalace's graph: the default file and the palace's, resolved as MemPalace 3.11 does.

Every test builds a home folder under tmp_path and passes an explicit env mapping; the
differential tests set the process environment (monkeypatched) only to ask the real
MemPalace the same question.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import factlines
from factlines.core.mempalace_paths import (
    DEFAULT,
    KG_FILE,
    PALACE,
    describe_mempalace_graphs,
    mempalace_graph_candidates,
    mempalace_graphs,
)

ENV_VARS = (
    "HOME",
    "MEMPALACE_CONFIG_DIR",
    "XDG_CONFIG_HOME",
    "MEMPALACE_PALACE_PATH",
    "MEMPALACE_PALACE",
    "MEMPAL_PALACE_PATH",
)


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    path = tmp_path / "work"
    path.mkdir()
    monkeypatch.chdir(path)
    return path


def touch(path: Path, data: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def write_config(folder: Path, config) -> Path:
    return touch(folder / "config.json", json.dumps(config).encode())


def palace_kg(candidates) -> Path | None:
    return next((c.path for c in candidates if PALACE in c.rules), None)


def default_kg(home: Path) -> Path:
    return home / ".mempalace" / KG_FILE


# ── What is found, in which order ─────────────────────────────────────────


def test_nothing_there_finds_nothing_but_names_both_places(home, cwd):
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert [(c.path, c.rules, c.exists) for c in candidates] == [
        (default_kg(home), (DEFAULT,), False),
        (home / ".config" / "mempalace" / "palace" / KG_FILE, (PALACE,), False),
    ]
    assert mempalace_graphs(env={}, home=home) == []
    assert describe_mempalace_graphs(candidates).startswith("No MemPalace graph at ")


def test_the_default_graph_alone(home, cwd):
    touch(default_kg(home))
    assert mempalace_graphs(env={}, home=home) == [default_kg(home)]
    assert describe_mempalace_graphs(mempalace_graph_candidates(env={}, home=home)) == (
        f"MemPalace's default graph: {default_kg(home)}"
    )


def test_default_first_then_the_palace_and_the_description_says_both(home, cwd):
    palace = home / "palaces" / "main"
    write_config(home / ".mempalace", {"palace_path": "~/palaces/main"})
    touch(default_kg(home))
    touch(palace / KG_FILE)
    assert mempalace_graphs(env={}, home=home) == [default_kg(home), palace / KG_FILE]
    text = describe_mempalace_graphs(mempalace_graph_candidates(env={}, home=home))
    assert text.startswith("MemPalace's default graph and a palace-local one both exist: ")
    assert str(palace) in text and "palace_path in " in text


def test_a_folder_named_like_the_graph_is_not_a_graph(home, cwd):
    default_kg(home).mkdir(parents=True)
    assert mempalace_graphs(env={}, home=home) == []


def test_one_file_reached_by_both_rules_is_one_candidate(home, cwd):
    write_config(home / ".mempalace", {"palace_path": "~/.mempalace"})
    touch(default_kg(home))
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert [(c.path, c.rules) for c in candidates] == [(default_kg(home), (DEFAULT, PALACE))]
    assert candidates[0].palace == home / ".mempalace"
    assert mempalace_graphs(env={}, home=home) == [default_kg(home)]


def test_home_defaults_to_HOME_of_the_env_mapping(home, cwd):
    touch(default_kg(home))
    assert mempalace_graphs(env={"HOME": str(home)}) == [default_kg(home)]
    assert mempalace_graphs(env={"HOME": str(home) + "/"}) == [default_kg(home)]


def test_exported_at_the_top_level():
    assert factlines.mempalace_graphs is mempalace_graphs
    assert "mempalace_graphs" in factlines.__all__


# ── The config folder ─────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "marker", ["config.json", "people_map.json", "palace/chroma.sqlite3"], ids=str
)
def test_a_real_legacy_folder_is_the_config_folder(home, cwd, marker):
    touch(home / ".mempalace" / marker, b"{}")
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert palace_kg(candidates) == home / ".mempalace" / "palace" / KG_FILE


def test_a_legacy_folder_holding_only_the_graph_does_not_count(home, cwd):
    # What MemPalace's MCP server leaves on a fresh XDG install: the default graph and nothing else.
    touch(default_kg(home))
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert palace_kg(candidates) == home / ".config" / "mempalace" / "palace" / KG_FILE


def test_xdg_config_home_when_absolute(home, cwd, tmp_path):
    xdg = tmp_path / "xdg"
    candidates = mempalace_graph_candidates(env={"XDG_CONFIG_HOME": str(xdg)}, home=home)
    assert palace_kg(candidates) == xdg / "mempalace" / "palace" / KG_FILE


@pytest.mark.parametrize("value", ["relative/xdg", "", "   "])
def test_xdg_config_home_relative_or_blank_is_ignored(home, cwd, value):
    candidates = mempalace_graph_candidates(env={"XDG_CONFIG_HOME": value}, home=home)
    assert palace_kg(candidates) == home / ".config" / "mempalace" / "palace" / KG_FILE


def test_xdg_config_home_with_a_tilde_is_expanded_then_absolute(home, cwd):
    candidates = mempalace_graph_candidates(env={"XDG_CONFIG_HOME": "~/xdg"}, home=home)
    assert palace_kg(candidates) == home / "xdg" / "mempalace" / "palace" / KG_FILE


def test_legacy_folder_beats_xdg(home, cwd, tmp_path):
    touch(home / ".mempalace" / "people_map.json", b"{}")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    candidates = mempalace_graph_candidates(env=env, home=home)
    assert palace_kg(candidates) == home / ".mempalace" / "palace" / KG_FILE


def test_mempalace_config_dir_beats_everything_else(home, cwd, tmp_path):
    touch(home / ".mempalace" / "config.json", b"{}")
    env = {"MEMPALACE_CONFIG_DIR": str(tmp_path / "cfg"), "XDG_CONFIG_HOME": str(tmp_path)}
    candidates = mempalace_graph_candidates(env=env, home=home)
    assert palace_kg(candidates) == tmp_path / "cfg" / "palace" / KG_FILE


def test_mempalace_config_dir_tilde_relative_and_blank(home, cwd):
    env = {"MEMPALACE_CONFIG_DIR": "~/cfg"}
    assert palace_kg(mempalace_graph_candidates(env=env, home=home)) == (
        home / "cfg" / "palace" / KG_FILE
    )
    env = {"MEMPALACE_CONFIG_DIR": "cfg"}
    assert palace_kg(mempalace_graph_candidates(env=env, home=home)) == (
        cwd / "cfg" / "palace" / KG_FILE
    )
    env = {"MEMPALACE_CONFIG_DIR": "  "}
    assert palace_kg(mempalace_graph_candidates(env=env, home=home)) == (
        home / ".config" / "mempalace" / "palace" / KG_FILE
    )


# ── The palace folder ─────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "env, expected, source",
    [
        (
            {"MEMPALACE_PALACE_PATH": "/a", "MEMPALACE_PALACE": "/b", "MEMPAL_PALACE_PATH": "/c"},
            "/a",
            "MEMPALACE_PALACE_PATH",
        ),
        ({"MEMPALACE_PALACE": "/b", "MEMPAL_PALACE_PATH": "/c"}, "/b", "MEMPALACE_PALACE"),
        ({"MEMPAL_PALACE_PATH": "/c"}, "/c", "MEMPAL_PALACE_PATH"),
        ({"MEMPALACE_PALACE_PATH": "", "MEMPAL_PALACE_PATH": "/c"}, "/c", "MEMPAL_PALACE_PATH"),
    ],
)
def test_palace_environment_variables_in_order(home, cwd, env, expected, source):
    candidates = mempalace_graph_candidates(env=env, home=home)
    palace = next(c for c in candidates if PALACE in c.rules)
    assert palace.path == Path(expected) / KG_FILE
    assert palace.palace_source == source


def test_palace_variable_is_expanded_and_made_absolute(home, cwd):
    env = {"MEMPALACE_PALACE_PATH": "~/p"}
    assert palace_kg(mempalace_graph_candidates(env=env, home=home)) == home / "p" / KG_FILE
    env = {"MEMPALACE_PALACE_PATH": "x/../p"}
    assert palace_kg(mempalace_graph_candidates(env=env, home=home)) == cwd / "p" / KG_FILE


def test_palace_variable_beats_config_json(home, cwd, tmp_path):
    write_config(home / ".mempalace", {"palace_path": "~/from-config"})
    env = {"MEMPALACE_PALACE": str(tmp_path / "from-env")}
    candidates = mempalace_graph_candidates(env=env, home=home)
    assert palace_kg(candidates) == tmp_path / "from-env" / KG_FILE


def test_config_palace_path_relative_is_relative_to_the_working_folder(home, cwd):
    write_config(home / ".mempalace", {"palace_path": "rel/palace"})
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert palace_kg(candidates) == cwd / "rel" / "palace" / KG_FILE


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[1, 2]", b"null", b'"x"', b"\xff\xfe\x00", b""],
    ids=["not-json", "array", "null", "string", "not-utf8", "empty"],
)
def test_a_config_json_mempalace_ignores_means_the_default_palace(home, cwd, content):
    touch(home / ".mempalace" / "config.json", content)
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert palace_kg(candidates) == home / ".mempalace" / "palace" / KG_FILE


def test_config_json_that_is_a_folder_means_the_default_palace(home, cwd, tmp_path):
    (tmp_path / "cfg" / "config.json").mkdir(parents=True)
    env = {"MEMPALACE_CONFIG_DIR": str(tmp_path / "cfg")}
    candidates = mempalace_graph_candidates(env=env, home=home)
    assert palace_kg(candidates) == tmp_path / "cfg" / "palace" / KG_FILE


def test_config_json_with_a_byte_order_mark_is_read(home, cwd, tmp_path):
    touch(home / ".mempalace" / "config.json", b"\xef\xbb\xbf" + b'{"palace_path": "/bom"}')
    assert palace_kg(mempalace_graph_candidates(env={}, home=home)) == Path("/bom") / KG_FILE


@pytest.mark.parametrize("value", [None, 42, ["/x"]])
def test_palace_path_that_is_not_text_gives_no_palace_candidate(home, cwd, value):
    write_config(home / ".mempalace", {"palace_path": value})
    candidates = mempalace_graph_candidates(env={}, home=home)
    assert [c.rules for c in candidates] == [(DEFAULT,)]


# ── Differential: the real MemPalace computes the same places ─────────────


def _scenario_legacy_config(home, tmp):
    write_config(home / ".mempalace", {"palace_path": "~/palaces/main"})
    return {}


def _scenario_legacy_marker(home, tmp):
    touch(home / ".mempalace" / "palace" / "chroma.sqlite3")
    return {"XDG_CONFIG_HOME": str(tmp / "xdg")}


def _scenario_bare_legacy(home, tmp):
    touch(default_kg(home))
    return {"XDG_CONFIG_HOME": str(tmp / "xdg")}


def _scenario_xdg_relative(home, tmp):
    return {"XDG_CONFIG_HOME": "xdg"}


def _scenario_xdg_tilde(home, tmp):
    write_config(home / "xdg" / "mempalace", {"palace_path": "~/xdg-palace"})
    return {"XDG_CONFIG_HOME": "~/xdg"}


def _scenario_config_dir_relative(home, tmp):
    write_config(tmp / "work" / "cfg", {"palace_path": "rel/palace"})
    return {"MEMPALACE_CONFIG_DIR": "cfg"}


def _scenario_config_dir_blank(home, tmp):
    write_config(home / ".mempalace", {"collection_name": "x"})
    return {"MEMPALACE_CONFIG_DIR": "   "}


def _scenario_palace_env_chain(home, tmp):
    return {
        "MEMPALACE_PALACE_PATH": "",
        "MEMPALACE_PALACE": "~/../x/./p",
        "MEMPAL_PALACE_PATH": "z",
    }


def _scenario_palace_env_relative(home, tmp):
    return {"MEMPAL_PALACE_PATH": "a/../b"}


def _scenario_malformed_config(home, tmp):
    touch(home / ".mempalace" / "config.json", b'{"palace_path": "/x"')
    return {}


def _scenario_bom_config(home, tmp):
    touch(home / ".mempalace" / "config.json", b'\xef\xbb\xbf{"palace_path": "~"}')
    return {}


def _scenario_empty_palace_path(home, tmp):
    write_config(home / ".mempalace", {"palace_path": ""})
    return {}


SCENARIOS = [
    _scenario_legacy_config,
    _scenario_legacy_marker,
    _scenario_bare_legacy,
    _scenario_xdg_relative,
    _scenario_xdg_tilde,
    _scenario_config_dir_relative,
    _scenario_config_dir_blank,
    _scenario_palace_env_chain,
    _scenario_palace_env_relative,
    _scenario_malformed_config,
    _scenario_bom_config,
    _scenario_empty_palace_path,
]


@pytest.fixture
def mempalace_config():
    try:
        from mempalace import config
    except ImportError as exc:  # pragma: no cover - CI installs it
        pytest.skip(f"mempalace is not importable ({exc}); pip install --no-deps mempalace==3.11.0")
    return config


def _process_env(monkeypatch, home: Path, env: dict) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    for name, value in env.items():
        monkeypatch.setenv(name, value)


@pytest.mark.interop
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__[len("_scenario_") :])
def test_same_places_as_mempalace(mempalace_config, monkeypatch, home, cwd, tmp_path, scenario):
    env = scenario(home, tmp_path)
    _process_env(monkeypatch, home, env)
    config = mempalace_config.MempalaceConfig()
    theirs_palace = os.path.abspath(os.path.join(config.palace_path, KG_FILE))
    # knowledge_graph.DEFAULT_KG_PATH is this expression, frozen when the module is imported.
    theirs_default = os.path.expanduser("~/.mempalace/knowledge_graph.sqlite3")

    candidates = mempalace_graph_candidates(env=dict(env), home=home)
    ours = {rule: str(c.path) for c in candidates for rule in c.rules}
    assert ours == {DEFAULT: theirs_default, PALACE: theirs_palace}


@pytest.mark.interop
def test_mempalace_default_kg_path_is_the_rule_we_copy(mempalace_config):
    import inspect

    from mempalace import knowledge_graph

    # The constant is frozen at import under whatever HOME was set then, so pin its source.
    source = inspect.getsource(knowledge_graph)
    assert f'DEFAULT_KG_PATH = os.path.expanduser("~/.mempalace/{KG_FILE}")' in source


@pytest.mark.interop
def test_mempalace_fails_where_we_give_no_palace(mempalace_config, monkeypatch, home, cwd):
    write_config(home / ".mempalace", {"palace_path": None})
    _process_env(monkeypatch, home, {})
    with pytest.raises(TypeError):
        _ = mempalace_config.MempalaceConfig().palace_path
    assert [c.rules for c in mempalace_graph_candidates(env={}, home=home)] == [(DEFAULT,)]
