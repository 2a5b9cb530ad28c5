"""A file that changes between the folder's listing and its reading is stored as it was read:
the documents row's hash is of the bytes the worker parsed, so the next run compares the folder
with what the database really holds."""

from __future__ import annotations

import hashlib

from pipeline.extract import extraction_key
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest import run as ingest_run
from pipeline.ingest.scan import scan_folder
from pipeline.ingest.task import run_task, task_for, worker_context

OLD = "# A paper\n\n## Results\n\nThe cats slept through the trial.\n"
NEW = "# A paper\n\n## Results\n\nThe dogs barked through the trial.\n"
OPTIONS = IngestOptions(workers=1)


def _changed_after_listing(monkeypatch, file, content):
    """Make the next run's listing see the file as it is, then write `content` to it before any worker reads it."""
    listed = ingest_run.scan_folder

    def scan_then_change(folder, *known):
        scan = listed(folder, *known)
        file.write_text(content)
        return scan

    monkeypatch.setattr(ingest_run, "scan_folder", scan_then_change)


def _stored(db):
    with open_readonly(db) as connection:
        return connection.execute("SELECT sha256, bytes, text FROM documents").fetchone()


def test_the_stored_hash_is_of_the_bytes_whose_text_is_stored(tmp_path, rules, monkeypatch):
    folder = tmp_path / "papers"
    folder.mkdir()
    paper = folder / "a.md"
    paper.write_text(OLD)
    db = tmp_path / "papers.duckdb"
    _changed_after_listing(monkeypatch, paper, NEW)
    ingest_folder(folder, db, rules, OPTIONS)
    sha256, size, text = _stored(db)
    assert "dogs" in text
    assert (sha256, size) == (hashlib.sha256(NEW.encode()).hexdigest(), len(NEW.encode()))


def test_a_file_reverted_after_a_changed_read_is_read_again(tmp_path, rules, monkeypatch):
    folder = tmp_path / "papers"
    folder.mkdir()
    paper = folder / "a.md"
    paper.write_text(OLD)
    db = tmp_path / "papers.duckdb"
    with monkeypatch.context() as patch:
        _changed_after_listing(patch, paper, NEW)
        ingest_folder(folder, db, rules, OPTIONS)
    paper.write_text(OLD)
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert (summary.updated, summary.unchanged) == (1, 0)
    assert "cats" in _stored(db)[2]


def test_a_task_from_a_stale_listing_records_the_bytes_it_read(tmp_path, rules):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.md").write_text(OLD)
    stale = scan_folder(folder).files[0]
    (folder / "a.md").write_text(NEW)
    result = run_task(task_for(stale, None, extraction_key(rules)), worker_context(rules))
    assert result.read == (hashlib.sha256(NEW.encode()).hexdigest(), len(NEW.encode()))
    assert hashlib.sha256(NEW.encode()).hexdigest().encode() in result.rows.lines["documents"]


def test_a_file_that_fails_after_a_change_records_the_bytes_that_failed(tmp_path, rules):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.md").write_text(OLD)
    stale = scan_folder(folder).files[0]
    (folder / "a.md").write_bytes(b"")
    result = run_task(task_for(stale, None, extraction_key(rules)), worker_context(rules))
    assert (result.status, result.read) == ("failed", (hashlib.sha256(b"").hexdigest(), 0))
