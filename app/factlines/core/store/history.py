"""The whole history at once: every contradiction, what changed between two instants, the
events in order, where the history is dense, and which predicates look single-valued.

Every method reads; none writes. Times are compared by their keys (contract §2.3) and
validity is the half-open rule (§2.4).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from factlines.core import histogram, temporal
from factlines.core.analysis import (
    KINDS,
    as_rows,
    by_evidence,
    overlapping_pairs,
    single_fact_rows,
    suggest_single_valued,
)
from factlines.core.collector import collector_paused
from factlines.core.errors import Refused
from factlines.core.progress import Progress, report
from factlines.core.store.entity_edits import EntityEdits
from factlines.core.store.fact_edits import FactEdits
from factlines.core.store.graph_settings import GraphSettings
from factlines.core.store.protocol import GraphStore
from factlines.core.store.rows import fact_dict
from factlines.core.store.wiring import Part
from factlines.core.turns import let_go

MAX_BINS = 10_000
# The single-valued suggestions read a predicate's facts this many at a time (whole subjects).
SUGGESTION_ROWS = 20_000
_PAIR_KINDS = (KINDS.index("overlap"), KINDS.index("handover"))


class GraphHistory(Part):
    """The graph's history: contradictions, changes, an entity's story, the histogram."""

    def __init__(
        self,
        store: GraphStore,
        entities: EntityEdits,
        facts: FactEdits,
        settings: GraphSettings,
    ):
        super().__init__(store)
        self._entities = entities
        self._facts = facts
        self._settings = settings

    # ── Contradictions (contract section 6) ───────────────────────────────

    def conflicts(
        self, entity: str | None = None, progress: Progress | None = None
    ) -> list[dict[str, Any]]:
        """Every conflict in the graph, or among the facts ``entity`` is the subject of.

        Rows ``{kind, subject, predicate, a, b, start, end}``; ``subject`` is an entity id,
        ``a``/``b`` fact ids, ``start``/``end`` comparison keys (None: unbounded). Kinds:

        - ``overlap``: two facts of a single-valued predicate, one subject, other objects,
          whose windows overlap; ``start``/``end`` the overlap; ``a`` starts first (a tie: the
          smaller id). Each pair once.
        - ``handover``: such an overlap that is only the date-only handover: ``a`` ended by
          date on day D (having started before it), ``b`` starts at D's first second, so
          both hold all day D (``start``/``end`` are D's first and last second).
        - ``duplicate_open``: two open copies of one (subject, predicate, object), any
          predicate; ``start`` the later start (None if both unknown), ``end`` None.
        - ``inverted``: one fact (``b`` None) whose end key is before its start key, any
          predicate; ``start``/``end`` its own keys. Valid nowhere, so in no other kind.
        - ``future_end``: one fact whose end is later than now, any predicate: an instant
          after now (UTC, at the call), a day after today (:func:`temporal.latest_today`; a
          day-only end of today has not passed yet, but it is no mistake either);
          ``start``/``end`` its own keys (``start`` None when unknown).

        Ordered by subject, predicate, ``start`` (unknown first), kind, then ids.

        ``progress(done, total)`` (:mod:`factlines.core.progress`) is told between the steps
        (reading the marked predicates' facts, their overlaps, the odd facts, the ordering);
        it cancels by returning False or raising :class:`~factlines.core.progress.Cancelled`.
        """
        eid = self._entities.id_of(entity) if entity is not None else None
        history = self._store.history
        marked = self._settings.single_valued_predicates()
        report(progress, 0, 4)
        # The sweep over the marked predicates finds their duplicates too.
        with collector_paused():
            rows: list[tuple[Any, ...]] = history.interval_rows(marked, eid) if marked else []
            report(progress, 1, 4)
            pairs = overlapping_pairs(rows)
            report(progress, 2, 4)
            now, today = temporal.now_instant(), temporal.latest_today()
            singles = single_fact_rows(history.irregular(now, today, eid, marked))
            report(progress, 3, 4)
            let_go(rows)
            return as_rows(pairs, singles)

    def conflicts_touching(self, entity: str) -> list[dict[str, Any]]:
        """The ``overlap`` and ``handover`` rows (as :meth:`conflicts`) that involve a fact
        of ``entity`` in either direction: Kai's view shows "Atlas led_by Kai" clashing with
        "Atlas led_by Rosa". What a view of one entity marks on its facts."""
        marked = self._settings.single_valued_predicates()
        if not marked:
            return []
        eid = self._entities.id_of(entity)
        rows = self._store.history.interval_rows(marked, eid, touching=True)
        mine = {row[3] for row in rows if eid in (row[0], row[2])}
        return as_rows(
            [
                c
                for c in overlapping_pairs(rows)
                if c[3] in _PAIR_KINDS and (c[4] in mine or c[5] in mine)
            ]
        )

    def single_valued_suggestions(self) -> list[dict[str, Any]]:
        """Predicates whose subjects hold one object at a time, with the figures that say so
        (see :func:`factlines.core.analysis.suggest_single_valued`), each with ``marked``:
        whether it is marked single-valued already. A suggestion's ``pairs`` are its overlaps
        and handovers as :meth:`conflicts` rows: what marking it would list."""
        marked = set(self._settings.single_valued_predicates())
        found: list[dict[str, Any]] = []
        history = self._store.history
        with collector_paused():
            # A predicate at a time (each is judged on its own facts), read in parts of whole
            # subjects: the whole graph read at once held ~1 GB at a million facts, a
            # predicate at once 160 MB.
            for predicate in self._store.facts.predicates():
                suggestion = suggest_single_valued(
                    predicate, partial(history.subject_parts, predicate, SUGGESTION_ROWS)
                )
                if suggestion is not None:
                    found.append(suggestion)
        found.sort(key=by_evidence)
        for row in found:
            row["marked"] = row["predicate"] in marked
        return found

    # ── What changed between two instants ─────────────────────────────────

    def changes_between(
        self, start: str, end: str, entity: str | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """``{"started": [...], "ended": [...]}``: the facts whose start key is in
        ``(start, end]`` and those whose end key is, as fact rows (:meth:`get_fact`'s).

        ``start``/``end`` are as_of values (a day means its first second); a fact that
        started and ended within is in both lists; an inverted interval and an unknown or
        empty (``""``) time are in neither. With ``entity``, its facts in either direction.
        Each list is ordered by the key, then id. Refused unless ``start`` is before ``end``.
        """
        start_key = temporal.start_key(temporal.parse(start, "start"))
        end_key = temporal.start_key(temporal.parse(end, "end"))
        if start_key is None or end_key is None:
            raise Refused("changes_between needs two instants: start and end")
        if start_key >= end_key:
            raise Refused(f"start={start!r} is not before end={end!r}")
        eid = self._entities.id_of(entity) if entity is not None else None
        with collector_paused():
            started, ended = self._store.history.changes(start_key, end_key, eid)
            changes = {
                "started": [fact_dict(r) for r in started],
                "ended": [fact_dict(r) for r in ended],
            }
            let_go(started)  # the rows freed in turns (a quarter of a million at 1M facts)
            let_go(ended)
            return changes

    # ── The story in order ────────────────────────────────────────────────

    def narrative(
        self, entity: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        """Events ``{"at", "kind": "start" | "end", "fact"}`` in order, one page.

        Every fact has one start event and, when it has a ``valid_to``, one end event; ``at``
        is the stored value and ``fact`` the fact row (:meth:`get_fact`'s). Dated events come
        first, by (comparison key, start before end, fact id); then the undated ones, by
        (start before end, fact id): unknown starts (``at`` None) and the ends MemPalace
        stored as ``""`` (ended, when unknown: ``at`` ``""``), with any stored value that is
        no date or instant. With ``entity``, its facts in either direction.

        Paged like :meth:`timeline` (``limit`` below 1 counts as 1, ``offset`` below 0 as 0)
        and never capped: :meth:`narrative_total` counts the events.
        """
        limit, offset = max(1, int(limit)), max(0, int(offset))
        eid = self._entities.id_of(entity) if entity is not None else None
        facts: dict[str, dict[str, Any]] = {}
        events: list[dict[str, Any]] = []
        for at, kind, row in self._store.history.events(eid, limit, offset):
            fact = facts.get(row[0])
            if fact is None:
                fact = facts[row[0]] = fact_dict(row)
            events.append({"at": at, "kind": kind, "fact": fact})
        return events

    def narrative_total(self, entity: str | None = None) -> int:
        """How many events :meth:`narrative` pages through."""
        eid = self._entities.id_of(entity) if entity is not None else None
        return self._store.history.event_count(eid)

    # ── Where the history is dense ────────────────────────────────────────

    def validity_histogram(self, bins: int) -> dict[str, list[Any]]:
        """Facts over :meth:`time_span` in ``bins`` equal bins.

        ``edges``: ``bins + 1`` POSIX seconds from the span's first key to one second past its
        last (so every key of the span is in a bin); ``valid[i]``: how many facts are valid
        (§2.4) at bin ``i``'s middle, that is at the whole second at or before it;
        ``starts[i]``/``ends[i]``: how many start keys / end keys are in ``[left, right)``.
        All lists empty when no fact is dated. Refused unless 1 <= bins <= 10,000.
        """
        # Checked at run time: a caller outside the type checker may pass anything.
        if (
            isinstance(bins, bool)
            or not isinstance(bins, int)  # pyright: ignore[reportUnnecessaryIsInstance]
            or not 1 <= bins <= MAX_BINS
        ):
            raise Refused(f"bins={bins!r} must be a whole number from 1 to {MAX_BINS:,}")
        return histogram.counted(self._facts.time_span(), bins, self._store.history.time_counts)
