"""The command line. Qt is imported only once the arguments ask to run the app."""

from __future__ import annotations

import argparse
import sys

from factlines import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="factlines",
        description="Browse and hand-edit a temporal knowledge graph (MemPalace's SQLite file).",
    )
    parser.add_argument("--version", action="version", version=f"factlines {__version__}")
    parser.add_argument("path", nargs="?", help="the knowledge graph file to open")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from factlines.ui.app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
