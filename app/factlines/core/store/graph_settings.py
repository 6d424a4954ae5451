"""The app's own settings of one graph, kept in the graph itself (``fl_meta``, which MemPalace
ignores) so that they travel with the file: which predicates are single-valued."""

from __future__ import annotations

import json

from factlines.core.names import check_name, predicate_id
from factlines.core.store.protocol import GraphStore

SINGLE_VALUED = "single_valued_predicates"


class GraphSettings:
    _store: GraphStore

    def single_valued_predicates(self) -> list[str]:
        """Predicates the user marked as allowing one object per subject at a time."""
        value = self._store.get_meta(SINGLE_VALUED)
        return sorted(json.loads(value)) if value else []

    def set_single_valued(self, predicate: str, single: bool = True) -> None:
        check_name(predicate, "predicate")
        marked = set(self.single_valued_predicates())
        pred = predicate_id(predicate)
        marked = marked | {pred} if single else marked - {pred}
        self._store.set_meta(SINGLE_VALUED, json.dumps(sorted(marked)))
