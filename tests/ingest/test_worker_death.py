"""An ingest killed with SIGKILL takes its processes with it: the pool's workers, the fork server
they come from and multiprocessing's resource tracker. A worker left busy on a long paper kept
half a core for as long as the paper took, and kept the server and the tracker alive with it; the
tracker then wrote its leaked-semaphore warning into whatever ran next on that terminal or log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Run as the ingest's main module, which every worker imports again before its first file: each
# worker's stages are then a loop that stays busy, as on a paper of thousands of pages.
DRIVER = '''
import os
import sys
import time
from pathlib import Path

import pipeline.ingest.task


def busy(*args, **kwargs):
    Path(os.environ["BUSY_WORKERS"], str(os.getpid())).touch()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pass
    raise RuntimeError("the worker outlived its ingest")


pipeline.ingest.task.process = busy

if __name__ == "__main__":
    from pipeline.ingest import IngestOptions, ingest_folder
    from pipeline.rules import load_rules

    ingest_folder(Path(sys.argv[1]), Path(sys.argv[2]), load_rules(), IngestOptions(workers=2))
'''


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The name, in parentheses, may hold spaces; the fields after it are the state, then the ppid.
    return int(stat.rsplit(")", 1)[1].split()[1])


def _descendants(pid: int) -> set[int]:
    parents = {int(entry): _parent_of(int(entry)) for entry in os.listdir("/proc") if entry.isdigit()}
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _running(pid: int) -> bool:
    """Whether the process is there and not a zombie, which runs nothing and waits to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the ingest's processes in /proc (Linux)")
def test_kill_9_of_an_ingest_leaves_none_of_its_processes_running(tmp_path):
    folder, markers = tmp_path / "papers", tmp_path / "busy"
    folder.mkdir()
    markers.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text("# A paper\n\n## Results\n\nSerum IL-6 rose.\n")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    environment = {**os.environ, "BUSY_WORKERS": str(markers)}
    ingest = subprocess.Popen(
        [sys.executable, str(driver), str(folder), str(tmp_path / "papers.duckdb")], env=environment, stderr=subprocess.DEVNULL
    )
    started: set[int] = set()
    try:
        assert _wait_for(lambda: len(os.listdir(markers)) == 2 or ingest.poll() is not None, 60)
        assert ingest.poll() is None, "the ingest ended before its workers were busy"
        started = _descendants(ingest.pid)
        workers = {int(name) for name in os.listdir(markers)}
        # The fork server, the resource tracker and the two workers, at the least.
        assert workers <= started and len(started) >= 4
        ingest.send_signal(signal.SIGKILL)
        ingest.wait()
        _wait_for(lambda: not any(_running(pid) for pid in started), 10)
        assert {pid for pid in started if _running(pid)} == set()
    finally:
        # What the kill left, stopped here rather than left busy for the next test.
        for pid in started:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        if ingest.poll() is None:
            ingest.kill()
