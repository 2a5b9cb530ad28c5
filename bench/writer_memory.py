"""Where the writer's memory goes during a first run over N copies of the shared corpus: the
process's resident memory beside DuckDB's own account of what it holds, phase by phase.

    .venv/bin/python bench/writer_memory.py [--corpus ../shared/corpus] [--copies 10] [--workers 2]
                                            [--memory-limit 4GB] [--folder LAID_OUT] [--tracemalloc]

runs `ingest_folder` in this process (so it is the writer) into a fresh database, sampling every
0.25 s: the process's `VmRSS` and `RssAnon` (/proc/self/status), the bytes DuckDB's buffer manager
says it holds (`duckdb_memory()`, through a cursor of the writer's own database) and, with
`--tracemalloc`, what Python's own objects hold. Each sample is labelled with the step the run is
in. It prints each step's peak and writes the samples to `out/writer_memory.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from corpus import find_corpus, lay_out

PROJECT = Path(__file__).resolve().parent.parent


def _status_mib(pid: int | str = "self", wanted: frozenset = frozenset({"VmRSS", "VmHWM", "RssAnon", "RssFile"})) -> dict[str, float]:
    found = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in wanted:
                found[name] = int(value.split()[0]) / 1024
    except OSError:  # it exited meanwhile
        pass
    return found


def _mib(size: str) -> float:
    """MiB in a size as DuckDB takes it (4GB is 4 * 1000**3 bytes, 4GiB 4 * 1024**3)."""
    number, unit = re.fullmatch(r"([\d.]+)\s*([KMGT]i?B)", size.strip(), re.IGNORECASE).groups()
    power = "KMGT".index(unit[0].upper()) + 1
    return float(number) * (1024 if "i" in unit.lower() else 1000) ** power / 2**20


def _below(pid: int) -> list[int]:
    """Every process below `pid` (the fork server and the workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, waiting = [], [pid]
    while waiting:
        for child in children.get(waiting.pop(), []):
            found.append(child)
            waiting.append(child)
    return found


class Sampler(threading.Thread):
    def __init__(self, python: bool) -> None:
        super().__init__(daemon=True)
        self.python = python
        self.step = "start"
        self.cursor = None
        self.duckdb_limit = None
        self.samples: list[dict] = []
        self.done = threading.Event()

    def run(self) -> None:
        started = time.monotonic()
        while not self.done.is_set():
            sample = {"t": round(time.monotonic() - started, 2), "step": self.step, **_status_mib()}
            below = [_status_mib(pid, frozenset({"VmHWM"})).get("VmHWM", 0.0) for pid in _below(os.getpid())]
            sample["largest_worker_hwm_mib"] = max(below, default=0.0)
            cursor = self.cursor
            if cursor is not None:
                try:
                    sample["duckdb_mib"] = cursor.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0] / 2**20
                    sample["duckdb_temp_mib"] = cursor.execute("SELECT sum(temporary_storage_bytes) FROM duckdb_memory()").fetchone()[0] / 2**20
                except Exception:  # noqa: BLE001 - the connection closed under the sampler
                    self.cursor = None
            if self.python:
                sample["python_mib"] = tracemalloc.get_traced_memory()[0] / 2**20
            self.samples.append(sample)
            self.done.wait(0.25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus")
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--folder", type=Path, help="a folder of copies laid out before (bench/corpus.py's lay_out)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="4GB")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--out", type=Path, default=PROJECT / "out" / "writer_memory.json")
    args = parser.parse_args()

    from pipeline.ingest import IngestOptions, ingest_folder
    from pipeline.ingest import run as ingest_run
    from pipeline.rules import load_rules

    work = Path(tempfile.mkdtemp(prefix="writer-memory-", dir=args.work))
    folder = args.folder or lay_out(find_corpus(args.corpus.resolve()), work / "corpus", args.copies)
    sampler = Sampler(args.tracemalloc)

    def stepped(name: str, function):
        def wrapped(*positional, **named):
            sampler.step = name
            try:
                return function(*positional, **named)
            finally:
                sampler.step = f"after {name}"
        return wrapped

    opened = ingest_run.open_for_writing

    def open_watched(*positional, **named):
        connection = opened(*positional, **named)
        sampler.cursor = connection.cursor()
        sampler.duckdb_limit = connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        return connection

    ingest_run.open_for_writing = open_watched
    for name in ("remove_documents", "_carry_out", "link_papers", "changes_of_run", "order_search_index", "record_run", "record_changes"):
        setattr(ingest_run, name, stepped(name, getattr(ingest_run, name)))
    if args.tracemalloc:
        tracemalloc.start(1)
    load_at_start = os.getloadavg()
    sampler.start()
    started = time.perf_counter()
    try:
        summary = ingest_folder(folder, work / "papers.duckdb", load_rules(), IngestOptions(workers=args.workers, memory_limit=args.memory_limit))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - started
    sampler.step = "done"
    time.sleep(0.3)
    sampler.done.set()
    sampler.join()
    peaks: dict[str, dict] = {}
    for sample in sampler.samples:
        peak = peaks.setdefault(sample["step"], {})
        for key, value in sample.items():
            if key not in ("t", "step"):
                peak[key] = max(peak.get(key, 0), value)
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"), "load_average_at_start": load_at_start, "load_average_at_end": os.getloadavg(),
        "copies": args.copies, "workers": args.workers, "memory_limit": args.memory_limit,
        "memory_limit_mib": _mib(args.memory_limit), "duckdb_memory_limit": sampler.duckdb_limit,
        "seconds": seconds, "chunks": summary.chunks, "files": summary.seen,
        "rss_main_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_worker_mib": max((sample["largest_worker_hwm_mib"] for sample in sampler.samples), default=0.0),
        "peaks_by_step": peaks, "samples": sampler.samples,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"{summary.seen} files, {summary.chunks} chunks, {seconds:.1f} s, peak RSS {report['rss_main_mib']:.0f} MiB "
          f"(limit {report['memory_limit_mib']:.0f} MiB, DuckDB's {sampler.duckdb_limit}), largest worker {report['rss_worker_mib']:.0f} MiB")
    for step, peak in peaks.items():
        print(f"{step:<28}" + "  ".join(f"{key} {value:,.0f}" for key, value in peak.items()))


if __name__ == "__main__":
    main()
