"""The graph as it was recorded by an instant: what the assistant had written by then, for
``query_entity(..., recorded_as_of=…)`` ("why did my assistant say that last Tuesday?").

A fact recorded after the instant (its ``extracted_at``) is left out. A fact Factlines changed
after it is shown as it was before that change (the edit log's image). An end is shown when it
was recorded by then; one recorded later (Factlines' edit log, MemPalace's write log say when)
is not: the fact was open as far as the assistant knew. An end no log tells the time of is
shown, and said to be "recorded when unknown" rather than guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factlines.core import temporal
from factlines.core.mempalace_log import WriteLog, events_for_fact
from factlines.core.store.edit_history import EditHistory
from factlines.core.store.protocol import GraphStore
from factlines.core.store.review import recorded_instant
from factlines.core.store.wiring import Part

_LOG_PAGE = 500
# A logged change of a fact: (at, the row before, the row after), None where there was none.
LoggedChange = tuple[str, dict[str, Any] | None, dict[str, Any] | None]


class RecordedView(Part):
    """An entity's facts as the graph had recorded them by an instant."""

    def __init__(self, store: GraphStore, log: EditHistory):
        super().__init__(store)
        self._log = log

    def entity_rows_as_recorded(
        self, eid: str, name: str, direction: str, as_of_key: str | None, recorded_key: str
    ) -> list[dict[str, Any]]:
        """``query_entity``'s rows of ``eid`` as recorded by ``recorded_key``, each with
        ``end_recorded`` (when its end was recorded, None without one) and
        ``end_recorded_unknown`` (an end no log tells the time of)."""
        wanted = {"outgoing": ("outgoing",), "incoming": ("incoming",), "both": None}[direction]
        facts: list[dict[str, Any]] = [
            fact
            for fact in self._store.facts.of_entity(eid, None, None)
            if wanted is None or fact["direction"] in wanted
        ]
        if not facts:
            return []
        changes = self._logged_changes({fact["id"] for fact in facts})
        log = self._log.mempalace_write_log()
        rows: dict[str, list[dict[str, Any]]] = {"outgoing": [], "incoming": []}
        for fact in facts:
            state = _state_at(fact, changes.get(fact["id"], ()), recorded_key)
            if state is None:
                continue
            ended_at, unknown = None, False
            if state["valid_to"]:
                ended_at, unknown = _end_recorded(
                    fact, state, changes.get(fact["id"], ()), log, recorded_key
                )
                if ended_at is not None and ended_at > recorded_key:
                    state, ended_at = {**state, "valid_to": None}, None
            if as_of_key is not None and not temporal.is_valid_at(
                state["valid_from"], state["valid_to"], as_of_key
            ):
                continue
            rows[fact["direction"]].append(_row(fact, state, name, ended_at, unknown))
        return rows["outgoing"] + rows["incoming"]

    def _logged_changes(self, ids: set[str]) -> dict[str, list[LoggedChange]]:
        """Factlines' logged changes of these facts, oldest first: ``(at, before, after)``
        rows (None: no such row)."""
        found: dict[str, list[LoggedChange]] = {}
        offset = 0
        while page := self._store.edit_log.read(None, _LOG_PAGE, offset):
            offset += len(page)
            for entry in page:
                before = {i["id"]: i["row"] for i in entry["before"] if i["table"] == "triples"}
                for image in entry["after"]:
                    if image["table"] == "triples" and image["id"] in ids:
                        change = (entry["at"], before.get(image["id"]), image["row"])
                        found.setdefault(image["id"], []).append(change)
        for changes in found.values():
            changes.reverse()  # the log is read newest first
        return found


def _state_at(
    fact: dict[str, Any], changes: Sequence[LoggedChange], recorded_key: str
) -> dict[str, Any] | None:
    """The fact as it was at ``recorded_key`` (None: not recorded yet)."""
    state = fact
    later = [change for change in changes if change[0] > recorded_key]
    if later:
        state = later[0][1]
        if state is None:  # Factlines added it after the instant
            return None
    recorded = recorded_instant(state.get("extracted_at"))
    if recorded is not None and recorded > recorded_key:
        return None
    return state


def _end_recorded(
    fact: dict[str, Any],
    state: dict[str, Any],
    changes: Sequence[LoggedChange],
    log: WriteLog,
    recorded_key: str,
) -> tuple[str | None, bool]:
    """When the end ``state`` has was recorded (the earliest record the logs keep of it), and
    whether no log tells."""
    ended = state["valid_to"]
    times = [
        at
        for at, before, after in changes
        if after is not None
        and after.get("valid_to") == ended
        and (before is None or before.get("valid_to") != ended)
    ]
    known = {**fact, "valid_from": state["valid_from"], "valid_to": ended}
    recorded = recorded_instant(fact["extracted_at"])
    for event in events_for_fact(known, log.about(fact["subject"])):
        params = event["details"]["params"]
        if event["at"] is None or (recorded is not None and event["at"] < recorded):
            continue  # an end logged before the fact was recorded is another fact's
        if event["did"] == "ended" or (event["did"] == "added" and params.get("valid_to")):
            times.append(event["at"])
    if not times:
        return None, True
    return min(times), False


def _row(
    fact: dict[str, Any], state: dict[str, Any], name: str, ended_at: str | None, unknown: bool
) -> dict[str, Any]:
    incoming = fact["direction"] == "incoming"
    return {
        "direction": fact["direction"],
        "subject": fact["other_name"] if incoming else name,
        "predicate": state.get("predicate", fact["predicate"]),
        "object": name if incoming else fact["other_name"],
        "valid_from": state["valid_from"],
        "valid_to": state["valid_to"],
        "confidence": state.get("confidence", fact["confidence"]),
        "source_closet": state.get("source_closet", fact["source_closet"]),
        "current": state["valid_to"] is None,
        "id": fact["id"],
        "end_recorded": ended_at,
        "end_recorded_unknown": unknown,
    }
