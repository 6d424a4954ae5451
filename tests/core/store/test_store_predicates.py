"""The predicates as a vocabulary: figures and audit signals per predicate,
renaming and merging with history kept or in place, checked in the file itself."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from factlines import KnowledgeGraph, Refused, open_graph
from factlines.core.errors import ReadOnlyGraph
from factlines.core.vocabulary import drift_key, inflection_key, near_duplicates
from store_helpers import dump, mempalace_class

AT = "2026-01-01T00:00:00Z"


def _rows(path, where: str = "1", params=()) -> list[tuple]:
    with sqlite3.connect(str(path)) as conn:
        return conn.execute(
            "SELECT id, subject, predicate, object, valid_from, valid_to, confidence, "
            f"source_file, adapter_name FROM triples WHERE {where} ORDER BY rowid",
            params,
        ).fetchall()


def _meta(path) -> dict:
    with sqlite3.connect(str(path)) as conn:
        return dict(conn.execute("SELECT key, value FROM fl_meta").fetchall())


@pytest.fixture
def team(kg):
    """works_on: two open facts (one with provenance), one ended; look-alikes of it."""
    ids = {
        "kai": kg.add_triple(
            "Kai", "works_on", "Orion", valid_from="2025-01-01", source_file="notes.md",
            adapter_name="miner", confidence=0.8,
        ),
        "ann_old": kg.add_triple(
            "Ann", "works_on", "Nova", valid_from="2023-01-01", valid_to="2024-06-01"
        ),
        "ann": kg.add_triple("Ann", "works_on", "Orion", valid_from="2024-07-01"),
        "ann_alike": kg.add_triple("Ann", "working_on", "Orion", valid_from="2025-03-01"),
        "bo": kg.add_triple("Bo", "workson", "Orion"),
        "bo_lives": kg.add_triple("Bo", "lives_in", "Lyon", valid_from="2020-01-01"),
        "dee": kg.add_triple(
            "Dee", "mentored", "Eve", valid_from="2010-01-01", valid_to="2011-01-01"
        ),
    }  # fmt: skip
    return ids


# ── Figures and signals ───────────────────────────────────────────────────


def test_stats_count_each_predicate_in_the_file(kg, kg_path, team):
    kg.add_triple("Cy", "works_on", "Nova", valid_from="2099-01-01")  # open, not valid now
    kg.add_triple("Cy", "lives_in", "Oslo", valid_from="2019-01-01", valid_to="2099-01-01")
    stats = {row["predicate"]: row for row in kg.predicate_stats()}
    assert list(stats) == sorted(stats)
    with sqlite3.connect(str(kg_path)) as conn:
        for predicate, row in stats.items():
            facts, open_, subjects, objects = conn.execute(
                "SELECT COUNT(*), SUM(valid_to IS NULL), COUNT(DISTINCT subject), "
                "COUNT(DISTINCT object) FROM triples WHERE predicate = ?",
                (predicate,),
            ).fetchone()
            assert (row["facts"], row["open"], row["ended"]) == (facts, open_, facts - open_)
            assert (row["subjects"], row["objects"]) == (subjects, objects)
    assert stats["works_on"]["current"] == 2  # Kai and Ann; Cy's starts in 2099
    assert stats["lives_in"]["current"] == 2  # Bo's, and Cy's ending in 2099
    assert sum(row["ended"] for row in stats.values()) == kg.stats()["expired_facts"]


def test_signals_one_off_near_duplicates_ended_only_single_valued(kg, team):
    kg.add_triple("Dee", "mentored", "Eve", valid_from="2010-01-01", valid_to="2011-01-01")
    kg.add_triple("Dee", "mentored", "Fay", valid_from="2012-01-01", valid_to="2013-01-01")
    kg.set_single_valued("lives_in")
    stats = {row["predicate"]: row for row in kg.predicate_stats()}
    assert stats["working_on"]["signals"] == ["one-off", "near-duplicate of works_on (+1 more)"]
    assert stats["works_on"]["near_duplicates"] == ["working_on", "workson"]
    assert stats["works_on"]["signals"] == ["near-duplicate of working_on (+1 more)"]
    assert stats["lives_in"]["signals"] == ["one-off", "single-valued"]
    assert stats["lives_in"]["single_valued"] is True
    assert stats["mentored"]["signals"] == ["ended only"]


def test_near_duplicates_forgive_case_separators_and_inflections():
    alike = ["works_on", "working_on", "worked_on", "works on", "WorksOn", "worksOn"]
    assert {inflection_key(p) for p in alike} == {"workon"}
    assert drift_key("Works-On") == drift_key("works_on") == "workson"  # MemPalace's key
    assert {inflection_key(p) for p in ("lives_in", "lived_in", "living_in")} == {"livin"}
    assert inflection_key("statuses") == inflection_key("status") == "status"
    groups = near_duplicates(["works_on", "works_at", "worked_at", "status", "knows", "owns"])
    assert groups == {"works_at": ["worked_at"], "worked_at": ["works_at"]}
    assert near_duplicates(["workson", "working_on"]) == {}
    # A chain: workson meets works_on by MemPalace's key, works_on meets working_on by ours.
    assert near_duplicates(["workson", "working_on", "works_on"])["workson"] == [
        "working_on",
        "works_on",
    ]


# ── Rename with history kept ──────────────────────────────────────────────


def test_rename_with_history_ends_and_opens_at_one_instant(kg, kg_path, team):
    before = {row[0]: row for row in _rows(kg_path)}
    report = kg.rename_predicate("works_on", "works for", at="2026-01-01")
    assert report == {
        "old": "works_on",
        "new": "works_for",
        "merged": False,
        "at": AT,
        "ended": 2,
        "opened": 2,
        "renamed": 0,
        "duplicates": [],
    }
    # The open facts ended at the boundary, nothing else of them changed; the ended one stays.
    for key in ("kai", "ann"):
        row = _rows(kg_path, "id = ?", (team[key],))[0]
        assert row[:5] + row[6:] == before[team[key]][:5] + before[team[key]][6:]
        assert row[5] == AT
    assert _rows(kg_path, "id = ?", (team["ann_old"],)) == [before[team["ann_old"]]]
    successors = _rows(kg_path, "predicate = 'works_for'")
    assert sorted((r[1], r[3], r[4], r[5], r[6], r[7], r[8]) for r in successors) == [
        ("ann", "orion", AT, None, 1.0, None, None),
        ("kai", "orion", AT, None, 0.8, "notes.md", "miner"),  # provenance carried, as rewrite
    ]
    assert all(r[0].startswith("t_") and r[0] not in before for r in successors)
    assert kg.query_relationship("works_on", as_of="2025-12-31T23:59:59Z")[0]["object"] == "Orion"
    assert kg.query_relationship("works_for", as_of="2025-12-31T23:59:59Z") == []
    assert len(kg.query_relationship("works_for", as_of=AT)) == 2


def test_a_fact_not_begun_at_the_boundary_is_renamed_in_place(kg, kg_path, team):
    later = kg.add_triple("Cy", "works_on", "Nova", valid_from="2026-05-01")
    report = kg.rename_predicate("works_on", "works_for", at="2026-01-01")
    assert (report["ended"], report["opened"], report["renamed"]) == (2, 2, 1)
    assert _rows(kg_path, "id = ?", (later,))[0][2:6] == ("works_for", "nova", "2026-05-01", None)


def test_merge_with_history_does_not_double_an_open_fact(kg, kg_path, team):
    report = kg.rename_predicate("working_on", "works_on", at="2026-01-01")
    assert report["merged"] is True
    assert report["duplicates"] == [(team["ann_alike"], team["ann"])]
    assert (report["ended"], report["opened"]) == (1, 0)
    assert _rows(kg_path, "id = ?", (team["ann_alike"],))[0][5] == AT
    open_ann = _rows(kg_path, "subject = 'ann' AND object = 'orion' AND valid_to IS NULL")
    assert [row[0] for row in open_ann] == [team["ann"]]
    assert not any(c["kind"] == "duplicate_open" for c in kg.conflicts())


# ── Rewrite in place ──────────────────────────────────────────────────────


def test_in_place_rewrites_every_fact_and_keeps_ids(kg, kg_path, team):
    before = _rows(kg_path)
    report = kg.rename_predicate("works_on", "works_for", keep_history=False)
    assert (report["renamed"], report["at"], report["duplicates"]) == (3, None, [])
    after = _rows(kg_path)
    assert [row[0] for row in after] == [row[0] for row in before]  # same ids, same rowids
    for old, new in zip(before, after):
        expected = "works_for" if old[2] == "works_on" else old[2]
        assert new == (*old[:2], expected, *old[3:])


def test_in_place_merge_keeps_one_open_fact_from_the_earlier_start(kg, kg_path, team):
    report = kg.rename_predicate("works_on", "working_on", keep_history=False)
    assert report["merged"] is True
    assert report["duplicates"] == [(team["ann"], team["ann_alike"])]
    assert _rows(kg_path, "id = ?", (team["ann"],)) == []
    survivor = _rows(kg_path, "id = ?", (team["ann_alike"],))[0]
    assert (survivor[2], survivor[4], survivor[5]) == ("working_on", "2024-07-01", None)
    assert report["renamed"] == 2  # Kai's and Ann's ended fact


# ── Settings follow ───────────────────────────────────────────────────────


def test_flag_and_colour_follow_a_rename(kg, kg_path, team):
    kg.set_single_valued("works_on")
    kg.rename_predicate("works_on", "works_for", at="2026-01-01")
    assert kg.single_valued_predicates() == ["works_for", "works_on"]  # old keeps its history's
    assert kg.predicate_colours() == {"works_for": "works_on"}
    kg.rename_predicate("works_for", "employed_on", keep_history=False)
    assert kg.single_valued_predicates() == ["employed_on", "works_on"]
    assert kg.predicate_colours() == {"employed_on": "works_on"}  # still the first colour
    assert '"employed_on": "works_on"' in _meta(kg_path)["predicate_colours"]


def test_a_merge_target_keeps_its_own_flag_and_colour(kg, team):
    kg.set_single_valued("working_on")
    kg.rename_predicate("working_on", "works_on", keep_history=False)
    assert kg.single_valued_predicates() == []  # working_on has no fact left
    assert kg.predicate_colours() == {}


# ── Refusals write nothing ────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("old", "new", "options", "words"),
    [
        ("works_on", "", {}, "new predicate"),
        ("works_on", "   ", {}, "new predicate"),
        ("", "works_for", {}, "name the predicate"),
        ("works_on", "works_on", {}, "already called"),
        ("works_on", "Works On", {}, "already called"),
        ("employed_by", "works_for", {}, "no fact has the predicate"),
        ("works_on", "works_for", {"at": "2024-13-01"}, "at="),
        ("works_on", "works_for", {"keep_history": False, "at": AT}, "only when history"),
        ("mentored", "coached", {}, "no fact of 'mentored' is open"),
    ],
)
def test_refusals_say_why_and_write_nothing(kg, kg_path, team, old, new, options, words):
    before = dump(kg_path, ("entities", "triples", "fl_meta"))
    with pytest.raises(Refused, match=words):
        kg.rename_predicate(old, new, **options)
    assert dump(kg_path, ("entities", "triples", "fl_meta")) == before
    assert kg.edit_log() == []


def test_read_only_refuses(kg, kg_path, team):
    kg.close()
    before = dump(kg_path)
    with open_graph(kg_path, read_only=True) as ro, pytest.raises(ReadOnlyGraph):
        ro.rename_predicate("works_on", "works_for")
    assert dump(kg_path) == before


# ── One write, logged, undone to identical rows ───────────────────────────


def test_logged_once_and_undone_to_identical_rows(kg, kg_path, team):
    kg.set_single_valued("works_on")
    before = dump(kg_path, ("entities", "triples", "fl_meta"))
    with kg.recording() as change:
        kg.rename_predicate("works_on", "works_for", at="2026-01-01", reason="house style")
    [entry] = kg.edit_log()
    assert (entry["what"], entry["reason"]) == (
        "Rename predicate works_on to works_for",
        "house style",
    )
    assert entry["rows_total"] == 6  # 2 ended, 2 opened, the flag, the colour
    kg.revert(change)
    assert dump(kg_path, ("entities", "triples", "fl_meta")) == before
    kg.reapply(change)
    assert len(_rows(kg_path, "predicate = 'works_for'")) == 2


def test_an_enclosing_logged_block_makes_one_entry(kg, team):
    with kg.logged("Tidy the vocabulary", reason="one go"):
        kg.rename_predicate("working_on", "works_on", keep_history=False)
        kg.rename_predicate("workson", "works_on", keep_history=False)
    [entry] = kg.edit_log()
    assert entry["what"] == "Tidy the vocabulary"
    # Ann's working_on removed (her works_on already started earlier), Bo's rewritten.
    assert set(entry["facts"]) == {team["ann_alike"], team["bo"]}


@pytest.mark.parametrize("keep_history", [True, False])
def test_ten_thousand_facts_undone_to_identical_rows(kg, kg_path, keep_history):
    rows = [
        {
            "id": f"t_e{i}_works_on_o{i % 97}_{i:012x}",
            "subject": f"e{i}",
            "predicate": "works_on",
            "object": f"o{i % 97}",
            "valid_from": f"20{10 + i % 15}-0{1 + i % 9}-01",
            "valid_to": None if i % 3 else "2025-12-31",
            "source_file": f"notes/{i % 50}.md",
        }
        for i in range(10_000)
    ]
    kg.insert_rows("entities", [{"id": f"e{i}", "name": f"E {i}"} for i in range(10_000)])
    kg.insert_rows("entities", [{"id": f"o{i}", "name": f"O {i}"} for i in range(97)])
    kg.insert_rows("triples", rows)
    kg.add_triple("e1", "working_on", "o1")  # a merge target with a twin of e1's fact
    before = dump(kg_path)
    with kg.recording() as change:
        report = kg.rename_predicate("works_on", "working_on", keep_history=keep_history)
    assert report["duplicates"] == [
        (rows[1]["id"], kg.find_open_fact("e1", "working_on", "o1")["id"])
    ]
    assert dump(kg_path) != before
    kg.revert(change)
    assert dump(kg_path) == before


def test_history_kept_is_mempalaces_rewrite_of_every_open_fact(kg, kg_path, team, tmp_path):
    """The same file renamed by us, and by MemPalace 3.11's own ``rewrite`` of each open fact
    at the same instant, holds the same facts (ids and ``extracted_at`` aside)."""
    kg.close()
    theirs_path = tmp_path / "theirs.sqlite3"
    shutil.copy(kg_path, theirs_path)
    with KnowledgeGraph(kg_path) as ours:
        ours.rename_predicate("works_on", "works_for", at=AT)
    theirs = mempalace_class()(str(theirs_path))
    for tid, _, _, obj, *_ in _rows(theirs_path, "predicate = 'works_on' AND valid_to IS NULL"):
        assert theirs.rewrite(tid, "works_for", obj, at=AT) is not None
    theirs.close()

    def facts(path):
        with sqlite3.connect(str(path)) as conn:
            return sorted(
                conn.execute(
                    "SELECT subject, predicate, object, valid_from, valid_to, confidence, "
                    "source_closet, source_file, source_drawer_id, adapter_name FROM triples"
                ).fetchall(),
                key=repr,
            )

    assert facts(kg_path) == facts(theirs_path)
