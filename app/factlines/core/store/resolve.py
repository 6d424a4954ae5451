"""Contradictions resolved, not just found: two facts of a single-valued predicate that overlap
(one subject, two objects at once), settled in one write.

- ``newer``: the fact recorded later (``extracted_at``; a tie: the later start, then the
  larger id) holds; the other gives way over the overlap.
- ``older``: the fact recorded first holds; the newer one gives way.
- ``split``: both were true, one after the other: the fact that starts first gives way from the
  moment the other starts, and takes up again when the other ends.

A fact giving way keeps its time before the winner's start (it ends there) and its time after
the winner's end (it starts there; with time on both sides, the time after goes on as a new
fact, same object, confidence and provenance); a fact with no time outside the winner's is
deleted (it was wrong all along). Ends and starts are instants at the winner's keys (§2.3), so
nothing overlaps, not even for a day.
"""

from __future__ import annotations

from typing import Any

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.store.fact_edits import FactEdits
from factlines.core.store.protocol import GraphStore
from factlines.core.store.rows import PROVENANCE, describe
from factlines.core.store.wiring import Part, writes

CHOICES = ("newer", "older", "split")


class ConflictResolution(Part):
    """Two overlapping facts settled: keep the newer, the older, or split the time."""

    def __init__(self, store: GraphStore, facts: FactEdits):
        super().__init__(store)
        self._facts = facts

    @writes
    def resolve_conflict(self, first: str, second: str, keep: str) -> str:
        """Settle the overlap of facts ``first`` and ``second`` as ``keep`` says (``newer``,
        ``older`` or ``split``, see the module), in one write; returns what was done, in words
        (for the edit log's reason). Refused when they do not overlap or are not one subject's
        facts of one predicate."""
        if keep not in CHOICES:
            raise Refused(f"keep={keep!r} is not one of {', '.join(CHOICES)}")
        with self._store.transaction():
            a, b = self._facts.get_fact(first), self._facts.get_fact(second)
            same = (a["subject"], a["predicate"]) == (b["subject"], b["predicate"])
            if not same or a["id"] == b["id"]:
                raise Refused("only two facts of one subject and predicate can contradict")
            if not _overlap(a, b):
                raise Refused(f"{describe(a)} and {describe(b)} do not overlap")
            if keep == "split":
                loser, winner = sorted((a, b), key=_start_order)
                if _start_order(loser)[0] == _start_order(winner)[0]:
                    raise Refused("they start at the same time: nothing to split; keep one of them")
            else:
                older, newer = sorted((a, b), key=_recorded_order)
                winner, loser = (newer, older) if keep == "newer" else (older, newer)
            return self._take_out_of(loser, winner)

    def _take_out_of(self, loser: dict[str, Any], winner: dict[str, Any]) -> str:
        """Take the winner's time out of the loser's; what happened, in words."""
        start, end = _keys(winner)
        loser_start, loser_end = _keys(loser)
        before = loser_start < start
        after = end is not None and (loser_end is None or loser_end > end)
        words: list[str] = []
        if before:
            self._facts.update_fact(loser["id"], valid_to=start)
            words.append(f"ended at {start}")
        if after and before:
            fields = {key: loser[key] for key in ("confidence", *PROVENANCE)}
            self._facts.add_fact(
                loser["subject"],
                loser["predicate"],
                loser["object"],
                valid_from=end,
                valid_to=loser["valid_to"],
                **fields,
            )
            words.append(f"goes on from {end}")
        elif after:
            self._facts.update_fact(loser["id"], valid_from=end)
            words.append(f"starts at {end}")
        if not (before or after):
            self._facts.delete_fact(loser["id"])
            words.append("deleted (no time of its own)")
        return f"kept {describe(winner)}; {describe(loser)} " + ", ".join(words)


def _keys(fact: dict[str, Any]) -> tuple[str, str | None]:
    """(start key, "" when unknown; end key, None when open)."""
    # Typed locals: an Any argument would leave the overloaded keys' results unknown.
    valid_from: str | None = fact["valid_from"]
    valid_to: str | None = fact["valid_to"]
    return temporal.start_key(valid_from) or "", temporal.end_key(valid_to)


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    (a_start, a_end), (b_start, b_end) = _keys(a), _keys(b)
    return (b_end is None or a_start < b_end) and (a_end is None or b_start < a_end)


def _start_order(fact: dict[str, Any]) -> tuple[str, Any]:
    return _keys(fact)[0], fact["id"]


def _recorded_order(fact: dict[str, Any]) -> tuple[Any, str, Any]:
    return fact["extracted_at"] or "", _keys(fact)[0], fact["id"]
