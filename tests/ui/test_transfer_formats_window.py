"""The window lists the formats the registry has: the export form's choices and file types,
the import's file types and both actions' tips; a format added to the registry is in each of
them, and the export form names a file by it."""

from __future__ import annotations

from pathlib import Path

import pytest

from factlines.core.transfer import formats
from factlines.core.transfer.formats import Format
from factlines.core.transfer.formats.csv_format import CSV
from factlines.core.transfer.formats.graphml_format import GRAPHML
from factlines.core.transfer.formats.json_format import JSON, write_json
from factlines.core.transfer.json_reader import read_json
from factlines.ui.forms import import_export_forms
from factlines.ui.forms.import_export_forms import ExportDialog, export_filter, import_filter
from factlines.ui.menus import import_export as transfer_actions
from ui_fixtures import *  # noqa: F403

# The registry as it ships: what the words below expect, whatever formats are added later.
SHIPPED = (JSON, CSV, GRAPHML)
# Factlines' JSON by another name: a format the registry does not have.
NOTES = Format(
    key="notes",
    name="Notes",
    extensions=(".notes", ".nts"),
    writer=write_json,
    export_words="JSON by another name",
    reader=read_json,
    import_words="an export by another name",
)


@pytest.fixture
def notes(monkeypatch) -> Format:
    """NOTES registered, before the window (listed after this fixture) is made."""
    monkeypatch.setattr(formats, "FORMATS", (*SHIPPED, NOTES))
    return NOTES


@pytest.fixture
def shipped(monkeypatch) -> None:
    monkeypatch.setattr(formats, "FORMATS", SHIPPED)


def _chosen_filter(monkeypatch, dialog_module, name: str) -> list[str]:
    """The file types the next ``QFileDialog.name`` is shown with (it is cancelled)."""
    seen: list[str] = []

    def cancelled(_parent, _title, _where, types, *_rest, **_kw):
        seen.append(types)
        return "", ""

    monkeypatch.setattr(dialog_module.QFileDialog, name, cancelled)
    return seen


def test_the_file_types_are_the_registrys(shipped, qapp):
    assert export_filter() == "JSON (*.json);;CSV (*.csv);;GraphML (*.graphml);;All files (*)"
    assert import_filter() == (
        "Graph data (*.json *.csv);;"
        "JSON: a Factlines export or MemPalace's entity_facts (*.json);;"
        "CSV: one fact per row (*.csv);;All files (*)"
    )


def test_a_registered_format_is_in_the_export_form(notes, qtbot, tmp_path, monkeypatch):
    dialog = ExportDialog(tmp_path / "graph.json", None, None)
    qtbot.addWidget(dialog)
    choices = [dialog.format.itemText(i) for i in range(dialog.format.count())]
    assert choices == [
        "As the file name says (.json, .csv, .graphml, .notes, .nts)",
        "JSON: a lossless copy of both tables, ids included",
        "CSV: one row per fact",
        "GraphML: for yEd, Gephi, networkx",
        "Notes: JSON by another name",
    ]
    dialog.format.setCurrentIndex(choices.index("Notes: JSON by another name"))
    assert Path(dialog.path.text()).name == "graph.notes"  # the name follows the format
    dialog.path.setText(str(tmp_path / "graph.nts"))
    dialog.format.setCurrentIndex(0)
    dialog.format.setCurrentIndex(choices.index("Notes: JSON by another name"))
    assert Path(dialog.path.text()).name == "graph.nts"  # already the format's: kept
    dialog.format.setCurrentIndex(0)
    assert dialog.values()["fmt"] == "notes" and dialog.validate() is None
    dialog.path.setText(str(tmp_path / "graph.txt"))
    assert dialog.validate() == (
        "“graph.txt” does not say a format: end the name with .json, .csv, .graphml, .notes or "
        ".nts, or choose a format"
    )
    seen = _chosen_filter(monkeypatch, import_export_forms, "getSaveFileName")
    dialog._browse()
    assert seen == [
        "JSON (*.json);;CSV (*.csv);;GraphML (*.graphml);;Notes (*.notes *.nts);;All files (*)"
    ]


def test_a_registered_format_is_in_the_windows_import_and_tips(notes, window, monkeypatch):
    export, imp = window.transfer.action_export, window.transfer.action_import
    assert export.toolTip() == "Write the graph, or part of it, to JSON, CSV, GraphML or Notes"
    assert imp.statusTip() == (
        "Add JSON (a Factlines export or MemPalace's entity_facts), CSV (one fact per row) or "
        "Notes (an export by another name) to this graph, all or nothing, as one undo step"
    )
    seen = _chosen_filter(monkeypatch, transfer_actions, "getOpenFileName")
    assert window.transfer.import_dialog() is None  # cancelled: nothing imported
    assert seen and seen[0].startswith("Graph data (*.json *.csv *.notes *.nts);;")
    assert "Notes: an export by another name (*.notes *.nts)" in seen[0]


def test_an_export_by_a_registered_format_writes_it(notes, window, qtbot, tmp_path):
    job = window.transfer.export_to(tmp_path / "all.nts")
    qtbot.waitUntil(lambda: not job.running, timeout=10_000)
    assert job.result.format == "notes"
    assert (
        (tmp_path / "all.nts")
        .read_text(encoding="utf-8")
        .startswith('{"format": "factlines-graph"')
    )
