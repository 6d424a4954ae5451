"""Import: all or nothing, a report of every row not imported by its line, open
duplicates reported and not doubled, one undo step inside a recording, cancellable."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from factlines import KnowledgeGraph, Refused, open_graph
from factlines.core.errors import ReadOnlyGraph
from factlines.core.transfer import Cancelled, export_graph, import_file
from store_helpers import dump

HEADER = "id,subject_id,subject,predicate,object_id,object,valid_from,valid_to,confidence,"
HEADER += "source_closet,source_file,source_drawer_id,adapter_name,extracted_at"


def _write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def _facts(kg) -> set[tuple]:
    return {
        (f["subject"], f["predicate"], f["object"], f["valid_from"], f["valid_to"])
        for f in (kg.get_fact(row["id"]) for row in kg.dump_rows("triples", limit=1000))
    }


BAD_CSV = (
    "subject,predicate,object,valid_from,valid_to,confidence,source_file\n"  # line 1
    "Kai,works on,Orion,2025-01-01,2025-06-30,0.9,notes.md\n"  # 2: good
    'Kai,works_on,Nova,2025-02-30,,,"two\n'  # 3: no such day (its cell spans 3-4)
    'lines"\n'  # 4
    "Ann,knows,Kai,2025-05-01,2025-04-01,,\n"  # 5: ends before it starts
    " ,knows,Kai,,,,\n"  # 6: no subject
    "Ann,knows,Bo,2026,,,\n"  # 7: partial date
    "Ann,mentors,Bo,,,1.5,\n"  # 8: confidence out of range
    "Ann,mentors,Zoe,,,,\n"  # 9: good
    "Ann,mentors\n"  # 10: too few fields
)


def test_csv_with_bad_rows_reports_each_line_and_writes_nothing(kg, kg_path):
    kg.add_triple("Old", "knows", "Fact")
    before = dump(kg_path)
    report = import_file(kg, _write(kg_path.parent / "in.csv", BAD_CSV))
    assert not report.written and report.facts_added == 0
    lines = report.lines()
    assert [line.split(":")[0] for line in lines] == [f"line {n}" for n in (3, 5, 6, 7, 8, 10)]
    assert "valid_from='2025-02-30'" in lines[0] and "no such calendar day" in lines[0]
    assert "valid_to='2025-04-01' is before valid_from='2025-05-01'" in lines[1]
    assert "subject" in lines[2]
    assert "partial date" in lines[3]
    assert "confidence" in lines[4]
    assert "fields" in lines[5]
    assert dump(kg_path) == before
    assert "nothing was written" in report.summary()


def test_good_rows_imports_the_rest(kg, kg_path):
    report = import_file(kg, _write(kg_path.parent / "in.csv", BAD_CSV), good_rows=True)
    assert report.written and report.facts_added == 2 and len(report.rejected) == 6
    assert _facts(kg) == {
        ("kai", "works_on", "orion", "2025-01-01", "2025-06-30"),
        ("ann", "mentors", "zoe", None, None),
    }
    orion = kg.find_open_fact("Kai", "works_on", "Orion") or next(
        kg.get_fact(r["id"]) for r in kg.dump_rows("triples") if r["object"] == "orion"
    )
    assert orion["confidence"] == 0.9 and orion["source_file"] == "notes.md"
    assert kg.get_entity("kai")["name"] == "Kai" and kg.get_entity("zoe")["type"] == "unknown"


def test_a_field_longer_than_python_s_csv_limit_is_read_and_every_later_row_too(kg, kg_path):
    notes = "n" * 200_000  # Python's csv reader stops at 131,072 characters by default
    text = (
        "subject,predicate,object,source_file\n"
        "Kai,works_on,Orion,a.md\n"
        f"Kai,knows,Ann,{notes}\n"
        "Ann,knows,Bo,\n"
        "Bo,knows,Zoe,b.md\n"
    )
    report = import_file(kg, _write(kg_path.parent / "in.csv", text), good_rows=True)
    assert report.lines() == [] and report.facts_added == 4
    assert kg.find_open_fact("Kai", "knows", "Ann")["source_file"] == notes


def test_a_quote_never_closed_is_reported_not_read_as_one_long_name(kg, kg_path):
    text = (
        "subject,predicate,object\n"  # 1
        "Kai,works_on,Orion\n"  # 2
        '"Ann,knows,Bo\n'  # 3: the quote is never closed
        "Bo,knows,Zoe\n"  # 4
        "Zoe,knows,Kai\n"  # 5
    )
    before = dump(kg_path)
    report = import_file(kg, _write(kg_path.parent / "in.csv", text))
    assert not report.written and dump(kg_path) == before
    (line,) = report.lines()
    assert line.startswith("line 3: a quote opened on this line is never closed")
    assert "lines 3–5" in line
    report = import_file(kg, _write(kg_path.parent / "in.csv", text), good_rows=True)
    assert report.facts_added == 1 and [e["name"] for e in kg.list_entities()] == ["Kai", "Orion"]


def test_a_broken_quote_mid_file_is_one_reported_row_and_the_rest_is_read(kg, kg_path):
    text = 'subject,predicate,object\nKai,works_on,Orion\n"Ann"x,knows,Bo\nBo,knows,Zoe\n'
    report = import_file(kg, _write(kg_path.parent / "in.csv", text), good_rows=True)
    assert [line.split(":")[0] for line in report.lines()] == ["line 3"]
    assert report.facts_added == 2


def _export_text(rows: list[str]) -> str:
    """A Factlines JSON export with one entity and these triple rows, one per line (line 5 on)."""
    return (
        '{"format": "factlines-graph", "version": 1,\n'
        ' "entities": [\n'
        '{"id": "kai", "name": "Kai"}],\n'
        ' "triples": [\n' + ",\n".join(rows) + "]}\n"
    )


def test_json_values_no_graph_can_store_are_reported_by_line_not_a_traceback(kg, kg_path):
    text = _export_text(
        [
            '{"id": "t1", "subject": "kai", "predicate": "p", "object": "kai", '
            '"confidence": 123456789012345678901234567890}',
            '{"id": "t2", "subject": "kai", "predicate": "q\\ud800", "object": "kai"}',
            '{"id": "t3", "subject": "kai", "predicate": "r", "object": "kai"}',
        ]
    )
    path = _write(kg_path.parent / "in.json", text)
    before = dump(kg_path)
    report = import_file(kg, path)
    assert not report.written and dump(kg_path) == before
    assert [line.split(":")[0] for line in report.lines()] == ["line 5", "line 6"]
    assert "too large to store" in report.lines()[0]
    assert "unpaired surrogate" in report.lines()[1]
    report = import_file(kg, path, good_rows=True)
    assert report.facts_added == 1 and [r["id"] for r in kg.dump_rows("triples")] == ["t3"]


def test_json_nested_too_deeply_is_refused_by_line(kg, kg_path):
    path = _write(
        kg_path.parent / "deep.json", '{"triples": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    with pytest.raises(Refused, match="line 1: the JSON nests lists or objects too deeply"):
        import_file(kg, path, good_rows=True)


def test_a_json_that_is_neither_an_export_nor_a_seed_is_refused_untouched(kg, kg_path):
    tsconfig = {"compilerOptions": {"target": "es2020", "strict": True}, "include": {"x": 1}}
    path = _write(kg_path.parent / "tsconfig.json", json.dumps(tsconfig))
    before = dump(kg_path)
    with pytest.raises(Refused, match=r"tsconfig\.json is neither a Factlines export"):
        import_file(kg, path, good_rows=True)
    assert dump(kg_path) == before


def test_a_key_given_twice_in_a_json_is_refused_not_the_later_one_taken(kg, kg_path):
    text = _export_text(['{"id": "t1", "subject": "kai", "predicate": "p", "object": "kai"}'])
    text = text[: -len("]}\n")] + '],\n "triples": []}\n'
    with pytest.raises(Refused, match="line 6: the key 'triples' is given twice"):
        import_file(kg, _write(kg_path.parent / "twice.json", text), good_rows=True)


def test_a_duplicate_of_an_open_fact_is_reported_not_doubled(kg, kg_path):
    existing = kg.add_triple("Kai", "works_on", "Orion", valid_from="2024-01-01")
    text = (
        "subject,predicate,object,valid_from,valid_to\n"
        "Kai,works_on,Orion,2025-01-01,\n"  # 2: open already in the graph
        "Kai,works_on,Orion,2020-01-01,2020-12-31\n"  # 3: an ended one: history, added
        "Kai,works_on,Nova,,\n"  # 4: new
        "kai,Works On,nova,,\n"  # 5: the same as line 4
    )
    report = import_file(kg, _write(kg_path.parent / "in.csv", text))
    assert report.written and report.facts_added == 2 and not report.rejected
    assert [str(p) for p in report.skipped] == [
        f"line 2: kai works_on orion is already an open fact ({existing}); not added again",
        "line 5: kai works_on nova repeats line 4; not added again",
    ]
    assert kg.stats()["triples"] == 3
    again = import_file(kg, _write(kg_path.parent / "in.csv", text))
    assert again.facts_added == 1  # only the ended one comes twice: it carries no id
    assert len(again.skipped) == 3


def test_csv_id_columns_are_used_when_present(kg, kg_path):
    kg.add_entity("Kai Moreno")  # id kai_moreno
    text = (
        f"{HEADER}\n"
        "t_custom_1,kai_moreno,Kai (ignored: the id exists),works_on,orion_x,Orion,2025-01-01,"
        ",,,,,,2024-01-01 00:00:00\n"
        ",,Ann,knows,kai_moreno,Kai,,,,,,,,\n"
    )
    report = import_file(kg, _write(kg_path.parent / "in.csv", text))
    assert report.written and report.facts_added == 2 and report.entities_added == 2
    fact = kg.get_fact("t_custom_1")
    assert (fact["subject"], fact["object"], fact["extracted_at"]) == (
        "kai_moreno",
        "orion_x",
        "2024-01-01 00:00:00",
    )
    assert kg.get_entity("kai_moreno")["name"] == "Kai Moreno"
    assert kg.get_entity("orion_x")["name"] == "Orion"
    ann = [r for r in kg.dump_rows("triples") if r["subject"] == "ann"]
    assert ann[0]["id"].startswith("t_ann_knows_kai_moreno_")
    clash = f"{HEADER}\nt_custom_1,,Bo,knows,,Cy,,,,,,,,\n"
    report = import_file(kg, _write(kg_path.parent / "clash.csv", clash))
    assert not report.written
    assert report.lines() == [
        "line 2: the graph already has another fact with the id 't_custom_1' "
        "(kai_moreno works_on orion_x)"
    ]


def test_a_csv_without_the_required_columns_is_refused(kg, kg_path):
    with pytest.raises(Refused, match="no object column"):
        import_file(kg, _write(kg_path.parent / "in.csv", "subject,predicate\nA,b\n"))
    report = import_file(
        kg, _write(kg_path.parent / "typo.csv", "subject,predicate,object,valid_form\nA,b,C,2025\n")
    )
    assert report.lines()[0].startswith("line 1: unknown column 'valid_form'")
    assert not report.written


def test_json_copy_into_a_graph_holding_some_rows(tmp_path):
    source = tmp_path / "source.sqlite3"
    with KnowledgeGraph(source) as kg:
        kept = kg.add_triple("Kai", "works_on", "Orion", valid_from="2025-01-01")
        kg.add_triple("Kai", "knows", "Ann")
        export_graph(kg, tmp_path / "copy.json")
    lines = (tmp_path / "copy.json").read_text(encoding="utf-8").splitlines()

    def line_of(text: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if text in line)

    with KnowledgeGraph(tmp_path / "target.sqlite3") as kg:
        kg.add_entity("Kai", "person")  # same id, other values: kept as the graph has it
        twin = kg.add_triple("Kai", "knows", "Ann")  # an open twin with another id
        with kg.transaction(), kg._conn() as conn:
            conn.execute("UPDATE entities SET created_at = '2000-01-01 00:00:00' WHERE id = 'ann'")
        report = import_file(kg, tmp_path / "copy.json")
        assert report.written and report.facts_added == 1 and report.entities_added == 1
        kai, ann = line_of('"id": "kai"'), line_of('"id": "ann"')
        assert [str(p) for p in report.skipped] == [
            f"line {kai}: the entity 'kai' is already in the graph (as 'Kai'); "
            "the graph's row was kept",
            f"line {ann}: the entity 'ann' is already in the graph (as 'Ann'); "
            "the graph's row was kept",
            f"line {line_of('t_kai_knows_ann')}: kai knows ann is already an open fact "
            f"({twin}); not added again",
        ]
        assert kg.get_entity("kai")["type"] == "person" and kg.has_fact(kept)
        again = import_file(kg, tmp_path / "copy.json")
        assert again.facts_added == 0 and again.unchanged == 2  # orion and the fact
    document = json.loads((tmp_path / "copy.json").read_text(encoding="utf-8"))
    document["triples"][0]["subject"] = "someone_else"
    document["triples"].append({"id": "t_x", "subject": "a", "predicate": "p", "oops": 1})
    _write(tmp_path / "changed.json", json.dumps(document, indent=1))
    with KnowledgeGraph(tmp_path / "source.sqlite3") as kg:
        before = dump(tmp_path / "source.sqlite3")
        report = import_file(kg, tmp_path / "changed.json")
        assert not report.written and dump(tmp_path / "source.sqlite3") == before
        assert [p.reason.split(" (")[0] for p in report.rejected] == [
            "triples has no column 'oops'",
            f"the graph already has another fact with the id {kept!r}",
        ]
        text = (tmp_path / "changed.json").read_text(encoding="utf-8").splitlines()
        for problem in report.rejected:  # each line number points into its row
            assert any(key in text[problem.line - 1] for key in ("{", '"id"'))


def test_an_import_is_one_undo_step(kg, kg_path):
    kg.add_triple("Kai", "works_on", "Orion")
    before = dump(kg_path)
    text = "subject,predicate,object,valid_from\n" + "".join(
        f"P{i},knows,P{i + 1},2025-01-0{1 + i % 9}\n" for i in range(50)
    )
    with kg.recording() as change:
        report = import_file(kg, _write(kg_path.parent / "in.csv", text))
    assert report.facts_added == 50 and report.entities_added == 51
    kg.revert(change)
    assert dump(kg_path) == before
    kg.reapply(change)
    assert kg.stats()["triples"] == 51


def test_a_cancelled_import_writes_nothing(kg, kg_path):
    text = "subject,predicate,object\n" + "".join(f"P{i},knows,Q{i}\n" for i in range(12_000))
    before = dump(kg_path)
    calls = []

    def cancel_while_writing(done, total):
        calls.append((done, total))
        return not (total and done > total // 2)

    with pytest.raises(Cancelled):
        import_file(kg, _write(kg_path.parent / "in.csv", text), progress=cancel_while_writing)
    assert dump(kg_path) == before
    assert calls[0][1] in (0, 24_000) and max(done for done, _ in calls) > 12_000


def test_read_only_graph_refuses_an_import(kg_path, tmp_path):
    KnowledgeGraph(kg_path).close()
    with open_graph(kg_path, read_only=True) as kg, pytest.raises(ReadOnlyGraph):
        import_file(kg, _write(tmp_path / "in.csv", "subject,predicate,object\nA,b,C\n"))


SEED = """{
  "max": {"full_name": "Max", "type": "person", "gender": "male", "birthday": "2015-04-01",
          "parent": "alice", "interests": ["chess", "swimming"]},
  "bad": {"birthday": "April 2015"},
  "rex": {"relationship": "dog", "owner": "max"},
  "odd": {"interests": "chess"}
}
"""


def test_mempalace_entity_facts_seed_is_checked_by_the_time_rules(kg, kg_path):
    kg.add_triple("Max", "loves", "Chess", valid_from="2025-01-01")
    path = _write(kg_path.parent / "seed.json", SEED)
    report = import_file(kg, path)
    assert not report.written
    assert [str(p).split(":")[0] for p in report.rejected] == ["line 4", "line 6"]
    assert "birthday='April 2015'" in report.rejected[0].reason
    report = import_file(kg, path, good_rows=True)
    assert report.written and report.kind == "seed"
    assert str(report.skipped[0]).startswith("line 2: Max loves Chess is already an open fact")
    reference = KnowledgeGraph(kg_path.parent / "reference.sqlite3")
    reference.add_triple("Max", "loves", "Chess", valid_from="2025-01-01")
    reference.seed_from_entity_facts(
        {k: v for k, v in json.loads(SEED).items() if k in ("max", "rex")}
    )
    assert _facts(kg) == _facts(reference)
    assert report.facts_added == 3  # child_of Alice, loves Swimming, Rex is_pet_of Max
    assert kg.get_entity("rex")["type"] == "animal"
    reference.close()


def test_a_row_without_an_id_is_reported_in_words_and_never_written(kg, kg_path, tmp_path):
    (tmp_path / "source").mkdir()
    source = KnowledgeGraph(tmp_path / "source" / "kg.sqlite3")
    for other in ("Bo", "Cy", "Di", "Eve", "Fay"):
        source.add_triple("Ann", "knows", other)
    source.add_entity("Gus")
    copy = tmp_path / "copy.json"
    export_graph(source, copy)
    source.close()
    text = copy.read_text(encoding="utf-8").splitlines()  # a row to a line
    ids = {row["object"]: row["id"] for row in json.loads("\n".join(text))["triples"]}

    def edit(row: str, old: str, new: str) -> int:
        """Change ``old`` to ``new`` on the line of the row holding ``row``: its number."""
        number = next(n for n, line in enumerate(text) if row in line)
        text[number] = text[number].replace(old, new)
        return number + 1

    line = {
        "bo": edit(ids["bo"], f'"id": "{ids["bo"]}"', '"id": null'),
        "cy": edit(ids["cy"], f'"id": "{ids["cy"]}"', '"id": ""'),
        "di": edit(ids["di"], '"subject": "ann"', '"subject": ""'),
        "eve": edit(ids["eve"], '"object": "eve"', '"object": null'),
        "gus": edit('"id": "gus"', '"id": "gus"', '"id": ""'),
    }
    copy.write_text("\n".join(text), encoding="utf-8")
    report = import_file(kg, copy, good_rows=True)
    assert report.lines() == [
        f"line {line['gus']}: the entity 'Gus' has an empty id",
        f"line {line['bo']}: the fact ann knows bo has no id",
        f"line {line['cy']}: the fact ann knows cy has an empty id",
        f"line {line['di']}: the fact {ids['di']!r} has an empty subject (an entity's id)",
        f"line {line['eve']}: the fact {ids['eve']!r} has no object (an entity's id)",
    ]
    assert (report.facts_added, report.entities_added) == (1, 6)
    assert {row["id"] for row in kg.dump_rows("triples", limit=10)} == {ids["fay"]}
    entities = {row["id"] for row in kg.dump_rows("entities", limit=10)}
    assert entities == {"ann", "bo", "cy", "di", "eve", "fay"}


def test_a_csv_entity_id_of_only_spaces_is_reported_not_written(kg, kg_path):
    rows = (
        f"{HEADER}\n"
        "t_ann_knows_bo_1,  ,Ann,knows,bo,Bo,,,1.0,,,,,\n"  # 2: a stored fact, subject_id blank
        "t_ann_knows_cy_1,ann,Ann,knows, ,Cy,,,1.0,,,,,\n"  # 3: object_id blank
        "t_ann_knows_di_1,,Ann,knows,,Di,,,1.0,,,,,\n"  # 4: empty: made from the names
    )
    report = import_file(kg, _write(kg_path.parent / "in.csv", rows), good_rows=True)
    assert report.lines() == [
        "line 2: subject_id holds only spaces: an entity needs an id (leave the cell empty to "
        "make one from the name)",
        "line 3: object_id holds only spaces: an entity needs an id (leave the cell empty to "
        "make one from the name)",
    ]
    assert {row["id"] for row in kg.dump_rows("triples", limit=10)} == {"t_ann_knows_di_1"}
    assert {row["id"] for row in kg.dump_rows("entities", limit=10)} == {"ann", "di"}


def test_a_csv_import_holds_neither_the_file_nor_its_rows(kg, kg_path):
    path = kg_path.parent / "in.csv"
    note = "a note long enough to make the file's text weigh more than its rows' count " * 3
    with path.open("w", encoding="utf-8") as out:
        out.write("subject,predicate,object,valid_from,source_file\n")
        for n in range(40_000):
            out.write(f"Entity {n % 1000},p{n // 1000},Entity {n * 7 % 1000},2025-01-01,{note}\n")
        out.write("Entity 1,p0,Entity 7,2025-01-01,again\n")  # line 40,002: line 3's fact
        out.write("Entity 1,p0,Entity 8,2025-02-30,\n")  # no such day: nothing is written
    size = path.stat().st_size
    tracemalloc.start()
    try:
        report = import_file(kg, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [line.split(":")[0] for line in report.lines()] == ["line 40002", "line 40003"]
    assert "repeats line 3" in report.lines()[0] and not report.written
    # Before, the text and every row were held at once: 81 MB for this 10.5 MB file; now a
    # batch of rows, 7 MB whatever the file's size.
    assert peak < size, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB file"


def test_a_seed_import_holds_neither_the_file_nor_its_entries(kg, kg_path, monkeypatch):
    from factlines.core.transfer import json_reader, seed

    # A quarter of the file, an eighth of the window read and of the batch: under tracemalloc
    # each entry costs 7 times as much. Holding every entry peaks at 20 times the file, the
    # text at 25 times: the bound below still catches both.
    monkeypatch.setattr(json_reader, "_WINDOW", json_reader._WINDOW // 8)
    monkeypatch.setattr(seed, "PLAN_BATCH", seed.PLAN_BATCH // 8)
    path = kg_path.parent / "seed.json"
    with path.open("w", encoding="utf-8") as out:
        out.write("{\n")
        for n in range(5_000):
            entry = {"full_name": f"Person {n}", "interests": [f"topic {n % 500}"]}
            out.write(f'"person{n}": {json.dumps(entry)},\n')
        out.write('"again": {"full_name": "Person 1", "interests": ["topic 1"]},\n')  # line 5,002
        out.write('"bad": {"birthday": "April 2015"}\n}\n')  # line 5,003: nothing is written
    size = path.stat().st_size
    tracemalloc.start()
    try:
        report = import_file(kg, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.lines()[0] == "line 5002: Person 1 loves Topic 1 repeats line 3; not added again"
    assert report.lines()[1].startswith("line 5003: 'bad': birthday='April 2015'")
    assert not report.written and len(report.lines()) == 2
    # Before, every entry and its facts were held at once: 31 MB for a 1.5 MB file; now a
    # batch of entries: 6 MB (10 MB for a file three times as big); here 3 times the file.
    assert peak < 6 * size, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB file"


def test_a_csv_is_read_twice_and_each_row_checked_once(kg, kg_path, monkeypatch):
    """Reading the file notes what may repeat; the plan checks each row; the write takes the
    checked rows back from a temporary file: neither the file read again nor a row checked
    again (each costs a tenth of a big import's time)."""
    from factlines.core.transfer import csv_rows, readers

    path = kg_path.parent / "in.csv"
    with path.open("w", encoding="utf-8") as out:
        out.write("subject,predicate,object,valid_from,valid_to\n")
        for n in range(5_000):
            out.write(f"Entity {n % 300},p{n % 7},Entity {n * 7 % 300},2025-01-01,\n")
    opened, checked = [], []
    real_open, real_fact = open, csv_rows._Rows.fact

    def counting_open(file, *args, **kwargs):
        opened.append(file)
        return real_open(file, *args, **kwargs)

    def counting_fact(self, fields):
        checked.append(fields[0])
        return real_fact(self, fields)

    monkeypatch.setattr(readers, "open", counting_open, raising=False)
    monkeypatch.setattr(csv_rows._Rows, "fact", counting_fact)
    report = import_file(kg, path)
    assert report.written and report.facts_added + len(report.skipped) == 5_000
    assert len(opened) == 2, f"the file was read {len(opened)} times"
    assert len(checked) == 5_000, f"{len(checked)} checks of 5,000 rows"
    assert kg.stats()["triples"] == report.facts_added
