"""The pages of the entity listing read so far, and the reads that give them (here or off the
UI thread): no Qt, the entity list's model shows them."""

from __future__ import annotations

from collections.abc import Callable

from factlines.core.collector import collector_paused
from factlines.core.errors import Unavailable


class ListedPages:
    """The pages of the listing read so far, by number (pages of ``size`` rows), each row's
    number by its entity's id, and the pages the store could not give. At most ``most`` pages
    are kept: those farthest from the one kept last are dropped (read again when shown)."""

    def __init__(self, size: int, most: int):
        self.size, self.most = size, most
        self.by_number: dict[int, list[dict]] = {}
        self.unread: set[int] = set()  # pages the store could not give: blank until a refresh
        self._row_by_id: dict = {}  # each read row's number by its entity's id

    def __bool__(self) -> bool:
        return bool(self.by_number)

    def __contains__(self, number: int) -> bool:
        return number in self.by_number

    def numbers(self) -> list[int]:
        return sorted(self.by_number)

    def get(self, number: int) -> list[dict] | None:
        return self.by_number.get(number)

    def forget(self) -> None:
        """Drop the pages read (a new filter or sort: the first is read from the top)."""
        self.by_number = {}

    def reset(self, pages: dict[int, list[dict]]) -> None:
        """Keep ``pages`` alone (a listing read again): every page blank until then is asked
        for again."""
        self.by_number, self._row_by_id = pages, {}
        self.unread.clear()
        for number in sorted(pages):
            self._number(number)

    def keep(self, number: int, page: list[dict]) -> None:
        while len(self.by_number) >= self.most:
            self._drop(max(self.by_number, key=lambda kept: abs(kept - number)))
        self.by_number[number] = page
        self._number(number)

    def _number(self, number: int) -> None:
        """Note the page's rows by id (an id listed twice: its first row)."""
        first = number * self.size
        for at, entity in enumerate(self.by_number[number]):
            row = self._row_by_id.get(entity["id"], -1)
            if row < 0 or row > first + at:
                self._row_by_id[entity["id"]] = first + at

    def _drop(self, number: int) -> None:
        first = number * self.size
        for at, entity in enumerate(self.by_number.pop(number)):
            if self._row_by_id.get(entity["id"]) == first + at:
                del self._row_by_id[entity["id"]]

    def read(self, row: int) -> dict | None:
        """The row if its page is read (nothing is read here)."""
        page = self.by_number.get(row // self.size)
        return page[row % self.size] if page is not None and row % self.size < len(page) else None

    def row_of(self, entity_id: str | None) -> int:
        """The row of ``entity_id`` among the rows read; -1 when it is not read."""
        return self._row_by_id.get(entity_id, -1)

    def rows_read(self) -> int:
        return sum(len(page) for page in self.by_number.values())

    def last_row(self, first: int) -> int:
        """The last row read of the page starting at row ``first`` (first - 1 if none)."""
        return first + len(self.by_number.get(first // self.size, ())) - 1

    def replace(self, row: int, new: dict) -> bool:
        """Keep ``new`` at ``row``; whether it differs from the row kept there."""
        page = self.by_number[row // self.size]
        if page[row % self.size] == new:
            return False
        page[row % self.size] = new
        return True

    def same_entities(self, pages: dict[int, list[dict]]) -> bool:
        """Whether ``pages`` (read again) list the entities of the pages kept, in order."""
        return all(
            [r["id"] for r in pages.get(n, ())] == [r["id"] for r in rows]
            for n, rows in self.by_number.items()
        )

    def counted_ids(self) -> list:
        """The ids of the rows read whose counts were read too."""
        return [
            r["id"]
            for rows in self.by_number.values()
            for r in rows
            if r["current"] is not None and r["id"] is not None
        ]

    def uncounted_ids(self, first: int) -> list:
        page = self.by_number.get(first // self.size, [])
        return [r["id"] for r in page if r["current"] is None]

    def fill_counts(self, first: int, counts: dict | None) -> None:
        """The page's rows that lack counts take those in ``counts`` (an entity no longer
        there has none: a write follows); None (unavailable): they stay blank, read again
        when next shown."""
        page = self.by_number.get(first // self.size)
        if counts is None or page is None:
            return
        for at, entity in enumerate(page):
            if entity["current"] is None:
                current, ended = counts.get(entity["id"], (0, 0))
                page[at] = {**entity, "current": current, "ended": ended}


def counts_of(kg, ids: list) -> dict | None:
    """{id: (open, ended)} of the entities ``ids``; None when the store is unavailable."""
    try:
        return {e["id"]: (e["current"], e["ended"]) for e in kg.entity_list_rows(ids)}
    except Unavailable:
        return None


def pages_of(kg, listing: dict, numbers: list[int], total: int, size: int) -> dict:
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


def count_and_pages(kg, listing: dict, numbers: list[int], size: int) -> tuple[int, dict]:
    """The count of ``listing`` and its pages ``numbers`` (sorted)."""
    total = kg.count_entities(listing["search"], listing["entity_type"], listing["valid_at"])
    return total, pages_of(kg, listing, numbers, total, size)


def listed(kg, pages: dict, counted: list) -> dict:
    """{id: row with its counts} of the entities ``counted`` (whose counts were shown),
    those still in ``pages``."""
    if not counted:
        return {}
    kept = {r["id"] for rows in pages.values() for r in rows}
    ids = [eid for eid in counted if eid in kept]
    return {new["id"]: new for new in kg.entity_list_rows(ids)} if ids else {}


def elsewhere(read: Callable) -> Callable:
    """``read`` to run off the UI thread: its answer, or the store's Unavailable (said in
    words when in); with Python's cycle collector paused: ranking by a count builds a tuple
    per entity, and a collection meanwhile walks them holding the interpreter's lock, the UI
    thread waiting (60-140 ms at 100,000 entities)."""

    def paused(kg):
        with collector_paused():
            try:
                return read(kg)
            except Unavailable as exc:
                return exc

    return paused
