"""The graph's predicates as a vocabulary: figures and audit signals per predicate, and
renaming or merging one, with its history kept or rewritten in place (contract §5.1).

With history kept, a rename is MemPalace's ``rewrite`` for every open fact of the predicate at
one instant: the old fact ends there and its successor, the same fact in the new words, opens
there. Rewritten in place, the old wording was simply wrong: every fact of it, ended ones too,
takes the new predicate and keeps its id.
"""

from __future__ import annotations

from typing import Any, TypeAlias, TypeVar

from factlines.core import temporal
from factlines.core.errors import Refused
from factlines.core.names import check_name, new_triple_id, predicate_id
from factlines.core.store.edit_history import EditHistory
from factlines.core.store.entity_edits import keep_earlier_start
from factlines.core.store.graph_settings import GraphSettings
from factlines.core.store.protocol import GraphStore
from factlines.core.store.rows import PROVENANCE, TRIPLE_COLUMNS
from factlines.core.store.wiring import Part, writes
from factlines.core.vocabulary import near_duplicates

# What a successor copies from the fact it continues (MemPalace's rewrite: rewording is not new
# evidence); ``extracted_at`` is stamped anew, as MemPalace's insert does.
_CARRIED = ("subject", "object", "confidence", *PROVENANCE)
_SUCCESSOR_COLUMNS = ("id", "predicate", "valid_from", "valid_to", *_CARRIED)
# Facts read again and changed at once (a few such parts to each short transaction).
_FACTS_PER_PART = 500
# A planned change of one open fact: its row as read, "end" or "rename", and the successor's
# row (_SUCCESSOR_COLUMNS) or None.
_Step: TypeAlias = tuple[tuple[Any, ...], str, tuple[Any, ...] | None]
# (subject, object) → (id, valid_from) of the facts open under the new name.
_Twins: TypeAlias = dict[tuple[str, str], tuple[str, str | None]]
_T = TypeVar("_T")


def rename_words(old: str, new: str, *, keep_history: bool = True, merge: bool = False) -> str:
    """The words of a rename as the undo step and the edit log say them."""
    verb = f"Merge predicate {old} into" if merge else f"Rename predicate {old} to"
    return f"{verb} {new}" + ("" if keep_history else " (rewritten in place)")


def report_words(report: dict[str, Any]) -> str:
    """What :meth:`PredicateEdits.rename_predicate` did, in numbers: ``2 facts ended and
    continued as works_for from 2026-01-01T00:00:00Z, 1 already open as works_for``."""

    def facts(n: int) -> str:
        return f"{n:,} fact{'' if n == 1 else 's'}"

    new = report["new"]
    said: list[str] = []
    if report["ended"]:
        said.append(f"{facts(report['ended'])} ended and continued as {new} from {report['at']}")
    if report["renamed"]:
        said.append(f"{facts(report['renamed'])} renamed in place")
    if report["duplicates"]:
        said.append(f"{facts(len(report['duplicates']))} already open as {new}")
    return ", ".join(said)


class PredicateEdits(Part):
    """The predicates as a vocabulary: their figures, renamed or merged."""

    def __init__(self, store: GraphStore, settings: GraphSettings, log: EditHistory):
        super().__init__(store)
        self._settings = settings
        self._log = log

    def predicate_stats(self) -> list[dict[str, Any]]:
        """Every predicate with its figures and MemPalace's audit signals, by predicate:
        ``{predicate, facts, open, current, ended, subjects, objects, single_valued,
        near_duplicates, signals}``.

        ``current`` counts the facts valid now (contract §2.4), ``open`` those without an end,
        ``ended`` those with one (so ``open + ended == facts``); ``subjects`` and ``objects``
        the distinct entities on each side. ``near_duplicates`` are the other predicates that
        look like the same relation written otherwise (:mod:`factlines.core.vocabulary`), the
        most used first. ``signals``, in words: ``one-off`` (a single fact ever carried it),
        ``near-duplicate of P`` (the most used look-alike), ``ended only`` (no open fact: what
        a rename with history leaves behind), ``single-valued`` (marked so).
        """
        rows = self._store.predicates.stats(temporal.now_instant())
        used = {row[0]: row[1] for row in rows}
        alike = near_duplicates(sorted(used, key=lambda p: (-used[p], str(p))))
        marked = set(self._settings.single_valued_predicates())
        stats: list[dict[str, Any]] = []
        for predicate, facts, open_, current, ended, subjects, objects in rows:
            others = alike.get(predicate, [])
            signals: list[str] = []
            if facts == 1:
                signals.append("one-off")
            if others:
                more = f" (+{len(others) - 1} more)" if len(others) > 1 else ""
                signals.append(f"near-duplicate of {others[0]}{more}")
            if open_ == 0:
                signals.append("ended only")
            if predicate in marked:
                signals.append("single-valued")
            stats.append(
                {
                    "predicate": predicate,
                    "facts": facts,
                    "open": open_,
                    "current": current,
                    "ended": ended,
                    "subjects": subjects,
                    "objects": objects,
                    "single_valued": predicate in marked,
                    "near_duplicates": others,
                    "signals": signals,
                }
            )
        return stats

    @writes
    def rename_predicate(
        self,
        old: str,
        new: str,
        *,
        keep_history: bool = True,
        at: str | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """Rename predicate ``old`` to ``new`` (§3.3's form), or merge it into ``new`` when
        facts already carry that; one write (in short transactions, between which MemPalace
        writes: :meth:`batched`), logged in the edit log with ``reason``. A fact another
        program ends or changes meanwhile is left as they made it.

        ``keep_history`` (the default): every open fact of ``old`` that had begun by ``at``
        (§2.7: default now, a day is its first second) ends at that instant and its successor
        opens there with ``new``, the same subject, object, confidence and provenance; ended
        facts keep ``old``. An open fact not begun by then has no history in the old words and
        is renamed in place. Otherwise (``keep_history=False``, "the old wording was simply
        wrong") every fact of ``old`` takes ``new`` in place, keeping its id.

        An open fact whose (subject, object) is already open under ``new`` is not doubled:
        with history it is ended and no successor opened; in place it is removed and the one
        under ``new`` keeps the earlier start. Each is reported in ``duplicates`` as
        ``(old fact id, id of the fact under new)``.

        The single-valued flag and the colour of ``old`` go to a new name (a merge target keeps
        its own) and leave ``old`` once no fact carries it. Returns ``{old, new, merged, at,
        ended, opened, renamed, duplicates}`` (``at`` None in place; ``renamed`` the facts
        rewritten in place). Refused, with nothing written: an empty or unchanged name, a
        predicate no fact carries (with history kept: no open fact), ``at`` without history,
        a read-only graph.
        """
        check_name(new, "new predicate")
        target = predicate_id(new.strip())
        if not keep_history and at is not None:
            raise Refused("a time applies only when history is kept (in place has no instant)")
        boundary = temporal.boundary(at) if keep_history else None
        stored = self._stored_predicate(old)
        if target == stored:
            raise Refused(f"the predicate is already called {target!r}: nothing to rename")
        merge = self._store.predicates.count(target) > 0
        words = rename_words(stored, target, keep_history=keep_history, merge=merge)
        # Read before the write and written in short parts; each part takes only the facts
        # still as read, inside its own write (another client's rename meanwhile is seen).
        with self._log.batched(words, reason):
            with self._log.batch():
                if not self._store.predicates.count(stored):  # another client renamed it
                    raise Refused(f"no fact has the predicate {stored!r}")
                # (subject, object) → (id, valid_from) of the facts open under the new name.
                twins = {
                    (row[1], row[3]): (row[0], row[4])
                    for row in self._store.predicates.open_rows(target, None)
                }
            if boundary is not None:
                report = self._succeed(stored, target, boundary, twins)
            else:
                report = self._rewrite(stored, target, twins)
            with self._log.batch():
                old_left = self._store.predicates.count(stored) > 0
                self._settings.follow_rename(stored, target, merge, old_left)
        return {"old": stored, "new": target, "merged": merge, "at": boundary, **report}

    def _stored_predicate(self, old: object) -> str:
        """``old`` as the facts carry it: as given, else in §3.3's form; refused when no fact
        carries either."""
        if not isinstance(old, str) or not old.strip():
            raise Refused("name the predicate to rename")
        for candidate in (old, predicate_id(old.strip())):
            if self._store.predicates.count(candidate):
                return candidate
        raise Refused(f"no fact has the predicate {old!r}")

    def _succeed(self, old: str, new: str, boundary: str, twins: _Twins) -> dict[str, Any]:
        """End the open facts of ``old`` at ``boundary`` and open their successors."""
        rows = self._store.predicates.open_rows(old, boundary)
        if not rows:
            raise Refused(
                f"no fact of {old!r} is open: with its history kept nothing would change (ended "
                "facts keep their words); rewrite it in place to rename those"
            )
        # Each open fact as read, and what becomes of it: ended (with its successor, or None
        # where the fact is already open under the new name), or renamed in place.
        planned: list[_Step] = []
        duplicates: list[tuple[str, str]] = []
        for *row, started in rows:
            fact = dict(zip(TRIPLE_COLUMNS, row))
            key = (fact["subject"], fact["object"])
            if key in twins:
                duplicates.append((fact["id"], twins[key][0]))
                if started:
                    planned.append((tuple(row), "end", None))
                continue
            if not started:
                planned.append((tuple(row), "rename", None))
                twins[key] = (fact["id"], fact["valid_from"])
                continue
            successor: dict[str, Any] = {
                **{column: fact[column] for column in _CARRIED},
                "id": new_triple_id(fact["subject"], new, fact["object"]),
                "predicate": new,
                "valid_from": boundary,
                "valid_to": None,
            }
            if successor["confidence"] is None:
                successor["confidence"] = 1.0  # as MemPalace's rewrite: NULL counts as 1.0
            twins[key] = (successor["id"], boundary)
            planned.append((tuple(row), "end", tuple(successor[c] for c in _SUCCESSOR_COLUMNS)))
        counts = {"ended": 0, "opened": 0, "renamed": 0}

        def write(part: list[_Step]) -> None:
            part = self._still_as_read(part)
            successors = [successor for _, _, successor in part if successor is not None]
            taken = self._store.bulk.rows_with_ids("triples", ("id",), [s[0] for s in successors])
            if taken:  # 48 random bits: never in practice, but an id is never reused
                raise Refused("new fact ids collided with existing ones; try again")
            ends = [row[0] for row, action, _ in part if action == "end"]
            in_place = [row[0] for row, action, _ in part if action == "rename"]
            self._store.facts.update_many(ends, {"valid_to": boundary})
            self._store.facts.update_many(in_place, {"predicate": new})
            self._store.bulk.insert_rows("triples", _SUCCESSOR_COLUMNS, successors)
            counts["ended"] += len(ends)
            counts["opened"] += len(successors)
            counts["renamed"] += len(in_place)

        self._log.write_in_parts(_parts(planned), write)
        return {**counts, "duplicates": duplicates}

    def _still_as_read(self, planned: list[_Step]) -> list[_Step]:
        """The planned facts still exactly as they were read (inside the write that changes
        them): one another program ended or changed since is left as they made it."""
        ids = [row[0] for row, _, _ in planned]
        now = {
            row[0]: row for row in self._store.bulk.rows_with_ids("triples", TRIPLE_COLUMNS, ids)
        }
        return [step for step in planned if now.get(step[0][0]) == step[0]]

    def _rewrite(self, old: str, new: str, twins: _Twins) -> dict[str, Any]:
        """Give every fact of ``old`` the predicate ``new`` in place."""
        facts = self._store.facts
        duplicates: list[tuple[str, str]] = []
        with self._log.batch():
            for *row, _started in self._store.predicates.open_rows(old, None):
                fact = dict(zip(TRIPLE_COLUMNS, row))
                key = (fact["subject"], fact["object"])
                if key not in twins:
                    continue
                survivor, survivor_from = twins[key]
                duplicates.append((fact["id"], survivor))
                twins[key] = (
                    survivor,
                    keep_earlier_start(facts, survivor, survivor_from, fact["valid_from"]),
                )
                facts.delete(fact["id"])
        renamed = 0

        def write(part: list[str]) -> None:
            nonlocal renamed
            now = self._store.bulk.rows_with_ids("triples", ("id", "predicate"), part)
            still = [tid for tid, predicate in now if predicate == old]
            facts.update_many(still, {"predicate": new})
            renamed += len(still)

        self._log.write_in_parts(_parts(self._store.predicates.ids(old)), write)
        return {"ended": 0, "opened": 0, "renamed": renamed, "duplicates": duplicates}


def _parts(items: list[_T]) -> list[list[_T]]:
    """``items`` in parts of :data:`_FACTS_PER_PART`, each checked and written at once."""
    return [
        items[start : start + _FACTS_PER_PART] for start in range(0, len(items), _FACTS_PER_PART)
    ]
