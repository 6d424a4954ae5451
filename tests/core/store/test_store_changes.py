"""Every write reports the ids it touched: ours, undo and redo; another program's is "all"."""

from __future__ import annotations

import sqlite3

import pytest

from factlines.core.store import Touched
from factlines.core.store.changes import Outline


@pytest.fixture
def reports(kg):
    seen: list[Touched] = []
    kg.add_listener(seen.append)
    yield seen
    kg.remove_listener(seen.append)


def test_a_write_reports_the_fact_and_entities_it_created(kg, reports):
    tid = kg.add_triple("Kai", "works_on", "Orion")
    assert reports == [Touched(facts={tid}, entities={"kai", "orion"})]


def test_one_transaction_reports_once(kg, reports):
    with kg.transaction():
        a = kg.add_triple("Kai", "works_on", "Orion")
        kg.end_fact(a, "2026-01-01")
        b = kg.add_triple("Kai", "works_on", "Nova", valid_from="2026-01-01")
    assert len(reports) == 1
    assert reports[0].facts == {a, b}


def test_undo_and_redo_report_what_they_put_back(kg, reports):
    tid = kg.add_triple("Kai", "works_on", "Orion")
    with kg.recording() as change:
        kg.end_fact(tid, "2026-01-01")
    assert change.touched() == Touched(facts={tid})
    reports.clear()
    kg.revert(change)
    kg.reapply(change)
    assert reports == [Touched(facts={tid}), Touched(facts={tid})]


def test_a_recorded_write_reports_its_facts_rows_before_and_after(kg, reports):
    """What views move their counts by: each fact's ends and times, before the write and after
    it (None: no such row), where the write was recorded; not known where it was not."""
    kept = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    gone = kg.add_triple("Kai", "knows", "Ann")
    assert reports[-1].before is None  # not recorded: not known
    assert reports[-1].outlines() is None
    reports.clear()
    with kg.recording() as change, kg.transaction():  # one write: one report
        kg.end_fact(kept, "2026-01-01")
        kg.delete_fact(gone)
        new = kg.add_triple("Ann", "knows", "Bob", valid_from="2026-02-01")
    [touched] = reports
    assert touched.before == {
        kept: Outline("kai", "orion", "2025-01-01", None),
        gone: Outline("kai", "ann", None, None),
        new: None,
    }
    assert touched.after == {
        kept: Outline("kai", "orion", "2025-01-01", "2026-01-01"),
        gone: None,
        new: Outline("ann", "bob", "2026-02-01", None),
    }
    assert touched.fact_ends == {"kai", "orion", "ann"}
    assert len(touched.outlines()) == 3
    assert (Outline("kai", "ann", None, None), None) in touched.outlines()
    reports.clear()
    with kg.recording():  # undone, as the window's undo is (recorded): the other way round
        kg.revert(change)
    assert reports[0].before == touched.after and reports[0].after == touched.before


def test_a_refused_or_failed_write_reports_nothing(kg, reports):
    kg.add_triple("Kai", "works_on", "Orion")
    reports.clear()
    with pytest.raises(ValueError):
        kg.add_fact("Kai", "works_on", "Orion")
    with pytest.raises(RuntimeError), kg.transaction():
        kg.add_triple("Ann", "knows", "Bob")
        raise RuntimeError("stop")
    assert reports == []


@pytest.mark.sqlite_only  # another program writes the SQLite file
def test_another_program_s_write_is_seen_as_everything(kg):
    kg.add_triple("Kai", "works_on", "Orion")
    assert not kg.external_changes()
    with sqlite3.connect(kg.db_path) as other:
        other.execute("UPDATE triples SET valid_to = '2026-01-01'")
    changed = kg.external_changes()
    assert changed.everything and changed
    assert not kg.external_changes()
