"""Handing files to the pool's workers and taking their results as they finish.

A bounded number of files is in flight at a time, so results wait in memory only briefly and
the writer's memory does not grow with the folder; the largest files go first, so a run does
not end with one worker busy on a big file while the others wait.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Iterator

import pebble

from pipeline.errors import RunStopped
from pipeline.extract import extraction_key
from pipeline.ingest.plan import PlannedFile
from pipeline.ingest.scan import ScannedFile
from pipeline.ingest.task import TaskResult, failed, over_time_limit, run_task_in_worker, task_for, worker_died
from pipeline.rules import Rules

IN_FLIGHT_PER_WORKER = 8
"""Files queued per worker: enough that workers never idle while the writer writes a batch, few
enough that results waiting to be written stay a small part of memory."""


class FileScheduler:
    """Hands `files` to `pool` as workers free up and gives their results as they finish.

    `start` hands on the first files at once, so the workers begin while the caller does other
    work (removing the old rows); `results` then gives (file, result) pairs, handing on one more
    file for each one done. A file to re-chunk has its stored extraction read
    (`read_extraction(doc_id)`) as it is handed on, so only the files in flight hold theirs in
    memory. A file that could not be read fails without a worker.
    """

    def __init__(
        self,
        pool: pebble.ProcessPool,
        rules: Rules,
        timeout_seconds: float,
        in_flight: int,
        read_extraction: Callable[[str], str | None],
    ) -> None:
        self.pool = pool
        self.rules = rules
        self.timeout_seconds = timeout_seconds
        self.in_flight = in_flight
        self.read_extraction = read_extraction
        self.extraction_key = extraction_key(rules)
        self._waiting: Iterator[PlannedFile] = iter(())
        self._unreadable: list[ScannedFile] = []
        self._running: dict[concurrent.futures.Future, ScannedFile] = {}

    def start(self, files: list[PlannedFile]) -> None:
        self._unreadable = [planned.scanned for planned in files if planned.scanned.read_error is not None]
        readable = [planned for planned in files if planned.scanned.read_error is None]
        # Bytes are the one size known before a file is opened.
        self._waiting = iter(sorted(readable, key=lambda planned: planned.scanned.bytes, reverse=True))
        for _ in range(self.in_flight):
            self._hand_on_next()

    def _hand_on_next(self) -> None:
        planned = next(self._waiting, None)
        if planned is None:
            return
        item = planned.scanned
        # Gone only if the stored row vanished meanwhile: the file is then read again.
        stored = self.read_extraction(item.doc_id) if planned.reuse_extraction else None
        task = task_for(item, stored, self.extraction_key)
        # The pool's workers hold the rules from their start (`prepare_worker`): only the task travels.
        self._running[self.pool.schedule(run_task_in_worker, args=(task,), timeout=self.timeout_seconds)] = item

    def results(self) -> Iterator[tuple[ScannedFile, TaskResult]]:
        for item in self._unreadable:
            yield item, failed(item.read_error)
        while self._running:
            done, _ = concurrent.futures.wait(self._running, return_when=concurrent.futures.FIRST_COMPLETED)
            # Of the files done, the one handed on first: one worker's results come in its order.
            future = next(future for future in self._running if future in done)
            item = self._running.pop(future)
            self._hand_on_next()
            if not self._running:
                # Every file is done: the pool's shutdown then overlaps the last write.
                self.pool.stop()
            yield item, self._result(item, future)

    def _result(self, item: ScannedFile, future: concurrent.futures.Future) -> TaskResult:
        try:
            return future.result()
        except concurrent.futures.TimeoutError:
            return failed(over_time_limit(item.path, self.timeout_seconds))
        except pebble.ProcessExpired as error:
            return failed(worker_died(item.path, f"exit code {error.exitcode}"))
        except RunStopped:
            # SIGTERM's handler raises in this thread wherever it stands, here too: it stops the
            # run, and is no file's failure.
            raise
        except Exception as error:  # noqa: BLE001 - a broken pool fails this file, recorded, and the run goes on
            return failed(f"{item.path}: the worker pool failed ({type(error).__name__}: {error})")
