"""Never half-written, readers never blocked: real ingest subprocesses, killed and raced; and a
full disk, simulated, met with a clear error."""

from __future__ import annotations

import errno
import hashlib
import signal
import subprocess
import sys
import time

import pytest

import duckdb

from pipeline.ingest import publish, run
from pipeline.errors import IndexingError
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.index.database import open_readonly

SECTION = "## Results {index}\n\n" + "IL-6 levels rose in the treated cohort of patients. " * 60 + "\n\n"


def _paper(index: int) -> str:
    return f"# Paper {index}\n\n" + "".join(SECTION.format(index=part) for part in range(12))


def _ingest_command(folder, db, *extra):
    return [sys.executable, "-m", "pipeline", "ingest", str(folder), "--db", str(db), "--workers", "2", *extra]


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _documents(db) -> int:
    connection = open_readonly(db)
    try:
        return connection.execute("SELECT count(*) FROM documents").fetchone()[0]
    finally:
        connection.close()


@pytest.fixture()
def library(tmp_path):
    """A published database of 20 papers, and 80 more waiting in the folder."""
    folder = tmp_path / "papers"
    folder.mkdir()
    for index in range(20):
        (folder / f"p{index:03}.md").write_text(_paper(index))
    db = tmp_path / "out" / "papers.duckdb"
    subprocess.run(_ingest_command(folder, db, "--quiet"), check=True)
    for index in range(20, 100):
        (folder / f"p{index:03}.md").write_text(_paper(index))
    return folder, db


def _add_backlog(folder, count=400):
    """More papers waiting, for a test that stops the run after a few: the run must still be far
    from its end when the signal lands, however fast the pipeline or slow the test's turn to run."""
    for index in range(100, 100 + count):
        (folder / f"p{index:03}.md").write_text(_paper(index))


def _wait_for_building_file(db, process, limit=30.0):
    deadline = time.monotonic() + limit
    while not list(db.parent.glob(db.name + ".building-*")):
        assert process.poll() is None, "the ingest ended before it started building"
        assert time.monotonic() < deadline, "the ingest never started building"
        time.sleep(0.01)


def _start_ingest(folder, db):
    """An ingest whose progress lines (one per written paper) the test reads as they come."""
    return subprocess.Popen(_ingest_command(folder, db), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_for_papers_written(process, count):
    # Progress lines, not sleeps, say where the run is: a faster pipeline cannot outrun them.
    written = 0
    while written < count:
        line = process.stderr.readline()
        assert line, f"the ingest ended after {written} of the {count} papers the test waited for"
        written += line.startswith("ingested")


# Kill before the first paper is written, after the first, halfway (of 480 waiting, so that the
# kill surely lands mid-run), and after the last (while the index is ordered and the run published).
@pytest.mark.slow
@pytest.mark.parametrize(("papers_written", "waiting"), [(0, 80), (1, 80), (240, 480), (80, 80)])
def test_kill_9_at_any_moment_leaves_the_published_database_as_it_was(library, papers_written, waiting):
    folder, db = library
    _add_backlog(folder, waiting - 80)
    before = _digest(db)
    process = _start_ingest(folder, db)
    _wait_for_building_file(db, process)
    _wait_for_papers_written(process, papers_written)
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stderr.close()
    if papers_written < waiting:
        assert process.returncode == -signal.SIGKILL, "the ingest finished before the kill reached it"
    if process.returncode == -signal.SIGKILL:
        assert _digest(db) == before
        assert _documents(db) == 20
    # The next run cleans up after the killed one and completes.
    result = subprocess.run(_ingest_command(folder, db, "--quiet"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert _documents(db) == len(list(folder.glob("*.md")))
    assert list(db.parent.glob(db.name + ".building-*")) == []


@pytest.mark.parametrize(("stop", "code", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C (SIGINT)")])
def test_sigterm_and_ctrl_c_stop_the_run_clean_and_say_nothing_was_published(library, stop, code, name):
    folder, db = library
    _add_backlog(folder)
    before = _digest(db)
    process = _start_ingest(folder, db)
    _wait_for_building_file(db, process)
    _wait_for_papers_written(process, 5)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code
    assert stderr.splitlines()[-1] == f"Error: stopped by {name}: nothing was published, {db} keeps its last complete state"
    assert "resource_tracker" not in stderr and "Traceback" not in stderr
    assert list(db.parent.glob(db.name + ".building-*")) == []
    assert _digest(db) == before


@pytest.mark.parametrize(("stop", "code", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C (SIGINT)")])
def test_sigterm_and_ctrl_c_during_a_first_ingest_say_no_database_was_created(library, tmp_path, stop, code, name):
    folder, _ = library
    _add_backlog(folder)
    db = tmp_path / "first" / "papers.duckdb"
    process = _start_ingest(folder, db)
    _wait_for_papers_written(process, 5)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code
    assert stderr.splitlines()[-1] == f"Error: stopped by {name}: nothing was published and no database was created at {db}"
    assert not db.exists() and list(db.parent.glob(db.name + ".building-*")) == []


def test_the_spill_folder_of_a_run_killed_mid_sort_is_cleaned_up_by_the_next_run(library):
    folder, db = library
    # What DuckDB leaves when killed while a sort or join spilled past its memory limit.
    spill = db.with_name(db.name + ".building-999999.tmp")
    spill.mkdir()
    (spill / "duckdb_temp_storage-0.tmp").write_bytes(b"\0" * 1024)
    result = subprocess.run(_ingest_command(folder, db, "--quiet"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert _documents(db) == 100
    assert list(db.parent.glob(db.name + ".building-*")) == []


@pytest.mark.slow
def test_readers_get_the_last_complete_state_during_a_run_and_the_new_one_after(library):
    folder, db = library
    _add_backlog(folder)
    process = _start_ingest(folder, db)
    _wait_for_building_file(db, process)
    _wait_for_papers_written(process, 1)
    process.send_signal(signal.SIGSTOP)  # held mid-run, so the reads below surely fall inside it
    try:
        assert _documents(db) == 20
        reader = subprocess.run([sys.executable, "-m", "pipeline", "sql", "SELECT count(*) FROM chunks", "--db", str(db)],
                                capture_output=True, text=True)
        assert reader.returncode == 0, reader.stderr
    finally:
        process.send_signal(signal.SIGCONT)
    seen = set()
    while process.poll() is None:
        seen.add(_documents(db))  # never a lock error, never a half-written count
    process.communicate()
    assert process.returncode == 0
    assert seen <= {20, 500}
    assert _documents(db) == 500


@pytest.mark.slow
def test_a_second_ingest_exits_at_once_with_its_own_code(library):
    folder, db = library
    _add_backlog(folder)
    first = _start_ingest(folder, db)
    try:
        _wait_for_building_file(db, first)
        _wait_for_papers_written(first, 1)
        first.send_signal(signal.SIGSTOP)
        try:
            second = subprocess.run(_ingest_command(folder, db), capture_output=True, text=True, timeout=30)
        finally:
            first.send_signal(signal.SIGCONT)
        assert second.returncode == 4
        assert second.stderr.startswith(f"Error: another ingest is running on {db}")
    finally:
        first.communicate()
    assert first.returncode == 0


# ---------------------------------------------------------------- a full disk


@pytest.fixture()
def published(tmp_path, rules):
    """A database of one paper, and a second paper waiting."""
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.md").write_text(_paper(1))
    db = tmp_path / "out" / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    (folder / "b.md").write_text(_paper(2))
    return folder, db


def test_a_disk_too_full_to_copy_the_database_is_a_clear_error_and_leaves_no_half_copy(published, rules, monkeypatch):
    folder, db = published
    before = _digest(db)

    def copy_half(source, target):
        target.write_bytes(source.read_bytes()[:1000])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(publish.shutil, "copyfile", copy_half)
    with pytest.raises(IndexingError, match=r"No space left on device.*keeps its last complete state; free space in"):
        ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert _digest(db) == before
    assert list(db.parent.glob(db.name + ".building-*")) == []


def test_a_disk_that_fills_up_during_a_first_ingest_says_no_database_was_created(tmp_path, rules, monkeypatch):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.md").write_text(_paper(1))
    db = tmp_path / "out" / "papers.duckdb"

    def flush(self):
        raise duckdb.IOException('Could not write file "papers.duckdb.building-1": No space left on device')

    monkeypatch.setattr(run.DocumentWriter, "flush", flush)
    with pytest.raises(IndexingError, match=r"No space left on device.*\. no database was created at .*papers\.duckdb; free space in"):
        ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert not db.exists()


def test_a_disk_that_fills_up_while_writing_is_a_clear_error_and_changes_nothing(published, rules, monkeypatch):
    folder, db = published
    before = _digest(db)

    def flush(self):
        raise duckdb.IOException('Could not write file "papers.duckdb.building-1": No space left on device')

    monkeypatch.setattr(run.DocumentWriter, "flush", flush)
    with pytest.raises(IndexingError, match=r"could not write .*papers.duckdb: .*No space left on device.*free space in"):
        ingest_folder(folder, db, rules, IngestOptions(workers=1))
    assert _digest(db) == before
    assert _documents(db) == 1
    assert list(db.parent.glob(db.name + ".building-*")) == []
