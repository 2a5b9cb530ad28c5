"""A run over a folder that did not change reads no paper and leaves the database as it was.

A file is compared by its stat first (size, mtime, inode, as git's index and rsync do): one whose
stat is the one stored with its hash is not read. The papers here are given an mtime a minute
back, as a library's files are by the night's run: a file written within `SETTLED_NS` of its stat
vouches for nothing, and is read again by every run until it has settled.
"""

from __future__ import annotations

import hashlib
import os
import time

import pytest

from conftest import writable_database
from pipeline.export import ExportFormat, export_database
from pipeline.export.records import Selection
from pipeline.index.checks import last_check
from pipeline.index.database import checks_file, open_readonly
from pipeline.index.schema import SCHEMA_VERSION
from pipeline.index.search import search
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest import scan as ingest_scan
from pipeline.records.base import DocumentStatus
from pipeline.report.text import render_report

PAPER = "# {title}\n\n## Methods\n\nThe {word} cohort.\n\n## Results\n\nIL-6 rose in the {word}.\n"
OPTIONS = IngestOptions(workers=1)
A_MINUTE_AGO_NS = time.time_ns() - 60 * 10**9


def _write(folder, name, word="cats", mtime_ns=A_MINUTE_AGO_NS):
    path = folder / name
    path.write_text(PAPER.format(title=name, word=word))
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


@pytest.fixture()
def folder(tmp_path):
    papers = tmp_path / "papers"
    papers.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        _write(papers, name)
    return papers


@pytest.fixture()
def reads(monkeypatch):
    """The names of the files the scan reads and hashes, from the moment it is asked for."""
    read = []
    real = ingest_scan.read_and_hash

    def spy(file):
        read.append(file.name)
        return real(file)

    monkeypatch.setattr(ingest_scan, "read_and_hash", spy)
    return read


def _file_state(db):
    return hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns


def _text(db, doc_id):
    return open_readonly(db).execute("SELECT text FROM documents WHERE doc_id = ?", [doc_id]).fetchone()[0]


def test_a_second_run_over_an_unchanged_folder_reads_no_paper(folder, tmp_path, rules, reads):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    reads.clear()
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (reads, summary.hashed, summary.unchanged, summary.nothing_changed) == ([], 0, 3, True)


def test_a_run_that_changes_nothing_leaves_the_database_file_byte_for_byte(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    before = _file_state(db)
    ingest_folder(folder, db, rules, OPTIONS)
    assert _file_state(db) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["papers", "papers.duckdb", "papers.duckdb.checks.jsonl", "papers.duckdb.lock"]


def test_a_run_that_changes_nothing_is_logged_beside_the_database_and_not_in_runs(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    first = ingest_folder(folder, db, rules, OPTIONS)
    summary = ingest_folder(folder, db, rules, OPTIONS)
    check = last_check(db)
    assert (summary.run_id, check.run_id, check.seen, check.folder) == (first.run_id, first.run_id, 3, str(folder.resolve()))
    assert open_readonly(db).execute("SELECT run_id FROM runs").fetchall() == [(first.run_id,)]
    assert f"nothing changed since run {first.run_id}" in summary.line()


def test_the_report_shows_the_last_check_until_a_later_run_publishes(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    ingest_folder(folder, db, rules, OPTIONS)
    assert "3 files, nothing changed since #1" in render_report(open_readonly(db), rules.chunk)
    _write(folder, "d.md")
    ingest_folder(folder, db, rules, OPTIONS)
    assert "last checked" not in render_report(open_readonly(db), rules.chunk)


def test_export_since_the_last_run_still_works_after_a_run_that_changed_nothing(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    first = ingest_folder(folder, db, rules, OPTIONS)
    checked = ingest_folder(folder, db, rules, OPTIONS)
    summary = export_database(db, tmp_path / "since.jsonl", ExportFormat.jsonl, Selection(since_run_id=checked.run_id))
    assert (summary.run_id, summary.records) == (first.run_id, 0)


def test_a_file_rewritten_to_the_same_size_with_a_new_mtime_is_read_and_its_neighbours_are_not(folder, tmp_path, rules, reads):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    _write(folder, "b.md", word="dogs", mtime_ns=A_MINUTE_AGO_NS + 10**9)
    reads.clear()
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (reads, summary.updated, summary.unchanged) == (["b.md"], 1, 2)
    assert "dogs" in _text(db, "b.md")


def test_a_file_replaced_by_one_of_the_same_size_and_mtime_is_read_by_its_new_inode(folder, tmp_path, rules, reads):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    replacement = _write(tmp_path, "b.md", word="dogs")
    os.replace(replacement, folder / "b.md")
    reads.clear()
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (reads, summary.updated) == (["b.md"], 1)
    assert "dogs" in _text(db, "b.md")


def test_a_file_written_just_before_the_run_is_read_again_by_the_next(folder, tmp_path, rules, reads, monkeypatch):
    # Rewritten within the same tick of the file system's clock, a file keeps its size, mtime
    # and inode: a stat taken within SETTLED_NS of its mtime vouches for nothing, and is not
    # stored. (An hour here, so that "just before" is a minute ago whatever the machine's load.)
    monkeypatch.setattr(ingest_scan, "SETTLED_NS", 3600 * 10**9)
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    _write(folder, "a.md", word="dogs")
    reads.clear()
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (sorted(reads), summary.updated) == (["a.md", "b.md", "c.md"], 1)
    assert "dogs" in _text(db, "a.md")
    assert open_readonly(db).execute("SELECT count(*) FROM file_stats").fetchone()[0] == 0


def test_a_file_changed_after_its_bytes_were_read_is_read_again_by_the_next_run(folder, tmp_path, rules):
    # The stat stored is the one taken before the bytes were read: taken after, it would be the
    # changed file's, and the next run would keep the text of bytes the file no longer holds.
    class ChangeAfterRead:
        def start(self, files, to_process):
            pass

        def file_done(self, path, status, pages, chunks, error):
            _write(folder, path, word="dogs", mtime_ns=A_MINUTE_AGO_NS + 10**9)

    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS, ChangeAfterRead())
    assert "cats" in _text(db, "a.md")
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert summary.updated == 3
    assert "dogs" in _text(db, "a.md")


def test_a_file_changed_while_the_scan_reads_it_is_read_again_by_the_next_run(folder, tmp_path, rules, monkeypatch):
    # The stat stored is taken before the bytes are read: taken after, it would be the changed
    # file's, stored with the hash of bytes the file no longer holds, and vouch for them.
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    touched = A_MINUTE_AGO_NS + 10**9
    os.utime(folder / "a.md", ns=(touched, touched))  # read by the scan, found as stored, not by a worker
    _write(folder, "b.md", word="dogs", mtime_ns=touched)  # so that the run publishes
    real = hashlib.file_digest

    def digest_then_change(handle, name):
        digest = real(handle, name)
        if handle.name.endswith("a.md"):
            _write(folder, "a.md", word="dogs", mtime_ns=touched + 10**9)
        return digest

    with monkeypatch.context() as patch:
        patch.setattr(hashlib, "file_digest", digest_then_change)
        assert ingest_folder(folder, db, rules, OPTIONS).updated == 1
    assert "cats" in _text(db, "a.md")
    assert ingest_folder(folder, db, rules, OPTIONS).updated == 1
    assert "dogs" in _text(db, "a.md")


def test_touched_files_are_read_and_publish_nothing_until_a_rehash_stores_their_stat(folder, tmp_path, rules, reads):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    for path in folder.iterdir():
        os.utime(path, ns=(A_MINUTE_AGO_NS + 10**9, A_MINUTE_AGO_NS + 10**9))
    before = _file_state(db)
    touched = ingest_folder(folder, db, rules, OPTIONS)
    assert (touched.hashed, touched.nothing_changed, _file_state(db)) == (3, True, before)
    rehashed = ingest_folder(folder, db, rules, IngestOptions(workers=1, rehash=True))
    assert (rehashed.hashed, rehashed.unchanged, rehashed.nothing_changed) == (3, 3, False)
    reads.clear()
    assert (ingest_folder(folder, db, rules, OPTIONS).hashed, reads) == (0, [])


def test_rehash_reads_every_file_and_publishes_nothing_where_all_is_as_stored(folder, tmp_path, rules, reads):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    reads.clear()
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=1, rehash=True))
    assert (sorted(reads), summary.nothing_changed) == (["a.md", "b.md", "c.md"], True)


def test_an_unreadable_file_stored_as_failing_publishes_nothing(folder, tmp_path, rules):
    (folder / "gone.md").symlink_to(tmp_path / "nowhere.md")
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    before = _file_state(db)
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (summary.nothing_changed, summary.still_failing, _file_state(db)) == (True, {"gone.md": DocumentStatus.failed}, before)


def test_the_same_papers_from_another_folder_are_published_with_that_folder(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    moved = folder.rename(tmp_path / "moved")
    summary = ingest_folder(moved, db, rules, OPTIONS)
    assert (summary.unchanged, summary.nothing_changed) == (3, False)
    assert open_readonly(db).execute("SELECT folder FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()[0] == str(moved.resolve())


def _as_schema_11(db):
    """The database as 0.9.0 wrote it: no file_stats, no OCR tables."""
    connection = writable_database(db)
    connection.execute("DROP TABLE file_stats")
    for table in ("ocr_pages", "chunk_ocr"):  # papers' tables: views over the catalog's rows (pipeline.index.layout)
        connection.execute(f"DROP VIEW {table}")
        connection.execute(f"DROP TABLE rows.{table}")
    connection.execute("UPDATE pipeline_schema SET version = 11")
    connection.close()


def test_a_schema_11_database_is_searched_as_it_is(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    _as_schema_11(db)
    assert len(search(open_readonly(db), "cohort")) == 3


def test_a_schema_11_database_is_upgraded_by_hashing_every_file_and_reading_none_again(folder, tmp_path, rules, reads):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    _as_schema_11(db)
    reads.clear()
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (sorted(reads), summary.upgraded_from_schema, summary.updated, summary.unchanged) == (["a.md", "b.md", "c.md"], 11, 0, 3)
    connection = open_readonly(db)
    assert connection.execute("SELECT max(version) FROM pipeline_schema").fetchone()[0] == SCHEMA_VERSION
    assert connection.execute("SELECT doc_id FROM file_stats ORDER BY doc_id").fetchall() == [("a.md",), ("b.md",), ("c.md",)]
    connection.close()
    reads.clear()
    assert (ingest_folder(folder, db, rules, OPTIONS).nothing_changed, reads) == (True, [])


def test_the_checks_log_is_a_file_an_output_may_not_overwrite(folder, tmp_path, rules):
    from pipeline.errors import PipelineError
    from pipeline.export.destination import refuse_database_files

    db = tmp_path / "papers.duckdb"
    with pytest.raises(PipelineError, match="a file an ingest keeps beside it"):
        refuse_database_files(checks_file(db), db)
