"""Light and dark: the palette's variant of every colour, View → Theme, and views that follow."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from factlines.ui.look import style
from factlines.ui.models.fact_models import COLUMN
from factlines.ui.session import settings as app_settings
from factlines.ui.window import theme
from ui_fixtures import *  # noqa: F403


@pytest.fixture(autouse=True)
def back_to_the_system_theme():
    yield
    theme.apply("system")
    assert not style.is_dark_variant()


def luminance(color) -> float:
    c = QColor(color) if not isinstance(color, tuple) else QColor(*color)

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_both_themes_give_every_colour_of_the_same_kinds():
    for field in dataclasses.fields(style.Theme):
        light, dark = getattr(style.LIGHT, field.name), getattr(style.DARK, field.name)
        assert type(light) is type(dark), field.name
    assert len(style.LIGHT_PALETTE) == len(style.DARK_PALETTE)


@pytest.mark.parametrize("variant", ["LIGHT", "DARK"])
def test_text_is_readable_on_its_background(qapp, variant):
    colors = getattr(style, variant)
    base = theme.make_palette(variant.lower()).color(QPalette.ColorRole.Base)
    chart = "#ffffff" if colors.background == "w" else colors.background
    for text in ("text_color", "muted_text", "conflict_text", "cursor_color"):
        assert contrast(getattr(colors, text), chart) >= 4.5, text
    for text in ("text_color", "muted_text"):
        for band in ("row_stripe", "header_row", "selected_row"):
            assert contrast(getattr(colors, text), getattr(colors, band)) >= 4.5, (text, band)
    for text in ("graph_text", "graph_muted"):
        assert contrast(getattr(colors, text), colors.graph_background) >= 4.5, text
    for text in ("conflict", "link", "subtle_text"):
        assert contrast(getattr(colors, text), base) >= 4.5, text
    assert contrast(colors.conflict, colors.conflict_background) >= 3.5
    assert contrast(colors.dim_text, base) >= 2.5  # dimmed on purpose, still legible


def test_dark_predicate_colours_stand_out_from_the_dark_chart(qapp):
    for color in style.DARK_PALETTE:
        assert contrast(color, style.DARK.background) >= 3.0, color


def test_the_variant_follows_the_palettes_window_colour(qapp):
    assert not style.is_dark(theme.make_palette("light"))
    assert style.is_dark(theme.make_palette("dark"))
    theme.apply("dark")
    assert isinstance(QApplication.style(), theme.CheckBoxOutlines)
    assert QApplication.style().baseStyle().name().lower() == "fusion"
    assert style.is_dark_variant() and style.DARK.conflict == style.theme().conflict
    assert style.DARK.text_color == style.theme().text_color
    assert style.predicate_color_name("works_on") == style.DARK_PALETTE[8]
    theme.apply("system")
    assert style.LIGHT.text_color == style.theme().text_color
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() >= 128


def test_an_unknown_theme_is_refused(qapp):
    with pytest.raises(ValueError, match="sepia"):
        theme.apply("sepia")


def test_the_theme_menu_keeps_the_choice(window, isolated_settings):
    actions = window.theme_actions.actions
    assert actions["system"].isChecked()
    menu_titles = [a.text() for a in window.menuBar().actions()]
    view = window.menuBar().actions()[menu_titles.index("&View")].menu()
    assert window.theme_actions.menu.menuAction() in view.actions()
    actions["dark"].trigger()
    assert actions["dark"].isChecked() and not actions["system"].isChecked()
    assert theme.applied() == "dark"
    assert app_settings.THEME.get(window.settings) == "dark"
    window.theme_actions.choose("light", remember=False)
    assert app_settings.THEME.get(window.settings) == "dark"


def test_a_kept_theme_applies_at_start_and_a_bad_one_reads_as_system(qtbot, isolated_settings):
    from factlines.ui import MainWindow

    settings = app_settings.open_settings(str(isolated_settings))
    settings.setValue(app_settings.THEME.key, "dark")
    settings.sync()
    win = MainWindow(settings=str(isolated_settings))
    qtbot.addWidget(win)
    assert theme.applied() == "dark" and win.theme_actions.actions["dark"].isChecked()
    settings.setValue(app_settings.THEME.key, "purple")
    assert app_settings.THEME.get(settings) == "system"


def test_every_view_takes_the_new_colours(window):
    window.select_entity("Kai Moreno")
    window.set_as_of("2025-12-01")
    window.graph_dock.show()
    theme.apply("dark")
    QApplication.processEvents()
    chart, graph = window.gantt, window.graph_view
    assert chart.canvas.backgroundBrush().color() == QColor(style.DARK.background)
    assert chart.time_axis.textPen().color() == QColor(style.DARK.text_color)
    assert chart.cursor.pen.color() == QColor(style.DARK.cursor_color)
    headers = chart.bars.layout.headers
    assert headers and all(h.color in style.DARK_PALETTE for h in headers)
    assert graph.backgroundBrush().color() == style.DARK.graph_background
    labels = [item.label for item in graph._scene.nodes.values()]
    assert labels and all(label.brush().color() == style.DARK.graph_text for label in labels)
    assert all(QColor(e["color"]).name() in style.DARK_PALETTE for e in graph.drawn_edges())
    model = window.facts_table.model
    row = next(r for r in range(model.rowCount()) if not model.facts[r]["current"])
    brush = model.index(row, COLUMN["valid_from"]).data(Qt.ItemDataRole.ForegroundRole)
    assert brush.color() == style.DARK.dim_text
    assert style.DARK.subtle_text.name() in window.facts_table.title.text()
    theme.apply("system")
    QApplication.processEvents()
    assert chart.canvas.backgroundBrush().color() == QColor("white")
    assert graph.backgroundBrush().color() == style.LIGHT.graph_background


def test_the_theme_option(qapp):
    from factlines.cli import build_parser

    assert build_parser().parse_args(["--theme", "dark"]).theme == "dark"
    assert build_parser().parse_args([]).theme is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--theme", "sepia"])


@pytest.mark.slow
@pytest.mark.parametrize(("chosen", "scale"), [("dark", 1), ("light", 2), ("dark", 2)])
def test_screenshots_in_each_theme_and_at_twice_the_scale(tmp_path, chosen, scale):
    import os
    import subprocess
    import sys

    from PySide6.QtGui import QImage

    target = tmp_path / "window.png"
    env = {
        **os.environ,
        "FACTLINES_SETTINGS": str(tmp_path / "s.ini"),
        "QT_SCALE_FACTOR": str(scale),
    }
    env["HOME"] = str(tmp_path)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "app")  # this checkout's
    result = subprocess.run(
        [sys.executable, "-m", "factlines", "--demo", "--entity", "Kai Moreno", "--as-of",
         "2025-12-01", "--theme", chosen, "--screenshot", str(target)],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1500 * scale, 950 * scale)
    small = image.scaled(150, 95)
    mean = sum(QColor(small.pixel(x, y)).lightnessF() for x in range(150) for y in range(95)) / (
        150 * 95
    )
    assert (mean < 0.35) if chosen == "dark" else (mean > 0.75), mean
    kept = (tmp_path / "s.ini").read_text() if (tmp_path / "s.ini").exists() else ""
    assert "theme=" not in kept  # --theme is for this run only


def test_the_time_controls_buttons_follow_a_switch_to_dark(window):
    """The compact time buttons (a style sheet of their own) kept black text on dark."""
    from PySide6.QtWidgets import QToolButton

    theme.apply("dark")
    QApplication.processEvents()
    control = window.time_control
    for name in ("now", "backDay", "play"):
        action = control.actions_by_name[name]
        button = next(b for b in control.findChildren(QToolButton) if b.defaultAction() is action)
        text = button.palette().color(QPalette.ColorRole.ButtonText)
        drawn = button.grab().toImage()
        brightest = max(
            drawn.pixelColor(x, y).lightness()
            for x in range(drawn.width())
            for y in range(drawn.height())
        )
        assert text.lightness() >= 160, f"{name}: its text is dark on the dark toolbar"
        assert brightest >= 160, f"{name}: no light text drawn"


def test_the_chart_toolbar_and_its_title_follow_a_switch_to_dark(window):
    """The chart's toolbar is compact (a style sheet of its own): its buttons and the title in
    its row still turn light on dark."""
    from PySide6.QtWidgets import QToolButton

    theme.apply("dark")
    QApplication.processEvents()
    bar = window.gantt.toolbar
    buttons = [b for b in bar.findChildren(QToolButton) if b.defaultAction() is not None]
    assert buttons
    for widget in [*buttons, window.gantt.title_label]:
        role = (
            QPalette.ColorRole.ButtonText
            if isinstance(widget, QToolButton)
            else QPalette.ColorRole.WindowText
        )
        assert widget.palette().color(role).lightness() >= 160, widget.objectName()


def _edge_contrast(image, rect) -> int:
    """How much the lightest pixel of ``rect``'s edge stands out from its middle."""
    edge = [
        image.pixelColor(x, y).lightness()
        for x in range(rect.left(), rect.right() + 1)
        for y in (rect.top(), rect.bottom())
    ]
    return max(edge) - image.pixelColor(rect.center()).lightness()


def test_unticked_check_boxes_show_their_edge_in_a_form_and_in_a_list_in_dark(qtbot):
    from PySide6.QtWidgets import (
        QCheckBox,
        QListWidget,
        QListWidgetItem,
        QStyle,
        QStyleOptionButton,
    )

    theme.apply("dark")
    box = QCheckBox("Show same-day handovers")
    listing = QListWidget()
    item = QListWidgetItem("works_at", listing)
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    item.setCheckState(Qt.CheckState.Unchecked)
    for widget in (box, listing):
        qtbot.addWidget(widget)
        widget.show()
        qtbot.waitExposed(widget)
    option = QStyleOptionButton()
    box.initStyleOption(option)
    in_form = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    row = listing.visualItemRect(item)
    in_list = row.adjusted(0, 0, -(row.width() - row.height()), 0)  # the row's first square
    assert _edge_contrast(box.grab().toImage(), in_form) >= 40
    list_image = listing.viewport().grab().toImage()
    assert max(_edge_contrast(list_image, in_list.adjusted(d, d, -d, -d)) for d in range(4)) >= 40
