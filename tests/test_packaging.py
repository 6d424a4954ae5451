"""The project as a newcomer meets it: a plain (not editable) install, the entry points, ruff."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from factlines import APP_ID

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    # Build from a copy so no build/ or egg-info litter lands in the work tree.
    src = build / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", "__pycache__", "*.egg-info", "build", "dist", "shots"
        ),
    )
    result = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(out),
            str(src),
        ]
    )
    assert result.returncode == 0, result.stderr
    (wheel_file,) = out.glob("factlines-*.whl")
    return wheel_file


def test_wheel_ships_the_resources(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "factlines/resources/demo.json" in names
    assert "factlines/resources/factlines.svg" in names, "the window icon"
    assert not any(name.startswith("tests/") for name in names)
    assert not any("readme" in name for name in names), "the README's pictures are not shipped"


@pytest.mark.slow
def test_plain_install_runs_and_finds_its_resources(wheel, tmp_path):
    venv = tmp_path / "venv"
    # System site packages provide PySide6/pyqtgraph/numpy; factlines itself comes from the wheel.
    assert run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)]).returncode == 0
    bin_dir = venv / "bin"
    install = run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-deps", str(wheel)])
    assert install.returncode == 0, install.stderr
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "FACTLINES_SETTINGS": str(tmp_path / "s.ini"),
    }
    probe = run(
        [
            str(bin_dir / "python"),
            "-c",
            "import factlines, factlines.core.resources as r; "
            "print(factlines.__file__); print(r.resource_path('demo.json'))",
        ],
        cwd=tmp_path,
        env=env,
    )
    assert probe.returncode == 0, probe.stderr
    module_file, demo = probe.stdout.split()
    assert str(venv) in module_file, "the installed wheel, not the source tree, was imported"
    assert str(venv) in demo
    version = run([str(bin_dir / "factlines"), "--version"], cwd=tmp_path, env=env)
    assert version.returncode == 0 and version.stdout.startswith("factlines "), version.stderr
    shot = tmp_path / "window.png"
    result = run(
        [str(bin_dir / "factlines"), "--demo", "--screenshot", str(shot)], cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_python_m_factlines_version():
    result = run([sys.executable, "-m", "factlines", "--version"], cwd=ROOT)
    assert result.returncode == 0, result.stderr
    from factlines import __version__

    assert result.stdout.strip() == f"factlines {__version__}"


def test_tree_is_clean_under_ruff():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it comes with the test extra)")
    check = run([ruff, "check", "app", "tests"], cwd=ROOT)
    assert check.returncode == 0, check.stdout
    fmt = run([ruff, "format", "--check", "app", "tests"], cwd=ROOT)
    assert fmt.returncode == 0, fmt.stdout


def test_app_names_its_desktop_file_and_has_an_icon(tmp_path):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": str(ROOT / "app"),
    }
    probe = run(
        [
            sys.executable,
            "-c",
            "from factlines.ui.app import _application; app = _application(); "
            "print(app.desktopFileName()); print(app.windowIcon().pixmap(32).isNull())",
        ],
        cwd=tmp_path,
        env=env,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == [APP_ID, "False"]


def test_bundle_spec_and_build_script_parse():
    """Building the bundle takes minutes (packaging/build-bundle.sh); this only reads them."""
    compile((PACKAGING / "factlines.spec").read_text(encoding="utf-8"), "factlines.spec", "exec")
    script = PACKAGING / "build-bundle.sh"
    assert os.access(script, os.X_OK)
    assert run(["bash", "-n", str(script)]).returncode == 0
