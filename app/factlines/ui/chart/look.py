"""The chart's sizes and colours, in one place: every part of the chart takes them from here.

The colours live in :mod:`factlines.ui.look.style` with every view's, in a light and a dark
variant; predicate colours too, since every view shares them.
"""

from __future__ import annotations

# ── Bars (sizes in device pixels unless said otherwise) ──────────────────
BAR_FRACTION = 0.62  # a bar's height, in rows
CONFLICT_FRACTION = 0.86  # a conflict span's height, in rows
FADE_PX = 36.0  # the fade-in of an unknown start
ARROW_PX = 11.0  # the arrowhead of an open end
MIN_BAR_PX = 2.0  # an instant (or a very short fact) is still a visible tick
PICK_PX = 3.0  # how near a bar the pointer must be to hit it
HANDLE_PX = 6.0  # how near an end the pointer must be to drag it
OUTLINE_LIMIT = 600  # with more bars in view than this, bars are drawn without outlines
MARK_POINT_SIZE = 8.0  # the dates written over the selected or dragged bar

# ── Rows and the lane axis ───────────────────────────────────────────────
LANE_PX_MIN = 22.0  # rows shrink to this before the chart scrolls vertically
LANE_PX_MAX = 34.0  # and never grow beyond this
LABEL_POINT_SIZE = 9.0  # lane labels and group headers
LANE_AXIS_WIDTH = 170  # the label column before the first entity sizes it
LANE_AXIS_MIN = 120  # the label column's width, fitted to the labels between these
LANE_AXIS_MAX = 260
LABELS_MEASURED = 24  # how many of the longest lane labels are measured to size the column

# ── Around the plot ─────────────────────────────────────────────────
MARGINS = (6, 4, 10, 4)  # around the title, plot and legend: left, top, right, bottom
SPACING = 2  # between them
TITLE_SIZE = "11pt"
LEGEND_SIZE = "9pt"
EMPTY_TEXT_SIZE = "13pt"  # the message shown instead of an empty chart

# ── Colours ──────────────────────────────────────────────────────────────
TIME_GRID_ALPHA = 38  # the time axis's grid lines, 0..255
# The chart's colours are the theme's (factlines.ui.look.style.theme()): light or dark with the
# palette, kept with every view's.
