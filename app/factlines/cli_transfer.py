"""``factlines export``, ``import`` and ``copy``: data in and out from the command line, no Qt.

    factlines export GRAPH OUT [--format KEY] [--as-of V] [--entity NAME]
    factlines import GRAPH IN [--good-rows]
    factlines copy SRC DST

The formats, their keys and extensions are :mod:`factlines.core.transfer.formats`.

Exit status: 0 done; 1 an import rejected rows (the report on stderr; nothing written unless
``--good-rows``); 2 refused (not a graph, a bad argument, a file that cannot be read, a copy's
target that holds a graph), or the graph was unavailable (locked, disk full: try again); 130
interrupted (nothing written). On a terminal, stderr shows how far the work is.
"""

from __future__ import annotations

import argparse
import sys
import time

from factlines.core.errors import Refused, Unavailable

COMMANDS = ("export", "import", "copy", "predicates", "rename-predicate")


def build_parser() -> argparse.ArgumentParser:
    """Every command that works on a graph without the window: these two, and the
    vocabulary's (:mod:`factlines.cli_predicates`)."""
    from factlines import cli_predicates
    from factlines.core.transfer import formats

    writing, reading = formats.writing(), formats.reading()
    parser = argparse.ArgumentParser(prog="factlines")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export",
        help=f"write a graph to {formats.names(writing)}",
        description="Write GRAPH to OUT, in the format --format names, else the one its "
        "extension names: "
        + formats.listed([f"{fmt.extensions[0]} ({fmt.export_words})" for fmt in writing])
        + ". The graph is only read.",
    )
    export.add_argument("graph", metavar="GRAPH", help="the knowledge graph file")
    export.add_argument(
        "out",
        metavar="OUT",
        help=f"the file to write ({', '.join(formats.extensions(writing))})",
    )
    export.add_argument(
        "--format",
        dest="fmt",
        metavar="KEY",
        choices=[fmt.key for fmt in writing],
        help=f"the format to write, whatever OUT's extension: "
        f"{formats.listed([fmt.key for fmt in writing])}",
    )
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
        help=f"add {formats.what_an_import_reads()} to a graph",
        description="Add IN to GRAPH (created when it does not exist), all or nothing: a row "
        "that breaks a rule is reported as 'line N: reason' on stderr and nothing is written, "
        "unless --good-rows. Rows the graph already has are reported and not added again. "
        f"IN is {formats.what_an_import_reads()}, as its extension says "
        f"({formats.READ_OTHERWISE.name} when it says none of these).",
    )
    imp.add_argument("graph", metavar="GRAPH", help="the knowledge graph file")
    imp.add_argument(
        "file", metavar="IN", help=f"a {formats.listed(formats.extensions(reading))} file"
    )
    imp.add_argument(
        "--good-rows",
        action="store_true",
        help="import the rows that pass even when others are rejected",
    )
    copy = commands.add_parser(
        "copy",
        help="copy a whole graph to a new place, losslessly",
        description="Copy the graph at SRC to DST: every row of both of MemPalace's tables, "
        "every column as stored (ids, provenance, values the time rules refuse), the graph's "
        "settings (single-valued predicates …) and Factlines' edit log. DST is created when "
        "missing; an empty graph takes the copy; a graph that holds anything is refused. "
        "All or nothing: interrupted or refused, DST is as it was. SRC is only read.",
    )
    copy.add_argument("source", metavar="SRC", help="the knowledge graph to copy")
    copy.add_argument("target", metavar="DST", help="where the copy goes (new, or an empty graph)")
    copy.set_defaults(run=_copy)
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

    fmt = args.fmt or format_of(args.out)  # before opening anything
    with open_graph(args.graph, read_only=True) as kg, TerminalProgress("exporting") as shown:
        done = export_graph(
            kg, args.out, fmt=fmt, as_of=args.as_of, entity=args.entity, progress=shown
        )
    print(f"{done.facts:,} facts and {done.entities:,} entities written to {done.path}")
    return 0


def _import(args) -> int:
    from factlines.core.store import discard_new_graph, graph_exists, open_graph
    from factlines.core.transfer import import_file

    created = not graph_exists(args.graph)
    report = None
    try:
        with open_graph(args.graph) as kg, TerminalProgress("importing") as shown:
            report = import_file(kg, args.file, good_rows=args.good_rows, progress=shown)
    finally:
        if created and (report is None or not report.written):
            discard_new_graph(args.graph)
    for line in report.lines():
        print(line, file=sys.stderr)
    if report.rejected and not report.written:
        good = "" if args.good_rows else " (--good-rows imports the others)"
        print(f"factlines import: {report.summary()}{good}", file=sys.stderr)
        return 1
    print(report.summary())
    return 1 if report.rejected else 0


def _copy(args) -> int:
    from factlines.core.transfer import copy_graph

    with TerminalProgress("copying") as shown:
        done = copy_graph(args.source, args.target, progress=shown)
    print(done.words())
    return 0


class TerminalProgress:
    """``progress(done, total)`` for a command: on a terminal, "copying: 42,000 of 112,345
    rows" on stderr, rewritten in place a few times a second and cleared at the end; nothing
    when stderr is not a terminal (a script's log stays clean)."""

    EVERY_S = 0.2

    def __init__(self, verb: str):
        self._verb = verb
        self._shown = sys.stderr.isatty()
        self._last = 0.0
        self._width = 0

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *_exc) -> None:
        if self._width:
            print("\r" + " " * self._width + "\r", end="", file=sys.stderr, flush=True)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self._shown or now - self._last < self.EVERY_S:
            return
        self._last = now
        text = f"{self._verb}: {done:,} of {total:,} rows" if total else f"{self._verb}…"
        print("\r" + text.ljust(self._width), end="", file=sys.stderr, flush=True)
        self._width = max(self._width, len(text))
