"""The stages as Ray tasks (`ingest --engine ray`, `export-shards`): a task runs the local pool's
`run_task` on a few files and writes their rows as Parquet shards (`pipeline.ingest.shards`);
the run's one writer then loads the shards, as the local engine loads its workers' rows.

Ray is an optional extra (`pip install '.[ray]'`) and is imported only here. On a cluster, every
node needs this pipeline installed and must see the papers' folder and the shard folder (beside the
database's working copy, or `--shards-dir`) at the same paths (a shared file system).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import shutil
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.errors import PipelineError
from pipeline.extract import extraction_key
from pipeline.index.database import read_extraction
from pipeline.index.writer import remove_documents
from pipeline.ingest.plan import PlannedFile, RunPlan
from pipeline.ingest.run import IngestOptions
from pipeline.ingest.summary import Progress, RunSummary, count_result
from pipeline.ingest.scan import ScannedFile
from pipeline.ingest.shards import (
    SHARD_SUFFIX,
    load_shards,
    new_run_folder,
    shard_key,
    shard_path,
    shards_complete,
    write_shards,
)
from pipeline.ingest.task import (
    Task, TaskResult, WorkerContext, failed, failure_rows, over_time_limit, run_task, task_for, worker_context, worker_died,
)
from pipeline.rules import Rules

TASKS_IN_FLIGHT_PER_CPU = 2
"""Tasks handed to Ray per cluster CPU at a time: each CPU has the next task waiting, and the
results waiting for the driver stay few."""


RETRIES = 3
"""Times Ray runs a task again after its worker died (a node lost, a worker killed)."""


STUCK_GRACE_SECONDS = 30.0
"""How long past its time limit a file may stay inside native code (MuPDF), where the alarm
cannot stop it, before its worker is ended: the local pool ends its process at the limit itself."""


class _OverTimeLimit(BaseException):
    """Raised in a Ray worker by the per-file alarm: a BaseException, so that `run_task`'s own
    net for a file's errors does not catch it as the file's internal error."""


def over_time_marker(shard_folder: Path, key: str, path: str) -> Path:
    """Where a worker ended for a file stuck past its time limit leaves word of it for the task's
    next try. Beside the task's documents shard, under a name no shard has: `remove_other_shards`
    deletes it with the other half-written files, and an ingest with its shard folder."""
    digest = hashlib.sha256(path.encode()).hexdigest()[:16]
    return shard_path(shard_folder, "documents", key).with_name(f"{key}{SHARD_SUFFIX}.over-time-{digest}")


def _end_stuck_worker(marker: Path) -> None:
    """Leave the marker and end this worker: Ray runs the task again, which fails the file from it."""
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    finally:
        os._exit(1)


def _run_with_time_limit(task: Task, context: WorkerContext, seconds: float, marker: Path) -> TaskResult:
    """`run_task` on one file, stopped after `seconds`, with the local pool's message. Ray cannot
    stop a task, and no process pool stands behind the worker, so an alarm interrupts the file in
    the worker's own thread; code inside MuPDF is interrupted only once it returns to Python, so a
    file still there `STUCK_GRACE_SECONDS` later ends the worker, and the task's next try fails
    the file without reading it (`marker`)."""
    if marker.exists():
        return failed(over_time_limit(task.path, seconds))
    if threading.current_thread() is not threading.main_thread():
        return run_task(task, context)

    def stop(number: int, frame: object) -> None:
        raise _OverTimeLimit

    previous = signal.signal(signal.SIGALRM, stop)
    watchdog = threading.Timer(seconds + STUCK_GRACE_SECONDS, _end_stuck_worker, args=(marker,))
    watchdog.daemon = True
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog.start()
    try:
        return run_task(task, context)
    except _OverTimeLimit:
        return failed(over_time_limit(task.path, seconds))
    finally:
        watchdog.cancel()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_shard_task(tasks: Sequence[Task], rules: Rules, shard_folder: str, timeout_seconds: float) -> list[TaskResult]:
    """What a Ray task does: the stages on each file, every file's rows (a failed file's
    documents row among them) written as shards named by `shard_key`; the results come back
    without their rows. The task's files share one context (the rules, a term counter)."""
    papers, results = [], []
    key = shard_key(tasks, rules)
    context = worker_context(rules)
    for task in tasks:
        result = _run_with_time_limit(task, context, timeout_seconds, over_time_marker(Path(shard_folder), key, task.path))
        rows = result.rows
        if rows is None:
            rows = failure_rows(task.path, task.doc_id, task.sha256, task.bytes, result, rules)
        papers.append(rows)
        results.append(dataclasses.replace(result, rows=None))
    write_shards(papers, Path(shard_folder), key)
    return results


def group_files(files: Sequence[PlannedFile], files_per_task: int) -> list[list[PlannedFile]]:
    """The readable files in groups of about `files_per_task`, in path order, a group ending
    after a file whose path's digest says so: a file added or removed changes only its own group,
    so the other groups keep their shard names (what lets `export-shards` skip them next time)."""
    groups: list[list[PlannedFile]] = [[]]
    for planned in sorted(files, key=lambda planned: planned.scanned.path):
        groups[-1].append(planned)
        digest = int.from_bytes(hashlib.sha256(planned.scanned.path.encode()).digest()[:8], "big")
        if digest % files_per_task == 0 or len(groups[-1]) >= 4 * files_per_task:
            groups.append([])
    return [group for group in groups if group]


# Each worker of a Ray the pipeline starts or joins is prepared as a pool worker is: the
# garbage collector leaves the stages' modules alone and runs less often (`prepare_worker`).
RAY_RUNTIME_ENV = {"worker_process_setup_hook": "pipeline.ingest.workers.prepare_ray_worker"}


@contextmanager
def connected_to_ray(address: str | None, cpus: int) -> Iterator[int]:
    """Ray, joined at `address` (`auto`, `HOST:PORT`) or started here with `cpus` CPUs (None);
    gives the cluster's CPUs. One the caller has started already is used as it is, its workers
    as its runtime environment sets them up (`RAY_RUNTIME_ENV` prepares them as pool workers)."""
    try:
        import ray
    except ImportError:
        raise PipelineError(
            "--engine ray needs Ray, which is an optional extra: from the project folder, pip install -e '.[ray]'; "
            "or run with the default --engine local"
        ) from None
    started_here = not ray.is_initialized()
    if started_here:
        try:
            ray.init(
                address=address, num_cpus=None if address else cpus, include_dashboard=False,
                log_to_driver=False, logging_level=logging.WARNING, runtime_env=RAY_RUNTIME_ENV,
            )
        except (ConnectionError, RuntimeError, ValueError) as error:
            where = f"the Ray cluster at {address}" if address else "a local Ray"
            raise PipelineError(f"cannot start or join {where}: {error}; check --ray-address and that the cluster is up") from None
    try:
        yield max(1, int(ray.cluster_resources().get("CPU", 1)))
    finally:
        if started_here:
            ray.shutdown()


@dataclass
class _Group:
    key: str
    items: list[ScannedFile]


class RayScheduler:
    """Hands groups of files to Ray as tasks and gives each file's result as its task finishes.

    Like the local `FileScheduler`: `start` hands on the first tasks, `results` gives (file,
    result) pairs and hands on one more task for each one done. Every row goes into a shard,
    those of unreadable files too (written here); `keys` names the shards to load. A task whose
    worker died is run again by Ray; one that still dies is split into one task a file, so that
    only the file that kills its worker fails.
    """

    def __init__(
        self,
        rules: Rules,
        shard_folder: Path,
        timeout_seconds: float,
        files_per_task: int,
        read_extraction: Callable[[str], str | None],
    ) -> None:
        import ray

        self.rules = rules
        self.shard_folder = shard_folder
        self.timeout_seconds = timeout_seconds
        self.files_per_task = files_per_task
        self.read_extraction = read_extraction
        self.extraction_key = extraction_key(rules)
        self.keys: list[str] = []
        self.skipped: list[ScannedFile] = []
        self.skipped_keys: list[str] = []
        self._retries = RETRIES
        self._remote = ray.remote(num_cpus=1, max_retries=self._retries)(run_shard_task)
        self._rules_ref = ray.put(rules)
        self._waiting: list[list[PlannedFile]] = []
        self._running: dict[object, tuple[_Group, list[PlannedFile]]] = {}
        self._unreadable: list[ScannedFile] = []
        self._in_flight = 1

    def start(self, files: Sequence[PlannedFile], cluster_cpus: int, skip_written: bool = False) -> None:
        """Hand on the first tasks; with `skip_written`, a group whose shards are all in the shard
        folder already (the same files, rules and pipeline) is not sent, and counts in `skipped`."""
        self._unreadable = [planned.scanned for planned in files if planned.scanned.read_error is not None]
        readable = [planned for planned in files if planned.scanned.read_error is None]
        groups = []
        for group in group_files(readable, self.files_per_task):
            key = shard_key([task_for(planned.scanned, None, self.extraction_key) for planned in group], self.rules)
            if skip_written and not any(planned.reuse_extraction for planned in group) and shards_complete(self.shard_folder, key):
                self.keys.append(key)
                self.skipped_keys.append(key)
                self.skipped.extend(planned.scanned for planned in group)
            else:
                groups.append(group)
        # The biggest groups first, so the run does not end waiting on one.
        groups.sort(key=lambda group: sum(planned.scanned.bytes for planned in group), reverse=True)
        self._waiting = groups[::-1]  # popped from the end
        self._in_flight = TASKS_IN_FLIGHT_PER_CPU * cluster_cpus
        self._write_failures([(item, failed(item.read_error)) for item in self._unreadable])
        for _ in range(self._in_flight):
            self._hand_on_next()

    def _write_failures(self, failures: Sequence[tuple[ScannedFile, TaskResult]]) -> None:
        """Write, here in the driver, the rows of files that failed without a task to write them."""
        if not failures:
            return
        tasks = [task_for(item, None, self.extraction_key) for item, _ in failures]
        rows = [failure_rows(item.path, item.doc_id, item.sha256, item.bytes, result, self.rules) for item, result in failures]
        key = shard_key(tasks, self.rules)
        write_shards(rows, self.shard_folder, key)
        self.keys.append(key)

    def _hand_on_next(self) -> None:
        if not self._waiting:
            return
        group = self._waiting.pop()
        tasks = [
            task_for(planned.scanned, self.read_extraction(planned.scanned.doc_id) if planned.reuse_extraction else None, self.extraction_key)
            for planned in group
        ]
        reference = self._remote.remote(tasks, self._rules_ref, str(self.shard_folder), self.timeout_seconds)
        self._running[reference] = (_Group(shard_key(tasks, self.rules), [planned.scanned for planned in group]), group)

    def results(self) -> Iterator[tuple[ScannedFile, TaskResult]]:
        import ray

        for item in self._unreadable:
            yield item, failed(item.read_error)
        while self._running:
            [done], _ = ray.wait(list(self._running), num_returns=1)
            group, planned = self._running.pop(done)
            try:
                results = ray.get(done)
            except ray.exceptions.RayTaskError as error:
                # The task's own error (a shard it could not write) stops the run, as a write does locally.
                cause = error.cause if isinstance(error.cause, PipelineError) else None
                if cause is not None:
                    raise cause from None
                raise
            except ray.exceptions.RayError as error:
                yield from self._after_dying(group, planned, error)
                self._hand_on_next()
                continue
            self.keys.append(group.key)
            self._hand_on_next()
            yield from zip(group.items, results, strict=True)

    def _after_dying(
        self, group: _Group, planned: list[PlannedFile], error: Exception
    ) -> Iterator[tuple[ScannedFile, TaskResult]]:
        """A task that died on every try: its files again one a task, or, for one file, the file failed."""
        if len(planned) > 1:
            self._waiting.extend([one] for one in planned)
            for _ in planned[1:]:
                self._hand_on_next()
            return
        [item] = group.items
        result = failed(worker_died(item.path, f"{type(error).__name__} after {self._retries + 1} tries"))
        self._write_failures([(item, result)])
        yield item, result


def carry_out_on_ray(
    plan: RunPlan,
    connection: duckdb.DuckDBPyConnection,
    building: Path,
    rules: Rules,
    options: IngestOptions,
    progress: Progress,
    summary: RunSummary,
) -> None:
    """Run the stages on the planned files as Ray tasks and load their shards into the working
    copy `building`, the stale rows removed first; the shards go once loaded, or once the run
    fails. By default they sit beside the working copy, where the next run removes them should
    this one be killed; in `options.shards_dir`, in a folder of this run's own, which a killed run
    leaves there (the next run cannot tell it from another database's run)."""
    # Checked first, so that a folder the workers cannot use is reported even by a run with nothing to do.
    if options.shards_dir is not None:
        shards = new_run_folder(options.shards_dir, building.name)
    else:
        shards = building.with_name(building.name + ".shards")
    try:
        if not plan.to_process:  # nothing for Ray to do: not worth starting one
            remove_documents(connection, list(plan.stale_doc_ids))
            summary.removed = len(plan.removed)
            return
        with connected_to_ray(options.ray_address, options.workers) as cpus:
            scheduler = RayScheduler(
                rules, shards, options.timeout_seconds, options.files_per_task, lambda doc_id: read_extraction(connection, doc_id)
            )
            scheduler.start(plan.to_process, cpus)
            remove_documents(connection, list(plan.stale_doc_ids), keep_extractions_of=plan.reused_extractions)
            summary.removed = len(plan.removed)
            for item, result in scheduler.results():
                count_result(summary, item, result)
                progress.file_done(item.path, result.status, result.pages, result.chunks, result.error)
        load_shards(connection, shards, scheduler.keys)
    finally:
        shutil.rmtree(shards, ignore_errors=True)
