"""`ingest --engine ray` and `export-shards` on a local Ray with two CPUs: the same rows as the
local process pool, a task whose worker is killed run again, a failed file recorded as failed
(over its time limit too, stuck in native code or not), the incremental rules and `run_changes`
as the local pool keeps them, shards that DuckDB reads in place, the same rows whatever the
files per task, and shards written to a --shards-dir that the run cleans of its own files only.

One Ray is started for the module and every run joins it, as `--ray-address` would: starting Ray
costs more than most of these runs (docs/performance.md, the test suite).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from conftest import shared_corpus
from pipeline.index.schema import COLUMNS
from pipeline.ingest import cluster
from pipeline.ingest.export import export_shards
from pipeline.ingest.run import Engine, IngestOptions, ingest_folder
from pipeline.errors import IndexingError
from pipeline.ingest.shards import SHARD_SUFFIX
from pipeline.ingest.task import over_time_limit

ray = pytest.importorskip("ray", reason="Ray is the [ray] extra (in [test] too): pip install -e '.[test]'")

# Every test here runs on a Ray started for the module, and most run the pool beside it.
pytestmark = pytest.mark.slow

RAY = IngestOptions(workers=2, engine=Engine.ray, files_per_task=2)
LOCAL = IngestOptions(workers=2)
TRUNCATED_PDF = b"%PDF-1.4\n1 0 obj << >> endobj\n"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    yield
    ray.shutdown()


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    """A handful of the shared corpus's papers (Markdown of three converters, one PDF) and a
    truncated PDF."""
    folder = tmp_path / "papers"
    (folder / "marker").mkdir(parents=True)
    for name in ("2305.03393v1.docling.md", "2206.01062.docling.md"):
        shutil.copy(shared_corpus("markdown", "docling_pdf") / name, folder / name)
    shutil.copy(shared_corpus("markdown", "marker") / "multicolcnn.marker.md", folder / "marker")
    shutil.copy(shared_corpus("pdf") / "s2orc_N18-3011.pdf", folder)
    (folder / "broken.pdf").write_bytes(TRUNCATED_PDF)
    return folder


def database_rows(db: Path) -> dict[str, list[tuple]]:
    """Every table of the schema but `runs` and `file_stats`, in full and in order, without the
    ingest times: both say when a run was, `file_stats` by the files whose stat had settled by
    its scan (`pipeline.ingest.scan.SETTLED_NS`)."""
    connection = duckdb.connect(str(db), read_only=True)
    try:
        rows = {}
        for table, columns in COLUMNS.items():
            if table not in ("runs", "file_stats"):
                kept = ", ".join(column for column in columns if column != "ingested_at")
                rows[table] = connection.execute(f"SELECT {kept} FROM {table} ORDER BY ALL").fetchall()
        return rows
    finally:
        connection.close()


def test_ray_writes_every_table_row_for_row_as_the_local_pool_does(papers, tmp_path, rules):
    local = ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    on_ray = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    expected = database_rows(tmp_path / "local.duckdb")
    assert expected["chunk_postings"] and expected["chunk_citations"] and expected["chunk_links"] and expected["chunk_boxes"]
    assert expected["section_boxes"]
    assert database_rows(tmp_path / "ray.duckdb") == expected
    assert (on_ray.chunks, on_ray.pages, on_ray.section_types) == (local.chunks, local.pages, local.section_types)


def test_a_file_that_fails_on_ray_is_recorded_as_failed_as_locally(papers, tmp_path, rules):
    local = ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    on_ray = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert on_ray.failed == local.failed
    assert list(on_ray.failed) == ["broken.pdf"]
    query = "SELECT status, error FROM documents WHERE path = 'broken.pdf'"
    with duckdb.connect(str(tmp_path / "ray.duckdb"), read_only=True) as connection:
        assert connection.execute(query).fetchall() == [("failed", local.failed["broken.pdf"])]


def _killed_once(tasks, rules, shard_folder, timeout_seconds):
    """The real task, whose worker is then killed before it can return, the first time only:
    Ray runs it again, and the second run writes over the first one's shards."""
    results = _real_shard_task(tasks, rules, shard_folder, timeout_seconds)
    marker = Path(shard_folder).parent / f"killed-{tasks[0].doc_id.replace('/', '_')}"
    if not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return results


def _killed_on_poison(tasks, rules, shard_folder, timeout_seconds):
    """A worker that dies on every try of a task holding `poison.md`."""
    if any(task.path == "poison.md" for task in tasks):
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_shard_task(tasks, rules, shard_folder, timeout_seconds)


_real_shard_task = cluster.run_shard_task


def _slow_on_slow_md(tasks, rules, shard_folder, timeout_seconds):
    """The real task, in which `slow.md` takes longer than any time limit (patched in the worker only)."""
    real_run_task = cluster.run_task

    def slow(task, context):
        if task.path == "slow.md":
            time.sleep(120)
        return real_run_task(task, context)

    cluster.run_task = slow
    try:
        return _real_shard_task(tasks, rules, shard_folder, timeout_seconds)
    finally:
        cluster.run_task = real_run_task


def _stuck_on_stuck_md(tasks, rules, shard_folder, timeout_seconds):
    """The real task, in which `stuck.md` sits where the alarm cannot reach it (SIGALRM blocked,
    as inside MuPDF), and a worker gives up on it one second past its time limit."""
    real_run_task, real_grace = cluster.run_task, cluster.STUCK_GRACE_SECONDS

    def stuck(task, context):
        if task.path == "stuck.md":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(120)
        return real_run_task(task, context)

    cluster.run_task, cluster.STUCK_GRACE_SECONDS = stuck, 1.0
    try:
        return _real_shard_task(tasks, rules, shard_folder, timeout_seconds)
    finally:
        cluster.run_task, cluster.STUCK_GRACE_SECONDS = real_run_task, real_grace

@pytest.fixture
def shipped_by_value():
    """Ray ships this module's stand-in tasks to its workers by value: they cannot import tests."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_a_task_whose_worker_is_killed_is_run_again_and_writes_the_same_rows(papers, tmp_path, rules, monkeypatch, shipped_by_value):
    ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    monkeypatch.setattr(cluster, "run_shard_task", _killed_once)
    on_ray = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert list(tmp_path.glob("killed-*")), "no worker was killed"
    assert list(on_ray.failed) == ["broken.pdf"]
    assert database_rows(tmp_path / "ray.duckdb") == database_rows(tmp_path / "local.duckdb")


def test_a_file_whose_worker_dies_on_every_try_fails_alone(papers, tmp_path, rules, monkeypatch, shipped_by_value):
    (papers / "poison.md").write_text("# Poison\n\nA paper whose worker dies.\n")
    monkeypatch.setattr(cluster, "run_shard_task", _killed_on_poison)
    monkeypatch.setattr(cluster, "RETRIES", 1)
    on_ray = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert sorted(on_ray.failed) == ["broken.pdf", "poison.md"]
    assert "the worker died (WorkerCrashedError after 2 tries)" in on_ray.failed["poison.md"]
    assert on_ray.added == 6 and on_ray.chunks > 0


@pytest.fixture
def slow_papers(tmp_path: Path) -> Path:
    """A paper that takes a moment and two that take too long (the stand-in tasks decide how)."""
    folder = tmp_path / "slow-papers"
    folder.mkdir()
    (folder / "quick.md").write_text("# Quick\n\n## Methods\n\nA paper read in milliseconds.\n")
    (folder / "slow.md").write_text("# Slow\n\nA paper that takes too long.\n")
    (folder / "stuck.md").write_text("# Stuck\n\nA paper MuPDF never returns from.\n")
    return folder


def test_a_file_over_the_time_limit_on_ray_fails_with_the_local_pools_message(slow_papers, tmp_path, rules, monkeypatch, shipped_by_value):
    (slow_papers / "stuck.md").unlink()
    monkeypatch.setattr(cluster, "run_shard_task", _slow_on_slow_md)
    on_ray = ingest_folder(slow_papers, tmp_path / "ray.duckdb", rules, replace(RAY, timeout_seconds=4))
    assert on_ray.failed == {"slow.md": over_time_limit("slow.md", 4)} and on_ray.chunks > 0
    query = "SELECT status, error FROM documents WHERE path = 'slow.md'"
    with duckdb.connect(str(tmp_path / "ray.duckdb"), read_only=True) as connection:
        assert connection.execute(query).fetchall() == [("failed", over_time_limit("slow.md", 4))]


def test_a_file_stuck_where_the_alarm_cannot_reach_fails_with_the_local_pools_message(slow_papers, tmp_path, rules, monkeypatch, shipped_by_value):
    (slow_papers / "slow.md").unlink()
    monkeypatch.setattr(cluster, "run_shard_task", _stuck_on_stuck_md)
    on_ray = ingest_folder(slow_papers, tmp_path / "ray.duckdb", rules, replace(RAY, timeout_seconds=4))
    assert on_ray.failed == {"stuck.md": over_time_limit("stuck.md", 4)} and on_ray.chunks > 0


def test_ray_sends_only_changed_files_and_matches_the_local_pool_after(papers, tmp_path, rules):
    for options in (LOCAL, RAY):  # the same runs, so that search_index_state counts alike too
        ingest_folder(papers, tmp_path / f"{options.engine}.duckdb", rules, options)
    again = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
    ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)  # the same runs, so run_changes' run ids match
    (papers / "marker" / "multicolcnn.marker.md").write_text("# Changed\n\n## Methods\n\nWe counted crowds again.\n")
    changed = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert (changed.added, changed.updated, changed.unchanged) == (0, 1, 4)
    ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    assert database_rows(tmp_path / "ray.duckdb") == database_rows(tmp_path / "local.duckdb")


def run_changes(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute("SELECT * FROM run_changes ORDER BY ALL").fetchall()


def test_ray_records_the_same_run_changes_as_the_local_pool_for_an_addition_an_edit_a_removal_and_a_new_failure(papers, tmp_path, rules):
    ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    shutil.copyfile(tmp_path / "local.duckdb", tmp_path / "ray.duckdb")  # the same first run, made once
    (papers / "added.md").write_text("# Added\n\n## Results\n\nA paper that arrived tonight.\n")
    (papers / "marker" / "multicolcnn.marker.md").write_text("# Changed\n\n## Methods\n\nWe counted crowds again.\n")
    (papers / "2206.01062.docling.md").unlink()
    (papers / "s2orc_N18-3011.pdf").write_bytes(TRUNCATED_PDF)
    local = ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    on_ray = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert {change for (_, _, _, _, change, _) in run_changes(tmp_path / "local.duckdb")} == {"added", "changed", "removed"}
    assert run_changes(tmp_path / "ray.duckdb") == run_changes(tmp_path / "local.duckdb")
    assert on_ray.chunk_changes == local.chunk_changes and on_ray.failed == local.failed
    assert database_rows(tmp_path / "ray.duckdb") == database_rows(tmp_path / "local.duckdb")


def test_a_run_on_ray_that_only_removes_papers_records_their_removal_as_locally(papers, tmp_path, rules):
    ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    shutil.copyfile(tmp_path / "local.duckdb", tmp_path / "ray.duckdb")
    (papers / "2206.01062.docling.md").unlink()
    local = ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    on_ray = ingest_folder(papers, tmp_path / "ray.duckdb", rules, RAY)
    assert on_ray.removed == local.removed == 1 and on_ray.chunk_changes == local.chunk_changes
    assert run_changes(tmp_path / "ray.duckdb") == run_changes(tmp_path / "local.duckdb")
    assert database_rows(tmp_path / "ray.duckdb") == database_rows(tmp_path / "local.duckdb")


def test_ingest_on_ray_leaves_no_shards_beside_the_database(papers, tmp_path, rules):
    ingest_folder(papers, tmp_path / "db" / "papers.duckdb", rules, RAY)
    assert sorted(path.name for path in (tmp_path / "db").iterdir()) == ["papers.duckdb", "papers.duckdb.lock"]


def test_exported_shards_hold_the_rows_the_database_holds(papers, tmp_path, rules):
    ingest_folder(papers, tmp_path / "local.duckdb", rules, LOCAL)
    summary = export_shards(papers, tmp_path / "shards", rules, RAY)
    assert (summary.added, summary.unchanged, list(summary.failed)) == (5, 0, ["broken.pdf"])
    query = "SELECT * EXCLUDE (term_count) FROM {} ORDER BY ALL"
    with duckdb.connect(str(tmp_path / "local.duckdb"), read_only=True) as connection:
        stored = connection.execute(query.format("chunks")).fetchall()
        stored_postings = connection.execute("SELECT term, chunk_id, tf FROM chunk_postings ORDER BY ALL").fetchall()
    with duckdb.connect() as connection:
        exported = connection.execute(query.format(f"read_parquet('{tmp_path}/shards/chunks/*{SHARD_SUFFIX}')")).fetchall()
        postings = connection.execute(f"SELECT * FROM read_parquet('{tmp_path}/shards/chunk_postings/*') ORDER BY ALL").fetchall()
    assert exported == stored and postings == stored_postings


def test_export_again_skips_what_is_exported_and_deletes_the_shards_of_removed_papers(papers, tmp_path, rules):
    export_shards(papers, tmp_path / "shards", rules, RAY)
    (papers / "2206.01062.docling.md").unlink()
    again = export_shards(papers, tmp_path / "shards", rules, RAY)
    assert again.added + again.unchanged == 4 and again.unchanged >= 1
    assert again.leftovers_removed > 0 and again.still_failing == {"broken.pdf": "failed"}
    with duckdb.connect() as connection:
        paths = connection.execute(f"SELECT path FROM read_parquet('{tmp_path}/shards/documents/*') ORDER BY path").fetchall()
    assert [path for (path,) in paths] == ["2305.03393v1.docling.md", "broken.pdf", "marker/multicolcnn.marker.md", "s2orc_N18-3011.pdf"]


@pytest.fixture
def small_papers(tmp_path: Path) -> Path:
    """Four short Markdown papers, one in a subfolder: enough for several groups at one file a task."""
    folder = tmp_path / "small-papers"
    (folder / "more").mkdir(parents=True)
    (folder / "alpha.md").write_text("# Alpha\n\n## Methods\n\nWe counted birds.\n\n## Results\n\nThere were many birds.\n")
    (folder / "beta.md").write_text("# Beta\n\n## Introduction\n\nFish swim in schools.\n")
    (folder / "gamma.md").write_text("# Gamma\n\n## Discussion\n\nTrees grow slowly [1].\n\n## References\n\n1. A. Oak. Trees. 2001.\n")
    (folder / "more" / "delta.md").write_text("# Delta\n\n## Methods\n\nWe measured the rain.\n")
    return folder


def test_ingest_on_ray_writes_the_same_rows_whatever_the_files_per_task(small_papers, tmp_path, rules):
    ingest_folder(small_papers, tmp_path / "one.duckdb", rules, replace(RAY, files_per_task=1))
    ingest_folder(small_papers, tmp_path / "three.duckdb", rules, replace(RAY, files_per_task=3))
    expected = database_rows(tmp_path / "one.duckdb")
    assert len(expected["documents"]) == 4 and expected["chunks"]
    assert database_rows(tmp_path / "three.duckdb") == expected


def shard_rows(folder: Path) -> dict[str, list[tuple]]:
    """Every table's shards under `folder`, read as one table, in order, without the ingest times."""
    query = "SELECT COLUMNS(lambda name: name <> 'ingested_at') FROM read_parquet('{}/*" + SHARD_SUFFIX + "') ORDER BY ALL"
    with duckdb.connect() as connection:
        return {
            table.name: connection.execute(query.format(table)).fetchall()
            for table in sorted(folder.iterdir())
        }


def test_exported_shards_hold_the_same_rows_whatever_the_files_per_task(small_papers, tmp_path, rules):
    export_shards(small_papers, tmp_path / "one", rules, replace(RAY, files_per_task=1))
    export_shards(small_papers, tmp_path / "three", rules, replace(RAY, files_per_task=3))
    assert len(list((tmp_path / "one" / "documents").iterdir())) == 4
    assert len(list((tmp_path / "three" / "documents").iterdir())) < 4
    assert shard_rows(tmp_path / "three") == shard_rows(tmp_path / "one")


def test_ingest_with_a_shards_dir_writes_the_same_rows_and_leaves_what_was_there_only(small_papers, tmp_path, rules):
    shards_dir = tmp_path / "shared" / "shards"
    (shards_dir / "another-run.shards").mkdir(parents=True)
    (shards_dir / "another-run.shards" / "documents.parquet").write_bytes(b"PAR1")
    ingest_folder(small_papers, tmp_path / "beside.duckdb", rules, RAY)
    ingest_folder(small_papers, tmp_path / "db" / "papers.duckdb", rules, replace(RAY, shards_dir=shards_dir))
    assert database_rows(tmp_path / "db" / "papers.duckdb") == database_rows(tmp_path / "beside.duckdb")
    assert [path.name for path in shards_dir.iterdir()] == ["another-run.shards"]
    assert [path.name for path in (shards_dir / "another-run.shards").iterdir()] == ["documents.parquet"]
    assert sorted(path.name for path in (tmp_path / "db").iterdir()) == ["papers.duckdb", "papers.duckdb.lock"]


def test_a_failed_run_deletes_its_shards_from_the_shards_dir_and_nothing_else(small_papers, tmp_path, rules, monkeypatch):
    shards_dir = tmp_path / "shards"
    shards_dir.mkdir()
    (shards_dir / "notes.txt").write_text("the user's own file")
    loaded_from = []

    def failing_load(connection, folder, keys):
        loaded_from.append((folder.parent, len(list((folder / "documents").iterdir()))))
        raise IndexingError("the merge failed")

    monkeypatch.setattr(cluster, "load_shards", failing_load)
    with pytest.raises(IndexingError, match="the merge failed"):
        ingest_folder(small_papers, tmp_path / "papers.duckdb", rules, replace(RAY, shards_dir=shards_dir))
    assert loaded_from and loaded_from[0][0] == shards_dir and loaded_from[0][1] > 0
    assert [path.name for path in shards_dir.iterdir()] == ["notes.txt"]
    assert not (tmp_path / "papers.duckdb").exists()
