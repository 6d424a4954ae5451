"""Export a graph, or a selection of it, in one of the formats :mod:`.formats` lists (JSON,
a lossless copy; CSV; GraphML).

The whole history or the snapshot at ``as_of`` (the facts valid then, contract §2.4), the whole
graph or one ``entity`` (its facts in either direction); the entities written are those the
facts refer to (every entity for a whole, unfiltered export). Everything is read in one
snapshot of the file and written as it is read, batch by batch, to a file beside the target
that replaces it only when complete: a cancelled or failed export leaves no partial file.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from factlines.core import temporal
from factlines.core.errors import Refused, Unavailable
from factlines.core.progress import Progress, RowCounter, report
from factlines.core.store.facade import same_graph
from factlines.core.transfer import formats

if TYPE_CHECKING:
    from factlines.core.store.facade import KnowledgeGraph

# The first bytes of every SQLite database: an export never replaces one.
_SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    path: Path
    format: str
    entities: int
    facts: int


def format_of(path: str | os.PathLike[str]) -> str:
    """The key of the format a file name asks for (``json`` for ``.json``, …); refused when it
    names none an export writes."""
    fmt = formats.named_by(path, formats.writing())
    if fmt is None:
        raise Refused(
            f"{Path(path).name}: the file name must end in "
            f"{', '.join(formats.extensions(formats.writing()))} to say which format to write"
        )
    return fmt.key


def export_graph(
    kg: KnowledgeGraph,
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    as_of: str | None = None,
    entity: str | None = None,
    progress: Progress | None = None,
) -> ExportSummary:
    """Write ``kg`` (or its facts valid at ``as_of``, or ``entity``'s facts) to ``path``.

    ``fmt`` defaults to the file name's extension. ``progress(done, total)`` counts rows
    (entities, then facts) and may cancel (:mod:`.progress`). The graph is only read.
    Refused: an unknown format, an ``as_of`` that is not a time, an ``entity`` not in the
    graph. Returns what was written.
    """
    target = Path(path)
    fmt = fmt or format_of(target)
    writer = formats.to_write(fmt).writer
    assert writer is not None  # to_write gives a format that writes
    as_of = temporal.parse(as_of, "as_of")
    mode = _mode_for(target, kg)
    with kg.selection(as_of=as_of, entity=entity) as selection:
        total = selection.entity_count + selection.fact_count
        part = _part_beside(target)
        try:
            with open(part, "w", encoding="utf-8", newline="") as handle:
                report(progress, 0, total)
                meta = {"as_of": as_of, "entity": entity}
                writer(handle, selection, meta, RowCounter(progress, total))
            if mode is not None:
                os.chmod(part, mode)
            os.replace(part, target)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
        return ExportSummary(target, fmt, selection.entity_count, selection.fact_count)


def _mode_for(target: Path, kg: KnowledgeGraph) -> int | None:
    """The mode of the file the export replaces (None: a new file, which keeps the mode it was
    made with, 0666 less the umask). Refused: a target that is the graph being read, or any
    SQLite database (an open graph perhaps: an export never replaces one)."""
    try:
        with open(target, "rb") as existing:
            header = existing.read(len(_SQLITE_MAGIC))
            mode = os.stat(existing.fileno()).st_mode & 0o7777
    except FileNotFoundError:
        return None
    except OSError:
        return None  # not readable: the replace below says why in words, or succeeds
    if header == _SQLITE_MAGIC or same_graph(target, kg.db_path):
        raise Refused(
            f"{target} is a database (perhaps the graph itself): an export never replaces one; "
            "choose another file name"
        )
    return mode


def _part_beside(target: Path) -> str:
    """A new, empty file beside ``target`` to write the export into, made as any new file is
    (0666 less the umask: mkstemp's 0600 would stay on the export); a folder that is missing or
    may not be written is said in words."""
    folder = target.parent
    try:
        while True:
            part = str(folder / f".{target.name}.{secrets.token_hex(6)}.part")
            try:
                fd = os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
                break
            except FileExistsError:
                continue
    except FileNotFoundError:
        raise Refused(f"the folder {folder} does not exist: choose another place") from None
    except PermissionError:
        raise Unavailable(f"you may not write in the folder {folder}") from None
    except OSError as exc:
        raise Unavailable(f"cannot write in {folder}: {exc.strerror or exc}") from None
    os.close(fd)
    return part
