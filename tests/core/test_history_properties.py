"""The history queries against brute force over random facts.

The facts are written as raw rows, so they hold what old files and MemPalace hold and the store
refuses to write: inverted intervals, MemPalace's empty ``""`` end, duplicates. The oracle reads
every value with :mod:`datetime` (``store_helpers``), not with the store's time rules.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factlines import KnowledgeGraph, Refused
from store_helpers import dump, instant, oracle_end, oracle_start, raw_rows_graph

ENTITIES = ("ann", "bob", "cy")
DAY0 = datetime(2020, 3, 1, tzinfo=timezone.utc)

# Few days and a few times of day, so that keys tie: a day and its first second as a start,
# a day and its last second as an end, the same instant twice.
days = st.integers(0, 2).map(lambda d: (DAY0 + timedelta(days=d)).date().isoformat())
times = st.sampled_from(["T00:00:00Z", "T00:00:01Z", "T12:00:00Z", "T23:59:58Z", "T23:59:59Z"])
values = st.one_of(days, st.builds(lambda d, t: d + t, days, times))
starts = st.one_of(st.none(), values, st.just(""))
ends = st.one_of(st.none(), st.none(), values, st.just(""))
facts = st.lists(
    st.tuples(st.sampled_from(ENTITIES), st.sampled_from(ENTITIES), starts, ends),
    max_size=25,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def graph(rows, valid_to_index: bool = True):
    """A fresh graph holding ``rows`` (subject, object, valid_from, valid_to) as written."""
    with raw_rows_graph(rows, valid_to_index) as path, KnowledgeGraph(path) as kg:
        yield kg


def numbered(rows):
    return [(f"t{i:03d}", *row) for i, row in enumerate(rows)]


def inverted(vf, vt) -> bool:
    return bool(vf) and bool(vt) and oracle_end(vt) < oracle_start(vf)


def touches(entity, subject, obj) -> bool:
    return entity is None or entity in (subject, obj)


# ── conflicts ─────────────────────────────────────────────────────────────


def oracle_conflicts(rows) -> set[tuple]:
    """(kind, a, b, start, end) by brute force over every pair, with ``p`` single-valued."""
    found = set()
    facts = numbered(rows)
    never = datetime.min.replace(tzinfo=timezone.utc)
    for tid, _s, _o, vf, vt in facts:
        if inverted(vf, vt):
            found.add(("inverted", tid, None, instant(oracle_start(vf)), instant(oracle_end(vt))))
    for i, (t1, s1, o1, f1, e1) in enumerate(facts):
        for t2, s2, o2, f2, e2 in facts[i + 1 :]:
            if s1 != s2:
                continue
            lo1, lo2 = (oracle_start(f) if f else never for f in (f1, f2))
            (a, fa, ea, lo_a), (b, fb, eb, lo_b) = sorted(
                [(t1, f1, e1, lo1), (t2, f2, e2, lo2)], key=lambda x: (x[3], x[0])
            )
            if o1 == o2:
                if e1 is None and e2 is None:
                    found.add(("duplicate_open", a, b, instant(lo_b) if fb else None, None))
                continue
            windows = []
            for f, e in ((fa, ea), (fb, eb)):
                start = oracle_start(f) if f else None
                end = None if e is None else (oracle_end(e) if e else never)
                windows.append((start, end))
            starts = [w[0] for w in windows if w[0] is not None]
            ends_ = [w[1] for w in windows if w[1] is not None]
            if any(w[1] == never or (None not in w and not w[0] < w[1]) for w in windows):
                continue  # one is valid nowhere
            lo = max(starts) if starts else None
            hi = min(ends_) if ends_ else None
            if lo is not None and hi is not None and not lo < hi:
                continue
            handover = (
                ea is not None
                and len(ea) == 10
                and fb
                and oracle_start(fb) == oracle_start(ea)
                and lo_a < lo_b
                and (eb is None or oracle_end(eb) >= oracle_end(ea))
            )
            found.add(
                (
                    "handover" if handover else "overlap",
                    a,
                    b,
                    None if lo is None else instant(lo),
                    None if hi is None else instant(hi),
                )
            )
    return found


@settings(SETTINGS, max_examples=150)
@given(rows=facts)
def test_conflicts_are_the_brute_force_pairs(rows):
    with graph(rows) as kg:
        kg.set_single_valued("p")
        found = kg.conflicts()
    assert len(found) == len({(c["a"], c["b"], c["kind"]) for c in found})  # each once
    assert {(c["kind"], c["a"], c["b"], c["start"], c["end"]) for c in found} == (
        oracle_conflicts(rows)
    )


# ── changes_between ───────────────────────────────────────────────────────


@SETTINGS
@given(rows=facts, a=values, b=values, entity=st.sampled_from([None, *ENTITIES]))
def test_changes_between_is_the_brute_force_answer(rows, a, b, entity):
    t0, t1 = sorted((oracle_start(a), oracle_start(b)))
    with graph(rows) as kg:
        if t0 == t1:
            with pytest.raises(Refused):
                kg.changes_between(a, b, entity)
            return
        first, second = (a, b) if oracle_start(a) < oracle_start(b) else (b, a)
        found = kg.changes_between(first, second, entity)
    started, ended = [], []
    for tid, s, o, vf, vt in numbered(rows):
        if not touches(entity, s, o) or inverted(vf, vt):
            continue
        if vf and t0 < oracle_start(vf) <= t1:
            started.append((oracle_start(vf), tid))
        if vt and t0 < oracle_end(vt) <= t1:
            ended.append((oracle_end(vt), tid))
    assert [f["id"] for f in found["started"]] == [tid for _, tid in sorted(started)]
    assert [f["id"] for f in found["ended"]] == [tid for _, tid in sorted(ended)]
    for fact in found["started"] + found["ended"]:
        assert {"id", "subject", "predicate", "object", "valid_from", "valid_to"} <= set(fact)


# ── narrative ─────────────────────────────────────────────────────────────


def events(page) -> list[tuple]:
    """A narrative page as the oracle's (at, kind, id)."""
    return [(e["at"], e["kind"], e["fact"]["id"]) for e in page]


def oracle_events(rows, entity=None) -> list[tuple]:
    """(at, kind, id) in the narrative's order."""
    events = []
    for tid, s, o, vf, vt in numbered(rows):
        if not touches(entity, s, o):
            continue
        for at, kind, key in ((vf, 0, oracle_start), (vt, 1, oracle_end)):
            if kind == 1 and vt is None:
                continue
            if at:
                events.append(((0, key(at), kind, tid), at, kind, tid))
            else:
                events.append(((1, DAY0, kind, tid), at, kind, tid))
    events.sort()
    return [(at, ("start", "end")[kind], tid) for _, at, kind, tid in events]


@SETTINGS
@given(
    rows=facts,
    entity=st.sampled_from([None, *ENTITIES]),
    limit=st.integers(1, 7),
    index=st.booleans(),
)
def test_narrative_pages_are_the_brute_force_order(rows, entity, limit, index):
    expected = oracle_events(rows, entity)
    with graph(rows, valid_to_index=index) as kg:
        assert kg.narrative_total(entity) == len(expected)
        pages = []
        for offset in range(0, len(expected) + limit, limit):
            page = kg.narrative(entity, limit=limit, offset=offset)
            assert len(page) == min(limit, max(0, len(expected) - offset))
            pages += page
        odd = kg.narrative(entity, limit=limit + 2, offset=1)
        # A deep page first after a fresh open: nothing counted or kept yet.
        jumps = {}
        for offset in {max(0, len(expected) - limit), len(expected) * 2 // 3}:
            with KnowledgeGraph(kg.db_path) as fresh:
                jumps[offset] = fresh.narrative(entity, limit=limit, offset=offset)
    assert events(pages) == expected
    for offset, page in jumps.items():
        assert events(page) == expected[offset : offset + limit]
    assert events(odd) == expected[1 : limit + 3]
    # Every start and every end exactly once.
    ids = [tid for tid, s, o, _, _ in numbered(rows) if touches(entity, s, o)]
    assert sorted(e["fact"]["id"] for e in pages if e["kind"] == "start") == ids
    with_end = [
        tid for tid, s, o, _, vt in numbered(rows) if touches(entity, s, o) and vt is not None
    ]
    assert sorted(e["fact"]["id"] for e in pages if e["kind"] == "end") == with_end


# Facts over several years: a deep page counts the years' events up to its own; every offset
# from a fresh open stops that counting somewhere else.
over_years = st.integers(0, 6).map(lambda d: (DAY0 + timedelta(days=400 * d)).date().isoformat())
facts_over_years = st.lists(
    st.tuples(
        st.sampled_from(ENTITIES),
        st.sampled_from(ENTITIES),
        st.one_of(st.none(), over_years),
        st.one_of(st.none(), over_years),
    ),
    min_size=1,
    max_size=20,
)


@SETTINGS
@given(rows=facts_over_years, index=st.booleans())
def test_a_deep_page_first_is_the_brute_force_order_over_many_years(rows, index):
    with graph(rows, valid_to_index=index) as kg:
        assert_every_first_page(kg, oracle_events(rows), limit=3)


def assert_every_first_page(kg, expected: list[tuple], limit: int) -> None:
    """Each page, and then the last, as the first call after a fresh open."""
    for offset in range(len(expected)):
        with KnowledgeGraph(kg.db_path) as fresh:
            page = fresh.narrative(limit=limit, offset=offset)
            last = fresh.narrative(limit=limit, offset=len(expected) - limit)
        assert events(page) == expected[offset : offset + limit]
        assert events(last) == expected[-limit:]


def test_a_graph_kept_open_pages_as_one_opened_afresh_after_writes():
    """The counts kept between pages (years, months, days, where the last page ended)
    follow our writes and another program's."""
    with graph(KEPT_ROWS) as kg:
        for write in (
            lambda: None,
            lambda: kg.add_triple("Ann", "p", "Cy", valid_from="2020-03-02T12:00:00Z"),
            lambda: kg.invalidate("Ann", "p", "Cy", ended="2020-03-03"),
            lambda: _another_program_adds(kg.db_path, "t_other", "2020-03-01"),
        ):
            kg.narrative(limit=2, offset=3)  # where the next page would go on from
            write()
            with KnowledgeGraph(kg.db_path) as fresh:
                next_page = events(fresh.narrative(limit=2, offset=4))
                assert events(kg.narrative(limit=2, offset=4)) == next_page
                assert read(kg) == read(fresh)


def test_what_is_counted_inside_a_write_is_that_write_s_and_never_kept():
    with graph(KEPT_ROWS) as kg:
        total = kg.narrative_total()
        with pytest.raises(RuntimeError), kg.transaction():
            kg.add_triple("Ann", "p", "Cy", valid_from="2019-06-01")
            assert kg.narrative_total() == total + 1
            read(kg)
            raise RuntimeError("rolled back")
        with KnowledgeGraph(kg.db_path) as fresh:
            assert read(kg) == read(fresh)
        with kg.transaction():
            kg.add_triple("Ann", "p", "Cy", valid_from="2019-06-01")
            inside = read(kg)
        with KnowledgeGraph(kg.db_path) as fresh:
            assert inside == read(fresh)


KEPT_ROWS = [("ann", "bob", f"2020-03-0{d}", None) for d in range(1, 6)]
KEPT_ROWS += [("ann", "bob", "2020-04-01", "2021-06-02"), ("bob", "ann", "2019-12-31", None)]


def read(kg) -> list[list[tuple]]:
    """Every page going on, then every event alone from the last back."""
    total = kg.narrative_total()
    pages = [events(kg.narrative(limit=2, offset=o)) for o in range(0, total, 2)]
    return pages + [events(kg.narrative(limit=1, offset=o)) for o in reversed(range(total))]


def _another_program_adds(path, tid: str, valid_from: str) -> None:
    other = sqlite3.connect(str(path))
    with other:
        other.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES (?, 'ann', 'p', 'bob', ?)",
            (tid, valid_from),
        )
    other.close()


@pytest.mark.parametrize("index", [True, False], ids=["valid_to index", "no valid_to index"])
def test_values_that_are_not_dated_come_after_the_dated_ones_from_any_first_page(index):
    rows = [
        ("ann", "bob", "2020-03-01", "2022-05-01"),
        ("ann", "bob", "2021-0301XY", None),  # not dated, though among the dated values
        ("ann", "bob", None, "2021-07-0"),  # the same for an end
        ("ann", "bob", "2023-01-01T10:00:00Z", ""),  # MemPalace's "": ended, when unknown
        ("ann", "bob", "yesterday", None),  # not dated, after them all
        ("ann", "bob", "2019-12-31", "2024-01-01"),
    ]
    expected = [
        ("2019-12-31", "start", "t005"),
        ("2020-03-01", "start", "t000"),
        ("2022-05-01", "end", "t000"),
        ("2023-01-01T10:00:00Z", "start", "t003"),
        ("2024-01-01", "end", "t005"),
        ("2021-0301XY", "start", "t001"),
        (None, "start", "t002"),
        ("yesterday", "start", "t004"),
        ("2021-07-0", "end", "t002"),
        ("", "end", "t003"),
    ]
    with graph(rows, valid_to_index=index) as kg:
        assert kg.narrative_total() == len(expected)
        assert_every_first_page(kg, expected, limit=2)


# ── validity_histogram ────────────────────────────────────────────────────


def posix(moment: datetime) -> int:
    return int(moment.timestamp())


def oracle_valid(vf, vt, moment: datetime) -> bool:
    return (not vf or oracle_start(vf) <= moment) and (
        vt is None or (vt != "" and oracle_end(vt) > moment)
    )


@SETTINGS
@given(rows=facts, bins=st.integers(1, 9), index=st.booleans())
def test_histogram_counts_are_brute_force_counts(rows, bins, index):
    with graph(rows, valid_to_index=index) as kg:
        found = kg.validity_histogram(bins)
        span = kg.time_span()
    keys = [oracle_start(vf) for _, _, vf, _ in rows if vf] + [
        oracle_end(vt) for _, _, _, vt in rows if vt
    ]
    if not keys:
        assert span is None
        assert found == {"edges": [], "valid": [], "starts": [], "ends": []}
        return
    first, last = posix(min(keys)), posix(max(keys)) + 1
    edges = [first + Fraction(i * (last - first), bins) for i in range(bins + 1)]
    assert found["edges"] == [float(e) for e in edges]
    for i in range(bins):
        middle = datetime.fromtimestamp(int((edges[i] + edges[i + 1]) / 2), timezone.utc)
        assert found["valid"][i] == sum(oracle_valid(vf, vt, middle) for _, _, vf, vt in rows)
        for name, column, key in (("starts", 2, oracle_start), ("ends", 3, oracle_end)):
            inside = [
                row[column]
                for row in rows
                if row[column] and edges[i] <= posix(key(row[column])) < edges[i + 1]
            ]
            assert found[name][i] == len(inside), (name, i)
    # Every key of the span is in a bin.
    assert sum(found["starts"]) + sum(found["ends"]) == len(keys)


def test_histogram_over_the_first_and_last_days_a_fact_may_name(tmp_path):
    """A fact from 0001-01-01 (and one to 9999-12-31) is a history graph's, not an overflow."""
    with KnowledgeGraph(str(tmp_path / "kg.sqlite3")) as kg:
        kg.add_triple("Kai", "is", "mortal", valid_from="0001-01-01", valid_to="9999-12-31")
        kg.add_triple("Charlemagne", "ruled", "Francia", valid_from="0768-10-09")
        found = kg.validity_histogram(4)
    assert found["edges"][0] == datetime(1, 1, 1, tzinfo=timezone.utc).timestamp()
    assert found["starts"] == [2, 0, 0, 0] and found["ends"] == [0, 0, 0, 1]
    assert found["valid"] == [2, 2, 2, 2]


# ── Refusals ──────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("changes_between", ("2020-03-02", "2020-03-01")),
        ("changes_between", ("2020-03-01", "2020-03-01T00:00:00Z")),  # the same instant
        ("changes_between", ("2020-03-01", None)),
        ("changes_between", ("2020-03", "2020-04-01")),
        ("validity_histogram", (0,)),
        ("validity_histogram", (10_001,)),
        ("validity_histogram", (2.5,)),
    ],
)
def test_refusals_write_nothing(call, args):
    rows = [("ann", "bob", "2020-03-01", "2020-03-02"), ("bob", "cy", None, "")]
    with graph(rows) as kg:
        before = dump(kg.db_path, ("entities", "triples", "fl_meta"))
        with pytest.raises(Refused):
            getattr(kg, call)(*args)
        assert dump(kg.db_path, ("entities", "triples", "fl_meta")) == before


def test_narrative_is_paged_never_capped():
    rows = [("ann", "bob", "2020-03-01", None)] * 250
    with graph(rows) as kg:
        assert kg.narrative_total() == 250
        assert len(kg.narrative(limit=1000)) == 250
        assert kg.narrative(limit=0)[0]["fact"]["id"] == "t000"  # a limit below 1 counts as 1
        assert kg.narrative(offset=-5, limit=1) == kg.narrative(limit=1)
        assert instant(DAY0) == "2020-03-01T00:00:00Z"


def test_narrative_follows_our_writes_and_other_programs():
    rows = [("ann", "bob", f"2020-03-0{d}", None) for d in range(1, 6)]
    with graph(rows) as kg:
        assert kg.narrative(limit=1, offset=4)[0]["fact"]["id"] == "t004"  # counts every year
        early = kg.add_triple("Ann", "p", "Cy", valid_from="2019-01-01")
        assert [e["fact"]["id"] for e in kg.narrative(limit=2, offset=4)] == ["t003", "t004"]
        assert kg.narrative(limit=1)[0]["fact"]["id"] == early
        other = sqlite3.connect(str(kg.db_path))
        with other:
            other.execute(
                "INSERT INTO triples (id, subject, predicate, object, valid_from) "
                "VALUES ('t_late', 'ann', 'p', 'bob', '2021-01-01')"
            )
        other.close()
        assert kg.narrative(limit=1, offset=6)[0]["fact"]["id"] == "t_late"
        assert kg.narrative_total() == 7
        assert kg.narrative(limit=1, offset=7) == []  # the undated ones, none yet
        unknown = kg.add_triple("Bob", "p", "Cy")
        assert kg.narrative(limit=1, offset=7)[0]["fact"]["id"] == unknown


def test_the_story_lists_a_fact_without_an_id_and_an_entity_whose_id_is_a_blob(tmp_path):
    """Ids MemPalace never writes but its tables can hold: no KeyError, no TypeError."""
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    with sqlite3.connect(str(path)) as conn:
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from, valid_to) "
            "VALUES (NULL, 'kai', 'knows', 'orion', '2024-05-01', '2024-06-01')"
        )
        conn.execute("INSERT INTO entities (id, name) VALUES (?, 'Blob id')", (b"\x01\xfe",))
        conn.execute(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES ('t_blob', ?, 'knows', 'kai', '2023-01-01')",
            (b"\x01\xfe",),
        )
    with KnowledgeGraph(path) as kg:
        story = kg.narrative("Kai")
        assert [(e["at"], e["kind"], e["fact"]["id"]) for e in story][:3] == [
            ("2023-01-01", "start", "t_blob"),
            ("2024-05-01", "start", None),
            ("2024-06-01", "end", None),
        ]
        assert kg.get_entity(b"\x01\xfe")["name"] == "Blob id"
        assert [e["fact"]["id"] for e in kg.narrative(b"\x01\xfe")] == ["t_blob"]
        assert kg.narrative_total(b"\x01\xfe") == 1
        whole = [(e["at"], e["fact"]["id"]) for e in kg.narrative()]
        assert ("2024-05-01", None) in whole and ("2024-06-01", None) in whole
