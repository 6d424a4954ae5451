"""The entity listing as a Qt model: sparse (a page read when shown), sorted and filtered by
the store."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, Qt, Signal

from factlines.core.errors import Unavailable
from factlines.core.store import Touched
from factlines.ui.look.wording import in_words
from factlines.ui.models.entity_cells import EntityCells
from factlines.ui.models.listed_pages import (
    ListedPages,
    count_and_pages,
    counts_of,
    listed,
    pages_of,
)
from factlines.ui.models.listing_reads import ListingReads
from factlines.ui.models.roles import ROOT, Index, clear_span, fill_span
from factlines.ui.session.state import AppState


class EntityModel(QAbstractTableModel):
    """Entities with their open and ended fact counts: every row of the listing from the start
    (the scroll bar spans it), each page of rows read when first shown or asked for, so that an
    entity chosen far down the list is shown by reading its own page alone (:meth:`position_soon`
    says which). A page's counts are read when it is shown, off the UI thread where the window
    can: they walk its entities' facts, 20-100 ms at a million facts, and the first page is
    read while the window is first painted. Until they are in, the counts are blank.

    The counts do not follow as_of: "Open" is the facts with no end (valid_to empty), which
    may not have started yet at as_of; "Ended" is the facts with an end."""

    COLUMNS = EntityCells.COLUMNS
    ORDERS = EntityCells.ORDERS
    PAGE = 80
    # Pages kept read at most (those farthest from the one read last are dropped, read again
    # when shown): a write reads again every page kept, in a query per run of pages.
    MOST_PAGES = 64

    FEW_FACTS = 200  # a write of more re-reads every row kept (one query, not hundreds)
    # Pages a listing ranked by a count reads at first, in the read that ranks (a store
    # elsewhere keeps no ranking: a page read there later ranks every entity again).
    SPAN = 16

    listingRead = Signal()  # a listing read elsewhere is in (shown)

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self._state = state
        self._pages = ListedPages(self.PAGE, self.MOST_PAGES)
        self._total = 0
        self._reads = ListingReads(state, self, self._pages)
        self.generation = 0  # one more at every reset or write: older answers are dropped
        self.counting = False  # shown empty until the listing read elsewhere is in
        self.unread = False  # the store could not give the listing (said in words)
        self.search = ""
        self.entity_type: str | None = None
        self.valid_at: str | None = None
        self.order = "name"
        self.descending = False
        self._cells = EntityCells()

    # Query
    def listing(self) -> dict:
        return {
            "search": self.search,
            "entity_type": self.entity_type,
            "valid_at": self.valid_at,
            "order": self.order,
            "descending": self.descending,
        }

    def _ranked(self) -> bool:
        return self.order in ("current", "ended")

    def _slow(self) -> bool:
        """Whether the listing's count or pages take long to read (hundreds of milliseconds
        to seconds at a million facts): filtered by valid_at, or ranked by a count."""
        return self.valid_at is not None or self._ranked()

    def say(self, exc: Unavailable) -> None:
        self._state.message.emit(f"The entity list: {in_words(exc)}")

    @property
    def reading(self) -> bool:
        """Whether the listing is being read again off the UI thread (its answer not in)."""
        return self._reads.reading

    def refresh(self, then: Callable[[], None] | None = None) -> None:
        """Re-read the count and the pages read (the first page after a filter or sort: they
        were dropped); the others are read when shown. ``then()`` once the model shows them.

        A slow listing (:meth:`_slow`) is read off the UI thread where the window can: until
        it is in, the model shows what it showed, or nothing (:attr:`counting`) after a filter
        or sort dropped the pages."""
        kg = self._state.kg
        if kg is not None and self._slow():
            self._refresh_soon(then)
            return
        # Read before the reset begins: a read that fails leaves the model as it was.
        pages, total = {}, 0
        if kg is not None:
            total, pages = count_and_pages(
                kg, self.listing(), self._pages.numbers() or [0], self.PAGE
            )
        self._reads.drop_listing()  # an answer still to come from elsewhere is dropped
        self.show_listing(pages, total)
        if then is not None:
            then()

    def _refresh_soon(self, then: Callable[[], None] | None) -> None:
        """:meth:`refresh` of a slow listing: the count and the pages in one read elsewhere,
        shown when in unless another read was asked for meanwhile (a newer filter, sort or
        write: its answer is the one shown)."""
        listing, page = self.listing(), self.PAGE
        numbers = self._pages.numbers() or list(range(self.SPAN if self._ranked() else 1))

        def answered(answer: tuple[int, dict] | Unavailable) -> None:
            if isinstance(answer, Unavailable):
                self.show_listing({}, 0, unread=True)
                self.say(answer)
            else:
                self.show_listing(answer[1], answer[0])
                if then is not None:
                    then()

        self._reads.listing_soon(lambda kg: count_and_pages(kg, listing, numbers, page), answered)

    def show_listing(
        self,
        pages: dict[int, list[dict]],
        total: int,
        counting: bool = False,
        unread: bool = False,
    ) -> None:
        self.generation += 1
        self.beginResetModel()
        self._pages.reset(pages)
        self._total = total
        self.counting, self.unread = counting, unread
        self._reads.drop_pages()  # (an answer still to come is dropped: another listing)
        self.endResetModel()

    def update_rows(self, touched: Touched | None = None) -> None:
        """After a write: read the pages kept again (the counts of the rows whose counts were
        read); when they are the same entities in the same order, announce just the rows
        whose counts or names changed (no reset). A write of a few facts, listed by name or
        type with every entity shown, can change only the counts of its facts' ends, before
        and after: just those move, by what the write noted of its facts' rows. A slow
        listing is read again elsewhere, the rows shown as they were until it is in."""
        kg = self._state.kg
        if kg is None or not self._pages:
            self.refresh()
            return
        moved = self._counts_moved(touched)
        if moved is not None:
            self.generation += 1
            self._move_counts(moved)
            return
        listing, numbers, page = self.listing(), self._pages.numbers(), self.PAGE
        counted = self._pages.counted_ids()

        def read(kg) -> tuple:
            total, pages = count_and_pages(kg, listing, numbers, page)
            return total, pages, listed(kg, pages, counted)

        if not self._slow():
            self.generation += 1
            self._rows_read(*read(kg))
            return

        def answered(answer: tuple | Unavailable) -> None:
            if isinstance(answer, Unavailable):  # the rows stay as they were
                self.say(answer)
            else:
                self._rows_read(*answer)

        self._reads.listing_soon(read, answered)

    def _rows_read(self, total: int, pages: dict[int, list[dict]], listed: dict) -> None:
        """Show the pages read again after a write: in place when the same entities are
        listed in the same order, else from a reset."""
        if total != self._total or not self._pages.same_entities(pages):
            self._reads.drop_listing()
            self.show_listing(pages, total)
            return
        for number, rows in pages.items():
            for at, new in enumerate(rows):
                self._replace_row(number * self.PAGE + at, listed.get(new["id"], new))

    def _counts_moved(self, touched: Touched | None) -> dict[str | None, tuple[int, int]] | None:
        """How much the listed entities' counts moved in a write that can change them but not
        which are listed or their order (nor the total); None for any other write."""
        if (
            touched is None
            or touched.everything
            or touched.entities
            or not 0 < len(touched.facts) <= self.FEW_FACTS
            or self._slow()
        ):
            return None
        return moved_counts(touched)

    def _move_counts(self, moved: dict[str | None, tuple[int, int]]) -> None:
        """The rows of the entities at either end of a write's facts, before it and after it,
        with their counts moved (those whose counts were read: the others' are read when
        shown)."""
        for eid, (opened, ended) in moved.items():
            row = self._pages.row_of(eid)
            shown = self._pages.read(row) if row >= 0 else None
            if shown is not None and shown["current"] is not None:
                current, ended = shown["current"] + opened, shown["ended"] + ended
                self._replace_row(row, {**shown, "current": current, "ended": ended})

    def _replace_row(self, row: int, new: dict) -> None:
        """Show ``new`` at ``row``, announced only when it differs from the row shown."""
        if self._pages.replace(row, new):
            self.show_again(row, row)

    def set_filter(
        self,
        search: str,
        entity_type: str | None,
        valid_at: str | None,
        then: Callable[[], None] | None = None,
    ) -> None:
        """List these entities from the top; ``then()`` once they are shown."""
        self.search, self.entity_type, self.valid_at = search, entity_type, valid_at
        self._pages.forget()
        self.refresh(then)

    @property
    def total(self) -> int:
        return self._total

    # Rows
    def _row(self, row: int) -> dict | None:
        """The row, its page read first if it was not; None past the end, or when the store
        could not give it (said in words once, the row blank)."""
        number = row // self.PAGE
        if number not in self._pages:
            if not 0 <= row < self._total or number in self._pages.unread or self.reading:
                return None  # (while the listing is read elsewhere, its pages are blank)
            if self._ranked():
                self._reads.page_soon(number)
            else:
                self._read_page(number)
        return self._pages.read(row)

    def _read_page(self, number: int) -> None:
        try:
            kg = self._state.kg
            pages = (
                {} if kg is None else pages_of(kg, self.listing(), [number], self._total, self.PAGE)
            )
        except Unavailable as exc:
            self._pages.unread.add(number)
            self.say(exc)
            return
        self._pages.keep(number, pages.get(number, []))

    def show_again(self, first: int, last: int, column: int = 0) -> None:
        """The rows ``first`` to ``last`` (those listed) are shown again, from ``column``."""
        last = min(last, self._total - 1)
        if first <= last:
            self.dataChanged.emit(
                self.index(first, column), self.index(last, len(self.COLUMNS) - 1)
            )

    def load_row(self, row: int) -> None:
        """Read the page of ``row`` (an entity chosen elsewhere, shown there)."""
        self._row(row)

    def entity_at(self, row: int) -> dict | None:
        return self._counted(row) if self._row(row) is not None else None

    def _counted(self, row: int) -> dict:
        """The row, its counts read here first if they were not: with those of the rows of
        its page that lack them, in one query."""
        if self._pages.read(row)["current"] is None:
            first = row - row % self.PAGE
            kg = self._state.kg
            if kg is not None and not kg.closed:
                self._pages.fill_counts(first, counts_of(kg, self._pages.uncounted_ids(first)))
        return self._pages.read(row)

    def row_of(self, entity_id: str | None) -> int:
        """The row of ``entity_id`` among the rows read; -1 when it is not read."""
        return self._pages.row_of(entity_id)

    def id_at(self, row: int) -> str | None:
        entity = self._pages.read(row)
        return entity["id"] if entity is not None else None

    def every_row_read(self) -> bool:
        return not self.reading and self._pages.rows_read() >= self._total

    def position_soon(self, entity_id: str, done: Callable[[int | None], None]) -> None:
        """``done(row)``: the row of ``entity_id`` in the listing as it is (-1 when the
        listing leaves it out; None when the store is unavailable, said in words), read off
        the UI thread where the window can."""
        self._reads.position_soon(entity_id, self._ranked(), done)

    # Model
    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else self._total

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal:
            return self._cells.header(section, role)
        return None

    def data(self, index: Index, role=Qt.ItemDataRole.DisplayRole):
        entity = self._shown(index)
        return None if entity is None else self._cells.value(entity, index.column(), role)

    def multiData(self, index: Index, roles) -> None:
        # The view's delegate asks seven roles per painted cell in one call: answering them
        # here is one call into Python per cell instead of seven.
        entity = self._shown(index)
        if entity is None:
            clear_span(roles)
            return
        fill_span(roles, self._cells.value, entity, index.column())

    def _shown(self, index: Index) -> dict | None:
        if not index.isValid():
            return None
        return (
            self._reads.counts_soon(index.row(), self._row(index.row()))
            if index.column() >= 2
            else self._row(index.row())
        )

    def flags(self, index: Index):
        # A row without an id cannot be selected: nothing could find it again to show or edit.
        flags = super().flags(index)
        entity = self._row(index.row()) if index.isValid() else None
        if entity is not None and entity["id"] is None:
            return flags & ~Qt.ItemFlag.ItemIsSelectable
        return flags

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.ORDERS):
            return
        self.order = self.ORDERS[column]
        self.descending = order == Qt.SortOrder.DescendingOrder
        self._pages.forget()
        self.refresh()


def moved_counts(touched: Touched) -> dict[str | None, tuple[int, int]] | None:
    """How much each entity's Open and Ended counts moved in a write, from its facts' rows
    before and after it (a fact counts once for each entity at either end, open while it has
    no end); None when the write did not note them."""
    outlines = touched.outlines()
    if outlines is None:
        return None  # a write that was not recorded
    moved: dict[str | None, list[int]] = {}
    for before, after in outlines:
        for sign, outline in ((-1, before), (1, after)):
            if outline is not None:
                counts = (sign, 0) if outline.valid_to is None else (0, sign)
                for end in {outline.subject, outline.object}:
                    moved.setdefault(end, [0, 0])
                    moved[end][0] += counts[0]
                    moved[end][1] += counts[1]
    return {end: (opened, ended) for end, (opened, ended) in moved.items()}
