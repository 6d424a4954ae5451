"""PNGs of the window's main states, to look at.

They go to tmp_path; set FACTLINES_SHOTS=./shots to keep them (``FACTLINES_SHOTS=shots
python -m pytest tests/ui/test_shots.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from factlines.ui import MainWindow
from factlines.ui.forms.dialogs import FactDialog, ReplaceDialog
from ui_fixtures import *  # noqa: F403
from ui_fixtures import find_fact


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("FACTLINES_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def save(widget, folder: Path, name: str) -> Path:
    settle()
    path = folder / f"{name}.png"
    assert widget.grab().save(str(path), "PNG")
    assert path.stat().st_size > 5000
    return path


def test_screenshots_of_the_main_states(window, demo, shots, qtbot, isolated_settings):
    window.size_docks()
    window.select_entity("Kai Moreno")
    window.set_as_of("2025-12-01")
    save(window, shots, "01-kai-2025-12-01")

    window.set_as_of("2026-04-01")
    window.facts_table.hide_invalid.setChecked(True)
    save(window, shots, "02-kai-2026-04-01-hide-invalid")
    window.facts_table.hide_invalid.setChecked(False)

    window.set_as_of(None)
    window.select_entity("Lumen Labs")
    save(window, shots, "03-lumen-labs-all-time")

    window.browser.set_search("an")
    window.browser.type_filter.setCurrentIndex(window.browser.type_filter.findData("person"))
    window.select_entity("Mira Chen")
    window.set_as_of("2019-06-01")
    save(window, shots, "04-search-people-2019")

    window.browser.set_search("")
    window.browser.type_filter.setCurrentIndex(0)
    window.select_entity("Kai Moreno")
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    window.state.select_fact(orion["id"])
    index = window.facts_table.proxy.mapFromSource(
        window.facts_table.model.index(window.facts_table.model.row_of(orion["id"]), 4)
    )
    window.facts_table.view.model().setData(index, "2026-02-30")
    save(window, shots, "05-refused-cell-edit")

    dialog = FactDialog(demo.entity_names(), demo.predicates(), subject="Kai Moreno", parent=window)
    dialog.predicate.setCurrentText("uses")
    dialog.object.setText("Zig")
    dialog.valid_from.setText("2026-03")
    dialog.accept()  # refused: stays open with the reason
    dialog.show()
    save(dialog, shots, "06-add-fact-refused")
    dialog.close()

    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    replace = ReplaceDialog(demo.get_fact(nova["id"]), demo.entity_names(), "2026-05-01", window)
    replace.new_object.setText("Helios")
    replace.show()
    save(replace, shots, "07-replace-dialog")
    replace.close()

    empty = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(empty)
    empty.resize(1500, 950)
    empty.show()
    empty.size_docks()
    save(empty, shots, "08-empty")
    assert len(list(shots.glob("*.png"))) >= 8
