"""The Qt models over the store: model-tester clean, lazy, sorting by re-query, cheap as_of."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelRoleData, QModelRoleDataSpan, Qt

from factlines import KnowledgeGraph
from factlines.core import temporal
from factlines.ui.models.fact_models import (
    COLUMN,
    FACT_ID_ROLE,
    VALID_ROLE,
    EntityModel,
    FactFilterProxy,
    FactModel,
)
from factlines.ui.session.state import AppState
from ui_fixtures import *  # noqa: F403
from ui_fixtures import entity_rows_read, find_fact


@pytest.fixture
def state(qtbot, demo):
    return AppState(demo)


@pytest.fixture
def many(tmp_path):
    kg = KnowledgeGraph(tmp_path / "many.sqlite3")
    with kg.transaction():
        conn = kg._conn()
        conn.executemany(
            "INSERT INTO entities (id, name, type) VALUES (?, ?, ?)",
            [(f"e{i:05d}", f"E{i:05d}", "thing" if i % 2 else "other") for i in range(1000)],
        )
        conn.executemany(
            "INSERT INTO triples (id, subject, predicate, object, valid_from) "
            "VALUES (?, ?, 'knows', ?, '2020-01-01')",
            [(f"t{i}", f"e{i:05d}", f"e{(i * 7) % 1000:05d}") for i in range(0, 1000, 3)],
        )
    yield kg
    kg.close()


# The roles a view's delegate asks per painted cell, and the models' own roles.
PAINTED_ROLES = [int(role.value) for role in Qt.ItemDataRole if role.value < 32] + [
    FACT_ID_ROLE,
    VALID_ROLE,
]


def assert_multi_data_is_data(model) -> None:
    """multiData answers each role as data() does, clearing what the span held before."""
    checked = 0
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            for role in PAINTED_ROLES:
                asked = QModelRoleData(role)
                asked.setData("left over from the previous cell")
                model.multiData(index, QModelRoleDataSpan(asked))
                assert asked.data() == index.data(role), (row, column, role)
                checked += 1
    assert checked > 0
    asked = QModelRoleData(int(Qt.ItemDataRole.DisplayRole.value))
    asked.setData("left over from the previous cell")
    model.multiData(model.index(model.rowCount(), 0), QModelRoleDataSpan(asked))  # no such cell
    assert asked.data() is None


def test_multi_data_answers_as_data_does(state):
    entities = EntityModel(state)
    entities.refresh()
    assert_multi_data_is_data(entities)
    state.select_entity("kai_moreno")  # conflicts, links, dimmed rows: every kind of cell
    state.set_as_of("2025-12-01")
    facts = FactModel(state, edit=lambda *a: True)
    facts.reload()
    assert_multi_data_is_data(facts)
    proxy = FactFilterProxy()
    proxy.setSourceModel(facts)
    proxy.set_hide_invalid(True)
    assert 0 < proxy.rowCount() < facts.rowCount()
    assert_multi_data_is_data(proxy)


def test_entity_model_passes_the_model_tester(qtmodeltester, state):
    model = EntityModel(state)
    model.refresh()
    qtmodeltester.check(model)
    model.set_filter("o", None, None)
    qtmodeltester.check(model)
    model.sort(2, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(model)


def test_fact_model_and_proxy_pass_the_model_tester(qtmodeltester, state):
    state.select_entity("kai_moreno")
    model = FactModel(state, edit=lambda *a: True)
    model.reload()
    qtmodeltester.check(model)
    proxy = FactFilterProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    state.set_as_of("2025-12-01")
    model.restyle()
    proxy.set_hide_invalid(True)
    qtmodeltester.check(proxy)
    assert 0 < proxy.rowCount() < model.rowCount()


@pytest.mark.parametrize("column", ["valid_from", "other_name", "predicate"])
def test_hiding_invalid_facts_survives_a_sort_and_a_reload(state, column):
    model, proxy = hiding_proxy(state)
    expected = sorted(f["id"] for f in state.entity_facts() if state_valid(state, f))
    assert shown(proxy) == expected
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        proxy.sort(COLUMN[column], order)
        assert shown(proxy) == expected
    model.reload()
    assert shown(proxy) == expected


def hiding_proxy(state) -> tuple[FactModel, FactFilterProxy]:
    """Kai Moreno's facts at 2025-12-01 behind a proxy that hides the invalid ones."""
    state.select_entity("kai_moreno")
    state.set_as_of("2025-12-01")
    model = FactModel(state, edit=lambda *a: True)
    model.reload()
    proxy = FactFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_hide_invalid(True)
    return model, proxy


def shown(proxy) -> list[str]:
    return sorted(proxy.index(r, 0).data(FACT_ID_ROLE) for r in range(proxy.rowCount()))


def state_valid(state, fact) -> bool:
    return temporal.is_valid_at(fact["valid_from"], fact["valid_to"], state.as_of_key)


def test_entity_model_lists_every_row_and_reads_a_page_when_shown(qtbot, many, monkeypatch):
    state = AppState(many)
    model = EntityModel(state)
    model.refresh()
    assert model.total == 1000
    assert model.rowCount() == 1000  # the scroll bar spans the whole list from the start
    assert sorted(entity_rows_read(model)) == list(range(EntityModel.PAGE))
    asked = []
    original = many.list_entities
    monkeypatch.setattr(many, "list_entities", lambda **kw: asked.append(kw) or original(**kw))
    assert model.data(model.index(999, 0)) == "E00999"
    assert model.data(model.index(960, 0)) == "E00960"  # the same page: no read
    assert [(kw["offset"], kw["limit"]) for kw in asked] == [(960, EntityModel.PAGE)]
    assert sorted(entity_rows_read(model)) == [*range(EntityModel.PAGE), *range(960, 1000)]
    assert model.data(model.index(1000, 0)) is None and len(asked) == 1


def test_entity_model_keeps_the_pages_near_the_one_read_last(qtbot, many, monkeypatch):
    # A write reads again every page kept: however far the list was scrolled, a few of them.
    monkeypatch.setattr(EntityModel, "MOST_PAGES", 3)
    model = EntityModel(AppState(many))
    model.refresh()
    for row in (400, 480, 560, 640):
        assert model.data(model.index(row, 0)) == f"E{row:05d}"
    kept = sorted({row // model.PAGE for row in entity_rows_read(model)})
    assert kept == [6, 7, 8]  # those farthest from the page read last were dropped
    assert model.row_of("e00000") == -1 and model.row_of("e00640") == 640
    assert model.data(model.index(0, 0)) == "E00000"  # read again when shown
    assert model.row_of("e00000") == 0 and model.row_of("e00640") == -1


def test_sorting_re_queries_the_store(qtbot, many, monkeypatch):
    state = AppState(many)
    model = EntityModel(state)
    model.refresh()
    calls = []
    original = many.list_entities
    monkeypatch.setattr(many, "list_entities", lambda **kw: calls.append(kw) or original(**kw))
    model.sort(2, Qt.SortOrder.DescendingOrder)
    assert calls and calls[-1]["order"] == "current" and calls[-1]["descending"] is True
    top = model.data(model.index(0, 2))
    assert top == max(e["current"] for e in original(limit=2000))
    model.sort(0, Qt.SortOrder.DescendingOrder)
    assert model.data(model.index(0, 0)) == "E00999"


def test_search_filter_type_and_valid_at(qtbot, state):
    model = EntityModel(state)
    model.set_filter("KAI", None, None)
    names = [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    assert "Kai Moreno" in names
    model.set_filter("kai_mor", None, None)  # the id matches too
    assert [model.data(model.index(r, 0)) for r in range(model.rowCount())] == ["Kai Moreno"]
    model.set_filter("", "tool", None)
    assert {model.entity_at(r)["type"] for r in range(model.rowCount())} == {"tool"}
    model.set_filter("", None, "2016-01-01")
    early = model.total
    model.set_filter("", None, None)
    assert early < model.total


def test_fact_model_restyles_on_as_of_without_querying(qtbot, state, demo, monkeypatch):
    state.select_entity("kai_moreno")
    model = FactModel(state)
    model.reload()
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    nova = find_fact(demo, "Kai Moreno", "works_on", "Nova")
    calls = []
    for name in (
        "interval_table",
        "conflicts_touching",
        "get_fact",
        "list_entities",
        "query_entity",
    ):
        original = getattr(demo, name)
        monkeypatch.setattr(
            demo, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    changed = []
    model.dataChanged.connect(lambda *a: changed.append(a))
    for as_of, orion_valid, nova_valid in (
        ("2025-12-01", True, False),
        ("2026-04-01", False, True),
        ("2026-03-01", True, False),  # a date-only end covers its whole last day
        ("2026-03-02", False, False),
    ):
        state.set_as_of(as_of)
        model.restyle()
        assert model.index(model.row_of(orion["id"]), 0).data(VALID_ROLE) is orion_valid
        assert model.index(model.row_of(nova["id"]), 0).data(VALID_ROLE) is nova_valid
    assert calls == []
    assert changed, "restyling repaints the rows"
    index = model.index(model.row_of(nova["id"]), COLUMN["predicate"])
    assert model.data(index, VALID_ROLE) is False
    assert model.data(index, Qt.ItemDataRole.ForegroundRole) is not None


def test_conflicts_are_marked_with_the_overlap(qtbot, state, demo):
    state.select_entity("kai_moreno")
    model = FactModel(state)
    model.reload()
    berlin = find_fact(demo, "Kai Moreno", "lives_in", "Berlin")
    row = model.row_of(berlin["id"])
    marker = model.data(model.index(row, COLUMN["direction"]))
    assert marker.startswith("⚠")
    tip = model.data(model.index(row, COLUMN["predicate"]), Qt.ItemDataRole.ToolTipRole)
    assert "Conflict" in tip and "Lisbon" in tip and "2023-06-01" in tip
    assert model.conflict_count == len(demo.conflicts_touching("Kai Moreno")) >= 1
    # A conflict among facts pointing at Kai (Atlas led_by Kai / Rosa) names the other fact.
    led = find_fact(demo, "Atlas", "led_by", "Kai Moreno")
    assert model.conflicts_of(led["id"])
    tip = model.data(
        model.index(model.row_of(led["id"]), COLUMN["predicate"]), Qt.ItemDataRole.ToolTipRole
    )
    assert "Atlas led_by Rosa" in tip
    works = find_fact(demo, "Kai Moreno", "works_at", "Lumen Labs")
    assert not model.conflicts_of(works["id"])


def test_bad_values_are_refused_with_the_reason_and_nothing_written(qtbot, state, demo):
    state.select_entity("kai_moreno")
    edits = []
    model = FactModel(state, edit=lambda tid, **change: edits.append((tid, change)) or True)
    model.reload()
    reasons = []
    model.refused.connect(reasons.append)
    orion = find_fact(demo, "Kai Moreno", "works_on", "Orion")
    row = model.row_of(orion["id"])
    for column, text, why in (
        ("valid_to", "2026-02-30", "no such calendar day"),
        ("valid_to", "2026-03", "partial date"),
        ("valid_to", "2020-01-01", "before valid_from"),
        ("valid_from", "yesterday", "not a date"),
        ("valid_from", "2026-03-01T10:00:00-05:00", "only UTC"),
        ("confidence", "1.5", "between 0 and 1"),
        ("confidence", "high", "number"),
    ):
        assert not model.setData(model.index(row, COLUMN[column]), text)
        assert why in reasons[-1]
    assert edits == []
    assert model.setData(model.index(row, COLUMN["valid_to"]), "2026-02-27")
    assert edits == [(orion["id"], {"valid_to": "2026-02-27"})]
    assert model.data(model.index(row, COLUMN["valid_to"]), FACT_ID_ROLE) == orion["id"]


def test_fact_model_sorts_its_rows(qtbot, state):
    state.select_entity("kai_moreno")
    model = FactModel(state)
    model.reload()
    model.sort(COLUMN["valid_from"], Qt.SortOrder.AscendingOrder)
    starts = [model.fact_at(r)["valid_from"] for r in range(model.rowCount())]
    dated = [s for s in starts if s]
    assert dated == sorted(dated)
    model.sort(COLUMN["valid_from"], Qt.SortOrder.DescendingOrder)
    assert model.fact_at(0)["valid_from"] == max(dated)


def test_restyle_announces_only_flipped_rows_and_the_proxy_follows(qtmodeltester, state):
    """An as_of step repaints / re-filters the rows whose validity flipped, nothing else."""
    model, proxy = hiding_proxy(state)
    changed = []
    model.dataChanged.connect(lambda tl, br, _roles: changed.append((tl.row(), br.row())))
    state.set_as_of("2025-12-02")  # nothing starts or ends that day
    assert model.restyle() == 0 and changed == []
    for as_of in ("2026-04-01", "2016-01-01", "2025-12-01"):
        before = [model.index(r, 0).data(VALID_ROLE) for r in range(model.rowCount())]
        state.set_as_of(as_of)
        changed.clear()
        flipped = model.restyle()
        after = [model.index(r, 0).data(VALID_ROLE) for r in range(model.rowCount())]
        rows = {r for r, (a, b) in enumerate(zip(before, after)) if a != b}
        assert flipped == len(rows) > 0
        assert {r for first, last in changed for r in range(first, last + 1)} == rows
        # No refilter called: the dynamic proxy re-tested the announced rows by itself.
        expected = sorted(f["id"] for f in state.entity_facts() if state_valid(state, f))
        assert shown(proxy) == expected
    qtmodeltester.check(proxy)
