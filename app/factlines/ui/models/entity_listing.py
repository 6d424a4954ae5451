"""The entity listing as a Qt model: sparse (a page read when shown), sorted and filtered by
the store."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, Qt, Signal
from PySide6.QtGui import QFont

from factlines.core.collector import collector_paused
from factlines.core.errors import Unavailable
from factlines.core.store import Touched
from factlines.ui.look import style
from factlines.ui.look.wording import in_words
from factlines.ui.models.roles import (
    ALIGNMENT,
    DISPLAY,
    ENTITY_ID_ROLE,
    FONT,
    FOREGROUND,
    RIGHT,
    ROOT,
    TOOLTIP,
    Index,
    clear_span,
    fill_span,
)
from factlines.ui.session.state import AppState

NO_ID = (
    "This row of the entities table has no id (a hand edit, or another tool): no fact can "
    "name it and MemPalace cannot look it up. It is listed as stored, and cannot be selected "
    "or edited here."
)


class EntityModel(QAbstractTableModel):
    """Entities with their open and ended fact counts: every row of the listing from the start
    (the scroll bar spans it), each page of rows read when first shown or asked for, so that an
    entity chosen far down the list is shown by reading its own page alone (:meth:`position_soon`
    says which). A page's counts are read when it is shown, off the UI thread where the window
    can: they walk its entities' facts, 20-100 ms at a million facts, and the first page is
    read while the window is first painted. Until they are in, the counts are blank.

    The counts do not follow as_of: "Open" is the facts with no end (valid_to empty), which
    may not have started yet at as_of; "Ended" is the facts with an end."""

    COLUMNS = ("Name", "Type", "Open", "Ended")
    ORDERS = ("name", "type", "current", "ended")
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
        self._pages: dict[int, list[dict]] = {}  # the pages read, by number
        self._unread: set[int] = set()  # pages the store could not give: blank until a refresh
        self._row_by_id: dict = {}  # each read row's number by its entity's id
        self._total = 0
        self._asked: set[int] = set()  # first rows of the pages whose counts are being read
        self._asking: int | None = None  # the page asked for now: answered at once, or later
        self.generation = 0  # one more at every reset or write: older answers are dropped
        self._reading: object | None = None  # the listing read elsewhere, its answer to come
        self._pages_asked: set[int] = set()  # pages being read elsewhere (ranked by a count)
        self.counting = False  # shown empty until the listing read elsewhere is in
        self.unread = False  # the store could not give the listing (said in words)
        self.search = ""
        self.entity_type: str | None = None
        self.valid_at: str | None = None
        self.order = "name"
        self.descending = False
        self._italic = QFont()
        self._italic.setItalic(True)

    # Query
    def _listing(self) -> dict:
        return {
            "search": self.search,
            "entity_type": self.entity_type,
            "valid_at": self.valid_at,
            "order": self.order,
            "descending": self.descending,
        }

    def _read_pages(self, numbers: list[int], total: int) -> dict[int, list[dict]]:
        """The pages ``numbers`` (sorted) of the listing as it is now, in a query per run of
        consecutive pages."""
        kg = self._state.kg
        return {} if kg is None else _pages_of(kg, self._listing(), numbers, total, self.PAGE)

    def _slow(self) -> bool:
        """Whether the listing's count or pages take long to read (hundreds of milliseconds
        to seconds at a million facts): filtered by valid_at, or ranked by a count."""
        return self.valid_at is not None or self.order in ("current", "ended")

    @property
    def reading(self) -> bool:
        """Whether the listing is being read again off the UI thread (its answer not in)."""
        return self._reading is not None

    def refresh(self, then: Callable[[], None] | None = None) -> None:
        """Re-read the count and the pages read (the first page after a filter or sort: they
        were dropped); the others are read when shown. ``then()`` once the model shows them.

        A slow listing (:meth:`_slow`) is read off the UI thread where the window can: until
        it is in, the model shows what it showed, or nothing (:attr:`counting`) after a filter
        or sort dropped the pages."""
        kg = self._state.kg
        if kg is not None and self._slow():
            self._refresh_soon(kg, then)
            return
        # Read before the reset begins: a read that fails leaves the model as it was.
        pages, total = {}, 0
        if kg is not None:
            total = kg.count_entities(self.search, self.entity_type, self.valid_at)
            pages = self._read_pages(sorted(self._pages) or [0], total)
        self._reading = None  # an answer still to come from elsewhere is dropped
        self._reset(pages, total)
        if then is not None:
            then()

    def _refresh_soon(self, kg, then: Callable[[], None] | None) -> None:
        """:meth:`refresh` of a slow listing: the count and the pages in one read elsewhere,
        shown when in unless another read was asked for meanwhile (a newer filter, sort or
        write: its answer is the one shown)."""
        listing, page = self._listing(), self.PAGE
        first = self.SPAN if self.order in ("current", "ended") else 1
        numbers = sorted(self._pages) or list(range(first))

        def read(kg) -> tuple[int, dict] | Unavailable:
            try:
                total = kg.count_entities(
                    listing["search"], listing["entity_type"], listing["valid_at"]
                )
                return total, _pages_of(kg, listing, numbers, total, page)
            except Unavailable as exc:
                return exc

        def answered(answer: tuple[int, dict] | Unavailable) -> None:
            if isinstance(answer, Unavailable):
                self._reset({}, 0, unread=True)
                self._state.message.emit(f"The entity list: {in_words(answer)}")
            else:
                self._reset(answer[1], answer[0])
                if then is not None:
                    then()

        self._read_soon(read, answered)

    def _read_soon(self, read: Callable, answered: Callable) -> None:
        """``answered(read(kg))`` of the listing, read elsewhere where the window can; dropped
        when another is asked for meanwhile. Until it is in, no page is read here; a listing
        with no page read (a new filter or sort) is shown empty, :attr:`counting`."""
        token = self._reading = object()
        self.generation += 1  # the counts asked for until now are of rows no longer listed

        def done(answer) -> None:
            if self._reading is token:
                self._reading = None
                answered(answer)
                self._announce(0, self._total - 1)  # the pages left blank meanwhile are asked for
                self.listingRead.emit()

        self._state.read_soon(_paused(read), done)
        if self._reading is token and not self._pages:  # not in yet, and nothing to show
            self._reset({}, 0, counting=True)

    def _reset(
        self,
        pages: dict[int, list[dict]],
        total: int,
        counting: bool = False,
        unread: bool = False,
    ) -> None:
        self.generation += 1
        self.beginResetModel()
        self._pages, self._total, self._row_by_id = pages, total, {}
        self.counting, self.unread = counting, unread
        self._unread.clear()
        self._pages_asked.clear()  # (an answer still to come is dropped: another listing)
        for number in sorted(pages):
            self._number_page(number)
        self.endResetModel()

    def update_rows(self, touched: Touched | None = None) -> None:
        """After a write: read the pages kept again (the counts of the rows whose counts were
        read); when they are the same entities in the same order, announce just the rows
        whose counts or names changed (no reset). A write of a few facts, listed by name or
        type with every entity shown, can change only the counts of its facts' ends, before
        and after: just those are read again, when the write says what they were. A slow
        listing is read again elsewhere, the rows shown as they were until it is in."""
        kg = self._state.kg
        if kg is None or not self._pages:
            self.refresh()
            return
        if self._counts_alone_changed(touched):
            self.generation += 1
            self._update_ends(kg, touched)
            return
        listing, numbers, page = self._listing(), sorted(self._pages), self.PAGE
        counted = [
            r["id"]
            for rows in self._pages.values()
            for r in rows
            if r["current"] is not None and r["id"] is not None
        ]

        def read(kg) -> tuple:
            total = kg.count_entities(
                listing["search"], listing["entity_type"], listing["valid_at"]
            )
            pages = _pages_of(kg, listing, numbers, total, page)
            return total, pages, _listed(kg, pages, counted)

        if not self._slow():
            self.generation += 1
            self._rows_read(*read(kg))
            return

        def elsewhere(kg) -> tuple | Unavailable:
            try:
                return read(kg)
            except Unavailable as exc:
                return exc

        def answered(answer: tuple | Unavailable) -> None:
            if isinstance(answer, Unavailable):  # the rows stay as they were
                self._state.message.emit(f"The entity list: {in_words(answer)}")
            else:
                self._rows_read(*answer)

        self._read_soon(elsewhere, answered)

    def _rows_read(self, total: int, pages: dict[int, list[dict]], listed: dict) -> None:
        """Show the pages read again after a write: in place when the same entities are
        listed in the same order, else from a reset."""
        if total != self._total or any(
            [r["id"] for r in pages.get(n, ())] != [r["id"] for r in rows]
            for n, rows in self._pages.items()
        ):
            self._reading = None
            self._reset(pages, total)
            return
        for number, rows in pages.items():
            for at, new in enumerate(rows):
                self._replace_row(number * self.PAGE + at, listed.get(new["id"], new))

    def _counts_alone_changed(self, touched: Touched | None) -> bool:
        """Whether ``touched`` can change the listed entities' counts but not which are listed
        or their order (nor the total)."""
        return (
            touched is not None
            and touched.fact_ends is not None
            and not (touched.everything or touched.entities)
            and 0 < len(touched.facts) <= self.FEW_FACTS
            and self.order in ("name", "type")
            and self.valid_at is None
        )

    def _update_ends(self, kg, touched: Touched) -> None:
        """Read again the rows of the entities at either end of the touched facts, before the
        write and after it (those whose counts were read: the others' are read when shown)."""
        ends = set(touched.fact_ends)
        for row in kg.rows_with_ids("triples", list(touched.facts)).values():
            ends.update((row["subject"], row["object"]))
        rows = ((eid, self._row_by_id.get(eid, -1)) for eid in ends)
        at = {eid: row for eid, row in rows if row >= 0 and self._read(row)["current"] is not None}
        for new in kg.entity_list_rows(list(at)):
            self._replace_row(at[new["id"]], new)

    def _replace_row(self, row: int, new: dict) -> None:
        """Show ``new`` at ``row``, announced only when it differs from the row shown."""
        page = self._pages[row // self.PAGE]
        if page[row % self.PAGE] != new:
            page[row % self.PAGE] = new
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def set_filter(
        self,
        search: str,
        entity_type: str | None,
        valid_at: str | None,
        then: Callable[[], None] | None = None,
    ) -> None:
        """List these entities from the top; ``then()`` once they are shown."""
        self.search, self.entity_type, self.valid_at = search, entity_type, valid_at
        self._pages = {}
        self.refresh(then)

    @property
    def total(self) -> int:
        return self._total

    # Rows
    def _read(self, row: int) -> dict | None:
        """The row if its page is read (nothing is read here)."""
        page = self._pages.get(row // self.PAGE)
        return page[row % self.PAGE] if page is not None and row % self.PAGE < len(page) else None

    def _row(self, row: int) -> dict | None:
        """The row, its page read first if it was not; None past the end, or when the store
        could not give it (said in words once, the row blank)."""
        number = row // self.PAGE
        page = self._pages.get(number)
        if page is None:
            if not 0 <= row < self._total or number in self._unread or self.reading:
                return None  # (while the listing is read elsewhere, its pages are blank)
            if self.order in ("current", "ended"):
                page = self._page_soon(number)
            else:
                page = self._read_page(number)
        at = row % self.PAGE
        return page[at] if page is not None and at < len(page) else None

    def _read_page(self, number: int) -> list[dict] | None:
        try:
            page = self._read_pages([number], self._total).get(number, [])
        except Unavailable as exc:
            self._unread.add(number)
            self._state.message.emit(f"The entity list: {in_words(exc)}")
            return None
        self._keep_page(number, page)
        return page

    def _keep_page(self, number: int, page: list[dict]) -> None:
        while len(self._pages) >= self.MOST_PAGES:
            self._drop_page(max(self._pages, key=lambda kept: abs(kept - number)))
        self._pages[number] = page
        self._number_page(number)

    def _page_soon(self, number: int) -> list[dict] | None:
        """A page of a listing ranked by a count, with the pages around it not read yet:
        read elsewhere where the window can (a page read here would rank every entity first,
        seconds at a million facts), blank until in (then announced)."""
        if number in self._pages_asked:
            return None
        near = [n for n in range(max(0, number - 2), number + 3) if n not in self._pages]
        listing, total, generation, size = self._listing(), self._total, self.generation, self.PAGE
        self._pages_asked.update(near)
        asking = [True]

        def read(kg) -> dict | Unavailable:
            try:
                return _pages_of(kg, listing, near, total, size)
            except Unavailable as exc:
                return exc

        def answered(pages: dict | Unavailable) -> None:
            self._pages_asked.difference_update(near)
            if generation != self.generation:  # another listing since: asked again if shown
                pages = {}
            elif isinstance(pages, Unavailable):
                self._unread.update(near)
                self._state.message.emit(f"The entity list: {in_words(pages)}")
                pages = {}
            for n, page in pages.items():
                if n not in self._pages:
                    self._keep_page(n, page)
            if not asking[0]:
                self._announce(near[0] * size, (near[-1] + 1) * size - 1)

        self._state.read_soon(_paused(read), answered)
        asking[0] = False
        return self._pages.get(number)

    def _announce(self, first: int, last: int) -> None:
        """The rows ``first`` to ``last`` (those listed) are shown again."""
        last = min(last, self._total - 1)
        if first <= last:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.COLUMNS) - 1))

    def _number_page(self, number: int) -> None:
        """Note the page's rows by id (an id listed twice: its first row)."""
        first = number * self.PAGE
        for at, entity in enumerate(self._pages[number]):
            row = self._row_by_id.get(entity["id"], -1)
            if row < 0 or row > first + at:
                self._row_by_id[entity["id"]] = first + at

    def _drop_page(self, number: int) -> None:
        first = number * self.PAGE
        for at, entity in enumerate(self._pages.pop(number)):
            if self._row_by_id.get(entity["id"]) == first + at:
                del self._row_by_id[entity["id"]]

    def load_row(self, row: int) -> None:
        """Read the page of ``row`` (an entity chosen elsewhere, shown there)."""
        self._row(row)

    def entity_at(self, row: int) -> dict | None:
        return self._counted(row) if self._row(row) is not None else None

    def _counted(self, row: int) -> dict:
        """The row, its counts read here first if they were not: with those of the rows of
        its page that lack them, in one query."""
        if self._pages[row // self.PAGE][row % self.PAGE]["current"] is None:
            first = row - row % self.PAGE
            kg = self._state.kg
            if kg is not None and not kg.closed:
                self._fill_counts(first, _counts_of(kg, self._uncounted_ids(first)))
        return self._pages[row // self.PAGE][row % self.PAGE]

    def _counts_soon(self, row: int) -> dict | None:
        """The row as it is; when its counts are not read yet, they are asked for (with its
        page's) and announced when in."""
        entity = self._row(row)
        first = row - row % self.PAGE
        if entity is None or entity["current"] is not None or first in self._asked:
            return entity
        self._asked.add(first)
        ids, generation = self._uncounted_ids(first), self.generation
        self._asking = first
        try:
            self._state.read_soon(
                lambda kg: _counts_of(kg, ids),
                lambda counts: self._counts_read(first, generation, counts),
            )
        finally:
            self._asking = None
        return self._read(row)  # counted here when the read could not be elsewhere

    def _uncounted_ids(self, first: int) -> list:
        page = self._pages.get(first // self.PAGE, [])
        return [r["id"] for r in page if r["current"] is None]

    def _counts_read(self, first: int, generation: int, counts: dict | None) -> None:
        self._asked.discard(first)
        if generation == self.generation:
            self._fill_counts(first, counts)
        last = first + len(self._pages.get(first // self.PAGE, ())) - 1
        if self._asking != first and last >= first:  # later: filled, or asked again
            self.dataChanged.emit(self.index(first, 2), self.index(last, len(self.COLUMNS) - 1))

    def _fill_counts(self, first: int, counts: dict | None) -> None:
        """The page's rows that lack counts take those in ``counts`` (an entity no longer
        there has none: a write follows); None (unavailable): they stay blank, read again
        when next shown."""
        page = self._pages.get(first // self.PAGE)
        if counts is None or page is None:
            return
        for at, entity in enumerate(page):
            if entity["current"] is None:
                current, ended = counts.get(entity["id"], (0, 0))
                page[at] = {**entity, "current": current, "ended": ended}

    def row_of(self, entity_id: str | None) -> int:
        """The row of ``entity_id`` among the rows read; -1 when it is not read."""
        return self._row_by_id.get(entity_id, -1)

    def id_at(self, row: int) -> str | None:
        entity = self._read(row)
        return entity["id"] if entity is not None else None

    def every_row_read(self) -> bool:
        return not self.reading and sum(len(page) for page in self._pages.values()) >= self._total

    def position_soon(self, entity_id: str, done: Callable[[int | None], None]) -> None:
        """``done(row)``: the row of ``entity_id`` in the listing as it is (-1 when the
        listing leaves it out; None when the store is unavailable, said in words), read off
        the UI thread where the window can."""
        listing, generation, size = self._listing(), self.generation, self.PAGE
        counted = self.order in ("current", "ended")

        def read(kg) -> tuple[int, dict] | Unavailable:
            try:
                row = kg.entity_position(entity_id, **listing)
                if row is None:
                    return -1, {}
                # Ranked by a count: its page too, from the ranking this store has just kept
                # (the window's store would rank again, seconds at a million facts).
                number = [row // size] if counted else []
                return row, _pages_of(kg, listing, number, row + 1, size)
            except Unavailable as exc:
                return exc

        def answered(answer: tuple[int, dict] | Unavailable) -> None:
            if isinstance(answer, Unavailable):
                self._state.message.emit(f"The entity list: {in_words(answer)}")
                done(None)
                return
            row, pages = answer
            for number, page in pages.items():
                if generation == self.generation and number not in self._pages:
                    self._keep_page(number, page)
            done(row)

        self._state.read_soon(_paused(read), answered)

    # Model
    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else self._total

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return (
                    "Display name (id in the tooltip)",
                    "Entity type",
                    "Open: facts with no end (valid_to empty), both directions;"
                    " not as of as_of (some may start later)",
                    "Ended: facts with an end (valid_to set), both directions; not as of as_of",
                )[section]
        return None

    def data(self, index: Index, role=Qt.ItemDataRole.DisplayRole):
        entity = self._shown(index)
        return None if entity is None else self._value(entity, index.column(), role)

    def multiData(self, index: Index, roles) -> None:
        # The view's delegate asks seven roles per painted cell in one call: answering them
        # here is one call into Python per cell instead of seven.
        entity = self._shown(index)
        if entity is None:
            clear_span(roles)
            return
        fill_span(roles, self._value, entity, index.column())

    def _shown(self, index: Index) -> dict | None:
        if not index.isValid():
            return None
        return self._counts_soon(index.row()) if index.column() >= 2 else self._row(index.row())

    def _value(self, entity: dict, column: int, role: int):
        nameless = entity["id"] is None
        if role == DISPLAY:
            if column == 0:
                name = style.cell_text(entity["name"])
                return f"{style.MARK} {name}" if nameless else name
            if column == 1:
                return style.cell_text(entity["type"])
            return entity[self.ORDERS[column]]
        if role == ENTITY_ID_ROLE:
            return entity["id"]
        if role == FONT:
            return self._italic if nameless else None
        if column >= 2:
            if role == ALIGNMENT:
                return RIGHT
            if role == FOREGROUND and not entity[self.ORDERS[column]]:
                return style.theme().dim_brush
        elif role == FOREGROUND and nameless:
            return style.theme().dim_brush
        elif role == TOOLTIP and column == 0:
            name = style.tip_text(entity["name"])
            kind = f"type: {entity['type']}\n" if entity["type"] else ""
            return (
                f"{name}\n{kind}{style.MARK} {NO_ID}"
                if nameless
                else f"{name}\n{kind}id: {entity['id']}"
            )
        elif role == TOOLTIP and column == 1 and len(style.stored_text(entity["type"])) > 40:
            return style.tip_text(entity["type"])
        return None

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
        self._pages = {}
        self.refresh()


def _counts_of(kg, ids: list) -> dict | None:
    """{id: (open, ended)} of the entities ``ids``; None when the store is unavailable."""
    try:
        return {e["id"]: (e["current"], e["ended"]) for e in kg.entity_list_rows(ids)}
    except Unavailable:
        return None


def _pages_of(kg, listing: dict, numbers: list[int], total: int, size: int) -> dict:
    """The pages ``numbers`` (sorted) of ``listing`` (pages of ``size`` rows, ``total`` rows
    in all), in a query per run of consecutive pages."""
    pages: dict[int, list[dict]] = {}
    numbers = [n for n in numbers if n * size < total]
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][-1] == number - 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    for run in runs:
        rows = kg.list_entities(
            **listing, limit=len(run) * size, offset=run[0] * size, counts=False
        )
        for at, number in enumerate(run):
            page = rows[at * size : (at + 1) * size]
            if page:
                pages[number] = page
    return pages


def _listed(kg, pages: dict, counted: list) -> dict:
    """{id: row with its counts} of the entities ``counted`` (whose counts were shown),
    those still in ``pages``."""
    if not counted:
        return {}
    listed = {r["id"] for rows in pages.values() for r in rows}
    ids = [eid for eid in counted if eid in listed]
    return {new["id"]: new for new in kg.entity_list_rows(ids)} if ids else {}


def _paused(read: Callable) -> Callable:
    """``read`` with Python's cycle collector paused: ranking by a count builds a tuple per
    entity, and a collection meanwhile walks them holding the interpreter's lock, the UI
    thread waiting (60-140 ms at 100,000 entities)."""

    def paused(kg):
        with collector_paused():
            return read(kg)

    return paused
