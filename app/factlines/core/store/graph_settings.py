"""The app's own settings of one graph, kept in the graph itself (``fl_meta``, which MemPalace
ignores) so that they travel with the file: which predicates are single-valued, which
predicates wear another name's colour (a renamed predicate keeps the colour it had), and
whatever else the app keeps per graph (a copy of the graph carries them all)."""

from __future__ import annotations

import json
from typing import cast

from factlines.core.errors import Refused
from factlines.core.names import check_name, predicate_id
from factlines.core.store.wiring import Part, writes

SINGLE_VALUED = "single_valued_predicates"
COLOURS = "predicate_colours"


class GraphSettings(Part):
    """The app's settings kept in the graph: single-valued predicates, colours, the rest."""

    def single_valued_predicates(self) -> list[str]:
        """Predicates the user marked as allowing one object per subject at a time."""
        value = self._store.get_meta(SINGLE_VALUED)
        return sorted(json.loads(value)) if value else []

    @writes
    def set_single_valued(self, predicate: str, single: bool = True) -> None:
        check_name(predicate, "predicate")
        pred = predicate_id(predicate)
        with self._store.transaction():  # read inside the write: another client's mark stays
            marked = set(self.single_valued_predicates())
            marked = marked | {pred} if single else marked - {pred}
            self._store.set_meta(SINGLE_VALUED, json.dumps(sorted(marked)))

    def graph_settings(self) -> dict[str, str]:
        """Every setting the graph keeps, by key, as stored (for a copy of the graph)."""
        return dict(self._store.meta_items())

    @writes
    def set_graph_settings(self, values: dict[str, str]) -> None:
        """Keep these settings (another graph's, as :meth:`graph_settings` gives them), each
        replacing this graph's of the same key. One write (or part of the caller's)."""
        with self._store.transaction():
            # Checked at run time: they may come from another graph's file, as read.
            for key, value in cast("dict[object, object]", values).items():
                if not isinstance(key, str) or not isinstance(value, str):
                    raise Refused(f"a graph setting is text under a text key, not {key!r}")
                self._store.set_meta(key, value)

    def predicate_colours(self) -> dict[str, str]:
        """``{predicate: name}``: the predicates drawn in the colour another name has (the
        app colours a predicate by a name; by default its own)."""
        value = self._store.get_meta(COLOURS)
        return dict(json.loads(value)) if value else {}

    def follow_rename(self, old: str, new: str, merged: bool, old_left: bool) -> None:
        """After renaming ``old`` to ``new``: a new name takes the old one's single-valued flag
        and colour (a merge target keeps its own); the old name keeps them while facts still
        carry it (history), and gives them up when none do."""
        single = set(self.single_valued_predicates())
        colours = self.predicate_colours()
        wanted_single, wanted_colours = set(single), dict(colours)
        if not merged:
            if old in single:
                wanted_single.add(new)
            if colours.get(old, old) != new:
                wanted_colours[new] = colours.get(old, old)
        if not old_left:
            wanted_single.discard(old)
            wanted_colours.pop(old, None)
        if wanted_single != single:
            self._store.set_meta(SINGLE_VALUED, json.dumps(sorted(wanted_single)))
        if wanted_colours != colours:
            value = json.dumps(dict(sorted(wanted_colours.items()))) if wanted_colours else None
            self._store.set_meta(COLOURS, value)
