"""What an attacker, or a careless night, does to the pipeline: each case a defect found once and
fixed, so that no later change brings it back."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.errors import IngestBusyError
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.publish import Publication

runner = CliRunner()
PAPER = "# A paper\n\n## Results\n\nSerum IL-6 rose in the treated cohort.\n"
OPTIONS = IngestOptions(workers=1)


@pytest.fixture()
def papers(tmp_path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.md").write_text(PAPER)
    return folder


@pytest.fixture()
def published(papers, tmp_path, rules) -> Path:
    db = tmp_path / "out" / "papers.duckdb"
    ingest_folder(papers, db, rules, OPTIONS)
    return db


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- `sql` reads, and only reads


@pytest.mark.parametrize(
    "statement",
    [
        "COPY (SELECT 'x') TO '{db}' (FORMAT csv)",
        "COPY chunks TO '{folder}/chunks.csv'",
        "ATTACH '{folder}/other.duckdb'",
        "ATTACH '{folder}/other.duckdb' (READ_WRITE)",
        "EXPORT DATABASE '{folder}/export'",
        "INSTALL httpfs",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM glob('{folder}/*')",
        "SET enable_external_access = true",
        "DELETE FROM chunks",
    ],
)
def test_sql_cannot_write_attach_export_install_or_read_files(published, statement):
    before = _digest(published)
    query = statement.format(db=published, folder=published.parent)
    result = runner.invoke(app, ["sql", query, "--db", str(published)])
    assert result.exit_code == 1 and result.stderr.startswith("Error: the query failed:")
    assert _digest(published) == before
    assert sorted(path.name for path in published.parent.iterdir()) == ["papers.duckdb", "papers.duckdb.lock"]


def test_sql_that_reaches_for_a_file_is_told_it_reads_the_database_alone(published):
    result = runner.invoke(app, ["sql", "SELECT * FROM read_csv('/etc/passwd')", "--db", str(published)])
    assert "reads the database and nothing else" in result.stderr


@pytest.mark.parametrize("statement", ["", ";", "  ;\n "])
def test_an_empty_query_is_a_one_line_error(published, statement):
    result = runner.invoke(app, ["sql", statement, "--db", str(published)])
    assert result.exit_code == 1
    assert result.stderr == 'Error: the query is empty; pass a SQL statement, e.g. pipeline sql "SELECT count(*) FROM chunks"\n'


def test_search_runs_on_the_same_reader_that_cannot_write(published):
    connection = open_readonly(published)
    with pytest.raises(Exception, match="file system operations are disabled"):
        connection.execute(f"COPY (SELECT 1) TO '{published}'")


# ---------------------------------------------------------------- --db


def test_a_db_that_is_a_folder_is_a_one_line_error(papers, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for command in (["ingest", str(papers), "--db", str(folder)], ["sql", "SELECT 1", "--db", str(folder)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1 and result.stderr.startswith("Error: ") and "is a folder" in result.stderr
        assert result.stderr.count("\n") == 1


def test_publishing_through_a_link_updates_the_database_it_points_to(papers, published, tmp_path, rules):
    link = tmp_path / "link.duckdb"
    link.symlink_to(published)
    (papers / "b.md").write_text(PAPER)
    ingest_folder(papers, link, rules, OPTIONS)
    assert link.is_symlink()
    assert open_readonly(published).execute("SELECT count(*) FROM documents").fetchone()[0] == 2


def test_two_paths_to_one_database_share_one_lock(papers, published, tmp_path, rules):
    link = tmp_path / "link.duckdb"
    link.symlink_to(published)
    with Publication(published):
        with pytest.raises(IngestBusyError):
            ingest_folder(papers, link, rules, OPTIONS)


def test_a_db_in_a_folder_that_does_not_exist_says_it_created_it(papers, tmp_path, rules):
    db = tmp_path / "new" / "place" / "papers.duckdb"
    summary = ingest_folder(papers, db, rules, OPTIONS)
    assert summary.line().endswith(f"(created the folder {db.parent})")


# ---------------------------------------------------------------- file names and folders


def test_a_file_name_that_is_not_utf8_is_ingested_under_an_escaped_path_and_the_run_goes_on(papers, tmp_path, rules):
    (papers / os.fsdecode(b"caf\xe9.md")).write_text(PAPER)
    db = tmp_path / "papers.duckdb"
    summary = ingest_folder(papers, db, rules, OPTIONS)
    assert summary.added == 2 and not summary.failed
    rows = open_readonly(db).execute("SELECT path, doc_id, status FROM documents ORDER BY path").fetchall()
    assert rows == [("a.md", "a.md", "ingested"), ("caf\\xe9.md", "caf%E9.md", "ingested")]


@pytest.fixture()
def unlistable(monkeypatch):
    """Makes folders unlistable as `chmod 000` does for anyone but root, who runs the tests here."""
    folders: set[Path] = set()
    listing = os.scandir

    def scandir(path="."):
        if Path(path) in folders:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return folders


def test_papers_in_a_folder_that_cannot_be_listed_are_kept_and_the_run_reports_them(papers, tmp_path, rules, unlistable):
    (papers / "sub").mkdir()
    (papers / "sub" / "b.md").write_text(PAPER)
    db = tmp_path / "papers.duckdb"
    ingest_folder(papers, db, rules, OPTIONS)
    unlistable.add(papers / "sub")
    summary = ingest_folder(papers, db, rules, OPTIONS)
    assert (summary.removed, list(summary.failed)) == (0, ["sub/b.md"])
    assert "its folder sub cannot be listed (Permission denied)" in summary.failed["sub/b.md"]
    assert open_readonly(db).execute("SELECT count(*) FROM chunks WHERE doc_id = 'sub/b.md'").fetchone()[0] > 0


def test_an_unlistable_folder_makes_the_command_exit_3(papers, tmp_path, unlistable):
    (papers / "sub").mkdir()
    unlistable.add(papers / "sub")
    result = runner.invoke(app, ["ingest", str(papers), "--db", str(tmp_path / "papers.duckdb"), "--quiet"])
    assert result.exit_code == 3


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists folders whatever their permissions")
def test_a_folder_chmod_000_keeps_its_papers(papers, tmp_path, rules):
    (papers / "sub").mkdir()
    (papers / "sub" / "b.md").write_text(PAPER)
    db = tmp_path / "papers.duckdb"
    ingest_folder(papers, db, rules, OPTIONS)
    (papers / "sub").chmod(0)
    try:
        summary = ingest_folder(papers, db, rules, OPTIONS)
    finally:
        (papers / "sub").chmod(0o755)
    assert (summary.removed, list(summary.failed)) == (0, ["sub/b.md"])


def test_a_file_name_with_a_line_break_stays_one_log_line(papers, tmp_path):
    (papers / "two\nlines.md").write_bytes(b"")
    result = runner.invoke(app, ["ingest", str(papers), "--db", str(tmp_path / "papers.duckdb")])
    assert result.exit_code == 3
    assert "failed    two\\nlines.md: the file is empty; nothing to ingest" in result.stderr.splitlines()
    assert "  failed: two\\nlines.md: the file is empty; nothing to ingest" in result.stderr.splitlines()
