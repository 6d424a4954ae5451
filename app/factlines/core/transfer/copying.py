"""Copy a whole graph to another place, whatever engine keeps either (``factlines copy``).

A copy is lossless: every row of MemPalace's two tables with every column exactly as stored
(ids, provenance, values the time rules refuse: ``""``, ``2025-06``, a confidence that is not a
number), in the source's order; the app's settings of the graph (``fl_meta``: single-valued
predicates and whatever else the app keeps per graph); and Factlines' edit log, whose entries
are about these very rows (their ids are kept), so each fact's story travels with it. What an
engine keeps for itself is not copied but made by the target's engine as it does for any
graph: its schema version, its default indexes (speed indexes are asked for again there).

The source is only read, in one snapshot, so the copy is one state of it even while MemPalace
writes. The target is a new place (created when missing) or an empty graph; a graph that holds
anything is refused, never merged into or overwritten. A new file is written beside the
target under a hidden name and given the target's name when complete: until then the target
does not exist, so a copy cancelled, failed or killed leaves none (a killed one leaves the
hidden file). An existing empty graph (or a new PostgreSQL graph) is written in place, in short
transactions, so that MemPalace, should it have the target open, writes in between (an
entity it made meanwhile is kept as it made it). Cancelled (``progress`` returning False),
refused or failed, what the copy wrote is taken back, and a graph this copy created is removed
again while it holds nothing but what the copy made (no other program's rows, no other program
has it open); killed, what its committed transactions wrote stays.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Progress, RowCounter, report
from factlines.core.store import discard_new_graph, graph_exists, open_graph, same_graph
from factlines.core.transfer.plan import CHUNK, still_new

if TYPE_CHECKING:
    from factlines.core.store.facade import KnowledgeGraph

_LOG_PAGE = 1000


@dataclass(frozen=True)
class CopySummary:
    """What a copy wrote into the target."""

    source: str
    target: str
    entities: int
    facts: int
    settings: int  # the graph's own settings carried (fl_meta keys)
    logged_edits: int  # Factlines' edit log entries carried
    created: bool  # the target did not exist before

    def words(self) -> str:
        """One sentence for a status line or the command line."""
        extra = [
            f"{count:,} {noun}{'' if count == 1 else 's'}"
            for count, noun in ((self.settings, "setting"), (self.logged_edits, "logged edit"))
            if count
        ]
        carried = f" (and {', '.join(extra)})" if extra else ""
        return (
            f"{self.facts:,} facts and {self.entities:,} entities{carried} copied from "
            f"{self.source} to {self.target}"
        )


def copy_graph(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    progress: Progress | None = None,
) -> CopySummary:
    """Copy the graph at ``source`` into ``target`` (see the module): a path or any location
    :func:`~factlines.core.store.open_graph` opens.

    ``progress(done, total)`` counts rows (entities, then facts) and may cancel
    (:mod:`.progress`): then nothing is written. Refused: a source that is missing or not a
    knowledge graph (untouched), a target that is the source, holds a graph with rows, is not
    a knowledge graph, or may not be written. Unavailable: either is locked, full, gone.
    """
    if same_graph(source, target):
        raise Refused(f"{target} is the graph being copied; copy it to another place")
    with open_graph(source, read_only=True) as src:
        created = not graph_exists(target)
        beside = _file_beside(target) if created else None
        if beside is not None:
            copied = _copy_beside(src, beside, Path(target).expanduser(), progress)
        else:
            try:
                with open_graph(target) as dst:
                    copied = _copy(src, dst, progress)
            except BaseException as failure:
                if created:
                    _discard_after(failure, target)
                raise
    entities, facts, settings, logged = copied
    return CopySummary(str(source), str(target), entities, facts, settings, logged, created)


def _file_beside(target: str | os.PathLike[str]) -> Path | None:
    """Where a copy to a new file is written first: a hidden file beside ``target``, in the
    same folder (so that it is renamed into place, not copied); None when ``target`` is not a
    file in a folder that exists (a database's URL; a missing folder, which the store refuses
    in words)."""
    if "://" in str(target):
        return None
    path = Path(target).expanduser()
    if not path.parent.is_dir():
        return None
    return path.parent / f".{path.name}.copying-{secrets.token_hex(6)}"


def _copy_beside(
    src: KnowledgeGraph, beside: Path, target: Path, progress: Progress | None
) -> tuple[int, int, int, int]:
    """Copy into a new file at ``beside``, then give it the name ``target`` (a link, never
    over a file another program made there meanwhile: then refused, and the copy removed).
    Until then ``target`` does not exist: a copy cancelled, failed or killed leaves it so."""
    try:
        with open_graph(beside) as dst:
            copied = _copy(src, dst, progress)
        if any(Path(f"{beside}{side}").exists() for side in ("-wal", "-journal")):
            raise Unavailable(f"the copy at {beside} could not be finished; {target} was not made")
        try:
            os.link(beside, target)
        except FileExistsError:
            raise Refused(
                f"{target} was made by another program while the copy was written; the copy "
                "was not put there"
            ) from None
        except OSError as exc:
            if target.exists() or exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                raise Unavailable(f"cannot make {target}: {exc.strerror or exc}") from None
            os.rename(beside, target)  # a file system without links: renamed while absent
    finally:
        for side in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{beside}{side}")
    return copied


def _discard_after(failure: BaseException, target: str | os.PathLike[str]) -> None:
    """Remove the graph a failed copy created, if it may; the copy's own error is the one the
    person is told (a server gone mid-copy cannot be reached to tidy up either): a failure to
    tidy up is added to it as a note, never raised instead."""
    try:
        discard_new_graph(target)
    except Exception as cleanup:
        note = getattr(failure, "add_note", None)  # Python 3.11
        if note is not None:
            note(f"the new graph at {target} could not be removed: {cleanup}")


def _copy(
    src: KnowledgeGraph, dst: KnowledgeGraph, progress: Progress | None
) -> tuple[int, int, int, int]:
    with src.selection() as rows, dst.batched():
        counter = RowCounter(progress, rows.entity_count + rows.fact_count)
        counter.add(0)
        checked = False

        def write(part: tuple[str, list[tuple[Any, ...]]]) -> None:
            nonlocal checked
            table, batch = part
            checked = checked or _prepare(dst, rows.extras)
            fresh = still_new(dst, table, batch, rows.columns[table])
            dst.insert_rows(table, fresh, columns=rows.columns[table])

        parts = (
            (table, batch)
            for table, batches in (("entities", rows.entity_rows), ("triples", rows.fact_rows))
            for batch in batches(CHUNK)
        )
        dst.write_in_parts(parts, write, lambda part: counter.add(len(part[1])))
        settings = src.graph_settings()
        logged = _edit_log(src)
        with dst.batch():
            if not checked:
                _prepare(dst, rows.extras)
            dst.set_graph_settings(settings)
            dst.add_edit_log_entries(logged)
            # The last word before the last write is committed: a cancel until now leaves
            # nothing (what the earlier writes wrote is taken back).
            report(progress, counter.done, counter.total)
    return rows.entity_count, rows.fact_count, len(settings), len(logged)


def _prepare(dst: KnowledgeGraph, extras: dict[str, list[tuple[str, str]]]) -> bool:
    """Inside the copy's first write: refuse a target that holds a graph, then give it the
    columns a newer MemPalace added to the source's tables."""
    held = dst.stats()
    if held["entities"] or held["triples"]:
        raise Refused(
            f"{dst.db_path} already holds a graph ({held['triples']:,} facts, "
            f"{held['entities']:,} entities): a copy goes only into a new place or an "
            "empty graph, never over or into another graph"
        )
    for table, columns in extras.items():
        dst.add_columns(table, columns)
    return True


def _edit_log(kg: KnowledgeGraph) -> list[dict[str, Any]]:
    """Every entry of ``kg``'s edit log, oldest first."""
    entries: list[dict[str, Any]] = []
    while page := kg.edit_log(_LOG_PAGE, len(entries)):
        entries += page
        if len(page) < _LOG_PAGE:
            break
    entries.reverse()
    return entries
