"""``factlines predicates`` and ``factlines rename-predicate``: the vocabulary from the command
line, no Qt.

    factlines predicates GRAPH
    factlines rename-predicate GRAPH OLD NEW [--in-place] [--at V] [--reason TEXT]

Exit status (as :mod:`factlines.cli_transfer`, which runs them): 0 done; 2 refused (not a
graph, no such predicate, a bad name or time) or the graph was unavailable (locked, disk full:
try again), nothing written.
"""

from __future__ import annotations

_HEADERS = ("predicate", "valid now", "ended", "subjects", "objects", "signals")


def add_commands(commands) -> None:
    """Add the two commands to ``commands`` (the subparsers of ``factlines``; see
    :mod:`factlines.cli_transfer`, which runs them)."""
    listing = commands.add_parser(
        "predicates",
        help="list the predicates with their figures and audit signals",
        description="List every predicate of GRAPH: facts valid now, ended, distinct subjects "
        "and objects, and what MemPalace's audit would flag (one-off, near-duplicates). The "
        "graph is only read.",
    )
    listing.add_argument("graph", metavar="GRAPH", help="the knowledge graph file")
    rename = commands.add_parser(
        "rename-predicate",
        help="rename a predicate, or merge it into another, keeping its history",
        description="Rename OLD to NEW, or merge it into NEW when facts carry NEW already. By "
        "default the history is kept: each open fact of OLD ends at one instant and the same "
        "fact opens there under NEW; ended facts keep OLD. A fact already open under NEW is "
        "not doubled. Logged in Factlines' edit log.",
    )
    rename.add_argument("graph", metavar="GRAPH", help="the knowledge graph file")
    rename.add_argument("old", metavar="OLD", help="the predicate as the facts carry it")
    rename.add_argument("new", metavar="NEW", help="the new name (stored as MemPalace would)")
    rename.add_argument(
        "--in-place",
        action="store_true",
        help="the old wording was simply wrong: rewrite every fact of OLD, ended ones too",
    )
    rename.add_argument(
        "--at", metavar="V", help="the instant of the change (default now; not with --in-place)"
    )
    rename.add_argument("--reason", metavar="TEXT", help="why, kept in the edit log")
    listing.set_defaults(run=_list)
    rename.set_defaults(run=_rename)


def _list(args) -> int:
    from factlines.core.store import open_graph

    with open_graph(args.graph, read_only=True) as kg:
        rows = kg.predicate_stats()
    table = [_HEADERS] + [
        (
            str(row["predicate"]),
            *(f"{row[key]:,}" for key in ("current", "ended", "subjects", "objects")),
            ", ".join(row["signals"]),
        )
        for row in rows
    ]
    widths = [max(len(line[c]) for line in table) for c in range(len(_HEADERS) - 1)]
    for line in table:
        cells = [line[0].ljust(widths[0])]
        cells += [text.rjust(width) for text, width in zip(line[1:-1], widths[1:])]
        print("  ".join([*cells, line[-1]]).rstrip())
    return 0


def _rename(args) -> int:
    from factlines.core.store import open_graph, report_words

    with open_graph(args.graph, create=False) as kg:
        report = kg.rename_predicate(
            args.old, args.new, keep_history=not args.in_place, at=args.at, reason=args.reason
        )
    verb = "merged into" if report["merged"] else "renamed to"
    print(f"{report['old']} {verb} {report['new']}: {report_words(report)}")
    return 0
