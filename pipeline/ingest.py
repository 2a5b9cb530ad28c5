"""One ingest run: find the papers in a folder, work out what changed, run the four stages on
what did in a process pool, write the new state apart and publish it atomically.

Files are keyed by their path relative to the folder. A file whose bytes, rules and pipeline
version match what is stored is skipped; a changed one is replaced in one transaction; a new
one added; a vanished one removed. A file that fails is recorded with its status and cause and
costs no other file; a file that takes longer than the time limit is stopped and failed.
"""

from __future__ import annotations

import concurrent.futures
import errno
import hashlib
import math
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import duckdb
import pebble

from pipeline import __version__
from pipeline.errors import IndexingError, MassRemovalError, PipelineError
from pipeline.extract import SUPPORTED_SUFFIXES
from pipeline.index import (
    DocumentWriter,
    RunRecord,
    connect,
    order_search_index,
    read_extraction,
    record_run,
    remove_documents,
    stored_documents,
    stored_extractions,
)
from pipeline.publish import Publication
from pipeline.rows import paper_rows
from pipeline.rules import Rules
from pipeline.stages import Task, TaskResult, document_row, extract_key, run_task
from pipeline.workers import start_fork_server, unrunnable_main_script

_SLUG_UNSAFE = re.compile(r"[^\w]+", re.UNICODE)
# Files queued per worker: enough that workers never idle while the writer flushes a batch,
# few enough that results waiting to be written stay a small part of memory.
_IN_FLIGHT_PER_WORKER = 8


def doc_id_for(relative_path: str) -> str:
    """A readable, stable id from a path: `Reviews/Berek 2021.md` → `reviews/berek-2021`."""
    stem = relative_path.rsplit(".", 1)[0] if "." in relative_path.rsplit("/", 1)[-1] else relative_path
    parts = [_SLUG_UNSAFE.sub("-", part.lower()).strip("-") for part in stem.split("/")]
    return "/".join(part or "_" for part in parts)


def find_papers(folder: Path) -> list[Path]:
    """Every Markdown and PDF file below `folder`, in a stable order; links to folders are not
    followed, so a symlink loop cannot trap the run."""
    found = []
    for root, folders, files in os.walk(folder, followlinks=False):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        found.extend(Path(root) / name for name in files if name.lower().endswith(SUPPORTED_SUFFIXES))
    return sorted(found, key=lambda path: path.relative_to(folder).as_posix())


def assign_doc_ids(paths: list[str]) -> dict[str, str]:
    """Doc ids for relative paths; where two files share a slug (`a.md`, `a.pdf`), the later one
    in path order keeps its extension in the id."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for path in sorted(paths):
        doc_id = doc_id_for(path)
        if doc_id in taken:
            doc_id = f"{doc_id}-{path.rsplit('.', 1)[-1].lower()}"
        taken.add(doc_id)
        ids[path] = doc_id
    return ids


# ---------------------------------------------------------------- the run


def available_cpus(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """CPUs this process may use: those it is allowed to run on (taskset, a container's cpuset),
    fewer where a cgroup quota (`docker --cpus`, a Kubernetes limit) allows less time. The
    machine's own count, `os.cpu_count()`, would start 64 workers in a 2-CPU container on a
    64-core host, each holding its memory and all throttled."""
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        quota, period = cpu_max.read_text().split()
    except (OSError, ValueError):
        return allowed
    if quota == "max":
        return allowed
    return max(1, min(allowed, math.ceil(int(quota) / int(period))))


@dataclass(frozen=True)
class IngestOptions:
    workers: int = field(default_factory=available_cpus)
    """Processes running extract/normalize/chunk; the database has one writer."""
    timeout_seconds: float = 300.0
    """A file still being processed after this long is stopped and failed."""
    allow_mass_removal: bool = False
    """Allow a run to remove more than half of the stored papers."""


class Progress(Protocol):
    """Where a run reports what it is doing (the CLI draws a bar or prints lines)."""

    def start(self, files: int, to_process: int) -> None: ...

    def file_done(self, path: str, status: str, pages: int, chunks: int, error: str | None) -> None: ...


class _Silent:
    def start(self, files: int, to_process: int) -> None:
        pass

    def file_done(self, path: str, status: str, pages: int, chunks: int, error: str | None) -> None:
        pass


@dataclass
class RunSummary:
    """What one run did: printed as one line, stored in `runs`, and given as `--json`."""

    folder: str
    database: str
    seen: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    """Relative path → cause, for every file that failed in this run."""
    still_failing: dict[str, str] = field(default_factory=dict)
    """Unchanged files whose stored status is a failure."""
    pages: int = 0
    chunks: int = 0
    section_types: Counter = field(default_factory=Counter)
    duration_seconds: float = 0.0
    run_id: int = 0
    leftovers_removed: int = 0

    def line(self) -> str:
        types = ", ".join(f"{name} {count}" for name, count in sorted(self.section_types.items()))
        failing = f", {len(self.still_failing)} still failing" if self.still_failing else ""
        return (
            f"{self.seen} files: {self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.removed} removed, {len(self.failed)} failed{failing}; {self.chunks} chunks written"
            f"{' (' + types + ')' if types else ''}; {self.duration_seconds:.1f} s → {self.database}"
        )

    def as_json(self) -> dict:
        return {**self.__dict__, "section_types": dict(self.section_types)}


@dataclass(frozen=True)
class _Scanned:
    file: Path
    path: str
    doc_id: str
    sha256: str
    bytes: int
    read_error: str | None


def _scan(folder: Path) -> list[_Scanned]:
    files = find_papers(folder)
    relative = [file.relative_to(folder).as_posix() for file in files]
    doc_ids = assign_doc_ids(relative)
    scanned = []
    for file, path in zip(files, relative):
        try:
            data = file.read_bytes()
        except OSError as error:
            scanned.append(_Scanned(file, path, doc_ids[path], "", 0, f"{path}: cannot read the file: {error.strerror}; check its permissions"))
            continue
        scanned.append(_Scanned(file, path, doc_ids[path], hashlib.sha256(data).hexdigest(), len(data), None))
    return scanned


def ingest_folder(
    folder: Path, db: Path, rules: Rules, options: IngestOptions = IngestOptions(), progress: Progress | None = None
) -> RunSummary:
    """Bring the database at `db` in line with the papers below `folder`, and publish it.

    The workers start from a fork server that imports the caller's main module, so a script
    that calls this must keep its work under `if __name__ == "__main__":`.
    """
    progress = progress or _Silent()
    started, clock = datetime.now(timezone.utc).replace(tzinfo=None), time.monotonic()
    if not folder.is_dir():
        raise PipelineError(f"{folder} is not a folder; pass the folder that holds your papers")
    script = unrunnable_main_script(sys.modules["__main__"])
    if script is not None:
        # Found here, before anything is written: found by the pool, every file failed.
        raise PipelineError(
            f"ingest_folder cannot start its workers from a script read as {script!r}: each worker runs "
            "the calling script again, and that needs a file. Save the script to a file and run that "
            '(with its work under `if __name__ == "__main__":`), or run `pipeline ingest`'
        )
    # The fork server imports the pipeline (0.5 s) while this process hashes the files, copies
    # the database and works out what changed; a run with nothing to do leaves it idle. The
    # command line starts it sooner still, and then this finds it running.
    context = start_fork_server()
    scanned = _scan(folder)
    summary = RunSummary(folder=str(folder), database=str(db), seen=len(scanned))
    with _writing_errors(db), Publication(db) as publication:
        summary.leftovers_removed = publication.leftovers_removed
        connection = connect(publication.building, shown_as=db)
        try:
            stored = stored_documents(connection)
            current = {item.path for item in scanned}
            removed = sorted(path for path in stored if path not in current)
            if stored and len(removed) > len(stored) / 2 and not options.allow_mass_removal:
                raise MassRemovalError(
                    f"this run would remove {len(removed)} of the {len(stored)} papers stored in {db} "
                    f"({folder} looks empty or wrong: is it mounted?); nothing was changed. "
                    "Pass --allow-mass-removal if that is what you want"
                )
            tasks = []
            extracted = stored_extractions(connection, extract_key(rules))
            for item in scanned:
                before = stored.get(item.path)
                if before and (before.sha256, before.rules_sha256, before.pipeline_version, before.doc_id) == (
                    item.sha256, rules.sha256, __version__, item.doc_id
                ) and item.read_error is None:
                    summary.unchanged += 1
                    if before.status != "ingested":
                        summary.still_failing[item.path] = before.status
                    continue
                if before is None:
                    summary.added += 1
                else:
                    summary.updated += 1
                # The stored extraction of these very bytes, under this id, is re-chunked instead
                # of the file; it is read as the file is handed to a worker, and its row stays.
                reuse = before is not None and before.doc_id == item.doc_id and extracted.get(item.doc_id) == item.sha256
                tasks.append((item, reuse))
        finally:
            connection.close()

        progress.start(len(scanned), len(tasks))
        # The pool outlives the writing: stopped once the last file is done, its shutdown (0.1 s
        # while pebble's threads wind down) overlaps the last write and the checkpoint instead of
        # following them. Workers start with the first file scheduled, so a run with nothing to
        # do starts none.
        workers = max(1, min(options.workers, len(tasks)))
        with pebble.ProcessPool(max_workers=workers, context=context) as pool:
            connection = connect(publication.building, shown_as=db)
            try:
                # The first files go to the workers before the old rows are removed, which they
                # would otherwise wait for (0.47 s of a rules change on the shared corpus).
                results = _run_tasks(pool, tasks, rules, options, lambda doc_id: read_extraction(connection, doc_id))
                # The rows of papers that vanished and of every paper written again (under its old
                # id, should a new `a.markdown` take `a` from `a.md`) go first, one statement a
                # table: deleting them batch by batch scanned the postings once a batch (a rules
                # change on 10 copies of the corpus took 72 s, a first run 54 s). Nothing is
                # published until the end, so readers never see them missing.
                rewritten = [stored[item.path].doc_id for item, _ in tasks if item.path in stored]
                reused = [item.doc_id for item, reuse in tasks if reuse]
                remove_documents(connection, [stored[path].doc_id for path in removed] + rewritten, keep_extractions_of=reused)
                summary.removed = len(removed)
                # One DuckDB thread while the workers run leaves them the other cores (Markdown
                # corpus, 2 workers: 4.7 s → 4.45 s); all of them again for ordering the index.
                connection.execute("SET threads = 1")
                writer = DocumentWriter(connection)
                for item, result in results:
                    _write_result(writer, item, result, rules, summary)
                    progress.file_done(item.path, result.status, result.pages, result.chunks, result.error)
                writer.flush()
                connection.execute("RESET threads")
                order_search_index(connection)
                summary.duration_seconds = time.monotonic() - clock
                summary.run_id = record_run(connection, _run_record(summary, started, rules))
                connection.execute("CHECKPOINT")
            except BaseException:
                # Leaving the pool's block otherwise waits for every file in flight to finish
                # first, each up to its time limit, before the error is reported.
                pool.stop()
                raise
            finally:
                connection.close()
        publication.publish()
    return summary


# What a disk or its permissions can do to a run; any other OSError is no writing problem.
_STORAGE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}


@contextmanager
def _writing_errors(db: Path) -> Iterator[None]:
    """A disk that cannot take the database's copy or its writes (full, read-only, not
    permitted), as an error that says so, once `Publication` has removed the half-built copy."""
    try:
        yield
    except (duckdb.Error, OSError) as error:
        if isinstance(error, OSError) and error.errno not in _STORAGE_ERRORS:
            raise
        full = getattr(error, "errno", None) == errno.ENOSPC or "No space left on device" in str(error)
        advice = (
            f"free space in {db.parent} (a run builds a copy of the database beside it) and run again"
            if full
            else f"check that {db.parent} is writable and has room, and run again"
        )
        cause = " ".join(str(error).split())
        raise IndexingError(f"could not write {db}: {cause}. {db} keeps its last complete state; {advice}") from None


def _run_tasks(
    pool: pebble.ProcessPool,
    tasks: list[tuple[_Scanned, bool]],
    rules: Rules,
    options: IngestOptions,
    read_extraction: Callable[[str], str | None],
) -> Iterator[tuple[_Scanned, TaskResult]]:
    """Hand the first files to `pool`'s workers now, and return an iterator of (file, result) as
    they finish, which hands on the rest as it goes. A file marked for reuse is re-chunked from
    its stored extraction, read as the file is handed on, so that only the files in flight hold
    theirs in memory. Unreadable files fail without a worker."""
    unreadable = [(item, TaskResult("failed", item.read_error)) for item, _ in tasks if item.read_error is not None]
    # Largest files first, so the run does not end with one worker busy on a big file while the
    # others wait; bytes are the one size known before a file is opened.
    runnable = sorted((pair for pair in tasks if pair[0].read_error is None), key=lambda pair: pair[0].bytes, reverse=True)
    # A bounded number of files in flight: results are written and dropped as they come,
    # so the writer's memory does not grow with the folder.
    queued = iter(runnable)
    in_flight: dict[concurrent.futures.Future, _Scanned] = {}

    def schedule_next() -> None:
        for item, reuse in queued:
            # Gone only if the stored row vanished meanwhile: the file is then read again.
            stored = read_extraction(item.doc_id) if reuse else None
            task = Task(str(item.file), item.path, item.doc_id, item.sha256, item.bytes, stored)
            in_flight[pool.schedule(run_task, args=(task, rules), timeout=options.timeout_seconds)] = item
            return

    for _ in range(_IN_FLIGHT_PER_WORKER * options.workers):
        schedule_next()
    return _finished(pool, unreadable, in_flight, schedule_next, options)


def _finished(
    pool: pebble.ProcessPool,
    unreadable: list[tuple[_Scanned, TaskResult]],
    in_flight: dict[concurrent.futures.Future, _Scanned],
    schedule_next: Callable[[], None],
    options: IngestOptions,
) -> Iterator[tuple[_Scanned, TaskResult]]:
    yield from unreadable
    while in_flight:
        done, _ = concurrent.futures.wait(in_flight, return_when=concurrent.futures.FIRST_COMPLETED)
        # Of the files done, the one scheduled first: one worker's results come in its order.
        future = next(future for future in in_flight if future in done)
        item = in_flight.pop(future)
        schedule_next()
        if not in_flight:
            pool.stop()  # every file is done; see ingest_folder
        try:
            yield item, future.result()
        except concurrent.futures.TimeoutError:
            yield item, TaskResult(
                "failed",
                f"{item.path}: stopped after {options.timeout_seconds:g} s (time limit per file); "
                "if the file is sound, raise --timeout",
            )
        except pebble.ProcessExpired as error:
            yield item, TaskResult(
                "failed", f"{item.path}: the worker died (exit code {error.exitcode}) reading this file; it may be corrupt"
            )
        except Exception as error:  # noqa: BLE001 - a broken pool fails this file, recorded, and the run goes on
            yield item, TaskResult("failed", f"{item.path}: the worker pool failed ({type(error).__name__}: {error})")


def _write_result(writer: DocumentWriter, item: _Scanned, result: TaskResult, rules: Rules, summary: RunSummary) -> None:
    if result.rows is None:
        row = document_row(item.path, item.doc_id, item.sha256, item.bytes, result.status, result.error, rules)
        writer.add(paper_rows(row, None))
        summary.failed[item.path] = result.error or result.status
        return
    writer.add(result.rows)
    summary.chunks += result.chunks
    summary.pages += result.pages
    summary.section_types.update(result.section_types)


def _run_record(summary: RunSummary, started: datetime, rules: Rules) -> RunRecord:
    return RunRecord(
        started_at=started,
        finished_at=datetime.now(timezone.utc).replace(tzinfo=None),
        folder=summary.folder,
        seen=summary.seen,
        added=summary.added,
        updated=summary.updated,
        unchanged=summary.unchanged,
        removed=summary.removed,
        failed=len(summary.failed),
        pages=summary.pages,
        chunks=summary.chunks,
        duration_seconds=summary.duration_seconds,
        pipeline_version=__version__,
        rules_sha256=rules.sha256,
    )
