"""The slow listings of the entity list (only the entities with facts valid at as_of; ranked by
a count: hundreds of milliseconds to seconds at a million facts) are read off the UI thread in
a window: the list shows nothing, "Reading…", until they are in, never a wrong total; an
answer for a listing asked for before a newer one is dropped."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from factlines import KnowledgeGraph
from factlines.core.errors import Unavailable
from ui_fixtures import *  # noqa: F403
from ui_fixtures import shown_window

ENTITIES = 600


def sample_window(kg, qtbot, isolated_settings):
    """Entities 000 to 599; 0-9 know 100-109 from 2020, and 500 knows 501 until 2019."""
    with kg.transaction():
        for n in range(ENTITIES):
            kg.add_entity(f"Entity {n:03d}", "thing")
        for n in range(10):
            kg.add_triple(f"Entity {n:03d}", "knows", f"Entity {n + 100:03d}", "2020-01-01")
        kg.add_triple("Entity 500", "knows", "Entity 501", "2010-01-01", valid_to="2019-01-01")
    return shown_window(qtbot, kg, isolated_settings)


class Reads:
    """The listing reads of every store (the window's and the workers'): (what, on the UI
    thread) of each."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple[str, dict, bool]] = []
        for name in ("count_entities", "list_entities"):
            read = getattr(KnowledgeGraph, name)
            monkeypatch.setattr(KnowledgeGraph, name, self._recorded(name, read))

    def _recorded(self, name, read):
        def recorded(kg, *args, **kwargs):
            here = threading.current_thread() is threading.main_thread()
            self.calls.append((name, {"args": args, **kwargs}, here))
            return read(kg, *args, **kwargs)

        return recorded

    def on_the_ui_thread(self, slow) -> list:
        return [(name, asked) for name, asked, here in self.calls if here and slow(asked)]


def valid_at_set(asked: dict) -> bool:
    args = asked["args"]
    return asked.get("valid_at") is not None or (len(args) >= 3 and args[2] is not None)


def by_count(asked: dict) -> bool:
    return asked.get("order") in ("current", "ended")


def settled(window, qtbot) -> None:
    qtbot.waitUntil(lambda: not window.browser.model.reading, timeout=10_000)


def test_the_valid_only_listing_is_read_off_the_ui_thread(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = sample_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    assert window.entity_reads is not None and window.state.read_elsewhere is not None
    window.set_as_of("2021-01-01")
    reads = Reads(monkeypatch)
    browser.valid_only.setChecked(True)
    assert model.rowCount() == 0 and browser.count_label.text() == "Reading…"  # not 600
    settled(window, qtbot)
    assert reads.calls and reads.on_the_ui_thread(valid_at_set) == []
    assert model.total == 20 and browser.count_label.text() == "20 entities"
    names = [model.index(row, 0).data() for row in range(model.rowCount())]
    expected = [f"Entity {n:03d}" for n in (*range(10), *range(100, 110))]
    assert names == expected
    # An as_of step with it on: read elsewhere again.
    window.set_as_of("2015-01-01")
    qtbot.waitUntil(lambda: model.valid_at == "2015-01-01", timeout=5_000)
    settled(window, qtbot)
    assert reads.on_the_ui_thread(valid_at_set) == []
    assert [model.index(row, 0).data() for row in range(model.rowCount())] == [
        "Entity 500",
        "Entity 501",
    ]


def test_sorting_by_a_count_is_read_off_the_ui_thread(kg, qtbot, isolated_settings, monkeypatch):
    window = sample_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    expected = window.kg.list_entities(order="current", descending=True, limit=ENTITIES)
    reads = Reads(monkeypatch)
    browser.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    settled(window, qtbot)
    qtbot.wait(20)  # painted: the rows shown are asked for
    assert reads.calls and reads.on_the_ui_thread(by_count) == []
    assert model.total == ENTITIES
    shown = [model.index(row, 0).data() for row in range(3 * model.PAGE)]
    assert shown == [e["name"] for e in expected[: 3 * model.PAGE]]
    # The counts of the rows shown, read elsewhere as before.
    qtbot.waitUntil(lambda: model.index(0, 2).data() == 1, timeout=10_000)
    browser.view.sortByColumn(3, Qt.SortOrder.DescendingOrder)
    settled(window, qtbot)
    assert reads.on_the_ui_thread(by_count) == []
    assert model.index(0, 0).data() in ("Entity 500", "Entity 501")


def test_a_newer_filter_drops_the_answer_of_a_slow_read_still_running(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = sample_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    window.set_as_of("2021-01-01")
    release, started = threading.Event(), threading.Event()
    count = KnowledgeGraph.count_entities

    def slow(kg, search="", entity_type=None, valid_at=None):
        if valid_at is not None and threading.current_thread() is not threading.main_thread():
            started.set()
            release.wait(10)
        return count(kg, search, entity_type, valid_at)

    monkeypatch.setattr(KnowledgeGraph, "count_entities", slow)
    browser.valid_only.setChecked(True)
    assert started.wait(10)  # the valid-only listing is being read elsewhere
    browser.valid_only.setChecked(False)  # a newer listing, read here at once
    assert not model.reading and model.total == ENTITIES
    release.set()
    window.entity_reads.wait()
    qtbot.wait(50)  # the older answer has come back: dropped
    assert model.total == ENTITIES and model.valid_at is None
    assert browser.count_label.text() == f"{ENTITIES} entities"
    assert model.index(ENTITIES - 1, 0).data() == f"Entity {ENTITIES - 1:03d}"


def locked(*_args, **_kwargs):
    raise Unavailable("database is locked")


def test_a_slow_listing_the_store_cannot_give_is_said_in_words(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = sample_window(kg, qtbot, isolated_settings)
    window.set_as_of("2021-01-01")
    monkeypatch.setattr(KnowledgeGraph, "count_entities", locked)
    said: list[str] = []
    window.state.message.connect(said.append)
    window.browser.valid_only.setChecked(True)
    qtbot.waitUntil(lambda: bool(said), timeout=10_000)
    assert "locked" in said[0] and not window.browser.model.reading
    assert window.browser.model.rowCount() == 0
    assert window.browser.count_label.text() == "Not read"  # not "0 entities"


def test_a_write_while_sorted_by_a_count_is_read_off_the_ui_thread(
    kg, qtbot, isolated_settings, monkeypatch
):
    window = sample_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    browser.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    settled(window, qtbot)
    reads = Reads(monkeypatch)
    window.kg.add_triple("Entity 300", "knows", "Entity 301")
    window.kg.add_triple("Entity 300", "knows", "Entity 302")
    qtbot.waitUntil(lambda: model.index(0, 0).data() == "Entity 300", timeout=10_000)
    settled(window, qtbot)
    assert reads.calls and reads.on_the_ui_thread(by_count) == []
    assert model.total == ENTITIES


def test_pages_ranked_by_a_count_are_read_off_the_ui_thread_when_shown_or_chosen(
    kg, qtbot, isolated_settings, monkeypatch
):
    from factlines.ui.models.entity_listing import EntityModel

    monkeypatch.setattr(EntityModel, "SPAN", 1)  # the first page alone read with the ranking
    window = sample_window(kg, qtbot, isolated_settings)
    browser, model = window.browser, window.browser.model
    expected = [
        e["name"] for e in window.kg.list_entities(order="current", descending=True, limit=999)
    ]
    reads = Reads(monkeypatch)
    browser.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    settled(window, qtbot)
    last = ENTITIES - 1
    browser.view.scrollToBottom()
    qtbot.waitUntil(lambda: model.index(last, 0).data() is not None, timeout=10_000)
    assert model.index(last, 0).data() == expected[last]
    assert model.index(last - model.PAGE, 0).data() == expected[last - model.PAGE]
    # An entity chosen elsewhere, on a page not read: its position and page read elsewhere.
    browser.view.scrollToTop()
    name = expected[4 * model.PAGE + 3]
    assert model.row_of(window.kg.get_entity(name)["id"]) < 0
    window.select_entity(name)
    qtbot.waitUntil(lambda: not browser.finding.running, timeout=10_000)
    selected = browser.view.selectionModel().selectedRows()
    assert [index.row() for index in selected] == [4 * model.PAGE + 3]
    assert reads.calls and reads.on_the_ui_thread(by_count) == []


def test_enter_in_the_search_selects_the_first_entity_of_a_listing_read_elsewhere(
    kg, qtbot, isolated_settings
):
    window = sample_window(kg, qtbot, isolated_settings)
    browser = window.browser
    window.set_as_of("2021-01-01")
    browser.valid_only.setChecked(True)
    settled(window, qtbot)
    browser.search_field.setFocus()
    browser.search_field.setText("entity 10")
    qtbot.keyClick(browser.search_field, Qt.Key.Key_Return)
    chosen = window.kg.get_entity("Entity 100")["id"]
    assert window.state.entity != chosen
    qtbot.waitUntil(lambda: window.state.entity == chosen, timeout=5_000)
    assert browser.model.total == 10  # 100 to 109
