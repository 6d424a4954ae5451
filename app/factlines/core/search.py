"""Entity search held in memory: a substring scan of 100k names in Python beats SQLite's LIKE.

SQLite must test ``LIKE '%q%'`` twice per row (name and id) and cannot use an index for a
substring, about 30 ms over 100k entities. Here the folded names and ids are held twice: one
text of all of them, which ``str.find`` (C speed) searches when a query matches few entities,
and a list of keys, tested one by one when it matches many. Prefix matches come from sorted
copies by bisection. The last result is kept for paging and counting, and a growing query
narrows the last scan. The store rebuilds the index when the file changed.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from itertools import accumulate

import numpy as np

from factlines.core.names import entity_id

# str.find costs about 15 times a key test per match found: past one entity in FIND_SHARE
# matching (estimated on a sample of SAMPLE keys), each key is tested instead.
FIND_SHARE = 16
SAMPLE = 512
# No folded text sorts after this, so [q, q + LAST) holds every string starting with q.
LAST = "\U0010ffff"
SEPARATOR = "\n"


def _fold(value: object) -> str:
    """A stored name or id as searched: folded text; a NULL id (a hand-edited file) as ""."""
    if isinstance(value, str):
        folded = value.casefold()
        return value if folded == value else folded  # ids are folded already: held once
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").casefold()
    return "" if value is None else str(value).casefold()


class _Column:
    """One folded value per entity (names, or ids), searchable as one text and by prefix."""

    def __init__(self, values: list[str]):
        self.values = values
        self.text = SEPARATOR.join(values)
        # Positions as machine integers: a list of 100,000 int objects is 3.6 MB, this 0.8.
        lengths = (len(value) + 1 for value in values)
        self.starts = array("q", accumulate(lengths, initial=0))[: len(values)]
        self.order = array("q", sorted(range(len(values)), key=values.__getitem__))
        self.sorted = [values[i] for i in self.order]

    def containing(self, query: str, limit: int) -> list[int] | None:
        """Positions of the values containing ``query`` in order, or None past ``limit``."""
        if not self.values:
            return []
        if SEPARATOR in query:
            return [i for i, value in enumerate(self.values) if query in value]
        text, starts = self.text, self.starts
        hits: list[int] = []
        last = len(starts) - 1
        found = text.find(query)
        while found != -1:
            if len(hits) == limit:
                return None
            i = bisect_right(starts, found) - 1
            hits.append(i)
            if i == last:
                break
            found = text.find(query, starts[i + 1])
        return hits

    def starting_with(self, query: str) -> array[int]:
        """Positions of the values starting with ``query``, in no particular order."""
        low = bisect_left(self.sorted, query)
        high = bisect_left(self.sorted, query + LAST, low)
        return self.order[low:high]


class EntitySearchIndex:
    """Ids, names and types of every entity in name order, with folded keys to match on."""

    def __init__(self, rows: list[tuple[str, str, str | None]]):
        # rows: (id, name, type) in the store's name order; an id may be NULL (hand edits).
        self.ids = [row[0] for row in rows]
        self.names = [row[1] for row in rows]
        kinds: dict[str | None, str | None] = {}  # each type held once, not once per row read
        self.types = [kinds.setdefault(row[2], row[2]) for row in rows]
        self._names = _Column([_fold(row[1]) for row in rows])
        self._id_keys = _Column([_fold(row[0]) for row in rows])
        # One key per entity so a single `in` test covers both; NUL never occurs in a query.
        self._keys = [f"{n}\0{i}" for n, i in zip(self._names.values, self._id_keys.values)]
        self._sample = range(0, len(self._keys), max(1, len(self._keys) // SAMPLE))
        self._last: tuple[tuple[str, str | None], list[int]] | None = None
        # The last scan, before the type filter and the prefix-first order: (name query,
        # id query, positions in name order).
        self._scanned: tuple[str, str, list[int]] | None = None
        self._type_orders: dict[bool, np.ndarray | None] = {}

    def type_order(self, descending: bool) -> np.ndarray | None:
        """Positions in the entity list's type order, SQLite's ``ORDER BY type COLLATE NOCASE
        [DESC], name COLLATE NOCASE, id``: each type's entities in name order, NULL types
        first (last descending). Made once per direction: a page deep in that order is then a
        slice, where SQLite sorts every entity for it (74-88 ms at 100,000). None when a type
        is not text (a hand edit's number or BLOB): SQLite orders those."""
        if descending not in self._type_orders:
            self._type_orders[descending] = _type_order(self.types, descending)
        return self._type_orders[descending]

    def matches(self, text: str, entity_type: str | None = None) -> list[int]:
        """Positions of the matching entities: prefix matches first, each part in name order."""
        query = (text, entity_type)
        if self._last is not None and self._last[0] == query:
            return self._last[1]
        name_q = text.casefold()
        id_q = entity_id(text).casefold()
        hits = self._scan(name_q, id_q)
        if entity_type is not None:
            types = self.types
            hits = [i for i in hits if types[i] == entity_type]
        hits = self._prefixed_first(hits, name_q, id_q)
        self._last = (query, hits)
        return hits

    def _prefixed_first(self, hits: list[int], name_q: str, id_q: str) -> list[int]:
        """``hits`` (in name order) with those whose name or id starts with the query first,
        each part still in name order. Every such entity is a hit already (a prefix is a
        substring), so a mask over the hits splits them: "e" in 100,000 names by sets and a
        sort took ~9 ms, this ~3."""
        in_names = self._names.starting_with(name_q)
        in_ids = self._id_keys.starting_with(id_q)
        if not (in_names or in_ids):
            return hits
        prefixed = np.zeros(len(self._keys), dtype=bool)
        for positions in (in_names, in_ids):
            prefixed[np.frombuffer(positions, dtype=np.int64)] = True
        found = np.fromiter(hits, dtype=np.int64, count=len(hits))
        first = prefixed[found]
        if first.all() or not first.any():
            return hits
        return np.concatenate([found[first], found[~first]]).tolist()

    def _scan(self, name_q: str, id_q: str) -> list[int]:
        """Positions whose name contains ``name_q`` or whose id contains ``id_q``, in order.

        Typing narrows a search: when the last queries are contained in these, every match is
        among the last matches, and only those are tested again.
        """
        if self._scanned is not None and self._scanned[0] in name_q and self._scanned[1] in id_q:
            hits = self._test_each(self._scanned[2], name_q, id_q)
        else:
            hits = self._find(name_q, id_q)
            if hits is None:
                hits = self._test_each(range(len(self._keys)), name_q, id_q)
        self._scanned = (name_q, id_q, hits)
        return hits

    def _find(self, name_q: str, id_q: str) -> list[int] | None:
        """The matches found with str.find, or None when they are too many for it to pay."""
        expected = len(self._test_each(self._sample, name_q, id_q)) * self._sample.step
        limit = len(self._keys) // FIND_SHARE  # past that, testing each key is cheaper
        if expected > limit:
            return None
        in_names = self._names.containing(name_q, limit)
        in_ids = None if in_names is None else self._id_keys.containing(id_q, limit)
        if in_ids is None:
            return None
        if in_names and in_ids:
            return sorted(set(in_names).union(in_ids))
        return in_names or in_ids

    def _test_each(self, candidates: Iterable[int], name_q: str, id_q: str) -> list[int]:
        keys, names, id_keys = self._keys, self._names.values, self._id_keys.values
        if name_q == id_q:
            return [i for i in candidates if name_q in keys[i]]
        return [i for i in candidates if name_q in names[i] or id_q in id_keys[i]]


# SQLite's NOCASE folds ASCII letters only.
_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _type_order(types: list[str | None], descending: bool) -> np.ndarray | None:
    kinds = set(types)
    if not all(kind is None or type(kind) is str for kind in kinds):
        return None
    texts = sorted(
        {kind.translate(_ASCII_FOLD) for kind in kinds if kind is not None}, reverse=descending
    )
    rank = {text: r for r, text in enumerate(texts)}
    null = len(texts) if descending else -1
    rank_of = {kind: null if kind is None else rank[kind.translate(_ASCII_FOLD)] for kind in kinds}
    codes = np.fromiter(map(rank_of.__getitem__, types), dtype=np.int64, count=len(types))
    return np.argsort(codes, kind="stable")  # ties keep the index's order: by name, then id
