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
    QGraphicsView,
    QToolTip,
    QWidget,
)

from factlines.core.errors import Refused, Unavailable
from factlines.core.store import Touched
from factlines.ui.graph import labels, layout, legend
from factlines.ui.graph.controls import (
    DEPTHS,
    MAX_NEIGHBOURS,
    MORE_NEIGHBOURS,
    GraphControls,
    ShownCount,
)
from factlines.ui.graph.look import assign, look_of, type_name
from factlines.ui.graph.reading import Picture, read_picture
from factlines.ui.graph.scene import (
    ENTITY_ROLE,
    Diff,
    GraphScene,
    edge_tooltip,
)
from factlines.ui.graph.writes import REBUILD, RESTYLE, Drawn
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.painting import paint_with_the_window
from factlines.ui.session.state import AppState

CONTROLS_HEIGHT = 28  # the depth buttons over the top edge
MOST_STRETCH = 1.7  # the picture fills a wide view by stretching this much at most
ZOOM_STEP = 1.2


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
        self.setBackgroundBrush(QBrush(style.theme().graph_background))
        self.setMinimumSize(220, 140)  # small screens: the chart above needs the height
        self.depth = 1
        self.cap = MAX_NEIGHBOURS
        self.diff: Diff | None = None
        self.note = ""
        self.kept: layout.Kept | None = None
        self._drawn: Drawn | None = None
        self._types: list = []
        self._fitted = True  # the picture is fitted to the view (not zoomed by the person)
        self._press = QPoint()
        self._stale = False  # the state changed while the view was hidden
        self.controls = GraphControls(self)
        self.controls.depthChosen.connect(self.set_depth)
        self.controls.legend_button.toggled.connect(lambda _on: self._fit_and_label())
        self.depth_buttons = self.controls.depth_buttons
        self.legend_button = self.controls.legend_button
        self.legend = legend.LegendOverlay(self, self.controls)
        self.shown_button = ShownCount(self)
        self.shown_button.clicked.connect(self._more_or_fewer)
        self._rebuild_timer = QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(0)
        self._rebuild_timer.timeout.connect(self.rebuild)
        self._picture: Picture | None = None
        state.entityChanged.connect(lambda _e: state.reload_view(self, self._selection_changed))
        state.prepare_with(self, self._prepare)
        state.dataChanged.connect(self._data_changed)
        state.asOfChanged.connect(lambda _v: self.restyle())
        self.rebuild()

    def sizeHint(self) -> QSize:
        return QSize(400, 400)

    # ── Controls over the view ────────────────────────────────────────────

    def set_depth(self, depth: int) -> None:
        """Reach ``depth`` (1 to 3) facts away; the layout is made again."""
        depth = min(max(int(depth), DEPTHS[0]), DEPTHS[-1])
        self.controls.show_depth(depth)
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
        self.shown_button.fit(width - 8)
        self.shown_button.move(4, self.viewport().height() - self.shown_button.height() - 2)

    # ── Building ──────────────────────────────────────────────────────────

    def _selection_changed(self) -> None:
        self._fitted = True
        self.cap = MAX_NEIGHBOURS
        # Read and laid out where a hub's facts were read (None: read here).
        self._picture = self._state.prepared(self)
        self.rebuild()

    def _prepare(self, kg, facts) -> Picture | None:
        """The picture of a hub's neighbourhood, made where its facts are read."""
        if facts.record is None:
            return None
        drawn = self._drawn  # the same entity again (a write): as many neighbours as shown
        same = drawn is not None and drawn.hood.centre == facts.entity
        cap = self.cap if same else MAX_NEIGHBOURS
        return read_picture(kg, facts.record, self.depth, cap, facts.facts.links())

    def rebuild(self) -> None:
        """Draw the selected entity's neighbourhood; deferred to showing while hidden (a closed
        or tabbed-away dock costs a selection nothing)."""
        self._rebuild_timer.stop()
        if not self.isVisible():
            self._stale, self._picture = True, None
            return
        self._stale = False
        self.kept, self._drawn = None, None
        self.legend.entries = []
        entity = self._state.entity_record()
        if entity is None:
            self._show_note("Select an entity to see its neighbours")
            return
        try:
            self._read_and_build(entity)
        except (Refused, Unavailable) as exc:
            self._show_note(f"Not shown: {in_words(exc)}")
            return
        self.note = ""
        if not self.kept.total:  # said under the entity, not over it
            self.note = f"No fact links {style.elide(entity['name'], 60)} to another entity"
        self.restyle()
        self._fit_and_label()

    def _show_note(self, note: str) -> None:
        """Draw nothing but ``note``."""
        self._scene.build({}, {}, {}, [], self.font())
        self.note = note
        self.shown_button.hide()
        self._scene.setSceneRect(QRectF(-150, -100, 300, 200))
        self.viewport().update()

    def _read_and_build(self, entity: dict) -> None:
        picture, self._picture = self._picture, None
        if picture is None or not picture.fits(entity["id"], self.depth, self.cap):
            picture = read_picture(self._state.kg, entity, self.depth, self.cap)
        kept, records, nodes, edges = picture.kept, picture.records, picture.nodes, picture.edges
        counts: dict[str, int] = {}
        for eid in nodes:
            kind = type_name(records[eid]["type"])
            counts[kind] = counts.get(kind, 0) + 1
        looks, self._types = assign(counts)
        font = QFont(self.font())
        self._scene.build(
            nodes,
            records,
            {eid: look_of(looks, records[eid]["type"]) for eid in nodes},
            edges,
            font,
        )
        self.kept = kept
        facts_drawn = {fact["id"]: fact for edge in edges for fact in edge.facts}
        self._drawn = Drawn(picture.hood, set(nodes), facts_drawn)
        self._predicates = sorted({e.predicate for e in edges}, key=layout.text_key)
        self.legend.set(self._types, self._predicates, self.diff is not None)
        self.shown_button.say(kept, self.depth, self.cap, picture.left_out_names)
        bounds = QRectF()
        for node in nodes.values():
            bounds = bounds.united(QRectF(node.x - 1, node.y - 1, 2, 2))
        self._bounds = bounds
        self._scene.setSceneRect(bounds.adjusted(-5000, -5000, 5000, 5000))

    # ── Writes ────────────────────────────────────────────────────────────

    def _data_changed(self, touched: Touched) -> None:
        """A write: restyle when it only moved the times of drawn facts (or touched nothing
        drawn or counted); lay out again when it added, removed or moved a link."""
        if self._state.waiting(self):
            return
        if touched.everything and self._drawn is not None and not self._stale:
            # With the selected entity's facts: a hub's picture is made where they are read.
            self._state.reload_view(self, self._read_again)
            return
        if self._drawn is None or self._stale:
            if self._stale or self.isVisible():
                self._rebuild_soon()
            return
        try:
            after = self._drawn.after_write(touched, self._state.kg, self._read_fact)
        except Unavailable:  # the file cannot be read now: drawing again says so
            after = REBUILD
        if after == REBUILD:
            self._rebuild_soon()
        elif after == RESTYLE:
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

    def _read_again(self) -> None:
        """Every row may have changed: drawn again, from the picture made where the entity's
        facts were read if there is one, else read in a moment."""
        self._picture = self._state.prepared(self)
        if self._picture is None:
            self._rebuild_soon()
        else:
            self.rebuild()

    # ── Styling ───────────────────────────────────────────────────────────

    def restyle(self) -> None:
        if self._stale or self._drawn is None:
            return
        self._scene.pixel_ratio = self.devicePixelRatioF()
        self._scene.restyle(self._state.as_of_posix, self.diff)

    def show_diff(self, started, ended, shown: bool) -> None:
        """Draw the changes panel's diff (facts that started / ended within (A, B]) instead
        of validity at as_of while ``shown``."""
        # frozenset() of a frozenset is that set: no copy of a wide span's ids per call. The
        # sets compared as objects: compared item by item, a wide span's took 16 ms.
        diff = Diff(frozenset(started), frozenset(ended)) if shown else None
        was = self.diff
        if diff is was or (
            diff is not None
            and was is not None
            and diff.started is was.started
            and diff.ended is was.ended
        ):
            return
        self.diff = diff
        if self._drawn is not None:
            self.legend.set(self._types, self._predicates, self.diff is not None)
            for item in self._scene.edges:
                item.drawn_as = ""
            self.restyle()
            self.viewport().update()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if style.palette_changed(event):
            self.setBackgroundBrush(QBrush(style.theme().graph_background))
            self._scene.repaint_colours()
            self.restyle()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.rebuild()

    # ── Fitting, zooming, labels ──────────────────────────────────────────

    def viewportEvent(self, event) -> bool:
        """Over the painted legend, its tooltip is the whole legend."""
        if event.type() == QEvent.Type.ToolTip:
            tip = self.legend.tooltip_at(QPointF(event.pos()))
            if tip is not None:
                QToolTip.showText(event.globalPos(), tip, self)
                return True
        return super().viewportEvent(event)

    def fit(self) -> None:
        """Scale the rings into the view beside the legend, stretched a little to fill a wide
        view; nodes and labels keep their size."""
        self._fitted = True
        self._fit_and_label()

    def _fit_and_label(self) -> None:
        self._place_controls()
        if self._drawn is None:
            self.viewport().update()
            return
        view = self.viewport().rect()
        left = self.legend.size()[0]
        margin = labels.margin(self._scene.nodes, self.depth, self.viewport().size())
        width = view.width() - left - 2 * margin.width()
        height = view.height() - CONTROLS_HEIGHT - 2 * margin.height()
        if self._fitted and width > 10 and height > 10:
            rect = self._bounds
            sx = width / max(rect.width(), 1.0)
            sy = height / max(rect.height(), 1.0)
            scale = min(sx, sy)
            sx, sy = min(sx, scale * MOST_STRETCH), min(sy, scale * MOST_STRETCH)
            self.setTransform(QTransform.fromScale(sx, sy))
            self._scene.size_nodes(min(sx, sy))
            centre = QPointF(
                left + margin.width() + width / 2, CONTROLS_HEIGHT + margin.height() + height / 2
            )
            # Put the rings' middle at the middle of the room left for them.
            shift = self.mapToScene(view.center()) - self.mapToScene(centre.toPoint())
            self.centerOn(rect.center() + shift)
        self.place_labels()
        self.viewport().update()

    def place_labels(self) -> None:
        """Show each node's label where it fits (see :func:`.labels.place`)."""
        blocked = [QRectF(self.controls.geometry())]
        if self.shown_button.isVisible():
            blocked.append(QRectF(self.shown_button.geometry()))
        labels.place(self, self._scene.nodes, blocked, self.legend.size())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_and_label()

    def wheelEvent(self, event) -> None:
        steps = event.angleDelta().y() / 120
        if not steps or self._drawn is None:
            return
        factor = ZOOM_STEP**steps
        anchor = event.position()
        before = self.mapToScene(anchor.toPoint())
        self.scale(factor, factor)
        self._scene.size_nodes(min(self.transform().m11(), self.transform().m22()))
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

    def mouseMoveEvent(self, event) -> None:
        super().mouseMoveEvent(event)
        if not event.buttons():  # pointing at a node shows its name, if crowding hid it
            self._scene.hover(self.neighbour_at(event.position().toPoint()))

    def leaveEvent(self, event) -> None:
        super().leaveEvent(event)
        self._scene.hover(None)

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
        self.legend.paint(painter)
        if self.note:
            painter.setPen(style.theme().graph_muted)
            where = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap  # a narrow dock
            where |= Qt.AlignmentFlag.AlignBottom if self.kept else Qt.AlignmentFlag.AlignVCenter
            painter.drawText(
                QRectF(self.viewport().rect()).adjusted(4, 4, -4, -8), where, self.note
            )
        painter.restore()

    # ── What is drawn, for tests and tools ────────────────────────────────

    def drawn_neighbours(self) -> list[dict]:
        return self._scene.described_nodes()

    def drawn_edges(self) -> list[dict]:
        return self._scene.described_edges()

    def legend_labels(self) -> list[str]:
        return self.legend.labels()

    def legend_entries(self) -> list[legend.Entry]:
        return list(self.legend.entries)
