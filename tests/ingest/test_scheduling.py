"""How many workers a run starts, what they load, and in what order it hands them files."""

from __future__ import annotations

import concurrent.futures
import multiprocessing.process
import os
import subprocess
import sys
import types

import pebble
import pytest

import pipeline.ingest.run
import pipeline.ingest.task
from pipeline.errors import IndexingError, PipelineError, RunStopped
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.plan import Change, PlannedFile
from pipeline.ingest.pool import FileScheduler
from pipeline.ingest.run import available_cpus
from pipeline.ingest.scan import ScannedFile
from pipeline.extract import extraction_key
from pipeline.ingest.task import Task, TaskResult, run_task_in_worker, start_worker
from pipeline.ingest.workers import prepare_worker, preloaded_modules, unrunnable_main_script
from pipeline.records.base import DocumentStatus


class _Recorder:
    def __init__(self) -> None:
        self.done: list[str] = []

    def start(self, files: int, to_process: int) -> None:
        pass

    def file_done(self, path: str, status: str, pages: int, chunks: int, error: str | None) -> None:
        self.done.append(path)


def test_the_largest_files_go_first_so_a_big_file_does_not_end_the_run_alone(tmp_path, rules):
    for name, sections in (("a-small.md", 1), ("b-large.md", 30), ("c-medium.md", 10)):
        (tmp_path / name).write_text("# Paper\n\n" + "## Results\n\nIL-6 rose in the cohort.\n\n" * sections)
    recorder = _Recorder()
    # One worker finishes files in the order it was given them.
    ingest_folder(tmp_path, tmp_path / "out" / "papers.duckdb", rules, IngestOptions(workers=1), recorder)
    assert recorder.done == ["b-large.md", "c-medium.md", "a-small.md"]


class _Pool:
    """Stands in for the process pool: records what it was handed, and every file is done at once."""

    def __init__(self) -> None:
        self.handed: list[str] = []
        self.arguments: list[tuple] = []

    def schedule(self, function, args, timeout):
        self.arguments.append(args)
        (task,) = args
        self.handed.append(task.path)
        future = concurrent.futures.Future()
        future.set_result(TaskResult(DocumentStatus.ingested, None))
        return future

    def stop(self) -> None:
        pass


def _files(count: int, tmp_path) -> list[PlannedFile]:
    """`count` files to re-chunk from their stored extractions, largest first: p00.md is largest."""
    return [
        PlannedFile(
            ScannedFile(tmp_path / f"p{index:02}.md", f"p{index:02}.md", f"p{index:02}", "hash", 1000 - index, None),
            Change.updated,
            reuse_extraction=True,
        )
        for index in range(count)
    ]


def test_the_first_files_go_to_the_workers_before_the_caller_asks_for_any_result(tmp_path, rules):
    # The caller removes the old rows meanwhile, which the workers used to wait for.
    pool = _Pool()
    FileScheduler(pool, rules, 300, 8, lambda doc_id: "{}").start(_files(3, tmp_path))
    assert pool.handed == ["p00.md", "p01.md", "p02.md"]


def test_a_file_goes_to_a_worker_without_the_rules_which_each_worker_holds_from_its_start(tmp_path, rules):
    pool = _Pool()
    FileScheduler(pool, rules, 300, 8, lambda doc_id: "{}").start(_files(2, tmp_path))
    assert [type(argument).__name__ for args in pool.arguments for argument in args] == ["Task", "Task"]


def test_a_worker_runs_its_files_with_the_rules_it_was_started_with(tmp_path, rules, monkeypatch):
    monkeypatch.setattr(pipeline.ingest.task, "_worker_context", None)
    paper = tmp_path / "a.md"
    paper.write_text("# A\n\n## Results\n\nIL-6 rose.\n")
    task = Task(str(paper), "a.md", "a", "hash", paper.stat().st_size, None, extraction_key(rules))
    with pytest.raises(RuntimeError, match="without the run's rules"):
        run_task_in_worker(task)
    start_worker(rules)
    assert run_task_in_worker(task).status is DocumentStatus.ingested
    assert pipeline.ingest.task._worker_context.rules is rules


def test_a_stored_extraction_is_read_when_its_file_is_handed_on_not_all_of_them_at_the_start(tmp_path, rules):
    # Eight files in flight; the others' extractions stay in the database meanwhile.
    read: list[str] = []
    scheduler = FileScheduler(_Pool(), rules, 300, 8, lambda doc_id: read.append(doc_id) or "{}")
    scheduler.start(_files(10, tmp_path))
    assert read == [f"p{index:02}" for index in range(8)]
    assert [item.path for item, _ in scheduler.results()] == [f"p{index:02}.md" for index in range(10)]
    assert len(read) == 10


class _StoppedFuture(concurrent.futures.Future):
    """A done future whose `result` is where SIGTERM's handler happens to raise."""

    def result(self, timeout=None):
        raise RunStopped("SIGTERM", 15, "papers.duckdb", True)


def test_a_signal_landing_while_a_result_is_read_stops_the_run_rather_than_failing_that_file(tmp_path, rules):
    pool = _Pool()
    future = _StoppedFuture()
    future.set_result(None)
    pool.schedule = lambda function, args, timeout: future
    scheduler = FileScheduler(pool, rules, 300, 8, lambda doc_id: "{}")
    scheduler.start(_files(1, tmp_path))
    with pytest.raises(RunStopped):
        list(scheduler.results())


def test_an_error_while_files_are_in_flight_stops_the_workers_rather_than_waiting_for_them(tmp_path, rules, monkeypatch):
    papers = tmp_path / "papers"
    papers.mkdir()
    for name in ("a.md", "b.md"):
        (papers / name).write_text("# A\n\n## Results\n\nIL-6 rose.\n")
    calls = []
    stop, leave = pebble.ProcessPool.stop, pebble.ProcessPool.__exit__
    monkeypatch.setattr(pebble.ProcessPool, "stop", lambda pool: calls.append("stop") or stop(pool))
    monkeypatch.setattr(pebble.ProcessPool, "__exit__", lambda pool, *error: calls.append("leave") or leave(pool, *error))

    def full_disk(*args, **kwargs):
        raise IndexingError("could not write papers.duckdb: No space left on device")

    monkeypatch.setattr(pipeline.ingest.run, "remove_documents", full_disk)
    with pytest.raises(IndexingError, match="No space left"):
        ingest_folder(papers, tmp_path / "out" / "papers.duckdb", rules, IngestOptions(workers=1))
    # Left running, the pool's block waits for its files in flight, each up to its time limit.
    assert calls[:2] == ["stop", "leave"]


@pytest.fixture()
def eight_cpus_allowed(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)


@pytest.mark.parametrize(
    "cpu_max, workers",
    [
        ("150000 100000\n", 2),  # docker --cpus=1.5: a second worker for the half CPU
        ("50000 100000\n", 1),  # half a CPU still runs one
        ("max 100000\n", 8),  # no quota: every CPU the process may run on
        ("1600000 100000\n", 8),  # a quota above the CPUs allowed gives no more than those
    ],
)
def test_workers_default_to_the_cpus_a_container_allows_not_the_hosts(tmp_path, eight_cpus_allowed, cpu_max, workers):
    (tmp_path / "cpu.max").write_text(cpu_max)
    assert available_cpus(tmp_path / "cpu.max") == workers


def test_without_a_cgroup_quota_workers_default_to_the_cpus_the_process_may_run_on(tmp_path, eight_cpus_allowed):
    assert available_cpus(tmp_path / "absent") == 8


def test_the_fork_server_loads_the_stages_for_its_workers_but_not_duckdb():
    # What the server imports, every run waits for before its first file; DuckDB is the writer's.
    code = (
        "import sys; from pipeline.ingest.workers import preloaded_modules; "
        "[__import__(name) for name in preloaded_modules(sys.modules)]; "
        "print(sorted(name for name in ('duckdb', 'pipeline.ingest.task', 'pipeline.extract') if name in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "['pipeline.extract', 'pipeline.ingest.task']"


def test_a_prepared_worker_leaves_what_it_was_forked_with_out_of_the_collectors_walks():
    code = (
        "import gc; from pipeline.ingest.workers import prepare_worker; prepare_worker(); "
        "print(gc.get_freeze_count() > 10_000, gc.get_threshold()[0])"
    )
    prepared = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert prepared == ["True", "10000"]


def test_the_ingest_pool_prepares_each_worker(tmp_path, rules, monkeypatch):
    made, real_pool = [], pebble.ProcessPool

    def recording_pool(*args, **kwargs):
        made.append((kwargs.get("initializer"), kwargs.get("initargs")))
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(pipeline.ingest.run.pebble, "ProcessPool", recording_pool)
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome text.\n")
    ingest_folder(folder, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    assert made == [(prepare_worker, (rules,))]


def test_a_script_that_has_duckdb_loaded_has_the_server_load_it_for_the_workers_that_run_the_script_again():
    assert preloaded_modules({"duckdb", "pipeline.ingest"}) == ["pipeline.ingest.task", "pebble", "duckdb"]


def _main_module(file: str | None) -> types.ModuleType:
    module = types.ModuleType("__main__")
    module.__spec__ = None
    if file is not None:
        module.__file__ = file
    return module


def test_a_script_read_from_standard_input_is_one_no_worker_can_run_again(tmp_path):
    script = tmp_path / "nightly.py"
    script.write_text("")
    assert unrunnable_main_script(_main_module("<stdin>")) == "<stdin>"
    assert unrunnable_main_script(_main_module(str(script))) is None
    assert unrunnable_main_script(_main_module(None)) is None  # python -c, or an interactive session


def test_a_script_named_relative_to_where_the_caller_started_is_found_after_it_changed_folder(tmp_path, monkeypatch):
    (tmp_path / "nightly.py").write_text("")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.setattr(multiprocessing.process, "ORIGINAL_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert unrunnable_main_script(_main_module("nightly.py")) is None


def test_ingest_from_a_script_on_standard_input_fails_before_it_writes_anything(tmp_path, rules, monkeypatch):
    # Let through, every worker died running `<stdin>` again, and every file was stored as failed.
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "a.md").write_text("# A\n\nText.\n")
    monkeypatch.setitem(sys.modules, "__main__", _main_module("<stdin>"))
    with pytest.raises(PipelineError, match="script read as '<stdin>'.*Save the script to a file"):
        ingest_folder(tmp_path / "papers", tmp_path / "out" / "papers.duckdb", rules)
    assert not (tmp_path / "out").exists()
