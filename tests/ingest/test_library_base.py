"""A library over a base: a run that changes a few papers writes them and a small catalog, never
the base that holds the rest; a run killed at any moment, or one that fails between writing a new
base and publishing the catalog that names it, leaves the library as it was, readable."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys

import pytest

import duckdb

from pipeline.errors import IndexingError
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder, publish

SECTION = "## Results {index}\n\n" + "IL-6 levels rose in the treated cohort of patients. " * 60 + "\n\n"


def _paper(index: int, extra: str = "") -> str:
    return f"# Paper {index}\n\n" + "".join(SECTION.format(index=part) for part in range(12)) + extra


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _bases(db) -> list:
    return sorted(db.parent.glob(db.name + ".base-*"))


def _count(db, table: str) -> int:
    connection = open_readonly(db)
    try:
        return connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        connection.close()


def _rows(db, statement: str) -> list:
    connection = open_readonly(db)
    try:
        return connection.execute(statement).fetchall()
    finally:
        connection.close()


@pytest.fixture()
def small_base(monkeypatch):
    """Libraries of a few papers get a base, and keep it while a run changes a few of them."""
    monkeypatch.setattr(publish, "MIN_BASE_CHUNKS", 1)
    monkeypatch.setattr(publish, "REWRITE_FRACTION", 10.0)


@pytest.fixture()
def library(tmp_path, rules, small_base):
    """A published library of 10 papers over a base."""
    folder = tmp_path / "papers"
    folder.mkdir()
    for index in range(10):
        (folder / f"p{index:03}.md").write_text(_paper(index))
    db = tmp_path / "out" / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    return folder, db


def test_a_library_past_its_first_size_is_a_small_catalog_over_a_base(library):
    _, db = library
    [base] = _bases(db)
    assert base.stat().st_size > db.stat().st_size
    assert _count(db, "chunks") == 120


def test_a_run_that_changes_one_paper_leaves_the_base_file_untouched(library, rules):
    folder, db = library
    [base] = _bases(db)
    before = (base.stat().st_ino, base.stat().st_mtime_ns, _digest(base))
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert summary.updated == 1
    assert _bases(db) == [base]
    assert (base.stat().st_ino, base.stat().st_mtime_ns, _digest(base)) == before
    assert _rows(db, "SELECT count(*) FROM chunks WHERE text LIKE '%Cytokines rose again%'") == [(1,)]


def test_a_changed_and_a_removed_paper_leave_no_row_of_theirs_from_the_base(library, rules):
    folder, db = library
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    (folder / "p004.md").unlink()
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert _rows(db, "SELECT doc_id, count(*) FROM chunks WHERE doc_id IN ('p003.md', 'p004.md') GROUP BY ALL") == [("p003.md", 12)]
    assert _rows(db, "SELECT count(*) FROM chunk_postings WHERE chunk_id LIKE 'p004.md:%'") == [(0,)]
    assert _rows(db, "SELECT count(DISTINCT chunk_id) FROM chunk_postings") == [(108,)]


def test_the_library_over_a_base_holds_the_rows_a_library_without_one_holds(library, rules, tmp_path, monkeypatch):
    folder, db = library
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    (folder / "p004.md").unlink()
    (folder / "p010.md").write_text(_paper(10))
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    monkeypatch.setattr(publish, "MIN_BASE_CHUNKS", 10**9)
    whole = tmp_path / "whole" / "papers.duckdb"
    ingest_folder(folder, whole, rules, IngestOptions(workers=1))
    assert _bases(whole) == []
    for table, order in (("chunks", "chunk_id"), ("chunk_postings", "term, chunk_id"), ("paragraph_postings", "term, paragraph_key"),
                         ("documents", "doc_id"), ("extractions", "doc_id"), ("chunk_boxes", "chunk_id")):
        columns = "* EXCLUDE (ingested_at)" if table == "documents" else "*"
        statement = f"SELECT {columns} FROM {table} ORDER BY {order}"
        assert _rows(db, statement) == _rows(whole, statement), table


def test_a_run_that_fails_after_writing_a_new_base_leaves_the_library_as_it_was(library, rules, monkeypatch):
    folder, db = library
    monkeypatch.setattr(publish, "REWRITE_FRACTION", 0.01)  # the next run makes a new base
    [base] = _bases(db)
    before = _digest(db)

    def fail(*arguments, **keywords):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(publish, "_write_catalog", fail)
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    with pytest.raises(IndexingError, match="keeps its last complete state"):
        ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert _digest(db) == before and _bases(db) == [base]
    assert _count(db, "chunks") == 120


def test_the_files_a_run_killed_before_publishing_left_are_removed_by_the_next(library, rules):
    folder, db = library
    [base] = _bases(db)
    # What a run killed between writing a new base and publishing the catalog over it leaves.
    orphan = db.with_name(db.name + ".base-0123456789abcdef")
    orphan.write_bytes(base.read_bytes())
    db.with_name(db.name + ".building-999999.catalog").write_bytes(db.read_bytes())
    assert _count(db, "chunks") == 120
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert summary.leftovers_removed == 2
    assert _bases(db) == [base]
    assert list(db.parent.glob(db.name + ".building-*")) == []


def test_a_library_whose_base_is_missing_is_a_clear_error(library):
    _, db = library
    [base] = _bases(db)
    base.rename(base.with_name("elsewhere"))
    with pytest.raises(IndexingError, match=rf"the library {db} is incomplete: its base {base.name} is missing.*run `pipeline ingest`"):
        open_readonly(db)


def _flatten(db, flat) -> None:
    """Write the library at `db` as the layout before bases wrote it: every table in `main`."""
    connection = duckdb.connect(str(flat))
    [base] = _bases(db)
    connection.execute(f"ATTACH '{db}' AS library (READ_ONLY)")
    connection.execute(f"ATTACH '{base}' AS base (READ_ONLY)")
    tables = [name for (name,) in connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'library' AND table_schema = 'main' "
        "AND table_name <> 'chunk_pages'"
    ).fetchall()]
    for table in tables:
        connection.execute(f"CREATE TABLE main.{table} AS SELECT * FROM library.main.{table}")
    connection.execute("CREATE INDEX chunks_by_id ON main.chunks (chunk_id)")
    connection.execute("CREATE VIEW main.chunk_pages AS SELECT chunk_id, doc_id, unnest(pages) AS page FROM main.chunks")
    connection.close()


def test_a_database_of_the_layout_before_bases_becomes_the_base_as_it_is(library, rules, tmp_path):
    folder, db = library
    flat = tmp_path / "flat" / "papers.duckdb"
    flat.parent.mkdir()
    _flatten(db, flat)
    inode = flat.stat().st_ino
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    summary = ingest_folder(folder, flat, rules, IngestOptions(workers=1))
    assert summary.updated == 1 and summary.rebuilt_from_schema is None
    [base] = _bases(flat)
    assert base.stat().st_ino == inode  # linked, not copied
    assert _count(flat, "chunks") == 120
    assert _rows(flat, "SELECT count(*) FROM chunks WHERE text LIKE '%Cytokines rose again%'") == [(1,)]


def test_a_small_database_of_the_layout_before_bases_is_laid_out_in_place_without_a_base(tmp_path, rules, monkeypatch):
    folder = tmp_path / "papers"
    folder.mkdir()
    for index in range(3):
        (folder / f"p{index:03}.md").write_text(_paper(index))
    default_size = publish.MIN_BASE_CHUNKS
    monkeypatch.setattr(publish, "MIN_BASE_CHUNKS", 1)  # a base to flatten from
    ingest_folder(folder, tmp_path / "out" / "papers.duckdb", rules, IngestOptions(workers=1))
    monkeypatch.setattr(publish, "MIN_BASE_CHUNKS", default_size)  # 36 chunks: under it
    flat = tmp_path / "flat" / "papers.duckdb"
    flat.parent.mkdir()
    _flatten(tmp_path / "out" / "papers.duckdb", flat)
    (folder / "p001.md").write_text(_paper(1, "Cytokines rose again.\n"))
    summary = ingest_folder(folder, flat, rules, IngestOptions(workers=1))
    assert summary.updated == 1
    assert _bases(flat) == []
    # The duckdb CLI reads it as it is, with no base to attach.
    plain = duckdb.connect(str(flat), read_only=True)
    try:
        assert plain.execute("SELECT count(*) FROM chunks WHERE text LIKE '%Cytokines rose again%'").fetchone() == (1,)
    finally:
        plain.close()


def _ingest_command(folder, db):
    return [sys.executable, "-m", "pipeline", "ingest", str(folder), "--db", str(db), "--workers", "2"]


@pytest.mark.slow
def test_kill_9_mid_run_leaves_the_library_and_its_base_as_they_were(library):
    folder, db = library
    for index in range(10, 200):
        (folder / f"p{index:03}.md").write_text(_paper(index))
    [base] = _bases(db)
    before = (_digest(db), _digest(base))
    process = subprocess.Popen(_ingest_command(folder, db), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    written = 0
    while written < 20:
        line = process.stderr.readline()
        assert line, "the ingest ended before the kill"
        written += line.startswith("ingested")
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    assert (_digest(db), _digest(base)) == before
    assert _count(db, "documents") == 10
    result = subprocess.run(_ingest_command(folder, db) + ["--quiet"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert _count(db, "documents") == 200
    assert list(db.parent.glob(db.name + ".building-*")) == []


def test_an_export_onto_the_base_of_the_library_it_reads_is_refused(library):
    from pipeline.errors import PipelineError
    from pipeline.export.destination import refuse_database_files

    _, db = library
    [base] = _bases(db)
    with pytest.raises(PipelineError, match="writing there would destroy the database"):
        refuse_database_files(base, db)


def test_a_library_that_grew_past_its_first_size_without_a_base_becomes_one_as_it_is(tmp_path, rules, monkeypatch):
    folder = tmp_path / "papers"
    folder.mkdir()
    for index in range(10):
        (folder / f"p{index:03}.md").write_text(_paper(index))
    db = tmp_path / "out" / "papers.duckdb"
    monkeypatch.setattr(publish, "MIN_BASE_CHUNKS", 10**9)
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    inode = db.stat().st_ino
    monkeypatch.setattr(publish, "MIN_BASE_CHUNKS", 100)
    monkeypatch.setattr(publish, "REWRITE_FRACTION", 10.0)
    (folder / "p003.md").write_text(_paper(3, "Cytokines rose again.\n"))
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    [base] = _bases(db)
    assert base.stat().st_ino == inode  # linked, not copied
    assert _rows(db, "SELECT count(*), count(*) FILTER (text LIKE '%Cytokines rose again%') FROM chunks") == [(120, 1)]
