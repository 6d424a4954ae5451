"""``factlines export`` and ``factlines import``: data in and out from the command line, no Qt.

    factlines export GRAPH OUT.{json,csv,graphml} [--as-of V] [--entity NAME]
    factlines import GRAPH IN.{json,csv} [--good-rows]

Exit status: 0 done; 1 an import rejected rows (the report on stderr; nothing written unless
``--good-rows``); 2 refused (not a graph, a bad argument, a file that cannot be read), or the
graph was unavailable (locked, disk full: try again); 130 interrupted (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from factlines.core.errors import Refused, Unavailable

COMMANDS = ("export", "import", "predicates", "rename-predicate")


def build_parser() -> argparse.ArgumentParser:
    """Every command that works on a graph without the window: these two, and the
    vocabulary's (:mod:`factlines.cli_predicates`)."""
    from factlines import cli_predicates

    parser = argparse.ArgumentParser(prog="factlines")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export",
        help="write a graph to JSON (a lossless copy), CSV or GraphML",
        description="Write GRAPH to OUT, in the format its extension names: .json (every "
        "column of both tables, as stored: a copy that imports back exactly), .csv (one row per "
        "fact) or .graphml (yEd, Gephi, networkx). The graph is only read.",
    )
    export.add_argument("graph", metavar="GRAPH", help="the knowledge graph file")
    export.add_argument("out", metavar="OUT", help="the file to write (.json, .csv, .graphml)")
    export.add_argument(
        "--as-of",
        metavar="V",
        help="only the facts valid at V (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ) and their entities",
    )
    export.add_argument(
        "--entity", metavar="NAME", help="only the facts with NAME (a name or an id) on either side"
    )
    export.set_defaults(run=_export)
    imp = commands.add_parser(
        "import",
        help="add a Factlines JSON export, a CSV or MemPalace's entity_facts to a graph",
        description="Add IN to GRAPH (created when it does not exist), all or nothing: a row "
        "that breaks a rule is reported as 'line N: reason' on stderr and nothing is written, "
        "unless --good-rows. Rows the graph already has are reported and not added again.",
    )
    imp.add_argument("graph", metavar="GRAPH", help="the knowledge graph file")
    imp.add_argument("file", metavar="IN", help="a .json (export or entity_facts) or .csv file")
    imp.add_argument(
        "--good-rows",
        action="store_true",
        help="import the rows that pass even when others are rejected",
    )
    imp.set_defaults(run=_import)
    cli_predicates.add_commands(commands)
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (Refused, Unavailable) as exc:
        print(f"factlines {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"factlines {args.command}: interrupted; nothing was written", file=sys.stderr)
        return 130


def _export(args) -> int:
    from factlines.core.store import open_graph
    from factlines.core.transfer import export_graph, format_of

    format_of(args.out)  # before opening anything
    with open_graph(args.graph, read_only=True) as kg:
        done = export_graph(kg, args.out, as_of=args.as_of, entity=args.entity)
    print(f"{done.facts:,} facts and {done.entities:,} entities written to {done.path}")
    return 0


def _import(args) -> int:
    from factlines.core.store import open_graph
    from factlines.core.transfer import import_file

    path = Path(args.graph)
    created = not path.exists()
    report = None
    try:
        with open_graph(path) as kg:
            report = import_file(kg, args.file, good_rows=args.good_rows)
    finally:
        if created and (report is None or not report.written):
            _remove_new_graph(path)
    for line in report.lines():
        print(line, file=sys.stderr)
    if report.rejected and not report.written:
        good = "" if args.good_rows else " (--good-rows imports the others)"
        print(f"factlines import: {report.summary()}{good}", file=sys.stderr)
        return 1
    print(report.summary())
    return 1 if report.rejected else 0


def _remove_new_graph(path: Path) -> None:
    """The graph this command created, with nothing imported into it, is not left behind."""
    for side in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{side}").unlink(missing_ok=True)
