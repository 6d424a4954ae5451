"""A type's shape and colour, the "other" look, and the legend's entries."""

from __future__ import annotations

from PySide6.QtGui import QColor

from factlines.ui.graph import legend, look
from factlines.ui.look import style


def test_known_types_keep_their_look_and_every_type_in_view_gets_a_distinct_one(qapp):
    counts = {"person": 9, "place": 2, "tool": 3, "project": 1, "spaceship": 1, "robot": 1}
    looks, entries = look.assign(counts)
    assert looks["person"] == look.Look(*look.LOOKS[look.KNOWN["person"]])
    assert looks["tool"] == look.Look(*look.LOOKS[look.KNOWN["tool"]])
    assert len(set(looks.values())) == len(counts)  # no two types look alike
    assert [name for name, _ in entries] == sorted(counts)
    assert look.assign({"robot": 1, "person": 2})[0]["robot"] == looks["robot"]  # by its name
    assert looks["person"].color() == QColor(style.palette_color(looks["person"].colour))


def test_past_the_most_common_types_the_rest_share_the_other_look():
    counts = {f"type{i}": 20 - i for i in range(look.MAX_TYPES + 3)}
    counts["unknown"] = 50  # MemPalace's default: no look of its own, however common
    looks, entries = look.assign(counts)
    assert set(looks) == {f"type{i}" for i in range(look.MAX_TYPES)}
    last_name, last_look = entries[-1]
    assert last_look == look.OTHER_LOOK and last_look not in looks.values()
    assert last_name == f"other: type{look.MAX_TYPES}, type{look.MAX_TYPES + 1}, " + (
        f"type{look.MAX_TYPES + 2}"
    )
    assert look.look_of(looks, "Type9") == look.OTHER_LOOK
    assert look.look_of(looks, " TYPE0 ") == looks["type0"]  # as the legend names it
    assert look.assign({"unknown": 3, "": 1})[1] == [("no type", look.OTHER_LOOK)]


def test_every_shape_is_drawn_about_the_size_asked_centred(qapp):
    for shape in look.SHAPES:
        box = look.shape_path(shape, 10).boundingRect()
        assert 16 <= box.width() <= 28 and 16 <= box.height() <= 28, shape
        assert abs(box.center().x()) < 1 and abs(box.center().y()) < 3, shape


def test_the_legend_names_types_line_styles_and_predicates_or_the_diff(qapp):
    _looks, types = look.assign({"person": 2, "tool": 1})
    at_as_of = legend.entries(types, ["works_on", "uses"], diff=False)
    assert [(e.kind, e.text) for e in at_as_of] == [
        ("type", "person"),
        ("type", "tool"),
        ("line", "valid at as_of / not"),
        ("predicate", "works_on"),
        ("predicate", "uses"),
    ]
    diff = legend.entries(types, ["works_on"], diff=True)
    assert [e.line for e in diff if e.kind == "line"] == ["started", "ended", "unchanged valid"]
    html = legend.as_html(diff)
    assert "started in (A, B]" in html and style.predicate_color_name("works_on") in html
