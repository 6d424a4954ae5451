"""File → Export… and File → Import… in the window: off the UI thread with progress
and Cancel; an export through a store of its own, the snapshot at as_of read back from the
file; an import all or nothing, its report by line, "Import the good rows", and one undo step
that takes back exactly what was imported."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from factlines.core import temporal
from factlines.core.transfer import Cancelled, importing
from factlines.ui.menus import import_export as transfer_actions
from factlines.ui.menus.import_export import TransferActions
from store_helpers import mempalace_class
from ui_fixtures import *  # noqa: F403
from ui_fixtures import dump, file_query, triple_rows


@pytest.fixture
def answers(monkeypatch):
    """Fillers for the export form and the import report, in order; each returns whether the
    form is accepted (the report: True is "Import the good rows")."""

    class Queue(list):
        seen: list

    queue = Queue()
    seen: list = []

    def fake_exec(self, dialog) -> bool:
        seen.append(dialog)
        return queue.pop(0)(dialog)

    monkeypatch.setattr(TransferActions, "_exec", fake_exec)
    queue.seen = seen
    return queue


def _finish(qtbot, job) -> None:
    assert job is not None
    qtbot.waitUntil(lambda: not job.running, timeout=10_000)
    QApplication.processEvents()


def _valid_at(row: dict, as_of: str) -> bool:
    key = temporal.start_key(as_of)
    start, end = row["valid_from"], row["valid_to"]
    return (start is None or temporal.start_key(start) <= key) and (
        end is None or temporal.end_key(end) > key
    )


def test_export_the_snapshot_at_as_of_through_a_store_of_its_own(
    window, demo, answers, qtbot, tmp_path, monkeypatch
):
    def not_here(*_args, **_kwargs):
        raise AssertionError("the export read the window's store")

    monkeypatch.setattr(demo, "selection", not_here)  # the window's connection is not held
    window.set_as_of("2019-06-01")
    out = tmp_path / "out" / "snapshot.csv"
    out.parent.mkdir()

    def fill(dialog):
        assert dialog.snapshot.isEnabled() and not dialog.one_entity.isEnabled()
        dialog.path.setText(str(out))
        dialog.snapshot.setChecked(True)
        dialog.accept()
        return dialog.result() == dialog.DialogCode.Accepted

    answers.append(fill)
    said = messages_of(window)  # noqa: F405
    _finish(qtbot, window.transfer.export_dialog())
    with open(out, encoding="utf-8", newline="") as handle:
        exported = {row["id"]: row for row in csv.DictReader(handle)}
    facts = demo.dump_rows("triples", limit=1000)
    expected = {row["id"] for row in facts if _valid_at(row, "2019-06-01")}
    assert set(exported) == expected and 0 < len(expected) < len(facts)
    assert f"Exported {len(expected)} facts" in said[-1]
    assert list(out.parent.iterdir()) == [out]


def test_export_one_entity_as_json_in_the_format_chosen(window, demo, answers, qtbot, tmp_path):
    window.select_entity("Kai Moreno")
    out = tmp_path / "kai.data"

    def fill(dialog):
        dialog.path.setText(str(out))
        assert dialog.validate() is not None  # no format in that name: said
        dialog.format.setCurrentIndex(dialog.format.findData("json"))
        assert dialog.path.text() == str(out)  # an unknown extension is left as typed
        dialog.one_entity.setChecked(True)
        dialog.accept()
        return dialog.result() == dialog.DialogCode.Accepted

    answers.append(fill)
    _finish(qtbot, window.transfer.export_dialog())
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["entity"] == "kai_moreno" and data["as_of"] is None
    assert data["triples"] and all(
        "kai_moreno" in (row["subject"], row["object"]) for row in data["triples"]
    )
    assert len(data["triples"]) == len(demo.intervals("kai_moreno"))


def test_a_cancelled_export_leaves_no_file(window, qtbot, tmp_path, monkeypatch):
    real = transfer_actions.export_graph

    def cancel_while_writing(kg, path, *, progress, **options):
        def pressed_cancel(done, total):
            window.transfer.job.cancel()  # as the progress dialog's Cancel does
            return progress(done, total)

        return real(kg, path, progress=pressed_cancel, **options)

    monkeypatch.setattr(transfer_actions, "export_graph", cancel_while_writing)
    said = messages_of(window)  # noqa: F405
    out = tmp_path / "out"
    out.mkdir()
    job = window.transfer.export_to(out / "all.graphml")
    _finish(qtbot, job)
    assert list(out.iterdir()) == []  # neither the file nor a part of it
    assert "Export cancelled" in said[-1]
    assert isinstance(job.error, Cancelled)


BAD_CSV = (
    "subject,predicate,object,valid_from,valid_to,confidence\n"
    "Kai Moreno,speaks,Portuguese,2024-01-01,,0.9\n"
    "Kai Moreno,speaks,Klingon,2024-02-30,,\n"  # no such day
    "Kai Moreno,works_on,Nova,2026-03-15,,\n"  # already open in the demo
    "Zoe Quint,mentors,Kai Moreno,2025-01-01,2024-01-01,\n"  # ends before it starts
    "Zoe Quint,speaks,Portuguese,,,\n"
)


def test_import_a_bad_row_writes_nothing_until_the_good_rows_are_chosen(
    window, demo, answers, qtbot, tmp_path
):
    source = tmp_path / "facts.csv"
    source.write_text(BAD_CSV, encoding="utf-8")
    window.select_entity("Kai Moreno")
    before, shown = dump(demo.db_path), triple_rows(window)
    reports = []

    def import_nothing(dialog):
        reports.append(dialog.lines.toPlainText())
        assert dialog.asks and dialog.good_rows.text() == "Import the good rows"
        return False

    answers.append(import_nothing)
    _finish(qtbot, window.transfer.import_from(source))
    lines = reports[0].splitlines()
    assert [line.split(":")[0] for line in lines] == ["line 3", "line 4", "line 5"]
    assert "2024-02-30" in lines[0] and "already an open fact" in lines[1]
    assert dump(demo.db_path) == before and window.undo_stack.count() == 0

    answers.append(lambda dialog: True)  # "Import the good rows"
    answers.append(lambda dialog: not dialog.asks)  # then what was left out, to close
    first = window.transfer.import_from(source)
    _finish(qtbot, first)
    _finish(qtbot, window.transfer.job)
    assert len(answers.seen) == 3 and not answers.seen[-1].asks
    speaks = file_query(
        demo.db_path, "SELECT subject, object FROM triples WHERE predicate = ?", ("speaks",)
    )
    assert sorted(speaks) == [("kai_moreno", "portuguese"), ("zoe_quint", "portuguese")]
    assert file_query(demo.db_path, "SELECT name FROM entities WHERE id = 'zoe_quint'") == [
        ("Zoe Quint",)
    ]
    assert window.undo_stack.count() == 1 and window.undo_stack.undoText() == "Import facts.csv"
    assert demo.edit_log()[0]["what"] == "Import facts.csv"
    qtbot.waitUntil(lambda: len(triple_rows(window)) == len(shown) + 1, timeout=3000)

    window.action_undo.trigger()  # one step takes back every row imported, entities too
    assert dump(demo.db_path) == before
    qtbot.waitUntil(lambda: sorted(triple_rows(window)) == sorted(shown), timeout=3000)


def test_a_cancelled_import_writes_nothing_and_pushes_no_step(
    window, demo, qtbot, tmp_path, monkeypatch
):
    source = tmp_path / "facts.csv"
    source.write_text(BAD_CSV.split("Kai Moreno,speaks,Klingon")[0], encoding="utf-8")
    real = importing.import_file

    def cancel_while_writing(kg, path, *, progress, **options):
        def pressed_cancel(done, total):
            window.transfer.job.cancel()
            return progress(done, total)

        return real(kg, path, progress=pressed_cancel, **options)

    monkeypatch.setattr(importing, "import_file", cancel_while_writing)
    before, said = dump(demo.db_path), messages_of(window)  # noqa: F405
    _finish(qtbot, window.transfer.import_from(source))
    assert dump(demo.db_path) == before and window.undo_stack.count() == 0
    assert demo.edit_log() == [] and said[-1] == "Import facts.csv cancelled: nothing was written"


def test_import_mempalaces_entity_facts_seed_as_one_step(window, demo, answers, qtbot, tmp_path):
    seed = tmp_path / "entity_facts.json"
    seed.write_text(
        json.dumps(
            {
                "riley": {
                    "full_name": "Riley Stone",
                    "gender": "f",
                    "birthday": "2015-04-01",
                    "parent": "ada park",
                    "relationship": "daughter",
                    "interests": ["chess"],
                }
            }
        ),
        encoding="utf-8",
    )
    before = dump(demo.db_path)
    _finish(qtbot, window.transfer.import_from(seed))
    facts = file_query(
        demo.db_path, "SELECT predicate, object FROM triples WHERE subject = 'riley_stone'"
    )
    assert ("loves", "chess") in facts and ("child_of", "ada_park") in facts
    assert window.undo_stack.count() == 1 and answers.seen == []  # nothing to report
    window.action_undo.trigger()
    assert dump(demo.db_path) == before


def test_an_export_the_disk_refuses_is_said_in_words(window, qtbot, tmp_path, monkeypatch):
    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(transfer_actions, "export_graph", full)
    window.quiet = True  # said in the status bar and kept in window.errors, not a dialog
    job = window.transfer.export_to(tmp_path / "all.json")
    _finish(qtbot, job)
    assert window.errors[-1].startswith(f"cannot write {tmp_path / 'all.json'}: No space left")
    assert "try again" in window.errors[-1]


def test_undoing_an_import_mempalace_wrote_after_asks_first(
    window, demo, qtbot, tmp_path, monkeypatch
):
    source = tmp_path / "facts.csv"
    source.write_text("subject,predicate,object\nKai Moreno,speaks,Portuguese\n", encoding="utf-8")
    _finish(qtbot, window.transfer.import_from(source))
    mempalace = mempalace_class()(demo.db_path)
    try:
        mempalace.add_triple("Kai Moreno", "speaks", "Portuguese")  # found open: writes nothing
        mempalace.add_triple("Zoe Quint", "speaks", "Portuguese")
    finally:
        mempalace.close()
    asked: list[str] = []
    monkeypatch.setattr(window, "ask", lambda _title, q: asked.append(q) or False)

    window.action_undo.trigger()

    assert "“Kai Moreno speaks Portuguese”" in asked[0]
    speaks = file_query(demo.db_path, "SELECT subject FROM triples WHERE predicate = 'speaks'")
    assert sorted(speaks) == [("kai_moreno",), ("zoe_quint",)]
    assert window.undo_stack.index() == 1


def test_the_import_report_is_alone_on_screen_before_and_after_the_good_rows(
    window, demo, answers, qtbot, tmp_path, monkeypatch
):
    """The report opened under the "Importing… 50%" dialog (which took its clicks), and after
    the good rows a 100% dialog covered the result."""
    import time

    from factlines.ui.jobs import progress

    monkeypatch.setattr(progress, "SHOW_AFTER_MS", 0)  # the progress of a long import
    slow = transfer_actions.import_recorded

    def a_long_import(*args, **kwargs):
        time.sleep(0.2)
        return slow(*args, **kwargs)

    monkeypatch.setattr(transfer_actions, "import_recorded", a_long_import)
    source = tmp_path / "facts.csv"
    source.write_text(BAD_CSV, encoding="utf-8")
    on_screen = []

    def answer(result):
        def fill(dialog):
            shown = [
                w
                for w in QApplication.topLevelWidgets()
                if isinstance(w, progress.ProgressDialog) and w.isVisible()
            ]
            on_screen.append(shown)
            return result(dialog)

        return fill

    answers.append(answer(lambda dialog: True))  # "Import the good rows"
    answers.append(answer(lambda dialog: not dialog.asks))  # what was left out, to close
    first = window.transfer.import_from(source)
    qtbot.waitUntil(lambda: window.transfer.progress.isVisible(), timeout=5000)
    _finish(qtbot, first)
    qtbot.waitUntil(lambda: len(answers.seen) == 2, timeout=10_000)
    _finish(qtbot, window.transfer.job)
    assert on_screen == [[], []]
    assert window.undo_stack.undoText() == "Import facts.csv"


def test_after_an_import_into_an_empty_graph_the_chart_asks_for_an_entity(
    qtbot, kg, isolated_settings, tmp_path
):
    """It went on saying "This graph has no facts yet" over the imported facts."""
    from ui_fixtures import shown_window

    window = shown_window(qtbot, kg, isolated_settings)
    assert "no facts yet" in window.gantt._empty.text()
    source = tmp_path / "facts.csv"
    source.write_text(
        "subject,predicate,object,valid_from,valid_to,confidence\n"
        "Kai Moreno,speaks,Portuguese,2024-01-01,,0.9\n",
        encoding="utf-8",
    )
    _finish(qtbot, window.transfer.import_from(source))
    assert "no facts yet" not in window.gantt._empty.text()
    assert "Select an entity" in window.gantt._empty.text()


def test_export_starts_in_the_last_folder_used_never_in_mempalaces_own(
    qtbot, isolated_settings, tmp_path, monkeypatch, answers
):
    """On MemPalace's graph, Export proposed a file inside ~/.mempalace, MemPalace's private
    folder, and forgot the folder chosen last time."""
    from factlines import KnowledgeGraph
    from ui_fixtures import shown_window

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMPALACE_CONFIG_DIR", raising=False)
    (home / ".mempalace").mkdir(parents=True)
    kg = KnowledgeGraph(home / ".mempalace" / "knowledge_graph.sqlite3")
    kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
    window = shown_window(qtbot, kg, isolated_settings)
    proposed = []
    out = tmp_path / "exports"
    out.mkdir()

    def export_there(dialog):
        proposed.append(Path(dialog.path.text()))
        dialog.path.setText(str(out / "mine.json"))
        dialog.accept()
        return dialog.result() == dialog.DialogCode.Accepted

    answers.append(export_there)
    _finish(qtbot, window.transfer.export_dialog())
    assert (home / ".mempalace") not in proposed[0].parents
    answers.append(export_there)
    _finish(qtbot, window.transfer.export_dialog())
    assert proposed[1].parent == out
    window.close()
    kg.close()


def test_a_big_import_s_undo_step_keeps_its_rows_in_a_file_and_undoes_exactly(
    window, demo, answers, qtbot, tmp_path
):
    rows = tmp_path / "facts.csv"
    with rows.open("w", encoding="utf-8") as out:
        out.write("subject,predicate,object,valid_from\n")
        for n in range(3_000):
            out.write(f"Person {n % 400},knows,Person {n * 7 % 401},2025-01-01\n")
    before = dump(demo.db_path)
    _finish(qtbot, window.transfer.import_from(rows))
    after = dump(demo.db_path)
    assert len(after["triples"]) == len(before["triples"]) + 3_000
    change = window.undo_stack.command(0)._change
    # Every row's images stayed in memory for as long as the step was on the stack.
    assert len(change.rows) == 0, f"{len(change.rows):,} rows' images held in memory"
    # Undo and redo of a step this big run on a worker: the rows are back a moment before the
    # job has ended, and a redo asked meanwhile is refused ("under way"), so wait for the job.
    window.action_undo.trigger()
    qtbot.waitUntil(lambda: _replayed(window) and dump(demo.db_path) == before, timeout=30_000)
    window.action_redo.trigger()
    qtbot.waitUntil(lambda: _replayed(window) and dump(demo.db_path) == after, timeout=30_000)


def _replayed(window) -> bool:
    """No undo or redo is running on the worker."""
    job = window.replays.job
    return job is None or not job.running
