"""Copying a whole graph to another place: lossless, engine-neutral (every
place comes from ``graph_places``, one engine per param), into a new place or an empty graph
only, all or nothing: refused, cancelled or failed, the target is as it was."""

from __future__ import annotations

import sqlite3

import pytest

import postgres_server
from factlines import Refused, open_graph
from factlines.core.errors import NotAKnowledgeGraph
from factlines.core.transfer import Cancelled, copy_graph
from factlines.core.transfer.plan import CHUNK
from store_helpers import by_id, dump, graph_state, raw_sql

# Values the time rules refuse, and others no check would let in, as a graph of either engine
# may hold them (a confidence that is not a number only SQLite holds: below).
ODD_FACTS = [
    {"id": "t_odd_empty", "subject": "kai", "predicate": "works_on", "object": "orion",
     "valid_from": "", "valid_to": "", "confidence": None, "extracted_at": None},
    {"id": "t_odd_partial", "subject": "kai", "predicate": "lives_in", "object": "lisbon",
     "valid_from": "2025-06", "valid_to": "never", "confidence": -3,
     "source_closet": "c1", "source_file": "notes.md", "source_drawer_id": "d7",
     "adapter_name": "hand", "extracted_at": "2025-06-01 10:00"},
    {"id": "t_odd_offset", "subject": "ghost", "predicate": "knows", "object": "kai",
     "valid_from": "2025-02-30", "valid_to": "2025-03-01T10:00:00+02:00", "confidence": 2.5,
     "extracted_at": "0000-00-00"},
]  # fmt: skip


@pytest.fixture
def source(graph_places) -> str:
    """A graph with ordinary facts, odd stored values, settings and logged edits."""
    location = graph_places.new("source")
    with open_graph(location) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", valid_to="2025-06-30",
                      confidence=0.8, source_file="a.md", adapter_name="mcp")  # fmt: skip
        nova = kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01T09:30:00Z")
        kg.add_entity("Orion", "project", {"lead": "Kai", "budget": 3})
        for row in ODD_FACTS:
            kg.apply_row("triples", row)
        kg.apply_row("entities", {"id": "lisbon", "name": "Lisbon", "type": None,
                                  "properties": "not json", "created_at": "yesterday"})  # fmt: skip
        kg.set_single_valued("works_on")
        with kg.logged("End Kai works_on Nova", reason="left the team"):
            kg.end_fact(nova, "2026-01-31")
    return location


def test_a_copy_holds_every_row_setting_and_logged_edit_and_copies_back_identically(
    source, graph_places
):
    before = graph_state(source)
    assert before["settings"] and before["log"]  # the fixture has something of each to carry
    target = graph_places.new("target")
    seen: list[tuple[int, int]] = []
    done = copy_graph(source, target, progress=lambda d, t: seen.append((d, t)))
    assert graph_state(target) == before
    assert graph_state(source) == before  # only read
    assert (done.entities, done.facts) == (len(before["entities"]), len(before["triples"]))
    assert (done.settings, done.logged_edits, done.created) == (1, 1, True)
    total = done.entities + done.facts
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert "copied from" in done.words() and f"{done.facts:,} facts" in done.words()
    # The odd values came through as stored, and the story of the ended fact with them.
    with open_graph(target, read_only=True) as kg:
        assert kg.get_fact("t_odd_partial")["confidence"] == -3
        assert kg.single_valued_predicates() == ["works_on"]
        [entry] = kg.edit_log()
        assert (entry["what"], entry["reason"]) == ("End Kai works_on Nova", "left the team")
    back = graph_places.new("back")
    copy_graph(target, back)
    assert graph_state(back) == before


def test_a_graph_with_rows_is_refused_as_a_target_and_left_as_it_was(source, graph_places):
    target = graph_places.new("team")
    with open_graph(target) as kg:
        kg.add_triple("Ann", "knows", "Bo")
    before = graph_state(target)
    with pytest.raises(Refused, match=r"already holds a graph \(1 facts, 2 entities\)"):
        copy_graph(source, target)
    assert graph_state(target) == before
    # Entities alone are a graph too: nothing is merged into it.
    with open_graph(target) as kg:
        kg.delete_fact(kg.query_entity("Ann")[0]["id"])
    with pytest.raises(Refused, match=r"already holds a graph \(0 facts, 2 entities\)"):
        copy_graph(source, target)


def test_an_empty_graph_takes_the_copy(source, graph_places):
    target = graph_places.new("empty")
    open_graph(target).close()
    done = copy_graph(source, target)
    assert not done.created
    assert graph_state(target) == graph_state(source)


def test_a_copy_onto_itself_is_refused(source):
    before = graph_state(source)
    with pytest.raises(Refused, match="is the graph being copied"):
        copy_graph(source, source)
    assert graph_state(source) == before


@pytest.mark.parametrize("cancel_at", ["first batch", "before the commit"])
def test_cancel_leaves_a_new_target_absent_and_an_empty_one_as_it_was(
    source, graph_places, cancel_at
):
    def stop(done: int, total: int):
        return not (done > 0 if cancel_at == "first batch" else done == total)

    missing = graph_places.new("missing")
    with pytest.raises(Cancelled):
        copy_graph(source, missing, progress=stop)
    assert not graph_places.exists(missing)
    empty = graph_places.new("empty")
    open_graph(empty).close()
    before = graph_state(empty)
    with pytest.raises(Cancelled):
        copy_graph(source, empty, progress=stop)
    assert graph_state(empty) == before


# PostgreSQL's alone: a copy to a new file writes beside it, there is nothing to tidy up there.
@pytest.mark.parametrize("graph_places", ["postgres"], indirect=True)
def test_a_copy_that_fails_says_its_own_error_even_when_tidying_up_fails_too(
    source, graph_places, monkeypatch
):
    """A server killed mid-copy: the copy's error is raised, not the tidying up's."""
    from factlines.core.errors import Unavailable
    from factlines.core.transfer import copying

    def server_gone(done: int, total: int):
        if done:
            raise Unavailable("the server went away")
        return True

    def cannot_reach(_target):
        raise ConnectionError("connection refused")

    monkeypatch.setattr(copying, "discard_new_graph", cannot_reach)
    with pytest.raises(Unavailable, match="the server went away") as raised:
        copy_graph(source, graph_places.new("missing"), progress=server_gone)
    assert "could not be removed: connection refused" in "".join(
        getattr(raised.value, "__notes__", [])
    )


def test_a_source_that_is_missing_or_not_a_graph_is_refused_and_nothing_is_made(
    tmp_path, graph_places
):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a graph\n", encoding="utf-8")
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    with conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.close()
    for bad, error in ((notes, NotAKnowledgeGraph), (other, NotAKnowledgeGraph),
                       (tmp_path / "missing.sqlite3", Refused)):  # fmt: skip
        before = bad.read_bytes() if bad.exists() else None
        target = graph_places.new("target")
        with pytest.raises(error):
            copy_graph(bad, target)
        assert (bad.read_bytes() if bad.exists() else None) == before
        assert not graph_places.exists(target)


# ── From a SQLite file into PostgreSQL and back ──────────────────────────────


def test_a_sqlite_file_goes_into_postgresql_and_comes_back_as_it_was(tmp_path, postgres_url):
    source = str(tmp_path / "source.sqlite3")
    with open_graph(source) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01", confidence=0.8)
        for row in ODD_FACTS:
            kg.apply_row("triples", row)
        kg.set_single_valued("works_on")
        with kg.logged("End Kai works_on Orion", reason="moved on"):
            kg.end_fact(kg.query_entity("Kai")[0]["id"], "2025-06-30")
    before = by_id(graph_state(source))
    copy_graph(source, postgres_url)
    assert by_id(graph_state(postgres_url)) == before
    back = str(tmp_path / "back.sqlite3")
    copy_graph(postgres_url, back)
    assert by_id(graph_state(back)) == before


@pytest.mark.parametrize(
    ("column", "value", "words"),
    [("confidence", "high", "'high', not a number"),
     ("source_file", b"\x00\xff", "binary data"),
     ("object", "ori\x00on", "a NUL character")],
)  # fmt: skip
def test_a_value_postgresql_cannot_hold_is_refused_by_its_fact_and_nothing_is_written(
    tmp_path, postgres_admin, column, value, words
):
    source = tmp_path / "source.sqlite3"
    with open_graph(source) as kg:
        for n in range(2 * CHUNK):  # the odd row in the second batch: the first is written
            kg.add_triple("Kai", "knows", f"p{n}")
        kg.add_triple("Kai", "works_on", "Orion")
    conn = sqlite3.connect(source)
    with conn:
        conn.execute(f"UPDATE triples SET {column} = ? WHERE predicate = 'works_on'", (value,))
    conn.close()
    [odd] = _query(source, "SELECT id FROM triples WHERE predicate = 'works_on'")
    with postgres_server.fresh_database(postgres_admin) as target:
        with pytest.raises(Refused, match=rf"fact '{odd[0]}' .*{column} is {words}.*nothing"):
            copy_graph(source, target)
        assert raw_sql(target, "SELECT to_regclass('triples')") == [(None,)]
    with postgres_server.fresh_database(postgres_admin) as empty:
        open_graph(empty).close()
        before = graph_state(empty)
        with pytest.raises(Refused, match=f"{column} is {words}"):
            copy_graph(source, empty)
        assert graph_state(empty) == before


# ── SQLite as the engine on both sides: what only its files can show ────────


def test_sqlite_values_keep_their_storage_class_and_the_target_its_own_indexes(tmp_path):
    """A blob in a provenance column stays a blob (not text); a copy
    big enough to load with the indexes dropped ends with exactly a new graph's indexes."""
    source, target = tmp_path / "source.sqlite3", tmp_path / "target.sqlite3"
    with open_graph(source) as kg:
        kg.insert_rows(
            "triples",
            [(f"t_{n}", f"e{n % 700}", "p", f"e{n % 300}", None, None) for n in range(12_000)],
            columns=("id", "subject", "predicate", "object", "valid_from", "valid_to"),
        )
    conn = sqlite3.connect(source)
    with conn:
        conn.execute("UPDATE triples SET valid_from = 20250101, source_file = x'00ff' "
                     "WHERE id = 't_7'")  # fmt: skip
    conn.close()
    copy_graph(source, target)
    assert dump(target) == dump(source)
    kinds = "SELECT typeof(valid_from), typeof(source_file) FROM triples WHERE id = 't_7'"
    assert _query(target, kinds) == _query(source, kinds) == [("text", "blob")]
    indexes = "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
    fresh = tmp_path / "fresh.sqlite3"
    open_graph(fresh).close()
    assert _query(target, indexes) == _query(fresh, indexes)


def _query(path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()
