"""One entity's facts as read for a window: rows, and the columns views sort and lay out by.

A hub has 20,000 facts. A dict per fact costs ~1.5 µs to make and views that sort or lay out
all of them read one field of every fact (the predicate, the time bounds, the other entity):
so the rows stay as SQL gave them, a fact's dict is made the first time it is asked for (the
table's cells, a tooltip), and each column is made once per read, for every view alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import itemgetter
from typing import Any, TypeVar, overload

import numpy as np

from factlines.core import temporal
from factlines.core.columns import FACT_FIELDS
from factlines.core.store.rows import interval_dict

_FIELDS = (*FACT_FIELDS, "position")
_PLACE = {field: place for place, field in enumerate(_FIELDS)}
# Whether each fact is the entity's own (it is the subject): made once for the three below.
OUTGOING_FLAGS = "_outgoing"
# The entity at the other end of a fact: (its field in an outgoing fact, in an incoming one).
_OTHER_END = {"other": ("object", "subject"), "other_name": ("object_name", "subject_name")}
_TIMES = {"start": ("valid_from", temporal.start_posix), "end": ("valid_to", temporal.end_posix)}


def bounds_of(seconds: list[float | None], none: float) -> np.ndarray:
    """POSIX seconds as an array, ``none`` where a value is None (-inf: an unknown start,
    +inf: an open end)."""
    return np.fromiter(
        (none if s is None else s for s in seconds), dtype=np.float64, count=len(seconds)
    )


T = TypeVar("T")


class MadeWhenAsked(Sequence[T]):
    """A sequence whose items are made when one is asked for: a subclass gives ``__len__`` and
    ``_item(i)`` (``0 <= i < len``)."""

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._item(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._item(i)

    def __iter__(self) -> Iterator[T]:
        return map(self._item, range(len(self)))

    def _item(self, i: int) -> T:
        raise NotImplementedError


class IntervalTable(MadeWhenAsked[dict[str, Any]]):
    """Entity ``eid``'s facts, both directions: ``table[i]`` is ``KnowledgeGraph.intervals``'s
    row ``i`` (a dict made once, then shared: a write patches it in place), ``column(name)``
    one field of every row, ``starts`` / ``ends`` their time bounds (-inf for an unknown start,
    +inf for an open end). ``rows`` are ``FACT_FIELDS`` then the fact's position."""

    def __init__(self, eid: str, rows: list[tuple[Any, ...]]):
        self.eid = eid
        self._rows = rows
        self._dicts: list[dict[str, Any] | None] = [None] * len(rows)
        self._columns: dict[str, list[Any]] = {}
        self._distinct: dict[str, dict[Any, None]] = {}
        self._bounds: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._rows)

    def _item(self, i: int) -> dict[str, Any]:
        fact = self._dicts[i]
        if fact is None:
            fact = self._dicts[i] = interval_dict(self._rows[i], self.eid)
        return fact

    def column(self, name: str) -> list[Any]:
        """Field ``name`` of every row, in the rows' order: any key of the rows' dicts. Made
        when first asked for (a view asks for a dozen of the fields)."""
        column = self._columns.get(name)
        if column is None:
            column = self._columns[name] = self._make_column(name)
        return column

    def distinct(self, name: str) -> dict[Any, None]:
        """The distinct values of column ``name``, in the order they first come (a dict's
        keys): made once per read (the time columns' are made for their bounds)."""
        distinct = self._distinct.get(name)
        if distinct is None:
            distinct = self._distinct[name] = dict.fromkeys(self.column(name))
        return distinct

    def _make_column(self, name: str) -> list[Any]:
        if name in _PLACE:
            return list(map(itemgetter(_PLACE[name]), self._rows))
        if name == OUTGOING_FLAGS:
            eid = self.eid
            return [subject == eid for subject in self.column("subject")]
        if name == "direction":
            return ["outgoing" if o else "incoming" for o in self.column(OUTGOING_FLAGS)]
        if name in _OTHER_END:
            mine, theirs = _OTHER_END[name]
            return [
                a if o else b
                for o, a, b in zip(
                    self.column(OUTGOING_FLAGS), self.column(mine), self.column(theirs)
                )
            ]
        if name == "current":
            return [end is None for end in self.column("valid_to")]
        # start or end: each distinct stored value (a hub's dates repeat) read once
        stored, posix = _TIMES[name]
        seconds = {value: posix(value) for value in self.distinct(stored)}
        return list(map(seconds.__getitem__, self.column(stored)))

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """POSIX start and end keys of every row (-inf for an unknown start, +inf for an
        open end)."""
        if self._bounds is None:
            self._bounds = (
                bounds_of(self.column("start"), -np.inf),
                bounds_of(self.column("end"), np.inf),
            )
        return self._bounds

    # ── Writes, brought in ────────────────────────────────────────────────

    def links(self) -> list[tuple[Any, ...]] | None:
        """(position, subject, object) of every row, as ``KnowledgeGraph.neighbourhood`` reads
        the entity's links; None once a fact was added since the read (its position unknown)."""
        positions = self.column("position")
        if None in positions:
            return None
        return list(zip(positions, self.column("subject"), self.column("object")))

    def put(self, i: int, fact: dict[str, Any]) -> None:
        """Row ``i`` is now ``fact`` (an ``intervals`` row): its dict updated in place. An
        edited fact keeps its position."""
        shared = self._dicts[i]
        if shared is not None:
            shared.update(fact)
            fact = shared
        else:
            self._dicts[i] = fact
        self._rows[i] = (*(fact[field] for field in FACT_FIELDS), self._rows[i][-1])
        self._forget_columns()

    def append(self, fact: dict[str, Any]) -> None:
        """``fact`` added since the read: its position is not known here."""
        self._rows.append((*(fact[field] for field in FACT_FIELDS), None))
        self._dicts.append(fact)
        self._forget_columns()

    def without(self, gone: Iterable[str]) -> IntervalTable:
        """A new table of the rows whose id is not in ``gone`` (the dicts made kept)."""
        gone = set(gone)
        keep = [i for i, tid in enumerate(self.column("id")) if tid not in gone]
        table = IntervalTable(self.eid, [self._rows[i] for i in keep])
        table._dicts = [self._dicts[i] for i in keep]
        return table

    def _forget_columns(self) -> None:
        self._columns, self._distinct, self._bounds = {}, {}, None


def column_reader(facts: Sequence[dict[str, Any]]) -> Callable[[str], list[Any]]:
    """``column(name)``: field ``name`` of every fact, the table's column when ``facts`` is a
    table, else read from each dict."""
    if isinstance(facts, IntervalTable):
        return facts.column
    return lambda name: [fact[name] for fact in facts]


class InOrder(MadeWhenAsked[dict[str, Any]]):
    """``rows`` in another order, ``order`` an int array: item ``i`` is ``rows[order[i]]`` (a
    table's facts in the chart's bars' order or the facts table's, no dict made before it is
    asked for)."""

    def __init__(self, rows: Sequence[dict[str, Any]], order: np.ndarray):
        self._rows, self._order = rows, order

    def __len__(self) -> int:
        return len(self._order)

    def _item(self, i: int) -> dict[str, Any]:
        return self._rows[int(self._order[i])]
