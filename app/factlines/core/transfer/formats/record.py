"""What a file format is to Factlines: the record each format's module declares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from factlines.core.progress import Progress, RowCounter
    from factlines.core.transfer.rows_file import ImportFile

# Rows a writer takes from the selection at a time: memory stays bounded on any graph.
BATCH = 2000

# writer(out, selection, meta, counter): the selection's entities and facts to the open text
# file ``out``, ``meta`` ({"as_of", "entity"}) saying what was selected, every row written
# counted on ``counter``.
Writer = Callable[[TextIO, Any, dict[str, Any], "RowCounter"], None]
# reader(path, progress): what the file holds, checked but not yet planned against a graph.
Reader = Callable[[Path, "Progress | None"], "ImportFile"]


@dataclass(frozen=True)
class Format:
    """A file format: ``name`` is what a person sees ("GraphML"), ``key`` what a program says
    (``factlines export --format graphml``, ``ExportSummary.format``), ``extensions`` the file
    name endings that ask for it, lower case, the first the one a new file gets. An export
    writes it with ``writer``, described to a person by ``export_words``; an import reads it
    with ``reader``, described by ``import_words``. A format has either or both."""

    key: str
    name: str
    extensions: tuple[str, ...]
    writer: Writer | None = None
    export_words: str = ""
    reader: Reader | None = None
    import_words: str = ""

    def __post_init__(self) -> None:
        if not self.extensions or any(
            not ext.startswith(".") or ext != ext.lower() for ext in self.extensions
        ):
            raise ValueError(f"{self.key}: extensions are lower case and start with a dot")
        if (self.writer is None) != (not self.export_words) or (self.reader is None) != (
            not self.import_words
        ):
            raise ValueError(f"{self.key}: a writer or reader comes with the words that say it")
        if self.writer is None and self.reader is None:
            raise ValueError(f"{self.key}: a format writes, reads, or both")
