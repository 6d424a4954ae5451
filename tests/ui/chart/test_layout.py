"""The chart's model on arrays: lanes, validity at as_of, picking, snapping (no window)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from factlines.core import temporal
from factlines.ui.chart import layout as gl

DAY = gl.DAY


def fact(fid, predicate, other, valid_from=None, valid_to=None, direction="outgoing", conf=1.0):
    me = "kai"
    subject, obj = (me, other) if direction == "outgoing" else (other, me)
    return {
        "id": fid,
        "subject": subject,
        "subject_name": subject.title(),
        "predicate": predicate,
        "object": obj,
        "object_name": obj.title(),
        "other": other,
        "other_name": other.title(),
        "direction": direction,
        "valid_from": valid_from,
        "valid_to": valid_to,
        "confidence": conf,
        "start": temporal.to_posix(temporal.start_key(valid_from)),
        "end": temporal.to_posix(temporal.end_key(valid_to)),
    }


CHAPTER = [
    fact("orion", "works_on", "orion", "2025-06-01", "2026-03-01"),
    fact("nova", "works_on", "nova", "2026-03-15"),
    fact("clerk", "recommended", "clerk", "2026-01-01"),
    fact("mira", "mentors", "mira", "2018-09-03", "2019-12-20", direction="incoming"),
    fact("priya", "mentors", "priya", "2021-02-01", "2024-01-31"),
    fact("orion2", "works_on", "orion", "2026-06-01T09:00:00Z", None),
]


def test_lanes_grouped_by_predicate_with_headers_and_shared_lanes():
    layout = gl.build_layout(CHAPTER)
    labels = [layout.row_label(r) for r in range(layout.n_rows)]
    assert labels == [
        "mentors",
        "mentors → Priya",
        "mentors ← Mira",  # incoming after outgoing, marked
        "recommended",
        "recommended → Clerk",
        "works_on",
        "works_on → Orion",  # earliest first
        "works_on → Nova",
    ]
    assert [h.predicate for h in layout.headers] == ["mentors", "recommended", "works_on"]
    assert list(layout.row_kind) == [0, 1, 1, 0, 1, 0, 1, 1]
    # A fact ended and re-opened later is a second bar on the same lane
    orion = layout.index_of("orion")
    again = layout.index_of("orion2")
    assert layout.row[orion] == layout.row[again] == 6
    assert layout.lane_label(again) == "works_on → Orion"
    # bars are stored in lane order, and on a lane by start
    assert list(layout.row) == sorted(layout.row)
    assert orion < again
    assert layout.headers[2].lanes == 2


def test_arrays_follow_the_contract_keys():
    layout = gl.build_layout(CHAPTER)
    i = layout.index_of("orion")
    assert layout.start[i] == temporal.to_posix("2025-06-01T00:00:00Z")
    # a date-only end covers its whole last day
    assert layout.end[i] == temporal.to_posix("2026-03-01T23:59:59Z")
    nova = layout.index_of("nova")
    assert math.isinf(layout.end[nova]) and layout.end[nova] > 0
    assert layout.in_days(i, "valid_to") and layout.in_days(i, "valid_from")
    assert not layout.in_days(layout.index_of("orion2"), "valid_from")
    unknown = gl.build_layout([fact("u", "uses", "rust", None, "2020-01-01")])
    assert unknown.start[0] == -math.inf


def test_chapter_validity_at_two_instants():
    layout = gl.build_layout(CHAPTER)

    def valid_at(day):
        mask = gl.valid_mask(layout, temporal.to_posix(day))
        return {layout.ids[i] for i in np.flatnonzero(mask)}

    assert valid_at("2025-12-01") == {"orion"}
    assert valid_at("2026-04-01") == {"nova", "clerk"}
    # the last day of a date-only end is still inside; the next day is not
    assert "orion" in valid_at("2026-03-01")
    assert "orion" not in valid_at("2026-03-02")
    assert gl.valid_mask(layout, None).all()


stored = st.one_of(
    st.none(),
    st.dates(min_value=__import__("datetime").date(1990, 1, 1)).map(lambda d: d.isoformat()),
    st.integers(631152000, 2000000000).map(temporal.from_posix),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(stored, stored), min_size=1, max_size=8), st.integers(631152000, 2000000000)
)
def test_valid_mask_agrees_with_the_validity_rule(pairs, at):
    facts = []
    for n, (a, b) in enumerate(pairs):
        if a and b and temporal.end_key(b) < temporal.start_key(a):
            a, b = b, a
            if temporal.end_key(b) < temporal.start_key(a):
                continue
        facts.append(fact(f"f{n}", "p", f"o{n}", a, b))
    layout = gl.build_layout(facts)
    key = temporal.from_posix(at)
    mask = gl.valid_mask(layout, float(at))
    for i, f in enumerate(layout.facts):
        assert mask[i] == temporal.is_valid_at(f["valid_from"], f["valid_to"], key)


def test_pick_on_arrays():
    layout = gl.build_layout(CHAPTER)
    orion = layout.index_of("orion")
    row = float(layout.row[orion])
    inside = temporal.to_posix("2025-10-01")
    assert gl.pick(layout, inside, row, tol=0) == orion
    assert gl.pick(layout, inside, row + 0.2, tol=0) == orion
    assert gl.pick(layout, inside, row + 0.5, tol=0) == -1  # between lanes
    assert gl.pick(layout, inside, 5.0, tol=0) == -1  # a header row
    gap = temporal.to_posix("2026-03-08")  # between Orion's end and its re-opening
    assert gl.pick(layout, gap, row, tol=0) == -1
    assert gl.pick(layout, gap, row, tol=8 * DAY) == orion  # a pixel tolerance reaches it
    # an open end reaches every later instant; an unknown start every earlier one
    later = gl.pick(layout, temporal.to_posix("2090-01-01"), row, tol=0)
    assert later == layout.index_of("orion2")
    # overlapping bars on one lane: the shorter one wins
    twin = gl.build_layout(
        [
            fact("long", "p", "x", "2000-01-01", "2010-01-01"),
            fact("short", "p", "x", "2004-01-01", "2004-02-01"),
        ]
    )
    assert twin.ids[gl.pick(twin, temporal.to_posix("2004-01-10"), 1.0, tol=0)] == "short"
    assert twin.ids[gl.pick(twin, temporal.to_posix("2005-01-10"), 1.0, tol=0)] == "long"


def test_pick_an_instant_needs_the_tolerance():
    instant = "2026-05-06T15:00:00Z"
    layout = gl.build_layout([fact("i", "met", "ana", instant, instant)])
    x = temporal.to_posix(instant)
    assert gl.pick(layout, x + 100, 1.0, tol=0) == -1
    assert gl.pick(layout, x + 100, 1.0, tol=300) == 0


def test_pick_handle_finds_known_ends_only():
    layout = gl.build_layout(CHAPTER)
    orion = layout.index_of("orion")
    row = float(layout.row[orion])
    end = float(layout.end[orion])
    assert gl.pick_handle(layout, end + 3600, row, tol=DAY) == (orion, "end")
    assert gl.pick_handle(layout, float(layout.start[orion]) - 60, row, tol=DAY) == (orion, "start")
    assert gl.pick_handle(layout, end + 3 * DAY, row, tol=DAY) is None
    nova = layout.index_of("nova")
    # Nova's end is open: nothing to drag there
    assert gl.pick_handle(layout, 4e9, float(layout.row[nova]), tol=DAY) is None


def test_snapping_days_and_instants():
    midnight = temporal.to_posix("2026-03-10")
    # an end dragged near a midnight: the day before it (a date-only end covers its day)
    assert gl.end_value(midnight + 3 * 3600, True) == "2026-03-09"
    assert gl.end_value(midnight - 3 * 3600, True) == "2026-03-09"
    assert gl.start_value(midnight + 3 * 3600, True) == "2026-03-10"
    assert temporal.day_of_posix(midnight + 5) == "2026-03-10"
    assert temporal.day_of_posix(midnight - 5) == "2026-03-09"
    assert gl.snap_instant(midnight + 3600 + 29, 1.0) == "2026-03-10T01:00:29Z"
    assert gl.snap_instant(midnight + 3600 + 29, 30.0) == "2026-03-10T01:00:00Z"
    assert gl.snap_instant(midnight + 3600 * 5 + 1200, 2000.0) == "2026-03-10T05:00:00Z"


def test_an_instant_before_year_1000_is_snapped_to_a_value_the_rules_accept():
    """A history graph (Charlemagne): the pointer's instant keeps a four-digit year."""
    crowned = temporal.to_posix("0800-12-25T10:00:00Z")
    value = gl.snap_instant(crowned, 1.0)
    assert value == "0800-12-25T10:00:00Z" and temporal.parse(value, "as_of") == value
    assert gl.start_value(crowned, True) == "0800-12-25"


def test_drag_value_clamps_an_inverted_interval():
    layout = gl.build_layout(CHAPTER)
    orion = layout.index_of("orion")
    value, posix = gl.drag_value(layout, orion, "end", temporal.to_posix("2026-02-10"))
    assert value == "2026-02-09"
    assert posix == temporal.to_posix("2026-02-09T23:59:59Z")
    value, _ = gl.drag_value(layout, orion, "end", temporal.to_posix("2020-01-01"))
    assert value == "2025-06-01"  # clamped to a one-day fact, not inverted
    value, _ = gl.drag_value(layout, orion, "start", temporal.to_posix("2030-01-01"))
    assert value == "2026-03-01"
    value, _ = gl.drag_value(
        layout, layout.index_of("orion2"), "start", temporal.to_posix("2026-06-02T10:00:00Z"), 60.0
    )
    assert value == "2026-06-02T10:00:00Z"


def test_conflicts_are_placed_on_both_lanes():
    facts = [
        fact("berlin", "lives_in", "berlin", "2018-09-01", "2023-08-31"),
        fact("lisbon", "lives_in", "lisbon", "2023-06-01"),
    ]
    conflict = {
        "a": "berlin",
        "b": "lisbon",
        "predicate": "lives_in",
        "subject": "kai",
        "start": "2023-06-01T00:00:00Z",
        "end": "2023-08-31T23:59:59Z",
    }
    layout = gl.build_layout(facts, [conflict])
    assert sorted(layout.conflict_row.tolist()) == [1, 2]
    assert layout.conflict_start.tolist() == [temporal.to_posix("2023-06-01")] * 2
    assert layout.conflict_end[0] == temporal.to_posix("2023-08-31T23:59:59Z")
    assert len(layout.conflicts) == 1


def test_a_clash_with_another_entitys_fact_marks_only_the_lane_shown():
    facts = [fact("berlin", "lives_in", "berlin", "2018-09-01", "2023-08-31")]
    conflict = {"a": "elsewhere", "b": "berlin", "start": "2023-06-01T00:00:00Z", "end": None}
    layout = gl.build_layout(facts, [conflict, {**conflict, "a": "gone", "b": "also gone"}])
    assert layout.conflict_row.tolist() == [layout.row[layout.index_of("berlin")]]
    assert layout.conflict_end.tolist() == [float("inf")]
    assert len(layout.conflicts) == 1


def test_fit_range_covers_facts_today_and_as_of():
    layout = gl.build_layout(CHAPTER)
    now = temporal.to_posix("2026-12-01")
    lo, hi = gl.fit_range(layout, now, temporal.to_posix("2030-01-01"))
    assert lo < temporal.to_posix("2018-09-03") and hi > temporal.to_posix("2030-01-01")
    assert gl.bars_in_view(layout, lo, hi, -1, 100).size == layout.n
    lo, hi = gl.fit_range(gl.empty_layout(), now)
    assert lo < now < hi


def test_durations_read_well():
    assert gl.describe_duration(30) == "30 s"
    assert gl.describe_duration(3 * DAY) == "3 days"
    assert gl.describe_duration(274 * DAY) == "9.0 months"
    assert gl.describe_duration(math.inf) == "open"


def test_an_end_nobody_knows_is_valid_nowhere_and_drawn_as_no_bar():
    # MemPalace's empty valid_to reaches the chart as end = -inf (see KnowledgeGraph.intervals).
    facts = [
        fact("gone", "lives_in", "paris", "2020-01-01"),
        fact("here", "likes", "tea"),
    ]
    facts[0]["end"] = float("-inf")
    layout = gl.build_layout(facts)
    for at in ("2019-01-01", "2020-06-01", "2030-01-01"):
        valid = gl.valid_mask(layout, temporal.to_posix(at))
        assert not valid[layout.index_of("gone")] and valid[layout.index_of("here")]


def test_lanes_of_numbered_names_sort_by_their_numbers():
    """FastTool 29, 3, 30 sorted as text; a person counts 3, 29, 30."""
    facts = [fact(f"f{n}", "uses", f"fasttool {n}", "2024-01-01") for n in (29, 3, 30, 100, 2)]
    layout = gl.build_layout(facts, [])
    assert [lane.other_name for lane in layout.lanes] == [
        "Fasttool 2",
        "Fasttool 3",
        "Fasttool 29",
        "Fasttool 30",
        "Fasttool 100",
    ]


def _table_row(tid, subject, obj, predicate, valid_from=None, valid_to=None, conf=1.0):
    from factlines.core.columns import FACT_FIELDS

    values = dict.fromkeys(FACT_FIELDS)
    values.update(
        id=tid,
        subject=subject,
        subject_name=subject.title(),
        predicate=predicate,
        object=obj,
        object_name=obj.title(),
        valid_from=valid_from,
        valid_to=valid_to,
        confidence=conf,
    )
    return (*(values[field] for field in FACT_FIELDS), 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["uses", "knows", "Uses"]),
            st.booleans(),  # incoming
            st.sampled_from(["ana", "bo", "Ana", "cy", "kai"]),  # kai: a fact of kai with kai
            st.sampled_from([None, "2020-01-01", "2021-06-01T09:00:00Z", "", "2025-02-30", "x"]),
            st.sampled_from([None, "2022-01-01", "never", "0000-00-00", "2021-06-01"]),
            st.sampled_from([1.0, 0.4, None, "high", True, 7]),
        ),
        max_size=14,
    )
)
def test_a_tables_layout_is_the_layout_of_its_rows_as_dicts(rows):
    # A table's columns (its direction flags, distinct stored times) give the layout its
    # rows' dicts give: lanes, their order, odd sides and confidences alike.
    from factlines.core.store.intervals import IntervalTable

    table_rows = []
    for i, (predicate, incoming, other, valid_from, valid_to, conf) in enumerate(rows):
        subject, obj = (other, "kai") if incoming else ("kai", other)
        table_rows.append(_table_row(f"t{i}", subject, obj, predicate, valid_from, valid_to, conf))
    table = IntervalTable("kai", table_rows)
    from_table = gl.build_layout(table, (), table.bounds)
    from_dicts = gl.build_layout(list(table))
    for name in ("ids", "n_rows", "headers", "conflicts"):
        assert getattr(from_table, name) == getattr(from_dicts, name)
    for name in ("source", "start", "end", "row", "lane", "color", "conf_level", "odd"):
        assert getattr(from_table, name).tolist() == getattr(from_dicts, name).tolist()
    assert list(from_table.lanes) == list(from_dicts.lanes)
    assert from_table.longest == from_dicts.longest
