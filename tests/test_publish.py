"""Never half-written, readers never blocked: real ingest subprocesses, killed and raced."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time

import pytest

from pipeline.index import connect

SECTION = "## Results {index}\n\n" + "IL-6 levels rose in the treated cohort of patients. " * 60 + "\n\n"


def _paper(index: int) -> str:
    return f"# Paper {index}\n\n" + "".join(SECTION.format(index=part) for part in range(12))


def _ingest_command(folder, db, *extra):
    return [sys.executable, "-m", "pipeline", "ingest", str(folder), "--db", str(db), "--workers", "2", *extra]


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _documents(db) -> int:
    connection = connect(db, read_only=True)
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


def _wait_for_building_file(db, process, limit=30.0):
    deadline = time.monotonic() + limit
    while not list(db.parent.glob(db.name + ".building-*")):
        assert process.poll() is None, "the ingest ended before it started building"
        assert time.monotonic() < deadline, "the ingest never started building"
        time.sleep(0.01)


def test_a_full_run_takes_long_enough_to_be_interrupted(library):
    folder, db = library
    started = time.monotonic()
    subprocess.run(_ingest_command(folder, db, "--quiet"), check=True)
    assert time.monotonic() - started > 1.0  # else the kill test below would not hit the run's middle


@pytest.mark.parametrize("delay", [0.0, 0.5, 1.5, 2.5])
def test_kill_9_at_any_moment_leaves_the_published_database_as_it_was(library, delay):
    folder, db = library
    before = _digest(db)
    process = subprocess.Popen(_ingest_command(folder, db, "--quiet"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for_building_file(db, process)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    if process.returncode == -signal.SIGKILL:
        assert _digest(db) == before
        assert _documents(db) == 20
    # The next run cleans up after the killed one and completes.
    result = subprocess.run(_ingest_command(folder, db, "--quiet"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert _documents(db) == 100
    assert list(db.parent.glob(db.name + ".building-*")) == []


def test_readers_get_the_last_complete_state_during_a_run_and_the_new_one_after(library):
    folder, db = library
    process = subprocess.Popen(_ingest_command(folder, db, "--quiet"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for_building_file(db, process)
    seen = set()
    while process.poll() is None:
        seen.add(_documents(db))  # never a lock error, never a half-written count
        reader = subprocess.run([sys.executable, "-m", "pipeline", "sql", "SELECT count(*) FROM chunks", "--db", str(db)],
                                capture_output=True, text=True)
        assert reader.returncode == 0, reader.stderr
    assert process.returncode == 0
    assert seen <= {20, 100} and 20 in seen
    assert _documents(db) == 100


def test_a_second_ingest_exits_at_once_with_its_own_code(library):
    folder, db = library
    first = subprocess.Popen(_ingest_command(folder, db, "--quiet"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_building_file(db, first)
        second = subprocess.run(_ingest_command(folder, db), capture_output=True, text=True, timeout=30)
        assert second.returncode == 4
        assert second.stderr.startswith(f"Error: another ingest is running on {db}")
    finally:
        first.wait()
    assert first.returncode == 0
