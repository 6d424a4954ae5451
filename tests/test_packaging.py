"""The project as a newcomer meets it: a plain (not editable) install, the entry points, ruff;
and what a desktop sees of it: the desktop file, the AppStream metainfo and the icons."""

import os
import shutil
import struct
import subprocess
import sys
import zipfile
from configparser import ConfigParser
from pathlib import Path
from xml.etree import ElementTree

import pytest

from factlines import APP_ID, __version__

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
ICON_SIZES = (16, 32, 48, 64, 128, 256)


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
        # CI's .venv (PySide6 and all) and the tools' caches are no part of the project.
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            ".*_cache",
            ".hypothesis",
            "__pycache__",
            "*.egg-info",
            "build",
            "dist",
            "shots",
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


@pytest.mark.slow
def test_wheel_ships_the_resources(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "factlines/resources/demo.json" in names
    assert "factlines/resources/factlines.svg" in names, "the window icon"
    assert not any(name.startswith("tests/") for name in names)
    assert not any("readme" in name for name in names), "the README's pictures are not shipped"


@pytest.mark.slow
def test_plain_install_runs_and_finds_its_resources(wheel, tmp_path):
    # A plain venv, as a newcomer makes one: the wheel brings its own dependencies (PySide6,
    # pyqtgraph, numpy) from the registry or pip's cache, nothing comes from this Python.
    # This Python's pip installs into it (--python): seeding the venv with a pip of its own
    # and byte-compiling the dependencies took two thirds of the test and prove nothing here.
    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", "--without-pip", str(venv)]).returncode == 0
    bin_dir = venv / "bin"
    install = run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(bin_dir / "python"),
            "install",
            "-q",
            "--no-compile",
            "--disable-pip-version-check",
            str(wheel),
        ]
    )
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


def validator(name):
    """The validator's path; CI installs it (.ci/run), so there its absence fails."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed (apt-get install appstream desktop-file-utils)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def complaints(output):
    return [
        line
        for line in output.splitlines()
        if line.startswith(("E:", "W:")) or "error:" in line or "warning:" in line
    ]


def test_desktop_file_passes_desktop_file_validate():
    result = run([validator("desktop-file-validate"), str(DESKTOP)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert not complaints(result.stdout + result.stderr), result.stdout + result.stderr


def test_metainfo_passes_appstreamcli_validate():
    result = run([validator("appstreamcli"), "validate", "--no-net", str(METAINFO)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert not complaints(result.stdout + result.stderr), result.stdout + result.stderr


def test_desktop_file_metainfo_and_icons_share_the_app_id():
    entry = ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(DESKTOP, encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Icon"] == APP_ID
    assert desktop["Exec"].split()[0] == "factlines", "the command both pip and the bundle give"

    component = ElementTree.parse(METAINFO).getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    releases = [release.get("version") for release in component.iter("release")]
    assert releases[0] == __version__, "the newest release in the metainfo is this version"

    svg = ElementTree.parse(ROOT / "resources" / "factlines.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    for size in ICON_SIZES:
        png = PACKAGING / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        header = png.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n", png
        assert struct.unpack(">II", header[16:24]) == (size, size), png


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
