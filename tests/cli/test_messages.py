"""What the CLI says where a newcomer looks: counts in the number they take, help as printed,
and searches and runs that find nothing saying why."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import PROJECT
from pipeline.cli import app

runner = CliRunner()


def _one_paper(folder):
    folder.mkdir()
    (folder / "a.md").write_text("# A paper\n\n## Methods\n\nWe measured IL-6 in the serum of forty patients and report it here.\n")
    return folder


def test_the_run_summary_says_1_file_and_1_chunk(tmp_path):
    folder = _one_paper(tmp_path / "papers")
    result = runner.invoke(app, ["ingest", str(folder), "--db", str(tmp_path / "x.duckdb"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("1 file: 1 added, 0 updated, 0 unchanged, 0 removed, 0 failed; 1 chunk written")


def test_audit_help_shows_the_chunk_marker_without_a_backslash():
    result = runner.invoke(app, ["audit", "--help"])
    shown = " ".join(result.stdout.split())
    assert "A Markdown page or answer that cites chunks ([chunk:ID], [^ID], [^n] footnotes)." in shown


def test_an_empty_folder_says_no_papers_were_found(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a paper")
    result = runner.invoke(app, ["ingest", str(folder), "--db", str(tmp_path / "x.duckdb"), "--quiet"])
    assert result.exit_code == 0
    assert result.stderr == f"No papers (*.md, *.pdf) were found below {folder}.\n"
    assert result.stdout.startswith("0 files: 0 added")


def test_ingest_help_says_an_empty_folder_is_no_error():
    shown = " ".join(runner.invoke(app, ["ingest", "--help"]).stdout.split())
    assert "A folder with no papers below it is no error: the run says so on stderr and exits 0." in shown


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("messages") / "papers.duckdb"
    result = runner.invoke(app, ["ingest", str(PROJECT / "corpus"), "--db", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


_BIBLIOGRAPHY_NOTE = "(The bibliography's entries are left out: --all or --section-type meta searches them too.)"


def test_search_in_a_doc_that_is_not_stored_says_there_is_no_such_paper(db):
    result = runner.invoke(app, ["search", "IL-6", "--doc", "nope.md", "--db", str(db)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        "No chunks match 'IL-6': no stored paper has the doc_id 'nope.md' "
        '(pipeline sql "SELECT doc_id FROM documents" lists them).'
    )


@pytest.mark.parametrize("query", ["-", "*", "/", "<-"])
def test_a_query_without_letters_or_digits_holds_no_word(db, query):
    # `-` alone once found the chunk holding R's `<-`, where `*` said it held no word.
    result = runner.invoke(app, ["search", "--db", str(db), "--", query])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == f"No chunks match {query!r}: it holds no word the index could look for (letters or digits)."


def test_the_bibliography_note_only_where_its_chunks_could_match(db):
    unfiltered = runner.invoke(app, ["search", "Table", "--db", str(db)])
    assert _BIBLIOGRAPHY_NOTE in unfiltered.stderr.splitlines()
    table = runner.invoke(app, ["search", "Table", "--section-type", "table", "--db", str(db)])
    assert table.exit_code == 0 and table.stdout
    assert _BIBLIOGRAPHY_NOTE not in table.stderr


def test_the_report_says_1_chunk(tmp_path):
    folder = _one_paper(tmp_path / "papers")
    db = tmp_path / "x.duckdb"
    assert runner.invoke(app, ["ingest", str(folder), "--db", str(db), "--quiet"]).exit_code == 0
    report = runner.invoke(app, ["report", "--db", str(db)])
    assert report.exit_code == 0, report.output
    assert "0 failed; 0 pages, 1 chunk, " in report.stdout
    assert "max 14 (1 chunk)" in report.stdout
    assert "1 chunks" not in report.stdout


def test_export_says_how_many_bibliography_records_it_left_out_and_how_to_keep_them(db, tmp_path):
    out = tmp_path / "chunks.jsonl"
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"46 records → {out} (run 1: pass --since 1 next time); 6 bibliography records left out: --all exports them too\n"
    )


def test_export_with_all_leaves_nothing_out_and_says_nothing_of_it(db, tmp_path):
    out = tmp_path / "chunks.jsonl"
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(out), "--all"])
    assert result.stderr == f"52 records → {out} (run 1: pass --since 1 next time)\n"


def test_search_marks_the_query_terms_in_each_snippet(db):
    result = runner.invoke(app, ["search", "IL-6", "--doc", "flat/lee-2022.md", "--limit", "1", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "median serum **IL-6** was higher in these patients" in result.stdout


def test_inspect_says_1_section_1_chunk_and_1_word(tmp_path):
    paper = tmp_path / "b.md"
    paper.write_text("Word.\n")
    result = runner.invoke(app, ["inspect", str(paper)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("b.md: 1 section, 1 chunk\n")
    assert "(other; 1 word; line 1)  → chunk 1 (front, 1 word)" in result.stdout
