"""A write updates what it touched: the rows and bars of those facts, not every view from the
store (the architecture issue, "changes that say what changed")."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from factlines import KnowledgeGraph
from factlines.ui import MainWindow
from factlines.ui.models.fact_models import COLUMN, VALID_ROLE
from ui_fixtures import *  # noqa: F403
from ui_fixtures import entity_rows_read, triple_rows, write_hub

HUB_FACTS = 2_000


@pytest.fixture
def hub_window(qtbot, tmp_path):
    kg = KnowledgeGraph(tmp_path / "hub.sqlite3")
    write_hub(kg, HUB_FACTS)
    window = MainWindow(kg)
    qtbot.addWidget(window)
    window.show()
    window.select_entity("Hub")
    qtbot.waitUntil(lambda: not window.state.reloads.running, timeout=10000)
    yield window
    window.close()
    kg.close()


class StoreReads:
    """The engine's calls by name (the façade's every read goes through them), with a mark
    where a write commits: what follows the mark is what the views read to show the write."""

    def __init__(self, kg, monkeypatch):
        self.calls: list[str] = []
        # First in line, before the window's own listener updates the views.
        kg._store._db.listeners.insert(0, lambda _touched: self.calls.append("COMMIT"))
        for part_name in ("facts", "entities"):
            part = getattr(kg._store, part_name)
            for name in dir(part):
                method = getattr(part, name)
                if name.startswith("_") or not callable(method):
                    continue
                monkeypatch.setattr(part, name, self._counted(f"{part_name}.{name}", method))

    def _counted(self, label, method):
        def counted(*args, **kwargs):
            self.calls.append(label)
            return method(*args, **kwargs)

        return counted


def test_ending_one_of_a_hubs_facts_touches_only_that_row(hub_window, qtbot, monkeypatch):
    window = hub_window
    model = window.facts_table.model
    assert model.rowCount() == HUB_FACTS
    tid = next(f["id"] for f in model.facts if f["valid_to"] is None)
    row = model.row_of(tid)
    resets, changed_rows, layouts = [], [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.layoutChanged.connect(lambda *_: layouts.append(1))
    model.dataChanged.connect(lambda a, b, *_: changed_rows.extend(range(a.row(), b.row() + 1)))
    reads = StoreReads(window.kg, monkeypatch)

    assert window.end_fact(tid, "2026-01-01")
    qtbot.wait(10)

    assert resets == [] and layouts == []  # sorted by predicate: the row stays where it is
    assert changed_rows == [row]
    assert model.facts[row]["valid_to"] == "2026-01-01"
    bar = next(b for b in window.gantt.drawn_intervals() if b["id"] == tid)
    assert bar["end"] is not None
    # No view read the hub's 2,000 facts again: the fact, the conflicts, the counts.
    shown = reads.calls[reads.calls.index("COMMIT") + 1 :]
    assert "facts.of_entity" not in shown
    # One for the patch (end_fact reads its return value inside the logged write, before
    # it commits).
    assert shown.count("facts.get") == 1
    assert len(shown) <= 8, shown


def test_undo_and_redo_patch_the_same_row(hub_window, qtbot):
    window = hub_window
    model = window.facts_table.model
    tid = next(f["id"] for f in model.facts if f["valid_to"] is None)
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    window.end_fact(tid, "2026-01-01")
    window.undo_stack.undo()
    assert model.facts[model.row_of(tid)]["valid_to"] is None
    window.undo_stack.redo()
    assert model.facts[model.row_of(tid)]["valid_to"] == "2026-01-01"
    assert resets == []


def test_an_added_and_a_deleted_fact_insert_and_remove_one_row(hub_window, qtbot):
    window = hub_window
    model = window.facts_table.model
    inserted, removed, resets = [], [], []
    model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    model.rowsRemoved.connect(lambda _p, a, b: removed.append((a, b)))
    model.modelReset.connect(lambda: resets.append(1))
    tid = window.kg.add_fact("Hub", "founded", "E0001", valid_from="2026-02-01")
    assert model.rowCount() == HUB_FACTS + 1 and len(inserted) == 1
    assert model.facts[model.row_of(tid)]["valid_from"] == "2026-02-01"
    assert tid in {b["id"] for b in window.gantt.drawn_intervals()}
    window.kg.delete_fact(tid)
    assert model.rowCount() == HUB_FACTS and len(removed) == 1
    assert model.row_of(tid) == -1
    assert resets == []


def test_one_validity_computation_serves_every_view(hub_window):
    window = hub_window
    state = window.state
    window.set_as_of("2010-06-01")
    mask = state.valid_mask()
    facts = state.entity_facts()
    model = window.facts_table.model
    for row, fact in enumerate(model.facts):
        assert model.data(model.index(row, 0), VALID_ROLE) == bool(
            mask[state.fact_index(fact["id"])]
        )
    drawn = {b["id"]: b["valid_at_as_of"] for b in window.gantt.drawn_intervals()}
    assert drawn == {f["id"]: bool(mask[i]) for i, f in enumerate(facts) if f["id"] in drawn}


def test_a_change_that_moves_a_row_is_a_layout_change_not_a_reset(hub_window, qtbot):
    window = hub_window
    model = window.facts_table.model
    model.sort(COLUMN["valid_to"], Qt.SortOrder.AscendingOrder)
    tid = next(
        f["id"] for f in model.facts if f["valid_to"] is None and f["valid_from"] == "2001-01-01"
    )
    resets, layouts = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.layoutChanged.connect(lambda *_: layouts.append(1))
    assert window.end_fact(tid, "2001-01-01")  # the earliest end of all: first row now
    assert resets == [] and layouts == [1]
    assert model.row_of(tid) == 0
    ends = [float("inf") if f["end"] is None else f["end"] for f in model.facts]
    assert ends == sorted(ends)


def test_ending_a_fact_patches_its_bar_and_graph_edge_in_place(hub_window, qtbot):
    window = hub_window
    tid = next(f["id"] for f in window.facts_table.model.facts if f["valid_to"] is None)
    builds = window.gantt.bars.build_count
    window.end_fact(tid, "2026-01-01")
    assert window.gantt.bars.build_count == builds  # patched, not laid out again
    bar = next(b for b in window.gantt.drawn_intervals() if b["id"] == tid)
    assert bar["end"] == window.state.time_arrays()[1][window.state.fact_index(tid)]
    fresh = window.gantt.drawn_intervals()
    window.gantt.reload()
    assert window.gantt.drawn_intervals() == fresh  # the same as laid out from scratch


def test_a_fact_moved_to_another_predicate_is_drawn_on_its_new_edge(hub_window, qtbot):
    window = hub_window
    window.graph_dock.show()
    qtbot.waitUntil(window.graph_view.isVisible, timeout=2000)
    graph = window.graph_view
    edge = graph.drawn_edges()[0]  # one the graph draws (it caps neighbours)
    tid = edge["facts"][0]
    assert edge["predicate"] != "advises"
    assert window.kg.update_fact(tid, predicate="advises")
    qtbot.waitUntil(
        lambda: any(tid in e["facts"] and e["predicate"] == "advises" for e in graph.drawn_edges()),
        timeout=2000,
    )
    item = next(i for i in graph._scene.edges if tid in [f["id"] for f in i.edge.facts])
    assert "advises" in item.toolTip()


def _listed(window, eid: str) -> dict:
    model = window.browser.model
    return model.entity_at(model.row_of(eid))  # with its counts, as when shown


def _load_whole_list(window) -> None:
    model = window.browser.model
    for row in range(0, model.rowCount(), model.PAGE):
        model.load_row(row)
    assert len(entity_rows_read(model)) == model.rowCount()


def test_the_entity_list_moves_only_the_counts_of_a_written_facts_ends(hub_window, monkeypatch):
    """A hub's list holds a thousand rows: an edit of one fact moves its ends' counts, before
    and after the edit (here its object moves from one entity to another), by what the write
    noted of the fact's rows: no row is read again, and each is as a read would find it."""
    window = hub_window
    _load_whole_list(window)
    model = window.browser.model
    assert len(entity_rows_read(model)) > 1000
    fact = next(f for f in window.kg.intervals("hub") if f["valid_to"] is None)
    old = fact["object"]
    window.kg.add_entity("Newcomer")  # no fact names it yet: the move cannot duplicate one
    new = "newcomer"
    _load_whole_list(window)
    hub_before, old_before, new_before = (_listed(window, e) for e in ("hub", old, new))
    pages, resets, changed = [], [], []
    listed = window.kg.entity_list_rows
    monkeypatch.setattr(window.kg, "list_entities", lambda *a, **k: pages.append(1) or [])
    monkeypatch.setattr(
        window.kg, "entity_list_rows", lambda ids: changed.extend(ids) or listed(ids)
    )
    model.modelReset.connect(lambda: resets.append(1))

    with window.kg.recording():  # as every edit of the window's is; two writes, two updates
        window.kg.update_fact(fact["id"], object=window.kg.get_entity(new)["name"])
        assert _listed(window, new)["current"] == new_before["current"] + 1
        window.kg.end_fact(fact["id"], "2026-01-01")

    assert pages == [] and resets == [] and changed == []
    for entity in ("hub", old, new):
        assert _listed(window, entity) == listed([entity])[0]
    assert _listed(window, old)["current"] == old_before["current"] - 1
    assert _listed(window, new)["ended"] == new_before["ended"] + 1
    assert _listed(window, "hub")["current"] == hub_before["current"] - 1
    assert _listed(window, "hub")["ended"] == hub_before["ended"] + 1


def test_a_loop_a_deletion_and_their_undos_move_the_counts_as_a_read_finds_them(
    hub_window, monkeypatch
):
    """A fact from an entity to itself counts once; a deleted fact counts no more; undone,
    they count as before: each step's rows equal a read, and none is read."""
    window = hub_window
    _load_whole_list(window)
    stack, kg = window.undo_stack, window.kg
    doomed = next(f for f in kg.intervals("hub") if f["valid_to"] is not None)
    ends = ("hub", doomed["other"])
    truth = [kg.entity_list_rows(list(ends))]
    read = []
    listed = kg.entity_list_rows
    monkeypatch.setattr(kg, "entity_list_rows", lambda ids: read.extend(ids) or listed(ids))
    pages = kg.list_entities
    monkeypatch.setattr(kg, "list_entities", lambda *a, **k: read.append(a) or pages(*a, **k))
    loop = window.fact_actions.add_fact("Hub", "reviews", "Hub")
    assert loop is not None
    assert window.fact_actions.delete_fact(doomed["id"], confirm=False)
    for step in (stack.undo, stack.undo, stack.redo, stack.redo):
        step()
    assert read == []
    after = listed(list(ends))
    assert [_listed(window, e["id"]) for e in after] == after
    assert after[0]["current"] == truth[0][0]["current"] + 1  # the loop, once
    assert after[0]["ended"] == truth[0][0]["ended"] - 1  # the deleted fact


def test_an_edit_moves_only_the_counts_the_list_has_read(hub_window, monkeypatch):
    """A row's counts are read when it is shown: an edit does not move those of a row no one
    has seen (the list may hold thousands of rows read), nor read any."""
    window = hub_window
    _load_whole_list(window)
    model = window.browser.model
    hub_before = _listed(window, "hub")  # read, as when shown
    fact = next(  # one whose other end was never shown
        f
        for f in window.kg.intervals("hub")
        if f["valid_to"] is None
        and entity_rows_read(model)[model.row_of(f["other"])]["current"] is None
    )
    changed = []
    listed = window.kg.entity_list_rows
    monkeypatch.setattr(
        window.kg, "entity_list_rows", lambda ids: changed.extend(ids) or listed(ids)
    )
    with window.kg.recording():  # as every edit of the window's is
        window.kg.end_fact(fact["id"], "2026-01-01")
    assert changed == []
    assert _listed(window, "hub")["ended"] == hub_before["ended"] + 1
    assert _listed(window, "hub") == listed(["hub"])[0]
    other_now = _listed(window, fact["other"])  # read when shown, as it is now
    assert other_now == listed([fact["other"]])[0]


def test_a_write_whose_former_ends_are_unknown_reads_every_row_again(hub_window, monkeypatch):
    window = hub_window
    _load_whole_list(window)
    model = window.browser.model
    pages = []
    page = window.kg.list_entities
    monkeypatch.setattr(
        window.kg, "list_entities", lambda *a, **k: pages.append(1) or page(*a, **k)
    )
    fact = next(f for f in window.kg.intervals("hub") if f["valid_to"] is None)
    old_before = _listed(window, fact["object"])["current"]
    window.kg.end_fact(fact["id"], "2026-01-01")  # not recorded: its row was never read
    assert pages and len(entity_rows_read(model)) > 1000
    assert _listed(window, fact["object"])["current"] == old_before - 1


def test_a_big_entitys_views_reload_a_turn_apart(hub_window, qtbot):
    # All at once, the views' reloads of a hub froze the window for hundreds of milliseconds.
    window, state = hub_window, hub_window.state
    state.select_entity(None)
    builds = window.gantt.build_count
    reloaded: list[str] = []
    window.facts_table.model.modelReset.connect(lambda: reloaded.append("table"))
    window.select_entity("Hub")
    assert window.gantt.build_count == builds and reloaded == []  # each waits for its turn
    assert state.waiting(window.gantt) and state.waiting(window.facts_table)
    window.set_as_of("2010-01-01")  # meanwhile: left to the reloads
    with qtbot.waitSignal(state.reloads.done, timeout=10000):
        pass
    assert window.gantt.build_count == builds + 1 and reloaded == ["table"]
    assert len(triple_rows(window)) == HUB_FACTS
    valid = [window.facts_table.model.index(r, 0).data(VALID_ROLE) for r in range(HUB_FACTS)]
    assert sum(valid) == int(state.valid_mask().sum()) > 0


def test_after_another_programs_write_a_big_entitys_views_reload_a_turn_apart(hub_window, qtbot):
    window, state = hub_window, hub_window.state
    builds = window.gantt.build_count
    other = KnowledgeGraph(window.kg.db_path)  # another client of the file
    other.add_triple("Hub", "hired", "E0001", valid_from="2026-01-01")
    other.close()
    state.notify_data_changed()  # every row may have changed, as after another program's write
    assert window.gantt.build_count == builds and state.waiting(window.facts_table)
    with qtbot.waitSignal(state.reloads.done, timeout=10000):
        pass
    assert window.gantt.build_count > builds
    assert len(triple_rows(window)) == HUB_FACTS + 1
