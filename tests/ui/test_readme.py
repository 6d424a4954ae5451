"""The README stays true to the repository: its pictures exist, its commands are the real ones."""

from __future__ import annotations

import re
from pathlib import Path

from factlines.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TEST_COMMAND = (
    'pip install -e ".[test,palace-test]" && pip install --no-deps mempalace==3.11.0 '
    "python-dateutil pyyaml"
    " && python -m pytest -n auto"
)


def test_the_picture_comes_first_and_every_picture_exists():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert pictures and README.index(pictures[0]) < README.index("## ")
    for picture in pictures:
        assert (ROOT / picture).is_file(), picture
        assert picture.startswith("resources/readme/"), picture


def test_the_test_command_is_the_one_ci_runs_in_a_fresh_venv():
    assert TEST_COMMAND in README.splitlines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TEST_COMMAND in ci, "CI runs the README's command as a person types it"
    venv = ci.index("python3 -m venv .venv")
    assert venv < ci.index(". .venv/bin/activate") < ci.index(TEST_COMMAND)


def test_every_benchmark_script_is_listed_with_its_command():
    benchmarks = README[README.index("## Benchmarks") :]
    for script in sorted((ROOT / "tests" / "bench").glob("*.py")):
        assert f"python tests/bench/{script.name}" in benchmarks, script.name


def test_the_screenshot_commands_use_real_options():
    options = {opt for action in build_parser()._actions for opt in action.option_strings}
    commands = re.findall(r"`factlines ([^`]*--screenshot[^`]*)`", README)
    assert len(commands) >= 3
    for command in commands:
        for option in re.findall(r"(--[a-z-]+)", command):
            assert option in options, (option, command)
