"""What the entity list reads off the UI thread, and what it does with the answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from factlines.core.errors import Unavailable
from factlines.ui.models.listed_pages import ListedPages, counts_of, elsewhere, pages_of

if TYPE_CHECKING:
    from factlines.ui.models.entity_listing import EntityModel
    from factlines.ui.session.state import AppState


class ListingReads:
    """The entity list's reads off the UI thread, where the window can: a slow listing
    (filtered by valid_at, or ranked by a count) read again, the pages around one shown of a
    listing ranked by a count, an entity's row, and each page's counts. An answer of a listing
    no longer shown (a filter, sort or write since: another generation of the model) is
    dropped; the model shows the others."""

    def __init__(self, state: AppState, model: EntityModel, pages: ListedPages):
        self._state, self._model, self._pages = state, model, pages
        self._reading: object | None = None  # the listing read elsewhere, its answer to come
        self._pages_asked: set[int] = set()  # pages being read elsewhere (ranked by a count)
        self._asked: set[int] = set()  # first rows of the pages whose counts are being read
        self._asking: int | None = None  # the page asked for now: answered at once, or later

    @property
    def reading(self) -> bool:
        """Whether the listing is being read again (its answer not in)."""
        return self._reading is not None

    def drop_listing(self) -> None:
        """The answer still to come of the listing read is dropped (another is shown)."""
        self._reading = None

    def drop_pages(self) -> None:
        """The pages still to come are dropped (of another listing)."""
        self._pages_asked.clear()

    def listing_soon(self, read: Callable, answered: Callable) -> None:
        """``answered(read(kg))`` of the listing (the store's Unavailable as the answer when
        it cannot give it); dropped when another is asked for meanwhile. Until it is in, no
        page is read on the UI thread; a listing with no page read (a new filter or sort) is
        shown empty, counting."""
        model = self._model
        token = self._reading = object()
        model.generation += 1  # the counts asked for until now are of rows no longer listed

        def done(answer) -> None:
            if self._reading is token:
                self._reading = None
                answered(answer)
                model.show_again(0, model.total - 1)  # the pages left blank meanwhile are asked for
                model.listingRead.emit()

        self._state.read_soon(elsewhere(read), done)
        if self._reading is token and not self._pages:  # not in yet, and nothing to show
            model.show_listing({}, 0, counting=True)

    def page_soon(self, number: int) -> None:
        """A page of a listing ranked by a count, with the pages around it not read yet (a
        page read on the UI thread would rank every entity first, seconds at a million
        facts): blank until in (then shown again)."""
        if number in self._pages_asked:
            return
        model, size = self._model, self._pages.size
        near = [n for n in range(max(0, number - 2), number + 3) if n not in self._pages]
        listing, total, generation = model.listing(), model.total, model.generation
        self._pages_asked.update(near)
        asking = [True]

        def answered(pages: dict | Unavailable) -> None:
            self._pages_asked.difference_update(near)
            if generation != model.generation:  # another listing since: asked again if shown
                pages = {}
            elif isinstance(pages, Unavailable):
                self._pages.unread.update(near)
                model.say(pages)
                pages = {}
            for n, page in pages.items():
                if n not in self._pages:
                    self._pages.keep(n, page)
            if not asking[0]:
                model.show_again(near[0] * size, (near[-1] + 1) * size - 1)

        self._state.read_soon(
            elsewhere(lambda kg: pages_of(kg, listing, near, total, size)), answered
        )
        asking[0] = False

    def counts_soon(self, row: int, entity: dict | None) -> dict | None:
        """The row ``entity`` as it is; when its counts are not read yet, they are asked for
        (with its page's) and shown when in."""
        first = row - row % self._pages.size
        if entity is None or entity["current"] is not None or first in self._asked:
            return entity
        self._asked.add(first)
        ids, generation = self._pages.uncounted_ids(first), self._model.generation
        self._asking = first
        try:
            self._state.read_soon(
                lambda kg: counts_of(kg, ids),
                lambda counts: self._counts_read(first, generation, counts),
            )
        finally:
            self._asking = None
        return self._pages.read(row)  # counted here when the read could not be elsewhere

    def _counts_read(self, first: int, generation: int, counts: dict | None) -> None:
        self._asked.discard(first)
        if generation == self._model.generation:
            self._pages.fill_counts(first, counts)
        last = self._pages.last_row(first)
        if self._asking != first and last >= first:  # later: filled, or asked again
            self._model.show_again(first, last, column=2)

    def position_soon(
        self, entity_id: str, ranked: bool, done: Callable[[int | None], None]
    ) -> None:
        """``done(row)``: the row of ``entity_id`` in the listing as it is (-1 when the
        listing leaves it out; None when the store is unavailable, said in words); ``ranked``
        by a count, its page too."""
        model, size = self._model, self._pages.size
        listing, generation = model.listing(), model.generation

        def read(kg) -> tuple[int, dict]:
            row = kg.entity_position(entity_id, **listing)
            if row is None:
                return -1, {}
            # Its page from the ranking this store has just kept (the window's store would
            # rank again, seconds at a million facts).
            number = [row // size] if ranked else []
            return row, pages_of(kg, listing, number, row + 1, size)

        def answered(answer: tuple[int, dict] | Unavailable) -> None:
            if isinstance(answer, Unavailable):
                model.say(answer)
                done(None)
                return
            row, pages = answer
            for number, page in pages.items():
                if generation == model.generation and number not in self._pages:
                    self._pages.keep(number, page)
            done(row)

        self._state.read_soon(elsewhere(read), answered)
