"""The command line. Qt is imported only once the arguments ask to run the app."""

from __future__ import annotations

import argparse
import sys

from factlines import __version__
from factlines.cli_transfer import COMMANDS


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1500x950") from None
    if not (200 <= width <= 8000 and 200 <= height <= 8000):
        raise argparse.ArgumentTypeError(f"{text!r}: each side must be 200 to 8000 pixels")
    return width, height


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="factlines",
        description="Browse and hand-edit a temporal knowledge graph (MemPalace's SQLite file).",
        epilog="Without PATH or --demo: the last file, else ~/.mempalace/knowledge_graph.sqlite3, "
        "else a new empty graph in the platform's data folder. Data in and out: "
        "'factlines export --help', 'factlines import --help', 'factlines copy --help'. "
        "The vocabulary: "
        "'factlines predicates --help', 'factlines rename-predicate --help'.",
    )
    parser.add_argument("--version", action="version", version=f"factlines {__version__}")
    parser.add_argument(
        "path",
        nargs="?",
        help="the knowledge graph file to open, or a PostgreSQL database's URL "
        "(postgresql://user@host/dbname; needs factlines[postgres])",
    )
    parser.add_argument(
        "--demo", action="store_true", help="open the bundled demo graph (a temporary copy)"
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="open the graph to look at it only: nothing is written to the file",
    )
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        help="render the window to PNG and exit (offscreen unless QT_QPA_PLATFORM says otherwise)",
    )
    parser.add_argument("--entity", metavar="NAME", help="select this entity at start")
    parser.add_argument(
        "--as-of", metavar="VALUE", help="as_of at start: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ"
    )
    parser.add_argument(
        "--size", type=_size, metavar="WxH", help="window size for --screenshot (1500x950)"
    )
    parser.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        help="colours for this run, not kept (View > Theme keeps one)",
    )
    parser.add_argument(
        "--settings", metavar="INI", help="keep window settings in this file (FACTLINES_SETTINGS)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments and arguments[0] in COMMANDS:
        from factlines.cli_transfer import main as command

        return command(arguments)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.demo and args.path:
        parser.error("give a PATH or --demo, not both")
    if args.demo and args.read_only:
        parser.error("--read-only opens a file of yours; the demo is a copy to edit freely")
    from factlines.ui.app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
