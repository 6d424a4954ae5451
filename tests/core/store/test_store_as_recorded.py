"""The graph as it was recorded (``query_entity(..., recorded_as_of=…)``), checked against the
truth: random histories of adds, ends and changes on a clock of the test's, the triples table
copied after every step; at any instant the answer is the copy of that instant, but for ends no
log tells the time of, which are shown and said to be unknown. Both engines."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

import pytest

from factlines import Refused
from factlines.core import temporal
from store_helpers import oracle_valid, raw_sql

NAMES = ["Kai", "Rosa", "Nova", "Orion"]
PREDICATES = ["works_on", "lives_in"]


def _instant(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class History:
    """A graph written step by step on a clock of the test's, with what it held after each."""

    def __init__(self, kg, location, log_path, monkeypatch):
        self.kg, self.location, self.log_path = kg, location, log_path
        self.clock = datetime(2026, 3, 1, tzinfo=timezone.utc)
        monkeypatch.setattr(temporal, "now_instant", lambda: _instant(self.clock))
        self.copies: list[tuple[str, dict]] = []
        self.unlogged_ends: set[str] = set()
        self.changed: set[str] = set()
        self.end_times: dict[str, str] = {}

    def open_facts(self) -> list[str]:
        rows = raw_sql(self.location, "SELECT id FROM triples WHERE valid_to IS NULL")
        return sorted(row[0] for row in rows)

    def step(self, rng: random.Random) -> None:
        self.clock += timedelta(seconds=rng.randrange(1, 3600))
        now = _instant(self.clock)
        kg, opened = self.kg, self.open_facts()
        action = rng.choice(["add", "add", "add ended", "end", "end by MemPalace", "change"])
        if action.startswith("add") or not opened:
            s, o = rng.sample(NAMES, 2)
            ended = "2025-12-31" if action == "add ended" else None
            before = {row[0] for row in raw_sql(self.location, "SELECT id FROM triples")}
            tid = kg.add_triple(
                s, rng.choice(PREDICATES), o, valid_from="2025-01-01", valid_to=ended
            )
            if tid in before:
                return  # MemPalace's add of an open fact writes nothing
            stamp = now.replace("T", " ")[:19]
            raw_sql(self.location, "UPDATE triples SET extracted_at = ? WHERE id = ?", (stamp, tid))
            if ended:
                self.unlogged_ends.add(tid)
        else:
            tid = rng.choice(opened)
            if action == "change":
                with kg.logged("Change the start"):
                    kg.update_fact(tid, valid_from=rng.choice(["2024-01-01", "2025-03-01"]))
                self.changed.add(tid)
            elif action == "end":
                how = rng.choice(["logged", "unlogged"] if tid not in self.changed else ["logged"])
                if how == "logged":
                    with kg.logged("End it"):
                        kg.end_fact(tid, "2026-01-15")
                    self.end_times[tid] = now
                else:
                    kg.end_fact(tid, "2026-01-15")
                    self.unlogged_ends.add(tid)
            else:
                fact = kg.get_fact(tid)
                params = {
                    "subject": fact["subject_name"],
                    "predicate": fact["predicate"],
                    "object": fact["object_name"],
                    "ended": "2026-02-01",
                }
                line = {
                    "timestamp": self.clock.replace(tzinfo=None).isoformat(),
                    "operation": "kg_invalidate",
                    "params": params,
                    "result": None,
                }
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(line) + "\n")
                kg.invalidate(
                    params["subject"], params["predicate"], params["object"], "2026-02-01"
                )
                self.end_times[tid] = now
        rows = raw_sql(
            self.location, "SELECT id, subject, object, valid_from, valid_to FROM triples"
        )
        self.copies.append((now, {row[0]: row[1:] for row in rows}))

    def expected(self, name: str, direction: str, as_of: str | None, at: str) -> list[tuple]:
        """What was recorded by ``at``: the copy of that instant; an end no log dates, as it
        is now and said to be unknown."""
        held = {}
        for moment, rows in self.copies:
            if moment <= at:
                held = rows
        now = self.copies[-1][1]
        eid, found = name.lower(), []
        for tid, (subject, obj, valid_from, valid_to) in held.items():
            sides = {"outgoing": subject == eid, "incoming": obj == eid and subject != eid}
            if direction == "both":
                mine = sides["outgoing"] or sides["incoming"]
            else:
                mine = sides[direction]
            unknown = tid in self.unlogged_ends
            if unknown:
                valid_to = now[tid][3]
            if not mine or (as_of is not None and not oracle_valid(valid_from, valid_to, as_of)):
                continue
            ended_at = self.end_times.get(tid) if valid_to and not unknown else None
            found.append((tid, valid_from, valid_to, ended_at, unknown))
        return sorted(found)


@pytest.mark.parametrize("seed", range(5))
def test_recorded_as_of_is_the_graph_as_it_was_recorded(kg, graph_url, tmp_path, monkeypatch, seed):
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "config"))
    log_path = tmp_path / "config" / "wal" / "write_log.jsonl"
    log_path.parent.mkdir(parents=True)
    # Room for the edit log: it keeps to a share of the graph's size (contract §9.1), and
    # an end whose entry was dropped is one no log dates.
    kg.add_entity("Padding", properties={"text": "x" * 2_000_000})
    rng = random.Random(seed)
    history = History(kg, graph_url, log_path, monkeypatch)
    for _ in range(40):
        history.step(rng)
    moments = [moment for moment, _rows in history.copies]
    seen = set()
    for _ in range(40):
        at = rng.choice(moments)
        at = rng.choice([at, _instant(datetime.fromisoformat(at[:-1]) - timedelta(seconds=1))])
        name = rng.choice(NAMES)
        direction = rng.choice(["outgoing", "incoming", "both"])
        as_of = rng.choice([None, "2025-06-01", "2026-01-20", "2026-03-01"])
        rows = kg.query_entity(name, as_of=as_of, direction=direction, recorded_as_of=at)
        got = sorted(
            (r["id"], r["valid_from"], r["valid_to"], r["end_recorded"], r["end_recorded_unknown"])
            for r in rows
        )
        assert got == history.expected(name, direction, as_of, at), (name, direction, as_of, at)
        now = {r["id"]: r["valid_to"] for r in kg.query_entity(name, direction=direction)}
        for tid, _start, end, ended_at, unknown in got:
            seen.add("unknown" if unknown else "dated" if ended_at else "open")
            seen |= {"open, ended since"} if end is None and now[tid] else set()
    assert seen == {"unknown", "dated", "open", "open, ended since"}
    final = kg.query_entity("Kai", direction="both", recorded_as_of="2030-01-01")
    assert sorted((r["id"], r["valid_to"]) for r in final) == sorted(
        (r["id"], r["valid_to"]) for r in kg.query_entity("Kai", direction="both")
    )


def test_recorded_as_of_refuses_what_is_no_instant(kg):
    with pytest.raises(Refused, match="recorded_as_of"):
        kg.query_entity("Kai", recorded_as_of="last Tuesday")
