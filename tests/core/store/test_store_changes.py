"""Every write reports the ids it touched: ours, undo and redo; another program's is "all"."""

from __future__ import annotations

import sqlite3

import pytest

from factlines.core.store import Touched


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
