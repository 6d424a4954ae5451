"""The buttons over the neighbourhood graph: the depth (1, 2, 3) and the legend at the top
right, and "N of M shown" at the bottom left when a ring was capped."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QToolButton, QWidget

from factlines.ui.graph import layout
from factlines.ui.look import style

DEPTHS = (1, 2, 3)
MAX_NEIGHBOURS = 40  # per ring, unless the person asks for more
MORE_NEIGHBOURS = 200  # per ring, after "Show more"
LEFT_OUT_NAMED = 25  # the "N of M" tooltip names this many of those left out


class GraphControls(QWidget):
    """Depth 1 2 3 · Legend."""

    depthChosen = Signal(int)

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("graphControls")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        caption = QLabel("Depth ", self)
        caption.setToolTip("How many facts away from the selected entity the graph reaches")
        row.addWidget(caption)
        self.depth_buttons = QButtonGroup(self)
        for depth in DEPTHS:
            button = QToolButton(self)
            button.setObjectName(f"graphDepth{depth}")
            button.setText(str(depth))
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolTip(
                "Its neighbours" if depth == 1 else f"Entities up to {depth} facts away"
            )
            self.depth_buttons.addButton(button, depth)
            row.addWidget(button)
        self.depth_buttons.button(DEPTHS[0]).setChecked(True)
        self.depth_buttons.idClicked.connect(self.depthChosen)
        self.legend_button = QToolButton(self)
        self.legend_button.setObjectName("graphLegendButton")
        self.legend_button.setText("Legend")
        self.legend_button.setCheckable(True)
        self.legend_button.setAutoRaise(True)
        self.legend_button.setChecked(True)
        self.chosen = False  # the person toggled the legend: it no longer follows the width
        self.legend_button.clicked.connect(lambda: setattr(self, "chosen", True))
        row.addSpacing(6)
        row.addWidget(self.legend_button)

    def show_depth(self, depth: int) -> None:
        self.depth_buttons.button(depth).setChecked(True)


class ShownCount(QToolButton):
    """ "40 of 2,000 neighbours shown · Show more": what a capped ring left out, in its
    tooltip; a click shows up to MORE_NEIGHBOURS per ring, or back."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("graphShownCount")
        self.setAutoRaise(True)
        self.texts = ("", "")  # what it says, long and short
        self.hide()

    def say(self, kept: layout.Kept, depth: int, cap: int, names: dict[str, str]) -> None:
        """Say how many of how many are shown (``names``: some left out ones' names by id)."""
        if not kept.left_out and cap == MAX_NEIGHBOURS:
            self.hide()
            return
        within = "" if depth == 1 else f" within {depth} facts"
        more = cap == MAX_NEIGHBOURS
        action = " · Show more" if more else " · Show fewer"
        self.texts = (
            f"{kept.shown:,} of {kept.total:,} neighbours{within} shown{action}",
            f"{kept.shown:,} of {kept.total:,} shown{action}",
        )
        self.setText(self.texts[0])
        named = [style.elide(names.get(eid, eid), 40) for eid in kept.left_out[:LEFT_OUT_NAMED]]
        tip = ""
        if named:
            tip = "Left out (the fewest facts to what is shown): " + ", ".join(named)
            rest = len(kept.left_out) - len(named)
            tip += f", and {rest:,} more" if rest > 0 else ""
            tip += "\n"
        tip += f"Click to show up to {MORE_NEIGHBOURS if more else MAX_NEIGHBOURS} per ring"
        self.setToolTip(f"{self.texts[0]}\n{tip}")
        self.show()

    def fit(self, width: int) -> None:
        """The long form when it fits in ``width`` pixels, else the short one."""
        if self.isHidden():
            return
        self.setText(self.texts[0])
        if self.sizeHint().width() > width:
            self.setText(self.texts[1])
        self.adjustSize()
