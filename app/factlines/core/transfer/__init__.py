"""Data in and out of a graph: export (JSON, CSV, GraphML) and import (Factlines' JSON, CSV,
MemPalace's entity_facts seed), streamed, cancellable through a ``progress(done, total)``
callback, pure Python (no Qt)."""

from factlines.core.progress import Cancelled, Progress
from factlines.core.transfer.export import (
    CSV_HEADER,
    EXTENSIONS,
    FORMAT,
    VERSION,
    ExportSummary,
    export_graph,
    format_of,
)
from factlines.core.transfer.importing import ImportReport, import_file
from factlines.core.transfer.readers import Problem

__all__ = [
    "CSV_HEADER",
    "EXTENSIONS",
    "FORMAT",
    "VERSION",
    "Cancelled",
    "ExportSummary",
    "ImportReport",
    "Problem",
    "Progress",
    "export_graph",
    "format_of",
    "import_file",
]
