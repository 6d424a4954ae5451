"""Data in and out of a graph: export and import in the formats :mod:`.formats` lists (JSON,
CSV, GraphML; an import also takes MemPalace's entity_facts seed) and a whole graph copied to
another place, streamed, cancellable through a ``progress(done, total)`` callback, pure Python
(no Qt)."""

from factlines.core.progress import Cancelled, Progress
from factlines.core.transfer.copying import CopySummary, copy_graph
from factlines.core.transfer.csv_rows import CSV_HEADER
from factlines.core.transfer.export import ExportSummary, export_graph, format_of
from factlines.core.transfer.importing import ImportReport, import_file, import_recorded
from factlines.core.transfer.json_reader import FORMAT, VERSION
from factlines.core.transfer.readers import Problem

__all__ = [
    "CSV_HEADER",
    "FORMAT",
    "VERSION",
    "Cancelled",
    "CopySummary",
    "ExportSummary",
    "ImportReport",
    "Problem",
    "Progress",
    "copy_graph",
    "export_graph",
    "format_of",
    "import_file",
    "import_recorded",
]
