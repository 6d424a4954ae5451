"""Entity search held in memory: a substring scan of 100k names in Python beats SQLite's LIKE.

SQLite must test ``LIKE '%q%'`` twice per row (name and id) and cannot use an index for a
substring, about 30 ms over 100k entities; testing ``q in key`` over a list of folded keys is a
few milliseconds, folds case beyond ASCII, and the last result is kept for paging and counting.
The store rebuilds the index when the file changed (its own writes or another process's).
"""

from __future__ import annotations

from factlines.core.names import entity_id


class EntitySearchIndex:
    """Ids, names and types of every entity in name order, with folded keys to match on."""

    def __init__(self, rows: list[tuple[str, str, str | None]]):
        # rows: (id, name, type) in the store's name order.
        self.ids = [row[0] for row in rows]
        self.types = [row[2] for row in rows]
        self._names = [row[1].casefold() for row in rows]
        self._id_keys = [row[0].casefold() for row in rows]
        # One key per entity so a single `in` test covers both; NUL never occurs in a query.
        self._keys = [f"{n}\0{i}" for n, i in zip(self._names, self._id_keys)]
        self._last: tuple[tuple[str, str | None], list[int]] | None = None
        # The last scan, before the type filter and the prefix-first order: (name query,
        # id query, positions in name order).
        self._scanned: tuple[str, str, list[int]] | None = None

    def matches(self, text: str, entity_type: str | None = None) -> list[int]:
        """Positions of the matching entities: prefix matches first, each part in name order."""
        query = (text, entity_type)
        if self._last is not None and self._last[0] == query:
            return self._last[1]
        name_q = text.casefold()
        id_q = entity_id(text).casefold()
        hits = self._scan(name_q, id_q)
        names, id_keys, types = self._names, self._id_keys, self.types
        if entity_type is not None:
            hits = [i for i in hits if types[i] == entity_type]
        prefixed = [i for i in hits if names[i].startswith(name_q) or id_keys[i].startswith(id_q)]
        if prefixed and len(prefixed) < len(hits):
            first = set(prefixed)
            hits = prefixed + [i for i in hits if i not in first]
        self._last = (query, hits)
        return hits

    def _scan(self, name_q: str, id_q: str) -> list[int]:
        """Positions whose name contains ``name_q`` or whose id contains ``id_q``, in order.

        Typing narrows a search: when the last queries are contained in these, every match is
        among the last matches, and only those are tested again.
        """
        keys, names, id_keys = self._keys, self._names, self._id_keys
        if self._scanned is not None and self._scanned[0] in name_q and self._scanned[1] in id_q:
            candidates = self._scanned[2]
        else:
            candidates = range(len(keys))
        if name_q == id_q:
            hits = [i for i in candidates if name_q in keys[i]]
        else:
            hits = [i for i in candidates if name_q in names[i] or id_q in id_keys[i]]
        self._scanned = (name_q, id_q, hits)
        return hits
