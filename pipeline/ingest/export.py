"""`pipeline export-shards`: the stages on every paper below a folder as Ray tasks, their rows
left as Parquet shards (`pipeline.ingest.shards`) and no database built, for DuckDB to query in
place, a lakehouse (DuckLake, Iceberg) to load, or another search engine to index.

The folder of shards holds the papers found in this run and nothing else: shards of papers no
longer there are deleted. A group of files whose shards are there already (the same files, rules
and pipeline: shards are named by what they were made from) is not sent to the cluster again.
"""

from __future__ import annotations

import time
from pathlib import Path

import duckdb

from pipeline.errors import PipelineError
from pipeline.ingest.cluster import RayScheduler, connected_to_ray
from pipeline.ingest.plan import StoredState, plan_run
from pipeline.ingest.run import IngestOptions
from pipeline.ingest.summary import Progress, RunSummary, SilentProgress, count_result
from pipeline.ingest.scan import scan_folder
from pipeline.ingest.shards import remove_other_shards, shard_path
from pipeline.rules import Rules


def export_shards(folder: Path, out: Path, rules: Rules, options: IngestOptions, progress: Progress | None = None) -> RunSummary:
    """Bring the shards in `out` in line with the papers below `folder`; the summary counts the
    groups left as they were as unchanged, and the stale shards deleted as `leftovers_removed`."""
    clock = time.monotonic()
    progress = progress or SilentProgress()
    if not folder.is_dir():
        raise PipelineError(f"{folder} is not a folder; pass the folder that holds your papers")
    if out.exists() and not out.is_dir():
        raise PipelineError(f"--out {out} is a file; pass a folder for the shards")
    scan = scan_folder(folder)
    # Planned against nothing stored: every file is new to a folder of shards.
    plan = plan_run(scan, StoredState({}, {}), rules)
    summary = RunSummary(folder=str(folder), database=str(out), seen=len(scan.files))
    summary.failed.update(plan.not_checked)
    with connected_to_ray(options.ray_address, options.workers) as cpus:
        scheduler = RayScheduler(rules, out, options.timeout_seconds, options.files_per_task, lambda doc_id: None)
        scheduler.start(plan.to_process, cpus, skip_written=True)
        progress.start(len(scan.files), len(plan.to_process) - len(scheduler.skipped))
        for item, result in scheduler.results():
            count_result(summary, item, result)
            progress.file_done(item.path, result.status, result.pages, result.chunks, result.error)
    summary.unchanged = len(scheduler.skipped)
    summary.still_failing = _still_failing(out, scheduler.skipped_keys)
    summary.added = len(plan.to_process) - summary.unchanged
    # Shards, not papers: a folder of shards keeps no list of the papers it held.
    summary.leftovers_removed = remove_other_shards(out, scheduler.keys)
    summary.duration_seconds = time.monotonic() - clock
    return summary


def _still_failing(out: Path, keys: list[str]) -> dict[str, str]:
    """The files of groups left as they were whose documents shard records a failure → its status."""
    files = [str(shard_path(out, "documents", key)) for key in keys]
    if not files:
        return {}
    with duckdb.connect() as connection:
        rows = connection.execute("SELECT path, status FROM read_parquet(?) WHERE status <> 'ingested' ORDER BY path", [files])
        return dict(rows.fetchall())
