#!/usr/bin/env bash
# Build the standalone bundle dist/factlines/ in a fresh venv, run it, and print its size.
#
#   packaging/build-bundle.sh [SCREENSHOT.png]
#
# The venv is build/bundle-venv (made anew each time). The bundle is then run offscreen:
# `--version`, and `--demo --screenshot` into SCREENSHOT.png (build/bundle-window.png if not
# given), so a bundle that does not start fails the build. It also fails when the bundle is
# over BUNDLE_LIMIT bytes (200,000,000 unless set).
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
venv=build/bundle-venv
shot="$(realpath -m "${1:-build/bundle-window.png}")"
limit="${BUNDLE_LIMIT:-200000000}"

rm -rf "$venv" build/factlines dist/factlines
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check . pyinstaller
"$venv/bin/pyinstaller" --noconfirm --log-level WARN packaging/factlines.spec

settings="$(mktemp -d)"
trap 'rm -rf "$settings"' EXIT
export QT_QPA_PLATFORM=offscreen FACTLINES_SETTINGS="$settings/settings.ini"
mkdir -p "$(dirname "$shot")"
rm -f "$shot"
dist/factlines/factlines --version
dist/factlines/factlines --demo --screenshot "$shot"
if [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "build-bundle: $shot is not a PNG" >&2
    exit 1
fi

size="$(du -sb dist/factlines | cut -f1)"
echo "dist/factlines: $size bytes ($((size / 1000000)) MB; limit $limit)"
if [ "$size" -gt "$limit" ]; then
    echo "build-bundle: the bundle is over the limit" >&2
    exit 1
fi
