"""The chart's sizes and colours, in one place: every part of the chart takes them from here.

Predicate colours are not here: every view shares them, from :mod:`factlines.ui.style`.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

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
BACKGROUND = "w"
TEXT_COLOR = "#2b2f36"
MUTED_TEXT = "#5b6270"  # incoming lanes, the legend, the today label
CURSOR_COLOR = "#d62728"  # the as_of cursor
CONFLICT_TEXT = "#d62728"  # conflicts in the title, legend and tooltips
CONFLICT_COLOR = QColor(214, 39, 40)  # conflict spans and the lane axis's conflict dots
ROW_STRIPE = QColor("#f3f5f8")  # every other lane
HEADER_ROW = QColor("#e9edf2")  # a predicate group's header row
GROUP_LINE = QColor("#d3d9e1")  # the line above a group
SELECTED_ROW = QColor("#e3edfb")
HOVER_OUTLINE = "#3b4250"
SELECTED_OUTLINE = "#11151c"  # also the outline of a dragged end's preview
PREVIEW_FILL = QColor(17, 21, 28, 40)
AXIS_COLOR = "#b9c0ca"
TIME_GRID_ALPHA = 38  # the time axis's grid lines, 0..255
TODAY_COLOR = "#7a8290"
LINE_LABEL_POSITION = 0.004  # the today and as_of labels, near the top of the view
TODAY_LABEL_FILL = (255, 255, 255, 200)
CURSOR_LABEL_FILL = (255, 255, 255, 230)
