"""What was recorded since the person last looked (the review inbox): ``recorded_since`` checked
against a brute-force oracle over the rows and both logs on random graphs, on both engines;
MemPalace's own tools and Factlines' edits seen by whom; the reviewed-up-to mark.

The oracle reads the rows with plain SQL, the edit log as ``edit_log`` lists it and MemPalace's
write log line by line with :mod:`json`, and applies the contract's rules (§9.2) itself.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from factlines import KnowledgeGraph, Refused, open_graph
from factlines.core import mempalace_log
from factlines.core.errors import ReadOnlyGraph
from factlines.core.names import entity_id
from store_helpers import mempalace_tools, raw_sql

BASE = datetime(2026, 3, 1, tzinfo=timezone.utc)
NAMES = ["Kai", "Rosa", "Nova", "Orion", "Atlas", "Mira"]
PREDICATES = ["works_on", "lives_in", "leads"]


def _instant(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _moment(rng: random.Random) -> datetime:
    return BASE + timedelta(seconds=rng.randrange(0, 4 * 86400))


# ── The oracle ────────────────────────────────────────────────────────────


def _utc_of_log(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).astimezone(timezone.utc).replace(microsecond=0)


def _utc_of_row(stamp) -> datetime | None:
    try:
        moment = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError):
        return None
    return moment.replace(tzinfo=timezone.utc)


def _as_key(value: str | None) -> datetime | None:
    if value is None:
        return None
    if len(value) == 10:
        return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def _log_writes(path) -> list[dict]:
    """MemPalace's knowledge-graph writes: each intent with its time and outcome."""
    writes, last = [], {}
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if "params" in item:
            write = {**item, "at": _utc_of_log(item["timestamp"]), "outcome": None}
            writes.append(write)
            last[item["operation"]] = write
        elif item["operation"] in last:
            last.pop(item["operation"])["outcome"] = item["result"]
    return writes


def oracle(location, kg, log_path, since: str, until: str | None) -> list[tuple]:
    start, end = _as_key(since), _as_key(until)

    def inside(moment) -> bool:
        return moment is not None and start < moment and (end is None or moment <= end)

    rows = raw_sql(
        location,
        "SELECT id, subject, predicate, object, valid_from, valid_to, adapter_name, "
        "extracted_at FROM triples",
    )
    facts = {
        r[0]: dict(zip(("id", "s", "p", "o", "vf", "vt", "adapter", "stamp"), r)) for r in rows
    }
    by: dict[str, str | None] = {}
    found = []
    for fact in facts.values():
        recorded = _utc_of_row(fact["stamp"])
        if inside(recorded):
            by[fact["id"]] = fact["adapter"] or None
    for entry in kg.edit_log(100_000):
        if not inside(_as_key(entry["at"])):
            continue
        who = f"Factlines ({entry['who']})" if entry.get("who") else "Factlines"
        for after in entry["after"]:
            befores = [b["row"] for b in entry["before"] if b["id"] == after["id"]]
            before = befores[0] if befores else None
            if after["table"] != "triples" or after["row"] is None:
                continue
            if before is None and after["id"] in by:
                by[after["id"]] = who
            if before is not None and before["valid_to"] is None and after["row"]["valid_to"]:
                found.append(("ended", after["id"], entry["at"], who))
    for write in _log_writes(log_path):
        if not inside(write["at"]):
            continue
        params, at = write["params"], _instant(write["at"])
        for fact in facts.values():
            if (fact["s"], fact["p"]) != (entity_id(params["subject"]), params["predicate"]):
                continue
            op = write["operation"]
            same_object = fact["o"] == entity_id(params.get("object", ""))
            named = (write["outcome"] or {}).get("triple_id") == fact["id"]
            if op == "kg_add" and same_object and named and fact["id"] in by:
                recorded = _utc_of_row(fact["stamp"])
                if recorded >= write["at"] - timedelta(seconds=5):
                    by[fact["id"]] = "MemPalace"
            # An end logged before the fact was recorded is not its end.
            recorded = _utc_of_row(fact["stamp"])
            its_end = recorded is None or recorded <= write["at"]
            if op == "kg_invalidate" and fact["o"] == entity_id(params["object"]):
                if fact["vt"] and fact["vt"] == params["ended"] and its_end:
                    found.append(("ended", fact["id"], at, "MemPalace"))
            elif op == "kg_supersede":
                boundary = _instant(_as_key(params["at"]))
                old = fact["o"] == entity_id(params["old_object"]) and fact["vt"] == boundary
                if old and its_end:
                    found.append(("ended", fact["id"], at, "MemPalace"))
                new = fact["o"] == entity_id(params["new_object"]) and fact["vf"] == boundary
                if new and fact["id"] in by:
                    by[fact["id"]] = "MemPalace"
    for tid, who in by.items():
        found.append(("added", tid, _instant(_utc_of_row(facts[tid]["stamp"])), who))
    return sorted(found, key=lambda f: (f[2], f[0], f[1]), reverse=True)


# ── Random graphs ─────────────────────────────────────────────────────────


def _random_graph(kg, location, rng: random.Random, log_path) -> None:
    """Facts with random recorded times, ends, Factlines log entries and MemPalace log lines
    (some of them about no fact of the graph, some outside any span)."""
    ids = []
    for _ in range(rng.randrange(10, 40)):
        s, o = rng.sample(NAMES, 2)
        vf = rng.choice([None, "2025-01-01", "2025-06-01T10:00:00Z"])
        ids.append(kg.add_triple(s, rng.choice(PREDICATES), o, valid_from=vf))
    ids = sorted(set(ids))
    for tid in ids:
        stamp = rng.choice([_moment(rng).strftime("%Y-%m-%d %H:%M:%S"), "2026-03-02", None])
        adapter = rng.choice([None, "", "claude-extractor"])
        raw_sql(
            location,
            "UPDATE triples SET extracted_at = ?, adapter_name = ? WHERE id = ?",
            (stamp, adapter, tid),
        )
    ended = rng.sample(ids, len(ids) // 3)
    for tid in ended:
        kg.end_fact(tid, rng.choice(["2026-02-01", "2026-02-10T12:00:00Z"]))
    facts = {tid: kg.get_fact(tid) for tid in ids}
    entries = []
    for moment in sorted(_moment(rng) for _ in range(rng.randrange(0, 8))):
        after, before = [], []
        for tid in rng.sample(ids, rng.randrange(1, 4)):
            row = {k: facts[tid][k] for k in ("id", "subject", "predicate", "object")}
            closed = {**row, "valid_to": facts[tid]["valid_to"] or "2026-02-20"}
            was = rng.choice([None, {**row, "valid_to": None}, closed])
            before.append({"table": "triples", "id": tid, "row": was})
            after.append({"table": "triples", "id": tid, "row": rng.choice([closed, None])})
        entries.append(
            {
                "at": _instant(moment),
                "what": "Edit",
                "reason": None,
                "tool": "factlines",
                "facts": [i["id"] for i in after],
                "entities": [],
                "rows_total": len(after),
                "before": before,
                "after": after,
            }
        )
    kg.add_edit_log_entries(entries)
    lines = []
    for _ in range(rng.randrange(0, 20)):
        tid = rng.choice(ids)
        fact = facts[tid]
        stamp = _moment(rng).astimezone().replace(tzinfo=None).isoformat()
        s, p, o = fact["subject_name"], fact["predicate"], fact["object_name"]
        op = rng.choice(["kg_add", "kg_invalidate", "kg_supersede"])
        if op == "kg_add":
            params = {"subject": s, "predicate": p, "object": o}
            named = rng.choice([tid, "t_someone_else"])
            lines.append({"timestamp": stamp, "operation": op, "params": params, "result": None})
            lines.append({"timestamp": stamp, "operation": op, "result": {"triple_id": named}})
        elif op == "kg_invalidate":
            ended_at = rng.choice([fact["valid_to"] or "2026-02-01", "2026-01-01"])
            params = {"subject": s, "predicate": p, "object": o, "ended": ended_at}
            lines.append({"timestamp": stamp, "operation": op, "params": params, "result": None})
        else:
            at = rng.choice(["2026-02-01", "2026-02-10T12:00:00Z", "2025-06-01T10:00:00Z"])
            params = {
                "subject": s,
                "predicate": p,
                "old_object": rng.choice([o, "Elsewhere"]),
                "new_object": rng.choice([o, "Elsewhere"]),
                "at": at,
            }
            lines.append({"timestamp": stamp, "operation": op, "params": params, "result": None})
    log_path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.mark.parametrize("seed", range(6))
def test_recorded_since_is_what_the_rows_and_both_logs_say(kg, graph_url, tmp_path, seed):
    rng = random.Random(seed)
    log_path = tmp_path / "write_log.jsonl"
    _random_graph(kg, graph_url, rng, log_path)
    for _ in range(5):
        since = _instant(_moment(rng) - timedelta(days=1))
        until = rng.choice([None, _instant(_moment(rng) + timedelta(days=1))])
        if until is not None and until <= since:
            until = None
        got = kg.recorded_since(since, until, write_log=log_path)
        assert [
            (item["kind"], item["fact"]["id"], item["recorded_at"], item["by"]) for item in got
        ] == oracle(graph_url, kg, log_path, since, until)
        assert all(item["fact"]["id"] and "predicate" in item["fact"] for item in got)
        # The fact as it is now (one the log saw ended, then deleted: its last image).
        now = {item["fact"]["id"]: kg.get_fact(item["fact"]["id"]) for item in got}
        assert all(
            item["fact"] == now[item["fact"]["id"]] for item in got if now[item["fact"]["id"]]
        )


def _summed_up(summary: dict) -> dict:
    def rows(items):
        return [(i["kind"], i["fact"]["id"], i["recorded_at"], i["by"], i["fact"]) for i in items]

    return {**summary, "items": rows(summary["items"]), "later": rows(summary["later"])}


@pytest.mark.parametrize("seed", range(6))
def test_the_inbox_summary_read_lean_is_the_one_read_whole(
    kg, graph_url, tmp_path, seed, monkeypatch
):
    # Past LEAN_FROM facts in the span only the rows shown are read (a million facts imported
    # this week: 18 s and 1.6 GB read whole): the same answer, forced here on small graphs.
    from factlines.core.store import review

    rng = random.Random(seed)
    log_path = tmp_path / "write_log.jsonl"
    _random_graph(kg, graph_url, rng, log_path)
    kg.mark_reviewed(_instant(_moment(rng) - timedelta(days=1)))
    waiting = kg.waiting_for_review(log_path)
    kg.keep_reviewed(rng.sample(waiting, min(len(waiting), 3)))
    reads = []
    newest = kg._review._store.facts.newest_recorded
    monkeypatch.setattr(
        kg._review._store.facts, "newest_recorded", lambda *a: reads.append(a) or newest(*a)
    )
    for shown in (1, 3, 100):
        later = _instant(_moment(rng))
        reads.clear()
        monkeypatch.setattr(review, "LEAN_FROM", 10**9)
        whole = kg.waiting_summary(shown, later, log_path)
        assert not reads
        monkeypatch.setattr(review, "LEAN_FROM", 0)
        lean = kg.waiting_summary(shown, later, log_path)
        assert reads
        assert _summed_up(lean) == _summed_up(whole)
        full = kg.waiting_for_review(log_path)
        assert whole["total"] == len(full) and len(whole["items"]) == min(shown, len(full))


@pytest.mark.sqlite_only  # the speed indexes and query plans are SQLite's
@pytest.mark.parametrize("seed", range(3))
def test_with_the_speed_indexes_only_the_span_s_rows_are_read(kg, graph_url, tmp_path, seed):
    """With Factlines' speed indexes the span is found off the index of when facts were recorded
    (no pass over every fact); the answer is the oracle's still, and MemPalace writes beside."""
    rng = random.Random(seed)
    log_path = tmp_path / "write_log.jsonl"
    _random_graph(kg, graph_url, rng, log_path)
    kg.add_speed_indexes()
    from mempalace.knowledge_graph import KnowledgeGraph as MemPalaceKG

    theirs = MemPalaceKG(graph_url)
    try:
        theirs.add_triple("Atlas", "audits", "Nova")  # a fact recorded now
    finally:
        theirs.close()
    since = _instant(_moment(rng) - timedelta(days=1))
    conn, statements = kg._conn(), []
    conn.set_trace_callback(statements.append)
    try:
        got = kg.recorded_since(since, write_log=log_path)
    finally:
        conn.set_trace_callback(None)
    plans = [
        detail
        for sql in statements
        if "triples" in sql and sql.lstrip().upper().startswith("SELECT")
        for *_, detail in conn.execute("EXPLAIN QUERY PLAN " + sql)
    ]
    assert plans and not [d for d in plans if d.startswith("SCAN")], plans
    # The span's two names a row off the index of names by id alone (not MemPalace's index of
    # ids, then the entity's row).
    span = [sql for sql in statements if "WHERE t.extracted_at" in sql]
    names = [
        detail
        for sql in span
        for *_, detail in conn.execute("EXPLAIN QUERY PLAN " + sql)
        if detail.split()[1] in ("s", "o")
    ]
    assert names and all("COVERING INDEX fl_entities_id_name" in d for d in names), plans
    expected = oracle(graph_url, kg, log_path, since, None)
    assert [(i["kind"], i["fact"]["id"], i["recorded_at"], i["by"]) for i in got] == expected
    assert all(i["fact"] == kg.get_fact(i["fact"]["id"]) for i in got)
    assert ("Atlas", "audits", "Nova") in {
        (i["fact"]["subject_name"], i["fact"]["predicate"], i["fact"]["object_name"]) for i in got
    }


def test_recorded_since_refuses_a_span_that_ends_before_it_starts(kg, tmp_path):
    with pytest.raises(Refused, match="not after"):
        kg.recorded_since("2026-03-02", "2026-03-01", write_log=tmp_path / "none.jsonl")
    with pytest.raises(Refused, match="instant"):
        kg.recorded_since("last Tuesday", write_log=tmp_path / "none.jsonl")


# ── Who, for real: MemPalace's tools and Factlines' edits ─────────────────


def test_mempalace_s_tools_and_factlines_edits_are_told_apart(kg_path, monkeypatch):
    wal = kg_path.parent / "wal" / "write_log.jsonl"
    wal.parent.mkdir()
    tools = mempalace_tools(kg_path, wal, monkeypatch)
    since = _instant(datetime.now(timezone.utc) - timedelta(seconds=2))
    try:
        added = tools["tool_kg_add"]("Kai", "works_on", "Orion", valid_from="2026-01-01")
        tools["tool_kg_add"]("Rosa", "lives_in", "Lisbon")
        tools["tool_kg_invalidate"]("Rosa", "lives_in", "Lisbon", ended="2026-02-01")
    finally:
        tools["close"]()
    with KnowledgeGraph(kg_path) as kg:
        mine = kg.add_fact("Kai", "leads", "Atlas", valid_from="2026-01-01")
        with kg.logged("End Kai works_on Orion"):
            kg.end_fact(added["triple_id"], "2026-02-15")
        with kg.logged("Add Mira leads Nova"):
            logged = kg.add_fact("Mira", "leads", "Nova")
        got = kg.recorded_since(since, write_log=wal)
    seen = {(i["kind"], i["fact"]["subject_name"], i["fact"]["predicate"], i["by"]) for i in got}
    assert seen == {
        ("added", "Kai", "works_on", "MemPalace"),
        ("added", "Rosa", "lives_in", "MemPalace"),
        ("ended", "Rosa", "lives_in", "MemPalace"),
        ("ended", "Kai", "works_on", "Factlines"),
        ("added", "Mira", "leads", "Factlines"),
        ("added", "Kai", "leads", None),  # an edit not made through the log says nobody
    }
    assert {i["fact"]["id"] for i in got} >= {mine, logged, added["triple_id"]}
    assert [i["recorded_at"] for i in got] == sorted((i["recorded_at"] for i in got), reverse=True)


def test_a_store_of_its_own_reads_only_what_mempalace_logged_since_the_last_read(
    kg_path, tmp_path, monkeypatch
):
    """The window reads the inbox on a store of its own after every write: MemPalace's write
    log, read once in the process, is read again only from where the last read stopped."""
    monkeypatch.setenv("MEMPALACE_CONFIG_DIR", str(tmp_path / "cfg"))
    wal = tmp_path / "cfg" / "wal" / "write_log.jsonl"
    wal.parent.mkdir(parents=True)
    tools = mempalace_tools(kg_path, wal, monkeypatch)
    parsed = []
    monkeypatch.setattr(
        mempalace_log,
        "json",
        SimpleNamespace(loads=lambda raw: parsed.append(raw) or json.loads(raw)),
    )

    def inbox() -> set:
        with open_graph(kg_path, read_only=True) as kg:
            got = kg.waiting_for_review()
        return {(i["kind"], i["fact"]["object_name"], i["by"]) for i in got}

    try:
        for place in ("Lisbon", "Porto", "Faro"):
            tools["tool_kg_add"]("Rosa", "visits", place)
        assert inbox() == {("added", p, "MemPalace") for p in ("Lisbon", "Porto", "Faro")}
        assert len(parsed) == 6  # each add's intent and outcome
        tools["tool_kg_add"]("Rosa", "visits", "Braga")
        assert ("added", "Braga", "MemPalace") in inbox()
        assert len(parsed) == 8  # the new add's two lines only
    finally:
        tools["close"]()


@pytest.mark.sqlite_only  # counts SQLite's statements
def test_the_adds_mempalace_logged_are_held_against_the_span_s_facts_alone(kg, tmp_path):
    """A week of MemPalace's adds is as many logged writes as facts recorded: each is told
    apart among the facts recorded in the span, not by reading every fact of its subject."""
    log_path = tmp_path / "write_log.jsonl"
    since = _instant(datetime.now(timezone.utc) - timedelta(minutes=1))
    lines = []
    for n in range(40):
        tid = kg.add_triple(f"Person {n}", "knows", "Rosa")
        stamp = datetime.now().isoformat()
        params = {"subject": f"Person {n}", "predicate": "knows", "object": "Rosa"}
        lines.append({"timestamp": stamp, "operation": "kg_add", "params": params, "result": None})
        lines.append({"timestamp": stamp, "operation": "kg_add", "result": {"triple_id": tid}})
    log_path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    conn, statements = kg._conn(), []
    conn.set_trace_callback(statements.append)
    try:
        got = kg.recorded_since(since, write_log=log_path)
    finally:
        conn.set_trace_callback(None)
    assert [i["by"] for i in got] == ["MemPalace"] * 40
    assert len([sql for sql in statements if "triples" in sql]) < 5, statements


# ── How far the person reviewed ───────────────────────────────────────────


def test_the_mark_and_the_rows_kept_are_kept_in_the_graph(kg, graph_url, tmp_path):
    none = tmp_path / "none.jsonl"
    assert kg.reviewed_up_to() is None
    first = kg.add_triple("Kai", "works_on", "Orion")
    second = kg.add_triple("Rosa", "lives_in", "Lisbon")
    for tid, stamp in ((first, "2026-03-01 10:00:00"), (second, "2026-03-01 12:00:00")):
        raw_sql(graph_url, "UPDATE triples SET extracted_at = ? WHERE id = ?", (stamp, tid))
    kg.mark_reviewed("2026-03-01T09:00:00Z")
    waiting = kg.waiting_for_review(none)
    assert [i["fact"]["id"] for i in waiting] == [second, first]
    kg.keep_reviewed([waiting[0]])
    assert [i["fact"]["id"] for i in kg.waiting_for_review(none)] == [first]
    with KnowledgeGraph(graph_url) as other:  # another window, another machine
        assert other.reviewed_up_to() == "2026-03-01T09:00:00Z"
        assert [i["fact"]["id"] for i in other.waiting_for_review(none)] == [first]
    kg.mark_reviewed("2026-03-01T12:00:00Z")
    assert kg.waiting_for_review(none) == []
    kept = [k for k in kg.graph_settings() if k.startswith("review_kept")]
    assert kept == []  # the mark covers what was kept one by one


def test_a_read_only_graph_keeps_no_mark(kg_path):
    KnowledgeGraph(kg_path).close()
    with KnowledgeGraph(kg_path, read_only=True) as kg:
        with pytest.raises(ReadOnlyGraph):
            kg.mark_reviewed("2026-03-01")
        assert kg.reviewed_up_to() is None


def test_postgres_each_role_reviews_for_itself(postgres_url, tmp_path):
    import psycopg

    none = tmp_path / "none.jsonl"
    with KnowledgeGraph(postgres_url) as owner:
        tid = owner.add_triple("Kai", "works_on", "Orion")
        with owner.logged("Make the edit log"):
            owner.end_fact(tid, "2026-01-01")
        owner.mark_reviewed("2026-03-01T09:00:00Z")
    role = "fl_colleague"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        database = admin.execute("SELECT current_database()").fetchone()[0]
        admin.execute(f"DROP ROLE IF EXISTS {role}")
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT CONNECT ON DATABASE {database} TO {role}")
        admin.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
        admin.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}"
        )
        admin.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}")
    try:
        with KnowledgeGraph(postgres_url.replace("postgres@", f"{role}@", 1)) as colleague:
            assert not colleague.read_only, colleague.read_only_reason
            assert colleague.reviewed_up_to() is None  # the owner's mark is the owner's
            colleague.mark_reviewed("2026-03-05")
            assert colleague.reviewed_up_to() == "2026-03-05T00:00:00Z"
            waiting = colleague.waiting_for_review(none)  # recorded today, after both marks
            assert [(i["kind"], i["by"]) for i in waiting] == [
                ("ended", "Factlines (postgres)"),
                ("added", None),
            ]
        with KnowledgeGraph(postgres_url) as owner:
            assert owner.reviewed_up_to() == "2026-03-01T09:00:00Z"
            keys = sorted(k for k in owner.graph_settings() if k.startswith("reviewed_up_to"))
            assert keys == ["reviewed_up_to:fl_colleague", "reviewed_up_to:postgres"]
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")


def test_postgres_finds_the_span_through_an_index_of_when_facts_were_recorded(postgres_url):
    """A PostgreSQL graph has an index on ``extracted_at`` in the byte order the span is
    compared in, so the planner may read the span's rows alone (with sequential scans
    discouraged, as on a big table, it does)."""
    import psycopg

    with KnowledgeGraph(postgres_url) as kg:
        kg.add_triple("Kai", "works_on", "Orion")
        assert kg.missing_indexes() == []
    with psycopg.connect(postgres_url) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(
            row[0]
            for row in conn.execute(
                'EXPLAIN SELECT id FROM triples WHERE extracted_at COLLATE "C" > %s',
                ("2026-01-01 00:00:00",),
            )
        )
    assert "fl_triples_recorded" in plan, plan
