"""The neighbourhood graph: the selected entity in the middle, the entities within one to
three facts of it on rings around it, shaped and coloured by type, edges coloured by predicate.

The rings are found across the whole history and laid out once per selection and depth
(:mod:`.layout`); moving as_of only restyles: edges with a fact valid at as_of are solid, the
others dashed and faint, and a node is in full colour when a valid edge leads to it. The
changes panel can have the graph show its diff instead. Clicking a node selects it; the wheel
zooms, dragging pans, a double click fits.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QFont, QPainter, QShowEvent, QTransform
from PySide6.QtWidgets import (
    QButtonGroup,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QToolTip,
    QWidget,
)

from factlines.core.errors import Refused, Unavailable
from factlines.core.store import Touched
from factlines.ui import style
from factlines.ui.entity_facts import MAX_PATCHED
from factlines.ui.errors import in_words
from factlines.ui.graph import layout, legend
from factlines.ui.graph.look import assign, look_of, type_name
from factlines.ui.graph.scene import (
    ENTITY_ROLE,
    SMALLEST_RADIUS,
    Diff,
    GraphScene,
    edge_tooltip,
)
from factlines.ui.painting import paint_with_the_window
from factlines.ui.state import AppState

MAX_NEIGHBOURS = 40  # per ring, unless the person asks for more
MORE_NEIGHBOURS = 200  # per ring, after "Show more"
DEPTHS = (1, 2, 3)
LEFT_OUT_NAMED = 25  # the "N of M" tooltip names this many of those left out
MOST_MARGIN = 120  # pixels beside the rings for the labels of the nodes at their sides
CONTROLS_HEIGHT = 28  # the depth buttons over the top edge
MOST_STRETCH = 1.7  # the picture fills a wide view by stretching this much at most
ZOOM_STEP = 1.2
LEGEND_FROM_WIDTH = 380  # narrower views start with the legend hidden


class GraphView(QGraphicsView):
    depthChanged = Signal(int)

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("graphView")
        self._state = state
        self._scene = GraphScene(self)
        paint_with_the_window(self._scene)
        self.setScene(self._scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.viewport().setCursor(Qt.CursorShape.ArrowCursor)
        self.setBackgroundBrush(QBrush(style.GRAPH_BACKGROUND))
        self.setMinimumSize(220, 140)  # small screens: the chart above needs the height
        self.depth = 1
        self.cap = MAX_NEIGHBOURS
        self.diff: Diff | None = None
        self.note = ""
        self.kept: layout.Kept | None = None
        self._hood = None
        self._inner: set = set()  # the centre and the rings but the last
        self._drawn: dict[str, dict] = {}  # each drawn fact by id (the row its edge holds)
        self._legend: list[legend.Entry] = []
        self._types: list = []
        self._fitted = True  # the picture is fitted to the view (not zoomed by the person)
        self._press = QPoint()
        self._stale = False  # the state changed while the view was hidden
        self._make_controls()
        self._rebuild_timer = QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(0)
        self._rebuild_timer.timeout.connect(self.rebuild)
        state.entityChanged.connect(lambda _e: self._selection_changed())
        state.dataChanged.connect(self._data_changed)
        state.asOfChanged.connect(lambda _v: self.restyle())
        self.rebuild()

    def sizeHint(self) -> QSize:
        return QSize(400, 400)

    # ── Controls over the view ────────────────────────────────────────────

    def _make_controls(self) -> None:
        self.controls = QWidget(self)
        self.controls.setObjectName("graphControls")
        row = QHBoxLayout(self.controls)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        caption = QLabel("Depth ", self.controls)
        caption.setToolTip("How many facts away from the selected entity the graph reaches")
        row.addWidget(caption)
        self.depth_buttons = QButtonGroup(self)
        for depth in DEPTHS:
            button = QToolButton(self.controls)
            button.setObjectName(f"graphDepth{depth}")
            button.setText(str(depth))
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolTip(
                "Its neighbours" if depth == 1 else f"Entities up to {depth} facts away"
            )
            self.depth_buttons.addButton(button, depth)
            row.addWidget(button)
        self.depth_buttons.button(self.depth).setChecked(True)
        self.depth_buttons.idClicked.connect(self.set_depth)
        self.legend_button = QToolButton(self.controls)
        self.legend_button.setObjectName("graphLegendButton")
        self.legend_button.setText("Legend")
        self.legend_button.setCheckable(True)
        self.legend_button.setAutoRaise(True)
        self.legend_button.setToolTip("Show or hide what the shapes, colours and lines mean")
        self.legend_button.setChecked(True)
        self.legend_button.toggled.connect(lambda _on: self._fit_and_label())
        row.addSpacing(6)
        row.addWidget(self.legend_button)
        self._legend_chosen = False  # the person toggled it: no longer follows the width
        self.legend_button.clicked.connect(lambda: setattr(self, "_legend_chosen", True))
        self.shown_button = QToolButton(self)
        self.shown_button.setObjectName("graphShownCount")
        self.shown_button.setAutoRaise(True)
        self.shown_button.clicked.connect(self._more_or_fewer)
        self.shown_button.hide()

    def set_depth(self, depth: int) -> None:
        """Reach ``depth`` (1 to 3) facts away; the layout is made again."""
        depth = min(max(int(depth), DEPTHS[0]), DEPTHS[-1])
        self.depth_buttons.button(depth).setChecked(True)
        if depth != self.depth:
            self.depth = depth
            self._fitted = True
            self.rebuild()
            self.depthChanged.emit(depth)

    def _more_or_fewer(self) -> None:
        self.cap = MORE_NEIGHBOURS if self.cap == MAX_NEIGHBOURS else MAX_NEIGHBOURS
        self._fitted = True
        self.rebuild()

    def _place_controls(self) -> None:
        self.controls.adjustSize()
        width = self.viewport().width()
        self.controls.move(width - self.controls.width() - 4, 2)
        self.shown_button.adjustSize()
        self.shown_button.move(4, self.viewport().height() - self.shown_button.height() - 2)

    # ── Building ──────────────────────────────────────────────────────────

    def _selection_changed(self) -> None:
        self._fitted = True
        self.cap = MAX_NEIGHBOURS
        self.rebuild()

    def rebuild(self) -> None:
        """Draw the selected entity's neighbourhood; deferred to showing while hidden (a closed
        or tabbed-away dock costs a selection nothing)."""
        self._rebuild_timer.stop()
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        self._hood, self.kept, self._drawn, self._legend = None, None, {}, []
        entity = self._state.entity_record()
        if entity is None:
            self._scene.clear()
            self._scene.nodes, self._scene.edges = {}, []
            self._show_note("Select an entity to see its neighbours")
            return
        try:
            self._read_and_build(entity)
        except (Refused, Unavailable) as exc:
            self._scene.clear()
            self._scene.nodes, self._scene.edges = {}, []
            self._show_note(f"Not shown: {in_words(exc)}")
            return
        self.note = ""
        self.restyle()
        self._fit_and_label()

    def _show_note(self, note: str) -> None:
        self.note = note
        self.shown_button.hide()
        self._scene.setSceneRect(QRectF(-150, -100, 300, 200))
        self.viewport().update()

    def _read_and_build(self, entity: dict) -> None:
        kg = self._state.kg
        hood = kg.neighbourhood(entity["id"], self.depth)
        kept = layout.keep(hood, self.cap)
        ring = {hood.centre: 0}
        for k, ids in enumerate(kept.rings, start=1):
            ring.update(dict.fromkeys(ids, k))
        records = kg.rows_with_ids("entities", list(ring))
        records[hood.centre] = entity
        for eid in ring:  # a fact may name an entity that has no row (raw SQL)
            records.setdefault(eid, {"id": eid, "name": eid, "type": None})
        facts = kg.facts_among(list(ring))
        name_keys = {eid: style.order_key(records[eid]["name"]) for eid in ring}
        nodes = layout.place(kept, layout.sibling_order(facts, ring, name_keys))
        edges = layout.edges(facts, nodes)
        counts: dict[str, int] = {}
        for eid in ring:
            counts[type_name(records[eid]["type"])] = (
                counts.get(type_name(records[eid]["type"]), 0) + 1
            )
        looks, self._types = assign(counts)
        font = QFont(self.font())
        self._scene.build(
            nodes, records, {eid: look_of(looks, records[eid]["type"]) for eid in ring}, edges, font
        )
        self._hood, self.kept = hood, kept
        self._inner = {hood.centre}.union(*hood.rings[:-1])
        self._drawn = {fact["id"]: fact for edge in edges for fact in edge.facts}
        self._predicates = sorted({e.predicate for e in edges}, key=layout.text_key)
        self._set_legend()
        self._say_shown(kept, kg)
        bounds = QRectF()
        for node in nodes.values():
            bounds = bounds.united(QRectF(node.x - 1, node.y - 1, 2, 2))
        self._bounds = bounds
        self._scene.setSceneRect(bounds.adjusted(-5000, -5000, 5000, 5000))

    def _say_shown(self, kept: layout.Kept, kg) -> None:
        """ "N of M shown" when a ring was capped, naming some of those left out."""
        if not kept.left_out and self.cap == MAX_NEIGHBOURS:
            self.shown_button.hide()
            return
        within = "" if self.depth == 1 else f" within {self.depth} facts"
        text = f"{kept.shown:,} of {kept.total:,} neighbours{within} shown"
        more = self.cap == MAX_NEIGHBOURS
        self.shown_button.setText(text + (" · Show more" if more else " · Show fewer"))
        named = kg.rows_with_ids("entities", kept.left_out[:LEFT_OUT_NAMED])
        names = [
            style.elide(named.get(eid, {"name": eid})["name"], 40)
            for eid in kept.left_out[:LEFT_OUT_NAMED]
        ]
        rest = len(kept.left_out) - len(names)
        tip = "Left out (fewest facts to what is shown): " + ", ".join(names)
        if rest > 0:
            tip += f", and {rest:,} more"
        if more:
            tip += f"\nClick to show up to {MORE_NEIGHBOURS} per ring"
        self.shown_button.setToolTip(
            tip if names else f"Click to show up to {MAX_NEIGHBOURS} per ring"
        )
        self.shown_button.show()
        self._place_controls()

    # ── Writes ────────────────────────────────────────────────────────────

    def _data_changed(self, touched: Touched) -> None:
        """A write: restyle when it only moved the times of drawn facts (or touched nothing
        drawn or counted); lay out again when it added, removed or moved a link."""
        if self._hood is None or self._stale:
            if self._stale or self.isVisible():
                self._rebuild_soon()
            return
        if (
            touched.everything
            or len(touched.facts) > MAX_PATCHED
            or touched.entities & self._scene.nodes.keys()
        ):
            self._rebuild_soon()
            return
        if not touched.facts:
            return
        kg = self._state.kg
        now = kg.link_positions(sorted(touched.facts, key=str))
        patched = False
        for tid in touched.facts:
            if tid not in now:  # deleted: it may have been one the rings were found by
                self._rebuild_soon()
                return
            position, subject, obj = now[tid]
            before = self._hood.links.get(position)
            moved = (
                before != (subject, obj)
                if before is not None
                else (subject in self._inner or obj in self._inner)
            )
            if moved:
                self._rebuild_soon()
                return
            fact = self._drawn.get(tid)
            if fact is not None:
                row = self._read_fact(tid)
                if row["predicate"] != fact["predicate"]:
                    self._rebuild_soon()
                    return
                fact.update(row)
                patched = True
        if patched:
            self._scene.refresh_times()
            for item in self._scene.edges:
                if any(f["id"] in touched.facts for f in item.edge.facts):
                    item.setToolTip(edge_tooltip(item.edge))
            self.restyle()

    def _read_fact(self, tid: str) -> dict:
        """A fact as it is now: the state's row for one of the selected entity's (patched
        already), else read."""
        state = self._state
        i = state.fact_index(tid)
        return state.entity_facts()[i] if i >= 0 else state.kg.get_fact(tid)

    def _rebuild_soon(self) -> None:
        self._rebuild_timer.start()

    # ── Styling ───────────────────────────────────────────────────────────

    def restyle(self) -> None:
        if self._stale or self._hood is None:
            return
        self._scene.restyle(self._state.as_of_posix, self.diff)

    def show_diff(self, started, ended, shown: bool) -> None:
        """Draw the changes panel's diff (facts that started / ended within (A, B]) instead
        of validity at as_of while ``shown``."""
        diff = Diff(set(started), set(ended)) if shown else None
        if diff == self.diff:
            return
        self.diff = diff
        if self._hood is not None:
            self._set_legend()
            for item in self._scene.edges:
                item.drawn_as = ""
            self.restyle()
            self.viewport().update()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self.setBackgroundBrush(QBrush(style.GRAPH_BACKGROUND))
            self._scene.repaint_colours()
            self.restyle()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.rebuild()

    # ── Fitting, zooming, labels ──────────────────────────────────────────

    def _set_legend(self) -> None:
        self._legend = legend.entries(self._types, self._predicates, self.diff is not None)
        whole = legend.as_html(self._legend)
        self.legend_button.setToolTip(
            "Show or hide what the shapes, colours and lines mean:<br>" + whole
        )

    def viewportEvent(self, event) -> bool:
        """Over the painted legend, its tooltip is the whole legend."""
        if event.type() == QEvent.Type.ToolTip and self._legend_shown():
            width, height = self._legend_size()
            if QRectF(0, 0, width, height).contains(QPointF(event.pos())):
                QToolTip.showText(event.globalPos(), legend.as_html(self._legend), self)
                return True
        return super().viewportEvent(event)

    def _legend_shown(self) -> bool:
        if not self._legend_chosen:
            self.legend_button.setChecked(self.viewport().width() >= LEGEND_FROM_WIDTH)
        return self.legend_button.isChecked() and bool(self._legend)

    def _legend_size(self) -> tuple[int, int]:
        if not self._legend_shown():
            return 0, 0
        return legend.size(
            self._legend, self.fontMetrics(), self._legend_room(), self._legend_text_width()
        )

    def _legend_room(self) -> QSize:
        """The legend may take up to 38% of the view's width (a second column in a wide
        view), all its height."""
        return QSize(self.viewport().width() * 38 // 100, self.viewport().height() - 4)

    def _legend_text_width(self) -> int:
        return max(90, min(160, self.viewport().width() // 4))

    def fit(self) -> None:
        """Scale the rings into the view beside the legend, stretched a little to fill a wide
        view; nodes and labels keep their size."""
        self._fitted = True
        self._fit_and_label()

    def _fit_and_label(self) -> None:
        self._place_controls()
        if self._hood is None:
            self.viewport().update()
            return
        view = self.viewport().rect()
        left = self._legend_size()[0]
        margin = self._margin()
        width = view.width() - left - 2 * margin.width()
        height = view.height() - CONTROLS_HEIGHT - 2 * margin.height()
        if self._fitted and width > 10 and height > 10:
            rect = self._bounds
            sx = width / max(rect.width(), 1.0)
            sy = height / max(rect.height(), 1.0)
            scale = min(sx, sy)
            sx, sy = min(sx, scale * MOST_STRETCH), min(sy, scale * MOST_STRETCH)
            self.setTransform(QTransform.fromScale(sx, sy))
            self._size_nodes(min(sx, sy))
            centre = QPointF(
                left + margin.width() + width / 2, CONTROLS_HEIGHT + margin.height() + height / 2
            )
            # Put the rings' middle at the middle of the room left for them.
            shift = self.mapToScene(view.center()) - self.mapToScene(centre.toPoint())
            self.centerOn(rect.center() + shift)
        self.place_labels()
        self.viewport().update()

    def _margin(self) -> QSize:
        """Room beside the rings for the labels of the outermost ring: as wide as its longest
        (up to MOST_MARGIN), and a line of text above and below."""
        outer = [item for item in self._scene.nodes.values() if item.node.ring == self.depth]
        outer = outer or list(self._scene.nodes.values())
        wide = max((item.label.boundingRect().width() for item in outer), default=0.0)
        tall = max((item.label.boundingRect().height() for item in outer), default=0.0)
        radius = max(item.full_radius for item in outer) + 4 if outer else 0
        # A small view keeps most of its room for the nodes: labels that do not fit go.
        view = self.viewport().size()
        return QSize(
            int(min(wide + radius, MOST_MARGIN, view.width() * 0.16)),
            int(min(tall + radius, view.height() * 0.14)),
        )

    def _size_nodes(self, scale: float) -> None:
        """Nodes as large as their ring's crowding allows at ``scale``: at most their full
        size, at least SMALLEST_RADIUS, never touching their neighbours on the ring."""
        first = SMALLEST_RADIUS
        for item in self._scene.nodes.values():
            if item.node.ring:
                room = item.node.room * scale * 0.4
                item.resize(max(SMALLEST_RADIUS, min(item.full_radius, room)))
                first = max(first, item.radius) if item.node.ring == 1 else first
        for item in self._scene.nodes.values():
            if not item.node.ring:  # the selected entity: half again its neighbours' size
                item.resize(min(item.full_radius, max(7.0, first * 1.5)))

    def place_labels(self) -> None:
        """Show each label that fits: inner rings first, then the most linked; one that would
        cover a label already shown, another node, the legend or the buttons is hidden (its
        node's tooltip names it). The centre's is always shown."""
        blocked = [_box(QRectF(self.controls.geometry()))]
        width, height = self._legend_size()
        if width:
            blocked.append((0.0, 0.0, width + 4.0, height + 4.0))
        nodes, labels = {}, []
        for eid, item in sorted(self._scene.nodes.items(), key=lambda pair: pair[1].node.ring):
            at = QPointF(self.mapFromScene(item.pos()))
            nodes[eid] = _box(item.boundingRect().translated(at))
            if item.node.ring:
                labels.append((eid, _box(item.label_rect(at))))
            else:  # the selected entity's name is always shown
                blocked.append(_box(item.label_rect(at)))
        shown = layout.fitting_labels(labels, nodes, _box(QRectF(self.viewport().rect())), blocked)
        for eid, item in self._scene.nodes.items():
            item.label.setVisible(eid in shown or not item.node.ring)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_and_label()

    def wheelEvent(self, event) -> None:
        steps = event.angleDelta().y() / 120
        if not steps or self._hood is None:
            return
        factor = ZOOM_STEP**steps
        anchor = event.position()
        before = self.mapToScene(anchor.toPoint())
        self.scale(factor, factor)
        self._size_nodes(min(self.transform().m11(), self.transform().m22()))
        after = self.mapToScene(anchor.toPoint())
        self.translate(after.x() - before.x(), after.y() - before.y())
        self._fitted = False
        self.place_labels()
        event.accept()

    def mouseDoubleClickEvent(self, event) -> None:
        if self.neighbour_at(event.position().toPoint()) is None:
            self.fit()
            return
        super().mouseDoubleClickEvent(event)

    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        self.viewport().setCursor(Qt.CursorShape.ArrowCursor)
        point = event.position().toPoint()
        if event.button() != Qt.MouseButton.LeftButton:
            return
        if (point - self._press).manhattanLength() > 4:  # dragged: panned
            self._fitted = False
            self.place_labels()
            return
        entity_id = self.neighbour_at(point)
        if entity_id and entity_id != self._state.entity:
            self._state.select_entity(entity_id)

    def neighbour_at(self, pos) -> str | None:
        for item in self.items(pos):
            while item is not None:
                entity_id = item.data(ENTITY_ROLE)
                if entity_id:
                    return entity_id
                item = item.parentItem()
        return None

    def drawForeground(self, painter: QPainter, rect) -> None:
        painter.save()
        painter.resetTransform()
        painter.setFont(self.font())
        if self._legend_shown():
            legend.paint(painter, self._legend, self._legend_room(), self._legend_text_width())
        if self.note:
            painter.setPen(style.GRAPH_MUTED)
            painter.drawText(
                QRectF(self.viewport().rect()), Qt.AlignmentFlag.AlignCenter, self.note
            )
        painter.restore()

    # ── What is drawn, for tests and tools ────────────────────────────────

    def drawn_neighbours(self) -> list[dict]:
        """Each drawn neighbour: its id, ring, position in the scene and whether an edge
        valid at as_of leads to it."""
        return [
            {
                "id": eid,
                "ring": item.node.ring,
                "x": item.pos().x(),
                "y": item.pos().y(),
                "valid_at_as_of": self._scene.node_valid.get(eid, False),
                "shape": item.look.shape,
                "color": item.brush().color().name(),
                "label_shown": item.label.isVisible(),
            }
            for eid, item in self._scene.nodes.items()
            if item.node.ring
        ]

    def drawn_edges(self) -> list[dict]:
        return [
            {
                "inner": item.edge.inner,
                "outer": item.edge.outer,
                "predicate": item.edge.predicate,
                "facts": [f["id"] for f in item.edge.facts],
                "color": item.color.name(),
                "style": item.drawn_as,
                "solid": item.pen().style() == Qt.PenStyle.SolidLine,
            }
            for item in self._scene.edges
        ]

    def legend_labels(self) -> list[str]:
        """The legend's entries as drawn (elided to fit)."""
        metrics = self.fontMetrics()
        width = self._legend_text_width()
        return [
            metrics.elidedText(e.text, Qt.TextElideMode.ElideRight, width) for e in self._legend
        ]

    def legend_entries(self) -> list[legend.Entry]:
        return list(self._legend)


def _box(rect: QRectF) -> layout.Box:
    return rect.left(), rect.top(), rect.right(), rect.bottom()
