"""The CLI through typer's CliRunner: exit codes, clean errors, and help on every command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import PROJECT
from pipeline.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "papers.duckdb"
    result = runner.invoke(app, ["ingest", str(PROJECT / "corpus"), "--db", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


def test_ingest_prints_a_one_line_summary(db):
    result = runner.invoke(app, ["ingest", str(PROJECT / "corpus"), "--db", str(db), "--quiet"])
    assert result.exit_code == 0
    assert result.stdout.startswith("6 files: 0 added, 0 updated, 6 unchanged, 0 removed, 0 failed; nothing changed since run 1, ")


def test_ingest_json_summary_counts_the_run(tmp_path):
    result = runner.invoke(app, ["ingest", str(PROJECT / "corpus"), "--db", str(tmp_path / "x.duckdb"), "--json"])
    summary = json.loads(result.stdout)
    assert (summary["seen"], summary["added"], summary["failed"], summary["run_id"]) == (6, 6, {}, 1)


def test_search_prints_ranked_chunks_with_provenance(db):
    result = runner.invoke(app, ["search", "IL-6", "--db", str(db), "--limit", "2"])
    assert result.exit_code == 0
    assert "(lines " in result.stdout


def test_search_json_is_machine_readable(db):
    result = runner.invoke(app, ["search", "p53", "--db", str(db), "--json"])
    hits = json.loads(result.stdout)["hits"]
    assert hits and {"chunk_id", "score", "heading_path", "snippet"} <= set(hits[0])


def test_sql_is_read_only(db):
    # `runs` is a table of the published file itself; `chunks`, a view, is refused before that.
    result = runner.invoke(app, ["sql", "DELETE FROM runs", "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: the query failed:")
    assert "read-only" in result.stderr


def test_sql_prints_csv(db):
    result = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM documents", "--db", str(db), "--format", "csv"])
    assert result.stdout.splitlines() == ["n", "6"]


def test_sql_prints_timestamps_with_a_time_zone(db):
    result = runner.invoke(app, ["sql", "SELECT TIMESTAMPTZ '2026-12-01 10:00:00+00' AS t", "--db", str(db), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith("2026-12-01")


def test_a_table_tells_null_from_an_empty_string(db):
    result = runner.invoke(app, ["sql", "SELECT NULL AS missing, '' AS empty", "--db", str(db)])
    assert result.stdout.splitlines() == ["missing | empty", "--------+------", "NULL    |"]


def test_a_line_break_inside_a_value_keeps_its_row_on_one_line(db):
    result = runner.invoke(app, ["sql", "SELECT 'first' || chr(10) || 'second' AS text", "--db", str(db)])
    assert result.stdout.splitlines() == ["text", "-------------", "first\\nsecond"]


def test_hangul_takes_two_cells_so_the_columns_still_align(db):
    result = runner.invoke(app, ["sql", "SELECT '정확도' AS term, 1 AS n UNION ALL SELECT 'accuracy', 2 ORDER BY n", "--db", str(db)])
    header, rule, korean, english = result.stdout.splitlines()
    assert (korean, english) == ("정확도   | 1", "accuracy | 2")
    assert rule == "---------+--"


def test_report_shows_every_paper(db):
    result = runner.invoke(app, ["report", "--db", str(db)])
    assert result.exit_code == 0
    assert "reviews/berek-2021" in result.stdout and "Body chunk words:" in result.stdout


def test_inspect_shows_the_absorption_decisions():
    result = runner.invoke(app, ["inspect", str(PROJECT / "corpus" / "flat" / "lee-2022.md")])
    assert result.exit_code == 0
    assert "Methods chunk group" in result.stdout
    assert "Patient cohort  (methods, absorbed" in result.stdout
    assert "stopped at 'Results' (strict anchor: results)" in result.stdout


def test_inspect_says_where_a_file_was_read_otherwise_than_commonmark_would(tmp_path):
    paper = tmp_path / "paper.md"
    paper.write_text("# T\n\n<table><tr><td>1</td></tr></table>\n## Methods\nText.\n")
    result = runner.invoke(app, ["inspect", str(paper)])
    assert result.exit_code == 0
    assert "read: 1 HTML block(s) ended where the element closes (line 3)" in result.stdout


def test_a_missing_database_is_a_clean_error(tmp_path):
    result = runner.invoke(app, ["search", "x", "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: no database at {tmp_path / 'none.duckdb'}; run `pipeline ingest` first or pass --db\n"


@pytest.mark.parametrize("command", ["ingest", "search"])
def test_a_damaged_database_is_named_with_how_to_rebuild_it(tmp_path, command):
    db = tmp_path / "papers.duckdb"
    db.write_bytes(b"\x5a" * 5000)  # what is left of a file a disk or a copy mangled
    arguments = ["ingest", str(PROJECT / "corpus")] if command == "ingest" else ["search", "IL-6"]
    result = runner.invoke(app, [*arguments, "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot open database {db}: ")
    assert "building" not in result.stderr  # the ingest's working copy is not what the reader has to deal with
    assert "damaged or no DuckDB database: move it aside and run `pipeline ingest`" in " ".join(result.stderr.split())


def test_a_missing_folder_is_a_clean_error(tmp_path):
    result = runner.invoke(app, ["ingest", str(tmp_path / "nowhere"), "--db", str(tmp_path / "x.duckdb")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path / 'nowhere'} is not a folder; pass the folder that holds your papers\n"


def test_bad_rules_are_a_clean_error(tmp_path):
    rules = tmp_path / "r.toml"
    rules.write_text("[chunk]\ntarget_min_words = 'x'\n")
    result = runner.invoke(app, ["inspect", str(PROJECT / "corpus" / "flat" / "lee-2022.md"), "--rules", str(rules)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: rules file {rules}: ")
    assert "Traceback" not in result.output


def test_a_failed_file_makes_ingest_exit_3(tmp_path):
    (tmp_path / "empty.md").write_bytes(b"")
    result = runner.invoke(app, ["ingest", str(tmp_path), "--db", str(tmp_path / "x.duckdb")])
    assert result.exit_code == 3
    assert "failed: empty.md: the file is empty" in result.stderr


def test_ingest_on_ray_without_ray_says_how_to_install_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what Python does for a module that cannot be imported
    (tmp_path / "a.md").write_text("# A paper\n\n## Results\n\nSerum IL-6 rose.\n")
    result = runner.invoke(app, ["ingest", str(tmp_path), "--db", str(tmp_path / "x.duckdb"), "--engine", "ray", "--quiet"])
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --engine ray needs Ray, which is an optional extra: from the project folder, pip install -e '.[ray]'; "
        "or run with the default --engine local\n"
    )


def test_every_command_is_summed_up_in_one_line_that_the_help_never_breaks():
    # The command list shows a docstring's first paragraph with its own line breaks kept.
    assert app.registered_commands
    broken = [c.callback.__name__ for c in app.registered_commands if "\n" in c.callback.__doc__.split("\n\n")[0]]
    assert broken == []


def test_the_version_is_printed(tmp_path):
    from pipeline import __version__

    result = runner.invoke(app, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"pipeline {__version__}\n")


def test_a_section_type_is_taken_in_any_case(db):
    result = runner.invoke(app, ["search", "IL-6", "--db", str(db), "--section-type", "Results", "--json"])
    assert result.exit_code == 0 and {hit["section_type"] for hit in json.loads(result.stdout)["hits"]} == {"results"}


@pytest.mark.parametrize("command", ["ingest", "search", "sql", "inspect", "report", "show"])
def test_every_command_has_help_with_an_example(command):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Example: pipeline" in result.stdout


@pytest.mark.parametrize("command", [command.name or command.callback.__name__ for command in app.registered_commands])
def test_help_reflows_its_paragraphs_and_breaks_no_line_short(command):
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    description = lines[1 : next(index for index, line in enumerate(lines) if "Arguments" in line or "Options" in line)]
    assert any(line.strip() for line in description)
    # Within a paragraph, each line is as full as 80 columns let it be: the next line's first word
    # would not have fit, as when the docstring's own line breaks are kept.
    short = [
        (line, after)
        for line, after in zip(description, description[1:])
        if line.strip() and after.strip() and len(line) + 1 + len(after.split()[0]) <= 78
    ]
    assert short == []


def _fork_server_running_when_the_command_line_is_imported(command: str) -> bool:
    """Run the `pipeline` entry point on `command --help` in a fresh interpreter, and look at the
    workers' fork server at the moment `pipeline.cli` starts being imported."""
    probe = f"""
import sys, multiprocessing.forkserver
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "pipeline.cli":
            print("fork server running:", multiprocessing.forkserver._forkserver._forkserver_pid is not None)
sys.meta_path.insert(0, Watch())
sys.argv = ["pipeline", "{command}", "--help"]
from pipeline.__main__ import main
try:
    main()
except SystemExit:
    pass
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return "fork server running: True" in result.stdout


def test_ingest_starts_the_workers_fork_server_before_importing_the_command_line():
    assert _fork_server_running_when_the_command_line_is_imported("ingest")


def test_other_commands_start_no_worker_processes():
    assert not _fork_server_running_when_the_command_line_is_imported("sql")


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def test_sql_json_writes_null_for_nan_and_infinity(db):
    statement = "SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, [1.5, '-inf'::DOUBLE] AS c, {'x': 'nan'::FLOAT} AS d"
    result = runner.invoke(app, ["sql", statement, "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout, parse_constant=_refuse_constant) == [{"a": None, "b": None, "c": [1.5, None], "d": {"x": None}}]


def test_sql_help_says_json_writes_null_for_nan():
    result = runner.invoke(app, ["sql", "--help"], terminal_width=200)
    assert "json writes null for NaN and Infinity" in " ".join(result.stdout.split())


def test_a_tab_inside_a_value_is_shown_escaped_as_a_line_break_is(db):
    result = runner.invoke(app, ["sql", "SELECT 'first' || chr(9) || 'second' AS text", "--db", str(db)])
    assert result.stdout.splitlines() == ["text", "-------------", "first\\tsecond"]


def test_ingest_into_a_file_that_is_no_database_says_so_and_leaves_nothing_beside_it(tmp_path):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "a.md").write_text("# A paper\n\n## Results\n\nSerum IL-6 rose.\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    result = runner.invoke(app, ["ingest", str(papers), "--db", str(notes)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot open database {notes}: it is not a DuckDB database file (it does not start with DuckDB's header); "
        "the file is damaged or no DuckDB database: move it aside and run `pipeline ingest`, which rebuilds it from the "
        "papers, or pass another --db\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt", "papers"]
    assert notes.read_text() == "my notes\n"


def test_inspect_given_a_folder_says_it_takes_one_file(tmp_path):
    result = runner.invoke(app, ["inspect", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {tmp_path} is a folder; inspect takes one paper (a *.md or *.pdf file): "
        "pass the path of a paper in it, or ingest the folder with `pipeline ingest`\n"
    )


def test_inspect_names_the_paper_by_its_metadatas_title_and_shows_a_title_heading_that_differs(tmp_path):
    """A journal's name printed larger than the title is the title heading (the largest text on
    page 1), but the paper's metadata reads the title over the byline, as `documents.title` does."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((200, 70), "The Open Test Journal, 2021, 12, 101-110", fontsize=8)
    page.insert_text((200, 110), "The Open Test Journal", fontsize=18, fontname="hebo")
    page.insert_text((200, 155), "Content list available at: www.example.org/test-journal/", fontsize=8)
    page.insert_text((200, 175), "DOI: 10.1234/otj.2021.0042", fontsize=8)
    page.insert_text((72, 208), "Interleukin-6 after sleep loss in a crossover trial", fontsize=16, fontname="hebo")
    page.insert_text((72, 236), "Ana Silva1 and Bo Chen2", fontsize=12)
    page.insert_text((72, 280), "Introduction", fontsize=13, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 290, 523, 800), "Sleep loss raises interleukin-6 in the blood. " * 40, fontsize=10)
    doc.save(tmp_path / "paper.pdf")
    result = runner.invoke(app, ["inspect", str(tmp_path / "paper.pdf"), "--layout", "rules"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:3] == [
        "title: Interleukin-6 after sleep loss in a crossover trial",
        "title heading: The Open Test Journal (the chunks' heading path; the title above is the metadata's)",
    ]
