"""`pipeline sql` as a user reads it: values whole in the vertical format, a cut cell in a table
marked and said, every statement's result in turn, and DuckDB's errors as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ingested_papers
from pipeline.cli import app

runner = CliRunner()
PAPER = "# A paper\n\n## Results\n\nSerum IL-6 rose in the treated cohort.\n"


@pytest.fixture(scope="module")
def db(tmp_path_factory, rules) -> Path:
    return ingested_papers(tmp_path_factory.mktemp("sql"), {"a.md": PAPER}, rules)


def _sql(db: Path, statement: str, *options: str):
    return runner.invoke(app, ["sql", statement, "--db", str(db), *options])


def test_vertical_prints_a_column_a_line_and_each_value_whole_with_its_line_breaks(db):
    long = "x" * 100
    result = _sql(db, f"SELECT 'a.md:1' AS chunk_id, '| A |' || chr(10) || '|---|' AS markdown, '{long}' AS text", "--format", "vertical")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "-[ row 1 ]",
        "chunk_id: a.md:1",
        "markdown: | A |",
        "          |---|",
        f"text:     {long}",
    ]


def test_vertical_numbers_its_rows_and_tells_null_from_an_empty_string(db):
    result = _sql(db, "SELECT * FROM (VALUES (1, NULL), (2, '')) AS t(n, note)", "--format", "vertical")
    assert result.stdout.splitlines() == ["-[ row 1 ]", "n:    1", "note: NULL", "-[ row 2 ]", "n:    2", "note:"]


def test_vertical_says_when_there_are_no_rows(db):
    assert _sql(db, "SELECT 1 AS n WHERE false", "--format", "vertical").stdout == "(no rows)\n"


def test_a_table_marks_a_cut_cell_and_says_where_to_see_it_whole(db):
    result = _sql(db, f"SELECT '{'y' * 70}' AS text")
    assert result.stdout.splitlines()[2] == "y" * 59 + "…"
    assert result.stderr == "(Cells longer than 60 characters are cut, marked …: --format vertical shows every value whole.)\n"


def test_a_table_that_cuts_nothing_says_nothing(db):
    assert _sql(db, "SELECT 'short' AS text").stderr == ""


def test_every_statement_prints_its_result_in_turn(db):
    result = _sql(db, "SELECT 1 AS first; SELECT 2 AS second")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["first", "-----", "1", "", "second", "------", "2"]


def test_a_statement_that_returns_nothing_prints_nothing(db):
    result = _sql(db, "SET threads = 1; SELECT current_setting('threads') AS threads", "--format", "csv")
    assert result.stdout.splitlines() == ["threads", "1"]


def test_json_prints_an_array_for_each_statement(db):
    text = _sql(db, "SELECT 1 AS a; SELECT 2 AS b", "--format", "json").stdout
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(text)
    second, _ = decoder.raw_decode(text[end:].lstrip())
    assert (first, second) == ([{"a": 1}], [{"b": 2}])


def test_a_failing_statement_stops_the_rest_and_is_named_by_its_place(db):
    result = _sql(db, "SELECT 1 AS first; SELECT nope FROM chunks; SELECT 3 AS third")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["first", "-----", "1"]
    assert result.stderr.startswith("Error: the query failed at statement 2 of 3: Binder Error: Referenced column \"nope\" not found")
    assert result.stderr.count("\n") == 1


def test_a_duckdb_error_is_one_line_without_the_caret_drawing(db):
    result = _sql(db, "SELECT nope FROM chunks")
    assert result.exit_code == 1
    assert result.stderr.startswith('Error: the query failed: Binder Error: Referenced column "nope" not found in FROM clause! Candidate bindings: ')
    assert result.stderr.count("\n") == 1 and "LINE 1" not in result.stderr


def test_a_syntax_error_is_one_line(db):
    result = _sql(db, "SELECT 1; SELEC 2")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == 'Error: the query failed: Parser Error: syntax error at or near "SELEC"\n'


def test_a_query_of_comments_alone_is_empty(db):
    result = _sql(db, "/* nothing to run */")
    assert result.exit_code == 1
    assert result.stderr == 'Error: the query is empty; pass a SQL statement, e.g. pipeline sql "SELECT count(*) FROM chunks"\n'


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT 1; COPY chunks TO '{folder}/chunks.csv'",
        "SELECT 1; ATTACH '{folder}/other.duckdb'; SELECT 2",
        "SELECT 1; DELETE FROM chunks",
        "SELECT 1; SET enable_external_access = true; SELECT * FROM read_csv('/etc/passwd')",
    ],
)
def test_a_later_statement_cannot_write_or_reach_a_file_either(db, statement):
    before = sorted(path.name for path in db.parent.iterdir())
    result = _sql(db, statement.format(folder=db.parent))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: the query failed at statement 2 of ") and result.stderr.count("\n") == 1
    assert sorted(path.name for path in db.parent.iterdir()) == before
