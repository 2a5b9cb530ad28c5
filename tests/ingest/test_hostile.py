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


@pytest.mark.parametrize(
    "statement",
    [
        "PRAGMA enable_profiling",
        "SET profiling_output = 'x'",
        "SET enable_profiling = 'json'",
        "PRAGMA profiling_output = '{folder}/profile.txt'; PRAGMA enable_profiling; SELECT 1",
        'SET "Enable_Profiling" /* quoted */ = \'json\'; SELECT 1',
        "CALL enable_logging(storage = 'stdout')",
    ],
)
def test_sql_refuses_profiling_and_logging_in_one_line(published, statement):
    result = runner.invoke(app, ["sql", statement.format(folder=published.parent), "--db", str(published)])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: the query failed: it sets DuckDB's profiling or logging (")
    assert "reads the database and nothing else" in result.stderr and result.stderr.count("\n") == 1


def test_sql_refuses_logging_to_a_file_instead_of_aborting(published):
    import subprocess
    import sys

    statement = f"CALL enable_logging(storage = 'file', storage_path = '{published.parent}/logs'); SELECT 1"
    result = subprocess.run(
        [sys.executable, "-m", "pipeline", "sql", statement, "--db", str(published)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert result.stderr.startswith("Error: the query failed: it sets DuckDB's profiling or logging (enable_logging)")
    assert sorted(path.name for path in published.parent.iterdir()) == ["papers.duckdb", "papers.duckdb.lock"]


def test_a_column_that_mentions_profiling_in_a_string_is_read(published):
    result = runner.invoke(app, ["sql", "SELECT 'enable_profiling' AS setting -- enable_logging", "--db", str(published), "--format", "csv"])
    assert (result.exit_code, result.stdout) == (0, "setting\nenable_profiling\n")


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


@pytest.mark.parametrize("command", ["ingest", "sql"])
def test_a_db_that_is_a_folder_is_a_one_line_error(papers, tmp_path, command):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    source = {"ingest": str(papers), "sql": "SELECT 1"}[command]
    result = runner.invoke(app, [command, source, "--db", str(folder)])
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


def _fuzzed_pdfs(folder: Path, count: int) -> None:
    """`count` copies of a small PDF, each with bytes overwritten at random places (seeded)."""
    import random

    import pymupdf

    document = pymupdf.open()
    for number in range(3):
        document.new_page().insert_text((72, 72), f"Page {number}: serum IL-6 rose in the treated cohort.")
    data = document.tobytes()
    generator = random.Random(22)
    for index in range(count):
        damaged = bytearray(data)
        for _ in range(generator.randrange(5, 60)):
            damaged[generator.randrange(len(damaged))] = generator.randrange(256)
        (folder / f"fuzzed-{index:02}.pdf").write_bytes(bytes(damaged))


@pytest.mark.slow
def test_json_on_stdout_stays_json_whatever_mupdf_says_about_damaged_pdfs(papers, tmp_path):
    import json
    import subprocess
    import sys

    _fuzzed_pdfs(papers, 30)
    command = [sys.executable, "-m", "pipeline", "ingest", str(papers), "--db", str(tmp_path / "papers.duckdb"), "--json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode in (0, 3), result.stderr
    summary = json.loads(result.stdout)
    assert summary["seen"] == 31 and "MuPDF error" not in result.stdout


@pytest.fixture(scope="module")
def huge_inputs(tmp_path_factory, rules):
    """One run over the inputs that passed the adversarial pass by their size alone, so that a
    later change cannot make them stop a run: each is ingested or fails on its own."""
    import pymupdf

    folder = tmp_path_factory.mktemp("huge") / "papers"
    folder.mkdir()
    (folder / "good.md").write_text(PAPER)
    (folder / "one-line.md").write_text("# One line\n\n" + " ".join(f"word{n % 997} is here." for n in range(1_800_000)))
    (folder / "headings.md").write_text("".join(f"## Heading {n}\n\nText {n}.\n\n" for n in range(100_000)))
    (folder / "nested-lists.md").write_text("".join("  " * depth + "- item\n" for depth in range(5_000)))
    blank = pymupdf.open()
    for _ in range(2_000):
        blank.new_page()
    blank.save(folder / "blank-pages.pdf")
    db = folder.parent / "papers.duckdb"
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=2))
    statuses = dict(open_readonly(db).execute("SELECT path, status FROM documents").fetchall())
    return summary, statuses


@pytest.mark.slow
def test_a_30_mb_markdown_file_on_one_line_is_ingested(huge_inputs):
    _, statuses = huge_inputs
    assert statuses["one-line.md"] == "ingested"


@pytest.mark.slow
def test_a_paper_of_100_000_headings_is_ingested(huge_inputs):
    _, statuses = huge_inputs
    assert statuses["headings.md"] == "ingested"


@pytest.mark.slow
def test_5_000_nested_lists_are_ingested(huge_inputs):
    _, statuses = huge_inputs
    assert statuses["nested-lists.md"] == "ingested"


@pytest.mark.slow
def test_2_000_blank_pages_are_a_pdf_without_text_not_a_stuck_run(huge_inputs):
    summary, statuses = huge_inputs
    assert statuses["blank-pages.pdf"] == "no_text" and statuses["good.md"] == "ingested"
    assert "none of its 2000 pages has a text layer" in summary.failed["blank-pages.pdf"]


def test_a_catastrophic_pattern_in_the_rules_stops_at_the_time_limit_and_the_run_goes_on(papers, tmp_path):
    from conftest import edited_rules_file
    from pipeline.rules import load_rules

    # Nested repetition that a heading of many a's and no match at the end makes backtrack for ever.
    slow = edited_rules_file(tmp_path, 'name = "conclusion"\ntype = "conclusion"\npattern = "conclu|',
                             'name = "conclusion"\ntype = "conclusion"\npattern = "(a+)+$|conclu|')
    (papers / "trap.md").write_text("# Trap\n\n## " + "a" * 40 + "!\n\nText.\n")
    summary = ingest_folder(papers, tmp_path / "papers.duckdb", load_rules(slow), IngestOptions(workers=1, timeout_seconds=3))
    assert list(summary.failed) == ["trap.md"] and "stopped after 3 s (time limit per file)" in summary.failed["trap.md"]
    assert summary.added == 2


# ---------------------------------------------------------------- any night's changes, in any order

from unittest import mock  # noqa: E402 - only the property below patches the folder listing

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import table_snapshot  # noqa: E402
from pipeline.ingest.scan import doc_id_for  # noqa: E402

_NAMES = ["a.md", "a.pdf.md", "sub/b.md", "sub/c d.md", "other/é.md"]
_NIGHTS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(_NAMES), st.sampled_from(["cohort", "mice", "trial"])),
        st.tuples(st.just("remove"), st.sampled_from(_NAMES), st.just("")),
        st.tuples(st.just("rename"), st.sampled_from(_NAMES), st.sampled_from(_NAMES)),
        st.tuples(st.just("lock"), st.sampled_from(["sub", "other"]), st.just("")),
        st.tuples(st.just("unlock"), st.sampled_from(["sub", "other"]), st.just("")),
    ),
    min_size=1,
    max_size=3,
)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(nights=st.lists(_NIGHTS, min_size=1, max_size=3))
@example(nights=[[("write", "sub/b.md", "cohort")], [("lock", "sub", ""), ("write", "a.md", "mice")], [("unlock", "sub", "")]])
def test_after_any_nights_every_readable_paper_is_as_a_fresh_ingest_gives_it_and_each_unreadable_one_is_reported(
    tmp_path_factory, rules, nights
):
    root = tmp_path_factory.mktemp("nights")
    papers = root / "papers"
    papers.mkdir()
    locked: set[Path] = set()
    listing = os.scandir

    def scandir(path="."):
        if Path(path) in locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return listing(path)

    options = IngestOptions(workers=1, allow_mass_removal=True)
    stored: set[str] = set()
    assert nights  # the checks are made night by night: no night would check nothing
    with mock.patch.object(os, "scandir", scandir):
        for night, changes in enumerate(nights):
            for action, name, other in changes:
                _change(papers, locked, action, name, other)
            summary = ingest_folder(papers, root / "nightly.duckdb", rules, options)
            fresh = ingest_folder(papers, root / f"fresh-{night}.duckdb", rules, options)
            readable = {doc_id_for(path) for path in _listed(papers, locked)}
            kept = {path for path in stored if _under(path, locked)}
            assert table_snapshot(root / "nightly.duckdb", readable) == table_snapshot(root / f"fresh-{night}.duckdb")
            in_nightly = {path for _, path, *_ in table_snapshot(root / "nightly.duckdb")["documents"]}
            assert in_nightly == {path for path in _listed(papers, locked)} | kept
            assert kept <= set(summary.failed) and not fresh.removed
            stored = in_nightly


def _change(papers: Path, locked: set[Path], action: str, name: str, other: str) -> None:
    path = papers / name
    if _under(name, locked) or (action == "rename" and _under(other, locked)):
        return  # a locked folder cannot be written either
    if action == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PAPER.replace("treated cohort", other))
    elif action == "remove":
        path.unlink(missing_ok=True)
    elif action == "rename" and path.exists():
        (papers / other).parent.mkdir(parents=True, exist_ok=True)
        path.rename(papers / other)
    elif action == "lock":
        locked.add(papers / name)
    elif action == "unlock":
        locked.discard(papers / name)


def _under(relative: str, locked: set[Path]) -> bool:
    return any(relative.startswith(folder.name + "/") for folder in locked)


def _listed(papers: Path, locked: set[Path]) -> list[str]:
    return sorted(
        path.relative_to(papers).as_posix()
        for path in papers.rglob("*.md")
        if not _under(path.relative_to(papers).as_posix(), locked)
    )
