"""Two clients at once: each edit checks the rules inside its own write.

Two KnowledgeGraph objects on one graph (one file, one PostgreSQL database) stand for two
scripts, or a script and the window. The second client's write is made at the worst moment
for the first: just as the first one's write begins (a hook on its connection runs it there,
so the race is the same every run). The first then sees the second's result and is refused,
or builds on it; it never stores an inverted interval, a second open successor, or an end
over the other's end.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest

from factlines import KnowledgeGraph
from factlines.core.errors import Refused


@pytest.fixture
def second(graph_url, kg):
    other = KnowledgeGraph(graph_url)
    yield other
    other.close()


def _just_before_its_write(monkeypatch, kg, other_write):
    """Make ``other_write()`` happen as ``kg``'s next write transaction is about to begin."""
    db = kg._store._db
    begin = db.transaction
    pending = [other_write]

    @contextmanager
    def transaction(*args, **kwargs):
        if pending and not db.writing:
            pending.pop()()
        with begin(*args, **kwargs) as conn:
            yield conn

    monkeypatch.setattr(db, "transaction", transaction)


def test_a_start_moved_past_an_end_another_client_just_set_is_refused(kg, second, monkeypatch):
    tid = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    _just_before_its_write(monkeypatch, kg, lambda: second.end_fact(tid, "2026-01-01"))

    with pytest.raises(Refused, match="before valid_from"):
        kg.update_fact(tid, valid_from="2026-06-01")

    fact = second.get_fact(tid)
    assert (fact["valid_from"], fact["valid_to"]) == ("2025-01-01", "2026-01-01")


def test_two_clients_replacing_one_fact_never_leave_two_open_successors(kg, second, monkeypatch):
    tid = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    _just_before_its_write(
        monkeypatch, kg, lambda: second.supersede_fact(tid, "Vega", at="2026-01-01")
    )

    with pytest.raises(Refused, match="already ended on 2026-01-01T00:00:00Z"):
        kg.supersede_fact(tid, "Nova", at="2026-03-01")

    open_objects = [f["object"] for f in second.query_entity("Kai") if f["current"]]
    assert open_objects == ["Vega"]
    assert second.get_fact(tid)["valid_to"] == "2026-01-01T00:00:00Z"


def test_an_end_never_overwrites_the_end_another_client_just_set(kg, second, monkeypatch):
    tid = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    _just_before_its_write(monkeypatch, kg, lambda: second.end_fact(tid, "2026-01-01"))

    with pytest.raises(Refused, match="already ended on 2026-01-01"):
        kg.end_fact(tid, "2026-03-01")

    assert second.get_fact(tid)["valid_to"] == "2026-01-01"


def test_merging_an_entity_another_client_just_merged_away_is_refused(kg, second, monkeypatch):
    kg.add_triple("Kai", "works_on", "Orion")
    kg.add_triple("Kay", "knows", "Ann")
    kg.add_entity("Kai Lee")
    _just_before_its_write(monkeypatch, kg, lambda: second.merge_entities("kay", "kai_lee"))

    with pytest.raises(Refused, match="source 'kay' is not in the graph"):
        kg.merge_entities("kay", "kai")

    assert [f["object"] for f in second.query_entity("Kai Lee")] == ["Ann"]


def test_a_predicate_another_client_just_renamed_is_refused_not_renamed_to_nothing(
    kg, second, monkeypatch
):
    kg.add_triple("Kai", "works_on", "Orion")
    _just_before_its_write(
        monkeypatch,
        kg,
        lambda: second.rename_predicate("works_on", "member_of", keep_history=False),
    )

    with pytest.raises(Refused, match="no fact has the predicate 'works_on'"):
        kg.rename_predicate("works_on", "works_at", keep_history=False)

    assert [f["predicate"] for f in second.query_entity("Kai")] == ["member_of"]


def test_a_predicate_marked_single_valued_by_another_client_stays_marked(kg, second, monkeypatch):
    _just_before_its_write(monkeypatch, kg, lambda: second.set_single_valued("works_on"))

    kg.set_single_valued("reports_to")

    assert second.single_valued_predicates() == ["reports_to", "works_on"]


def test_two_clients_ending_one_fact_in_threads_one_wins_the_other_is_refused(kg, second):
    """Not staged: both end the same fact at once, many times; exactly one is told ok."""
    for round_ in range(6):
        tid = kg.add_triple("Kai", "works_on", f"Project {round_}", valid_from="2025-01-01")
        outcomes: dict[str, object] = {}
        start = threading.Barrier(2)

        def end(name, graph, day, tid=tid, outcomes=outcomes, start=start):
            start.wait()
            try:
                graph.end_fact(tid, day)
                outcomes[name] = day
            except Refused as exc:
                outcomes[name] = exc

        threads = [
            threading.Thread(target=end, args=("first", kg, "2026-01-01")),
            threading.Thread(target=end, args=("second", second, "2026-02-01")),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        told_ok = [day for day in outcomes.values() if isinstance(day, str)]
        assert len(told_ok) == 1, outcomes
        assert kg.get_fact(tid)["valid_to"] == told_ok[0]
