"""The entity list holds every row of the listing from the start and reads a page of them when
it is shown: an entity chosen elsewhere far down the list is found by its row in the listing,
whatever the order and filters, and shown with its own page read alone."""

from __future__ import annotations

from PySide6.QtCore import Qt

from factlines import KnowledgeGraph
from ui_fixtures import *  # noqa: F403
from ui_fixtures import entity_rows_read, shown_window

ENTITIES = 3_000


def many_window(kg, qtbot, isolated_settings):
    """Entities 0000 to 2999, the odd ones things, the even ones places; 2900 knows 0001."""
    with kg.transaction():
        for n in range(ENTITIES):
            kg.add_entity(f"Entity {n:04d}", "thing" if n % 2 else "place")
        kg.add_triple("Entity 2900", "knows", "Entity 0001")
    return shown_window(qtbot, kg, isolated_settings)


class PageReads:
    """The offsets of the pages the window's store was asked for."""

    def __init__(self, kg, monkeypatch):
        self.offsets: list[int] = []
        read = kg.list_entities

        def counted(*args, **kwargs):
            self.offsets.append(kwargs.get("offset", 0))
            return read(*args, **kwargs)

        monkeypatch.setattr(kg, "list_entities", counted)


def chosen_elsewhere(window, qtbot, name: str) -> int:
    """Select ``name`` as a link would; its row in the list once found."""
    browser = window.browser
    window.select_entity(name)
    qtbot.waitUntil(lambda: not browser.finding.running, timeout=10_000)
    qtbot.wait(20)  # painted: the pages shown are read
    selected = browser.view.selectionModel().selectedRows()
    assert [browser.entity_at(index)["name"] for index in selected] == [name]
    return selected[0].row()


def in_view(browser, row: int) -> bool:
    view = browser.view
    return view.viewport().rect().contains(view.visualRect(browser.model.index(row, 0)))


def test_an_entity_far_down_is_selected_and_shown_with_its_page_alone_read(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = many_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    assert model.rowCount() == ENTITIES  # the whole list from the start: the scroll bar spans it
    assert len(entity_rows_read(model)) < ENTITIES // 10
    reads = PageReads(window.kg, monkeypatch)
    row = chosen_elsewhere(window, qtbot, "Entity 2900")
    assert row == 2900 and in_view(browser, row)
    # The rows before it were never read: its page and the pages painted around it.
    assert reads.offsets and min(reads.offsets) >= row - 2 * model.PAGE
    assert min(r for r in entity_rows_read(model) if r >= model.PAGE) >= row - 2 * model.PAGE
    assert [model.index(row, column).data() for column in (2, 3)] == [1, 0]
    assert model.rowCount() == ENTITIES


def test_an_entity_is_found_in_the_list_sorted_by_another_column_and_searched(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = many_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    listing = {"search": "entity 2", "order": "type", "descending": True, "limit": ENTITIES}
    browser.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    browser.set_search("entity 2")
    expected = [e["id"] for e in window.kg.list_entities(**listing)].index("entity_2900")
    assert expected > 5 * model.PAGE
    reads = PageReads(window.kg, monkeypatch)
    row = chosen_elsewhere(window, qtbot, "Entity 2900")
    assert row == expected and in_view(browser, row)
    assert browser.search_field.text() == "entity 2"  # the search was kept: it lists it
    assert min(reads.offsets) >= row - 2 * model.PAGE
    # By a count: the listing's own order, not the name's.
    browser.set_search("")
    browser.view.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    ids = [e["id"] for e in window.kg.list_entities(order="current", limit=ENTITIES)]
    assert chosen_elsewhere(window, qtbot, "Entity 2950") == ids.index("entity_2950")


def test_a_search_then_a_type_that_hide_the_entity_are_cleared(kg, qtbot, isolated_settings):
    window = many_window(kg, qtbot, isolated_settings)
    browser = window.browser
    browser.set_search("entity 01")
    assert chosen_elsewhere(window, qtbot, "Entity 2900") == 2900
    assert browser.search_field.text() == ""
    browser.type_filter.setCurrentIndex(browser.type_filter.findText("thing"))
    assert browser.model.total == ENTITIES // 2
    assert chosen_elsewhere(window, qtbot, "Entity 2800") == 2800
    assert browser.type_filter.currentIndex() == 0


def test_a_write_updates_the_rows_read_far_down_and_reads_no_other(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = many_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    row = chosen_elsewhere(window, qtbot, "Entity 2900")
    assert model.index(row, 2).data() == 1
    kept = {r // model.PAGE * model.PAGE for r in entity_rows_read(model)}
    reads = PageReads(window.kg, monkeypatch)
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    with window.kg.recording():  # as the window's edits are: only the fact's ends re-read
        window.kg.add_triple("Entity 2900", "uses", "Entity 0003")
    assert model.index(row, 2).data() == 2
    assert reads.offsets == [] and resets == []
    # A rename may move any row: the pages read are read again, no other.
    window.kg.rename_entity("entity_2900", "Entity 2900b")
    qtbot.waitUntil(lambda: bool(resets), timeout=5_000)
    qtbot.waitUntil(lambda: not browser.finding.running, timeout=5_000)
    assert reads.offsets and {o for o in reads.offsets} <= kept
    assert model.index(row, 0).data() == "Entity 2900b"
    assert [i.row() for i in browser.view.selectionModel().selectedRows()] == [row]
    assert model.rowCount() == ENTITIES


def test_a_page_the_store_cannot_give_stays_blank_and_is_said(
    kg, qtbot, isolated_settings, monkeypatch
):
    from factlines.core.errors import Unavailable

    window = many_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    said: list[str] = []
    window.state.message.connect(said.append)

    def locked(*_args, **_kwargs):
        raise Unavailable("database is locked")

    monkeypatch.setattr(window.kg, "list_entities", locked)
    assert model.index(2000, 0).data() is None
    assert model.index(2001, 0).data() is None  # the same page: said once
    assert len(said) == 1 and "locked" in said[0]
    assert browser.entity_at(model.index(2000, 0)) is None
    monkeypatch.setattr(window.kg, "list_entities", KnowledgeGraph.list_entities.__get__(window.kg))
    browser.model.refresh()  # read again when the list is
    assert model.index(2000, 0).data() == "Entity 2000"
