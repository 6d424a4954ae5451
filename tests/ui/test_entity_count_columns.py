"""The entity list's count columns say what they count: open facts and ended facts."""

from __future__ import annotations

from PySide6.QtCore import Qt

from ui_fixtures import *  # noqa: F403


def header(model, section: int, role=Qt.ItemDataRole.DisplayRole):
    return model.headerData(section, Qt.Orientation.Horizontal, role)


def test_the_counts_are_named_open_and_ended_and_say_as_of_is_not_applied(window):
    model = window.browser.view.model()
    while hasattr(model, "sourceModel"):
        model = model.sourceModel()
    names = [header(model, i) for i in range(model.columnCount())]
    assert names[2:] == ["Open", "Ended"]
    assert "Current" not in names
    tip = header(model, 2, Qt.ItemDataRole.ToolTipRole)
    assert "valid_to empty" in tip and "both directions" in tip and "as_of" in tip
    assert "valid_to set" in header(model, 3, Qt.ItemDataRole.ToolTipRole)


def test_the_status_bar_counts_open_facts_too(window):
    text = window.document.stats_text()
    assert " open · " in text and " current" not in text
