"""Who and why: Factlines' own edit log, written in the edit's transaction, and
MemPalace's write log joined to the facts its agents wrote, into one story per fact."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import datetime, timedelta

import pytest

from factlines import KnowledgeGraph, Refused, open_graph
from factlines.core.errors import ReadOnlyGraph
from factlines.core.mempalace_log import WriteLog
from factlines.core.mempalace_paths import mempalace_write_log
from factlines.core.store.sqlite.editlog import MAX_IMAGES, SHARE
from store_helpers import dump, mempalace_tools


def _log_rows(path) -> list[tuple]:
    with sqlite3.connect(str(path)) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'fl_edit_log'").fetchone():
            return []
        return conn.execute("SELECT at, what, reason, tool FROM fl_edit_log").fetchall()


def test_a_logged_edit_keeps_what_when_why_and_the_rows(kg, kg_path):
    tid = kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-01-01")
    assert _log_rows(kg_path) == []  # MemPalace's methods are not logged, nor is the table made
    with kg.logged("End Kai works_on Nova", reason="left the team"):
        kg.end_fact(tid, "2025-06-30")
    [entry] = kg.edit_log()
    assert (entry["what"], entry["reason"], entry["tool"]) == (
        "End Kai works_on Nova",
        "left the team",
        "factlines",
    )
    assert len(entry["at"]) == 20 and entry["at"].endswith("Z")
    assert entry["facts"] == [tid] and entry["rows_total"] == 1
    assert entry["before"][0]["row"]["valid_to"] is None
    assert entry["after"][0]["row"]["valid_to"] == "2025-06-30"
    assert ("table", "fl_edit_log") in kg.factlines_objects()


def test_a_failed_edit_logs_nothing_and_an_empty_one_neither(kg, kg_path):
    tid = kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-01-01")
    with pytest.raises(Refused), kg.logged("End it"):
        kg.update_fact(tid, valid_to="2025-06-30")
        kg.end_fact(tid, "2024-01-01")  # refused: the whole block is rolled back
    assert kg.get_fact(tid)["valid_to"] is None
    with kg.logged("Nothing"):
        pass
    assert _log_rows(kg_path) == [] and kg.edit_log() == []
    with pytest.raises(Refused, match="words"):
        kg.logged("  ").__enter__()


def test_undoing_a_logged_edit_keeps_its_entry_out_of_the_undo_step(kg, kg_path):
    tid = kg.add_triple("Kai", "works_on", "Nova")
    before = dump(kg_path)
    with kg.recording() as change, kg.logged("Delete Kai works_on Nova", reason="typo"):
        kg.delete_fact(tid)
    assert set(change.rows) == {("triples", tid)}
    kg.revert(change)
    assert dump(kg_path) == before
    assert [e["what"] for e in kg.edit_log()] == ["Delete Kai works_on Nova"]
    with kg.logged("Undo Delete Kai works_on Nova"):
        kg.reapply(change)
    story = kg.fact_history(tid, write_log=kg_path.parent / "none.jsonl")
    assert [(e["tool"], e["did"]) for e in story] == [("Factlines", "deleted")] * 2


def test_a_read_only_graph_refuses_a_logged_edit_and_never_gets_the_table(kg_path):
    KnowledgeGraph(kg_path).close()
    with open_graph(kg_path, read_only=True) as kg:
        with pytest.raises(ReadOnlyGraph):
            kg.logged("Anything").__enter__()
        assert kg.edit_log() == [] and kg.fact_history("t_x", write_log=kg_path) == []
    assert _log_rows(kg_path) == []


def test_a_bulk_edit_keeps_a_bounded_entry(kg, kg_path):
    ids = [kg.add_triple(f"P{i}", "knows", "Q") for i in range(MAX_IMAGES + 50)]
    for i in range(100):  # a graph big enough for the entry's 200 rows to fit its share
        kg.add_entity(f"Filler {i}", properties={"notes": "n" * 50_000})
    with kg.logged("End them all"):
        for tid in ids:
            kg.end_fact(tid, "2025-01-01")
    [entry] = kg.edit_log()
    assert entry["rows_total"] == MAX_IMAGES + 50 and len(entry["before"]) == MAX_IMAGES
    assert entry["facts"] == ids


def test_the_log_stays_within_its_share_of_the_file(kg, kg_path):
    tid = kg.add_triple("Kai", "works_on", "Nova")
    for i in range(40):
        kg.add_triple(f"Person {i}", "knows", "Kai", source_file="some notes.md" * 20)
    reason = "a reason long enough to fill the log quickly " * 10
    for i in range(200):
        with kg.logged(f"Edit {i}", reason=reason):
            kg.update_fact(tid, source_file=f"file {i}")
    entries = kg.edit_log(limit=1000)
    assert entries[0]["what"] == "Edit 199"  # the newest stay
    assert 1 < len(entries) < 200  # the oldest went
    with sqlite3.connect(str(kg_path)) as conn:
        size = conn.execute(
            "SELECT SUM(length(what) + length(facts) + length(entities) + length(before) "
            "+ length(after) + length(reason)) FROM fl_edit_log"
        ).fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    assert size <= SHARE * (pages * page - size)


def _log_bytes(path) -> tuple[int, int]:
    """The log's text in UTF-8 bytes, as stored, and the rest of the file's bytes."""
    with sqlite3.connect(str(path)) as conn:
        rows = conn.execute(
            "SELECT what, facts, entities, before, after, reason FROM fl_edit_log"
        ).fetchall()
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    size = sum(len(text.encode("utf-8")) for row in rows for text in row if text)
    return size, pages * page - size


def test_the_log_s_share_is_counted_in_bytes_not_characters(kg, kg_path):
    tid = kg.add_triple("王小明", "住在", "北京")
    for i in range(40):
        kg.add_triple(f"同事{i}", "认识", "王小明", source_file="会议记录.md" * 20)
    reason = "因为这条记录已经过时了，需要更正。" * 10
    for i in range(200):
        with kg.logged(f"修改 {i}", reason=reason):
            kg.update_fact(tid, source_file=f"文件 {i}")
    size, rest = _log_bytes(kg_path)
    assert kg.edit_log()[0]["what"] == "修改 199"
    assert size <= SHARE * rest, f"{size} bytes is {size / rest:.1%} of the rest"


def test_an_entry_larger_than_the_budget_is_kept_shortened(kg, kg_path):
    kg.add_triple("Kai", "works_on", "Orion")
    kg.set_entity_properties("Kai", {"notes": "x" * 2_000_000})
    with kg.logged("Rename Kai to Kai Moreno", reason="his full name"):
        kg.rename_entity("Kai", "Kai Moreno")
    [entry] = [e for e in kg.edit_log() if e["what"] == "Rename Kai to Kai Moreno"]
    assert entry["reason"] == "his full name" and entry["at"] and entry["rows_total"] >= 1
    assert entry["before"] == [] and entry["after"] == []  # the 2 MB rows' images left out
    size, rest = _log_bytes(kg_path)
    assert size <= SHARE * rest


# ── MemPalace's write log ─────────────────────────────────────────────────


def test_the_write_log_is_where_mempalace_puts_it(tmp_path):
    env = {"MEMPALACE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert mempalace_write_log(env) == tmp_path / "cfg" / "wal" / "write_log.jsonl"
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert mempalace_write_log(env) == tmp_path / "xdg" / "mempalace" / "wal" / "write_log.jsonl"


def _line(stamp: str, operation: str, params=None, result=None) -> str:
    entry = {"timestamp": stamp, "operation": operation}
    if params is not None:
        entry["params"] = params
    entry["result"] = result
    return json.dumps(entry) + "\n"


def test_the_write_log_is_read_as_it_grows_and_pairs_outcomes(tmp_path):
    path = tmp_path / "write_log.jsonl"
    params = {"subject": "Kai", "predicate": "works_on", "object": "Nova"}
    path.write_text(
        _line("2026-03-01T10:00:00.123456", "add_drawer", {"content": "[REDACTED 3 chars]"})
        + _line("2026-03-01T10:00:01.000001", "kg_add", params)
        + _line("2026-03-01T10:00:01.500000", "kg_add", result={"success": True, "triple_id": "t1"})
        + '{"timestamp": "2026-03-01T10:00:02", "operation": "kg_inv',  # still being written
        encoding="utf-8",
    )
    log = WriteLog(path)
    [entry] = log.entries()
    assert (entry.line, entry.operation, entry.at) == (2, "kg_add", "2026-03-01T10:00:01Z")
    assert entry.result == {"success": True, "triple_id": "t1"}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('alidate", "params": {"subject": "Kai", "predicate": "works_on", ')
        handle.write('"object": "Nova", "ended": "2026-03-02"}, "result": null}\n')
    assert [e.operation for e in log.entries()] == ["kg_add", "kg_invalidate"]
    assert log.entries()[1].line == 4 and [e.line for e in log.about("kai")] == [2, 4]
    assert WriteLog(tmp_path / "absent.jsonl").entries() == []


def _adds(*objects: str) -> str:
    return "".join(
        _line("2026-03-01T10:00:01", "kg_add", {"subject": "Kai", "predicate": "p", "object": o})
        for o in objects
    )


@pytest.mark.parametrize("in_order", [True, False])
def test_the_writes_logged_between_two_instants_are_every_one_there(tmp_path, in_order):
    rng = random.Random(7)
    moments = [datetime(2026, 3, 1) + timedelta(minutes=rng.randrange(0, 600)) for _ in range(60)]
    if in_order:
        moments.sort()
    path = tmp_path / "write_log.jsonl"
    params = {"subject": "Kai", "predicate": "p", "object": "Nova"}
    path.write_text(
        "".join(_line(m.isoformat(), "kg_add", params) for m in moments)
        + _line("not a time", "kg_add", params),
        encoding="utf-8",
    )
    log = WriteLog(path)
    for _ in range(30):
        after = log.entries()[rng.randrange(60)].at
        until = rng.choice([None, log.entries()[rng.randrange(60)].at])
        expected = [
            e.line
            for e in log.entries()
            if e.at is not None and after < e.at and (until is None or e.at <= until)
        ]
        assert [e.line for e in log.between(after, until)] == expected


def test_a_write_log_written_anew_or_replaced_is_read_again_from_its_start(tmp_path):
    path = tmp_path / "write_log.jsonl"
    path.write_text(_adds("Nova", "Vega"), encoding="utf-8")
    log = WriteLog(path)
    assert [e.params["object"] for e in log.entries()] == ["Nova", "Vega"]
    path.write_text(_adds("Orion", "Atlas", "Mira"), encoding="utf-8")  # in place, longer
    assert [e.params["object"] for e in log.entries()] == ["Orion", "Atlas", "Mira"]
    path.write_text(_adds("Lyra", "Atlas", "Mira"), encoding="utf-8")  # in place, as long
    assert [e.params["object"] for e in log.entries()] == ["Lyra", "Atlas", "Mira"]
    other = tmp_path / "rotated.jsonl"
    other.write_text(_adds("Orion", "Atlas", "Mira", "Kay"), encoding="utf-8")
    other.replace(path)  # another file under the name
    assert [e.params["object"] for e in log.entries()] == ["Orion", "Atlas", "Mira", "Kay"]
    assert log.lines() == 4


@pytest.mark.interop
def test_a_facts_story_joins_mempalaces_writes_and_factlines_edits(kg_path, tmp_path, monkeypatch):
    wal_file = tmp_path / "cfg" / "wal" / "write_log.jsonl"
    tools = mempalace_tools(kg_path, wal_file, monkeypatch)
    added = tools["tool_kg_add"]("Kai", "works_on", "Orion", valid_from="2025-01-01")
    again = tools["tool_kg_add"]("Kai", "works_on", "Orion")  # finds the open fact
    tools["tool_kg_add"]("Kai", "works_on", "Vega", valid_from="2025-02-01")
    tools["tool_kg_invalidate"]("Kai", "works_on", "Vega", ended="2025-03-01")
    superseded = tools["tool_kg_supersede"]("Kai", "works_on", "Orion", "Nova", at="2025-06-01")
    tools["tool_kg_add"]("Ann", "works_on", "Orion")
    tools["close"]()
    orion, nova = added["triple_id"], superseded["triple_id"]
    assert again["triple_id"] == orion and len(wal_file.read_text().splitlines()) == 10

    with KnowledgeGraph(kg_path) as kg:
        with kg.logged("End Kai works_on Nova", reason="left the team"):
            kg.end_fact(nova, "2025-09-30")
        vega = next(r["id"] for r in kg.dump_rows("triples") if r["object"] == "vega")
        stories = {tid: kg.fact_history(tid, write_log=wal_file) for tid in (orion, vega, nova)}

    def told(story):
        return [(e["tool"], e["did"], e["details"].get("operation")) for e in story]

    assert told(stories[orion]) == [
        (None, "recorded", None),
        ("MemPalace", "added", "kg_add"),
        # The same fact found again within seconds: not told apart from its own writing (an
        # add logged well after the fact was recorded is "confirmed", see the next test).
        ("MemPalace", "added", "kg_add"),
        ("MemPalace", "ended", "kg_supersede"),
    ]
    assert told(stories[vega])[1:] == [
        ("MemPalace", "added", "kg_add"),
        ("MemPalace", "ended", "kg_invalidate"),
    ]
    assert told(stories[nova])[1:] == [
        ("MemPalace", "added", "kg_supersede"),
        ("Factlines", "ended", None),
    ]
    ended = stories[nova][-1]
    assert (ended["what"], ended["reason"]) == ("End Kai works_on Nova", "left the team")
    assert ended["details"]["after"]["valid_to"] == "2025-09-30"
    assert "replacing Orion" in stories[nova][1]["what"]
    assert all(e["at"] is None or e["at"].endswith("Z") for s in stories.values() for e in s)
    # Ann's write, on the same object, is not Kai's story.
    assert all("Ann" not in e["what"] for s in stories.values() for e in s)


def test_an_add_logged_before_the_fact_existed_is_added_later_confirmed(kg, kg_path, tmp_path):
    tid = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    recorded = kg.get_fact(tid)["extracted_at"].replace(" ", "T")
    log = tmp_path / "write_log.jsonl"
    params = {"subject": "Kai", "predicate": "Works On", "object": "orion", "valid_from": None}
    log.write_text(
        _line(recorded, "kg_add", params)
        + _line(recorded, "kg_add", result={"success": True, "triple_id": tid})
        + _line("2030-01-01T00:00:00", "kg_add", params)
        + _line("2030-01-01T00:00:01", "kg_add", result={"success": True, "triple_id": tid})
        + _line("2030-01-02T00:00:00", "kg_add", params)
        + _line("2030-01-02T00:00:01", "kg_add", result={"success": False, "error": "locked"}),
        encoding="utf-8",
    )
    story = kg.fact_history(tid, write_log=log)
    assert [(e["did"], e["details"].get("line")) for e in story] == [
        ("recorded", None),
        ("added", 1),
        ("confirmed", 3),
    ]
