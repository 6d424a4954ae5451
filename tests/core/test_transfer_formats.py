"""The formats' registry: each format round-trips where it both writes and reads, no two
claim an extension, and a format added to the registry is one the command line offers and
writes, with nothing else changed."""

from __future__ import annotations

import csv

import pytest

from factlines import KnowledgeGraph
from factlines.cli_transfer import build_parser
from factlines.cli_transfer import main as cli
from factlines.core.errors import Refused
from factlines.core.transfer import export_graph, format_of, formats, import_file
from factlines.core.transfer.formats import FORMATS, Format
from factlines.core.transfer.formats.csv_format import CSV
from factlines.core.transfer.formats.graphml_format import GRAPHML
from factlines.core.transfer.formats.json_format import JSON
from factlines.core.transfer.readers import read_csv
from store_helpers import dump

# The registry as it ships: what the words below expect, whatever formats are added later.
SHIPPED = (JSON, CSV, GRAPHML)
BOTH_WAYS = [fmt for fmt in FORMATS if fmt.writer is not None and fmt.reader is not None]


def write_lines(out, selection, meta: dict, counter) -> None:
    """A format for the tests: each fact as "subject predicate object", a line each."""
    for batch in selection.entity_rows(100):
        counter.add(len(batch))
    for batch in selection.fact_rows(100):
        out.writelines(f"{s} {p} {o}\n" for _tid, s, p, o, *_rest in batch)
        counter.add(len(batch))


LINES = Format(
    key="lines",
    name="Lines",
    extensions=(".lines", ".txt"),
    writer=write_lines,
    export_words="one fact per line",
    reader=read_csv,  # what it reads does not matter here, only that it is offered
    import_words="CSV by another name",
)


@pytest.fixture
def shipped(monkeypatch) -> None:
    monkeypatch.setattr(formats, "FORMATS", SHIPPED)


@pytest.fixture
def lines_format(monkeypatch) -> Format:
    monkeypatch.setattr(formats, "FORMATS", (*SHIPPED, LINES))
    return LINES


@pytest.fixture
def graph(tmp_path):
    path = tmp_path / "kg.sqlite3"
    with KnowledgeGraph(path) as kg:
        kg.add_entity("Kai", "person", {"team": "Orion"})
        kg.add_triple(
            "Kai",
            "works_on",
            "Orion",
            valid_from="2025-01-01",
            valid_to="2025-06-30",
            source_file="notes.md",
            confidence=0.5,
        )
        kg.add_triple("Kai", "works_on", "Nova", valid_from="2025-07-01T09:00:00Z")
        kg.add_triple("Ann", "knows", "Kai")
    return path


def _by_id(path) -> dict:
    """Each table's rows by id, every column but where SQLite keeps them."""
    return {
        table: {row["id"]: {k: v for k, v in row.items() if k != "_rowid"} for row in rows}
        for table, rows in dump(path).items()
    }


def _help(capsys, command: str) -> str:
    """What ``factlines COMMAND --help`` says, its lines joined."""
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_registry_has_the_formats_a_person_knows():
    assert [fmt for fmt in FORMATS if fmt in SHIPPED] == list(SHIPPED)
    assert [fmt.key for fmt in SHIPPED if fmt.reader is not None] == ["json", "csv"]
    assert BOTH_WAYS, "no format both writes and reads: nothing below round-trips"


def test_no_two_formats_share_a_key_or_an_extension():
    keys = [fmt.key for fmt in FORMATS]
    endings = formats.extensions(FORMATS)
    assert len(set(keys)) == len(keys), keys
    assert len(set(endings)) == len(endings), endings


@pytest.mark.parametrize("fmt", BOTH_WAYS, ids=lambda fmt: fmt.key)
def test_a_format_that_writes_and_reads_gives_back_the_graph(fmt, graph, tmp_path):
    out = tmp_path / f"graph{fmt.extensions[0]}"
    with KnowledgeGraph(graph, read_only=True) as kg:
        written = export_graph(kg, out)
    assert written.format == fmt.key and formats.to_read(out) is fmt
    copy = tmp_path / "copy.sqlite3"
    with KnowledgeGraph(copy) as kg:
        report = import_file(kg, out)
    assert report.written and not report.rejected and not report.skipped
    assert _by_id(copy) == _by_id(graph)


def test_a_name_no_format_reads_is_read_as_json(tmp_path):
    assert formats.to_read(tmp_path / "facts.CSV").key == "csv"
    assert formats.to_read(tmp_path / "seed.txt").key == "json"
    assert formats.to_read(tmp_path / "graph.graphml").key == "json"  # GraphML only writes


def test_a_format_must_say_what_it_does():
    with pytest.raises(ValueError, match="lower case"):
        Format(key="x", name="X", extensions=(".X",), writer=write_lines, export_words="x")
    with pytest.raises(ValueError, match="words"):
        Format(key="x", name="X", extensions=(".x",), writer=write_lines)
    with pytest.raises(ValueError, match="writes, reads"):
        Format(key="x", name="X", extensions=(".x",))


def test_the_formats_are_listed_as_a_person_says_them(shipped):
    assert formats.listed(["JSON"]) == "JSON"
    assert formats.listed(["JSON", "CSV"]) == "JSON or CSV"
    assert formats.names(formats.writing()) == "JSON, CSV or GraphML"


def test_a_registered_format_is_a_choice_of_the_command_line(lines_format, graph, tmp_path, capsys):
    assert build_parser().parse_args(["export", "g", "o", "--format", "lines"]).fmt == "lines"
    said = _help(capsys, "export")
    assert ".graphml (for yEd, Gephi, networkx) or .lines (one fact per line)" in said
    assert "(.json, .csv, .graphml, .lines, .txt)" in said and "csv, graphml or lines" in said
    said = _help(capsys, "import")
    assert "or Lines (CSV by another name)" in said and "a .json, .csv, .lines or .txt file" in said
    # By its extension and by --format, written by the format's own writer.
    assert cli(["export", str(graph), str(tmp_path / "a.lines")]) == 0
    assert cli(["export", str(graph), str(tmp_path / "b.out"), "--format", "lines"]) == 0
    for name in ("a.lines", "b.out"):
        assert sorted((tmp_path / name).read_text(encoding="utf-8").splitlines()) == [
            "ann knows kai",
            "kai works_on nova",
            "kai works_on orion",
        ]


def test_without_the_format_the_command_line_refuses_it(shipped, graph, tmp_path, capsys):
    said = _help(capsys, "export")
    assert ".lines" not in said and "json, csv or graphml" in said
    with pytest.raises(SystemExit):
        build_parser().parse_args(["export", "g", "out", "--format", "lines"])
    assert "invalid choice: 'lines'" in capsys.readouterr().err
    with pytest.raises(Refused, match=r"must end in \.json, \.csv, \.graphml to say"):
        format_of(tmp_path / "a.lines")
    assert cli(["export", str(graph), str(tmp_path / "a.lines")]) == 2
    assert not (tmp_path / "a.lines").exists()


def test_format_names_the_format_whatever_the_extension(graph, tmp_path):
    assert cli(["export", str(graph), str(tmp_path / "facts.txt"), "--format", "csv"]) == 0
    with open(tmp_path / "facts.txt", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {(row["subject"], row["object"]) for row in rows} == {
        ("Kai", "Orion"),
        ("Kai", "Nova"),
        ("Ann", "Kai"),
    }
