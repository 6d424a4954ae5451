"""Import, copy and renaming a predicate beside a real MemPalace writing the same file: the file
is read and checked before the write lock is taken, the rows are written in short transactions
between which MemPalace writes, a failure takes back only what is still exactly as written, a
fact MemPalace ends meanwhile is left as it made it, and a refused import or copy into a new
file removes only what it created."""

from __future__ import annotations

import sqlite3

import pytest

from factlines import Refused, open_graph
from factlines.cli_transfer import main as cli
from factlines.core import transfer
from factlines.core.store import edit_history
from factlines.core.store.predicate_edits import _FACTS_PER_PART as PART
from factlines.core.transfer import Cancelled, copy_graph, copying, import_file, import_recorded
from factlines.core.transfer.plan import CHUNK

mempalace = pytest.importorskip("mempalace.knowledge_graph", reason="mempalace 3.11 is needed")
pytestmark = pytest.mark.interop


@pytest.fixture(autouse=True)
def one_chunk_per_write(monkeypatch):
    """Each chunk its own transaction (not as many as fit in the time a write may hold the
    lock): where MemPalace writes between them does not depend on the machine's speed."""
    monkeypatch.setattr(edit_history, "HOLD_S", 0.0)


BAD_LAST_ROW = "Ann,knows,Bo,2025-05-01,2025-04-01\n"  # ends before it starts


def _csv(path, rows: int, last: str = ""):
    lines = ["subject,predicate,object,valid_from,valid_to\n"]
    lines += [f"Person {n % 50},imported,Thing {n},2020-01-01,\n" for n in range(rows)]
    path.write_text("".join(lines) + last, encoding="utf-8")
    return path


def _facts(path) -> set[tuple[str, str, str, str | None]]:
    conn = sqlite3.connect(str(path))
    try:
        rows = conn.execute("SELECT subject, predicate, object, valid_to FROM triples").fetchall()
    finally:
        conn.close()
    return set(rows)


class WriteLockHeld:
    """Another connection holding the file's write lock (as MemPalace does while it writes)."""

    def __init__(self, path):
        self.conn = sqlite3.connect(str(path), isolation_level=None)
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self):
        self.conn.execute("ROLLBACK")
        self.conn.close()


def test_a_bad_last_row_is_refused_without_ever_taking_the_write_lock(kg_path, tmp_path):
    with open_graph(kg_path) as kg:
        kg.add_triple("Old", "knows", "Fact")
        kg.write_wait = 0  # a write would fail at once: the lock is held
        rows = _csv(tmp_path / "rows.csv", 2 * CHUNK, BAD_LAST_ROW)
        held = WriteLockHeld(kg_path)
        try:
            report = import_file(kg, rows)
        finally:
            held.release()
    assert not report.written
    assert [str(p).split(":")[0] for p in report.rejected] == [f"line {2 * CHUNK + 2}"]


def test_file_import_reads_and_checks_the_file_before_the_write_lock(kg_path, tmp_path):
    """File → Import… (recorded and logged) refuses a bad file while another program holds
    the lock: nothing waited for it."""
    open_graph(kg_path).close()
    rows = _csv(tmp_path / "rows.csv", 10, BAD_LAST_ROW)
    held = WriteLockHeld(kg_path)
    try:
        report, change = import_recorded(kg_path, rows, "Import rows.csv")
    finally:
        held.release()
    assert not report.written and not change
    with open_graph(kg_path) as kg:
        assert kg.edit_log() == []


def _once_facts_are_written(path, action):
    """A progress callback that runs ``action()`` once the import's first chunk of facts is in
    the file (between two of its writes), and cancels when that returns False."""
    state = {"done": False}

    def progress(_done: int, _total: int):
        if state["done"]:
            return True
        conn = sqlite3.connect(str(path))
        try:
            written = conn.execute("SELECT EXISTS (SELECT 1 FROM triples)").fetchone()[0]
        finally:
            conn.close()
        if not written:
            return True
        state["done"] = True
        return action()

    return progress


def test_mempalace_writes_while_an_import_is_under_way(kg_path, tmp_path):
    open_graph(kg_path).close()
    rows = _csv(tmp_path / "rows.csv", 3 * CHUNK)
    palace = mempalace.KnowledgeGraph(db_path=str(kg_path))

    def mempalace_writes():
        palace.add_triple("MemPalace", "records", "a note")
        return True

    try:
        with open_graph(kg_path) as kg:
            report = import_file(
                kg, rows, progress=_once_facts_are_written(kg_path, mempalace_writes)
            )
    finally:
        palace.close()
    assert report.written and report.facts_added == 3 * CHUNK
    facts = _facts(kg_path)
    assert ("mempalace", "records", "a_note", None) in facts
    assert len(facts) == 3 * CHUNK + 1
    with open_graph(kg_path) as kg:
        assert kg.stats()["entities"] == 50 + 3 * CHUNK + 2


def test_a_cancelled_import_takes_back_only_what_is_still_as_it_wrote(kg_path, tmp_path):
    open_graph(kg_path).close()
    rows = _csv(tmp_path / "rows.csv", 3 * CHUNK)
    palace = mempalace.KnowledgeGraph(db_path=str(kg_path))

    def mempalace_writes_then_cancel():
        palace.add_triple("MemPalace", "records", "a note")
        palace.invalidate("Person 0", "imported", "Thing 0", ended="2024-01-01")
        return False

    try:
        with open_graph(kg_path) as kg, pytest.raises(Cancelled):
            import_file(
                kg, rows, progress=_once_facts_are_written(kg_path, mempalace_writes_then_cancel)
            )
    finally:
        palace.close()
    # MemPalace's fact, and the imported fact MemPalace ended since: nothing else.
    assert _facts(kg_path) == {
        ("mempalace", "records", "a_note", None),
        ("person_0", "imported", "thing_0", "2024-01-01"),
    }
    conn = sqlite3.connect(str(kg_path))
    entities = {eid for (eid,) in conn.execute("SELECT id FROM entities")}
    conn.close()
    assert entities == {"mempalace", "a_note", "person_0", "thing_0"}


def test_a_refused_import_into_a_new_file_keeps_mempalace_s_fact(tmp_path, monkeypatch):
    new = tmp_path / "new.sqlite3"
    rows = _csv(tmp_path / "rows.csv", 10, BAD_LAST_ROW)
    real = transfer.import_file

    def mempalace_writes_first(kg, path, **options):
        with mempalace.KnowledgeGraph(db_path=str(new)) as palace:
            palace.add_triple("MemPalace", "records", "a note")
        return real(kg, path, **options)

    monkeypatch.setattr(transfer, "import_file", mempalace_writes_first)
    assert cli(["import", str(new), str(rows)]) == 1
    assert _facts(new) == {("mempalace", "records", "a_note", None)}


def test_a_refused_import_leaves_a_new_file_mempalace_has_open(tmp_path, monkeypatch):
    new = tmp_path / "new.sqlite3"
    rows = _csv(tmp_path / "rows.csv", 10, BAD_LAST_ROW)
    real = transfer.import_file
    opened = []

    def mempalace_opens_it(kg, path, **options):
        opened.append(mempalace.KnowledgeGraph(db_path=str(new)))
        return real(kg, path, **options)

    monkeypatch.setattr(transfer, "import_file", mempalace_opens_it)
    assert cli(["import", str(new), str(rows)]) == 1
    with opened[0] as palace:
        palace.add_triple("MemPalace", "records", "a note")
    assert new.exists() and _facts(new) == {("mempalace", "records", "a_note", None)}


def test_a_new_file_nobody_else_touched_is_removed_when_the_import_is_refused(tmp_path):
    new = tmp_path / "new.sqlite3"
    rows = _csv(tmp_path / "rows.csv", 10, BAD_LAST_ROW)
    assert cli(["import", str(new), str(rows)]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.csv"]


def _source(tmp_path, facts: int):
    source = tmp_path / "source.sqlite3"
    with open_graph(source) as kg:
        import_file(kg, _csv(tmp_path / "source.csv", facts))
    return source


def test_a_refused_copy_to_a_new_file_keeps_mempalace_s_fact(tmp_path, monkeypatch):
    source, target = _source(tmp_path, 5), tmp_path / "target.sqlite3"
    real = copying.open_graph

    def mempalace_writes_the_target(location, **options):
        kg = real(location, **options)
        if str(location).startswith(str(tmp_path / f".{target.name}.copying-")):
            # The copy is written beside the target: MemPalace makes the target meanwhile.
            with mempalace.KnowledgeGraph(db_path=str(target)) as palace:
                palace.add_triple("MemPalace", "records", "a note")
        return kg

    monkeypatch.setattr(copying, "open_graph", mempalace_writes_the_target)
    with pytest.raises(Refused, match="made by another program while the copy was written"):
        copy_graph(source, target)
    assert _facts(target) == {("mempalace", "records", "a_note", None)}


def test_a_cancelled_copy_takes_back_its_rows_and_keeps_mempalace_s(tmp_path):
    source, target = _source(tmp_path, 3 * CHUNK), tmp_path / "target.sqlite3"

    def mempalace_writes_then_cancel(done: int, _total: int):
        if done < CHUNK:
            return True
        with mempalace.KnowledgeGraph(db_path=str(target)) as palace:
            palace.add_triple("MemPalace", "records", "a note")
        return False

    with pytest.raises(Cancelled):
        copy_graph(source, target, progress=mempalace_writes_then_cancel)
    assert _facts(target) == {("mempalace", "records", "a_note", None)}


def _between_writes(monkeypatch, kg, action):
    """Run ``action()`` once, after the first of ``kg``'s short transactions of a long write
    (where it gives way), outside the write lock."""
    real, calls = kg._store.settle, []

    def settle():
        real()
        if not calls:
            calls.append(action())

    monkeypatch.setattr(kg._store, "settle", settle)
    return calls


def test_mempalace_writes_while_a_predicate_is_renamed(kg_path, monkeypatch):
    facts = 3 * PART
    with open_graph(kg_path) as kg:
        kg.insert_rows(
            "triples",
            [(f"t{n}", f"s{n}", "works_on", f"o{n}", "2020-01-01") for n in range(facts)],
            columns=("id", "subject", "predicate", "object", "valid_from"),
        )
        palace = mempalace.KnowledgeGraph(db_path=str(kg_path))

        def mempalace_writes():
            palace.add_triple("MemPalace", "records", "a note")
            # A fact the rename has not reached yet: MemPalace ends it meanwhile.
            palace.invalidate(f"s{facts - 1}", "works_on", f"o{facts - 1}", ended="2024-01-01")
            return True

        calls = _between_writes(monkeypatch, kg, mempalace_writes)
        try:
            report = kg.rename_predicate("works_on", "working_on", at="2025-01-01")
        finally:
            palace.close()
        assert calls == [True]
        assert report["ended"] == report["opened"] == facts - 1
        left = kg.get_fact(f"t{facts - 1}")
        assert (left["predicate"], left["valid_to"]) == ("works_on", "2024-01-01")
        assert kg.query_relationship("records")[0]["subject"] == "MemPalace"
