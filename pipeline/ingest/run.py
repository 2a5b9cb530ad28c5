"""One ingest run: find the papers in a folder, plan what changed, run the stages on those files
in a process pool, write the new state apart and publish it atomically.

A file that fails is recorded with its status and cause and costs no other file; a file that
takes longer than the time limit is stopped and failed.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pebble

from pipeline import __version__
from pipeline.errors import IndexingError, MassRemovalError, PipelineError
from pipeline.ingest.changes import RunChanges, changes_of_run, chunk_change_counts, record_changes
from pipeline.index.checks import log_check
from pipeline.index.database import (
    SchemaChange,
    ensure_schema,
    open_for_writing,
    published_beside,
    read_extraction,
    refuse_non_database_file,
)
from pipeline.index.file_stats import store_file_stats
from pipeline.index.paper_links import link_papers
from pipeline.index.vectors import sync_vectors, vectors_due
from pipeline.index.writer import DocumentWriter, RunRecord, order_search_index, record_run, remove_documents
from pipeline.ingest.options import Engine, IngestOptions, available_cpus  # noqa: F401  (the run's options, importable from here too)
from pipeline.ingest.plan import RunPlan, StoredState, plan_run, publishes, read_stored_state
from pipeline.ingest.pool import IN_FLIGHT_PER_WORKER, FileScheduler
from pipeline.ingest.publish import Publication
from pipeline.ingest.scan import ScannedFile, scan_folder
from pipeline.ingest.summary import Progress, RunSummary, SilentProgress, check_of, count_result
from pipeline.ingest.task import TaskResult, failure_rows
from pipeline.ingest.workers import prepare_worker, start_fork_server, unrunnable_main_script
from pipeline.rules import Rules

# How much write-ahead log a run lets pile up before DuckDB checkpoints (see `_carry_out`): more
# than a first run over a few hundred papers writes, little enough that a run over many thousands
# still checkpoints now and then instead of holding all it wrote in the log.
WRITING_CHECKPOINT_THRESHOLD = "1GB"


def ingest_folder(
    folder: Path, db: Path, rules: Rules, options: IngestOptions = IngestOptions(), progress: Progress | None = None
) -> RunSummary:
    """Bring the database at `db` in line with the papers below `folder`, and publish it; where
    nothing changed, publish nothing and log the run beside it (`pipeline.index.checks`).

    The workers start from a fork server that imports the caller's main module, so a script
    that calls this must keep its work under `if __name__ == "__main__":`.
    """
    progress = progress or SilentProgress()
    started, clock = datetime.now(timezone.utc).replace(tzinfo=None), time.monotonic()
    _check_can_start(folder)
    summary = RunSummary(folder=str(folder), database=str(db))
    if not db.parent.exists():
        summary.created_folder = str(db.parent)
    # Resolved once, so that the lock and the publish act on the database itself: through a link,
    # `os.replace` would put a file where the link was and leave the database as it was, and two
    # runs through two paths to one file would each hold a lock of their own.
    db = _database_file(db)
    refuse_non_database_file(db)
    with _writing_errors(db, db.exists()), Publication(db, options.memory_limit) as publication:
        summary.leftovers_removed = publication.leftovers_removed
        plan, stored = _plan(db, folder, rules, options, summary)
        progress.start(summary.seen, len(plan.to_process))
        if not vectors_due(db, options.vectors) and not publishes(plan, stored, folder, rules, options.rehash):
            return _nothing_changed(db, summary, stored, started, clock, rules)
        # The fork server imports the stages while this process copies the database; a run
        # with no file to read starts none.
        context = start_fork_server() if options.engine is Engine.local and plan.to_process else None
        publication.build()
        _bring_schema_up_to_date(publication.building, db, options, summary)
        if options.engine is Engine.ray:
            from pipeline.ingest.cluster import carry_out_on_ray  # imports Ray, an optional extra, only when asked

            with open_for_writing(publication.building, db, options.memory_limit) as connection:
                carry_out_on_ray(plan, connection, publication.building, rules, options, progress, summary)
                store_file_stats(connection, plan.file_stats, plan.forgotten_stats)
                changes = _changes_made(connection, db, plan)
                _finish(connection, summary, started, clock, rules, changes, stored.last_run_id, _VectorsToWrite(plan, options))
            publication.publish()
            return summary
        # Workers start with the first file handed on, so a run with nothing to do starts none.
        # The pool outlives the writing: stopped once the last file is done, its shutdown
        # overlaps the last write and the checkpoint instead of following them.
        workers = max(1, min(options.workers, len(plan.to_process)))
        with pebble.ProcessPool(max_workers=workers, initializer=prepare_worker, initargs=(rules,), context=context) as pool, open_for_writing(
            publication.building, db, options.memory_limit
        ) as connection:
            try:
                _carry_out(plan, pool, connection, rules, options, progress, summary)
                store_file_stats(connection, plan.file_stats, plan.forgotten_stats)
                changes = _changes_made(connection, db, plan)
                _finish(connection, summary, started, clock, rules, changes, stored.last_run_id, _VectorsToWrite(plan, options))
            except BaseException:
                # Leaving the pool's block otherwise waits for every file in flight to finish
                # first, each up to its time limit, before the error is reported.
                pool.stop()
                raise
        publication.publish()
    return summary


def _nothing_changed(db: Path, summary: RunSummary, stored: StoredState, started: datetime, clock: float, rules: Rules) -> RunSummary:
    """A run that publishes nothing: the database stays byte for byte as it was, so the run is
    logged beside it, and gives the last run's id for `export --since`."""
    summary.nothing_changed, summary.run_id = True, stored.last_run.run_id
    summary.duration_seconds = time.monotonic() - clock
    log_check(db, check_of(summary, started, rules.sha256))
    return summary


def _finish(
    connection: duckdb.DuckDBPyConnection, summary: RunSummary, started: datetime, clock: float, rules: Rules,
    changes: RunChanges, previous_run_id: int | None, vectors: _VectorsToWrite,
) -> None:
    """Embed what the run changed where the database keeps vectors, order the search index where
    due, record the run and what it changed, and checkpoint: the state to publish. The papers were
    linked by `_changes_made`, which `changes` come from."""
    _write_vectors(connection, vectors.plan, vectors.options, summary)
    order_search_index(connection)
    summary.duration_seconds = time.monotonic() - clock
    summary.run_id = record_run(connection, _run_record(summary, started, rules), after_run_id=previous_run_id)
    record_changes(connection, summary.run_id, changes)
    summary.chunk_changes = chunk_change_counts(connection, summary.run_id)
    connection.execute("CHECKPOINT")


@dataclass(frozen=True)
class _VectorsToWrite:
    """What `_finish` embeds: the units of the papers the plan wrote or removed, as the options ask."""

    plan: RunPlan
    options: IngestOptions


def _write_vectors(connection: duckdb.DuckDBPyConnection, plan: RunPlan, options: IngestOptions, summary: RunSummary) -> None:
    """Embed the units of the papers the run wrote, where the database keeps vectors (`pipeline.index.vectors`)."""
    from pipeline.meaning.encoder import load_encoder

    touched = {planned.scanned.doc_id for planned in plan.to_process} | set(plan.stale_doc_ids)
    synced = sync_vectors(connection, touched, options.vectors, load_encoder)
    if synced.encoding is not None:
        summary.vectors_embedded, summary.vectors_reused = synced.embedded, synced.reused


def _database_file(db: Path) -> Path:
    """The file `db` names, links resolved; a folder is refused."""
    resolved = Path(os.path.realpath(db))
    if resolved.is_dir():
        raise PipelineError(f"--db {db} is a folder, not a database file; pass a file path such as {db / 'papers.duckdb'}")
    return resolved


def _check_can_start(folder: Path) -> None:
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


def _plan(db: Path, folder: Path, rules: Rules, options: IngestOptions, summary: RunSummary) -> tuple[RunPlan, StoredState]:
    """Scan the folder and plan the run against what the published database holds, read without
    writing it, and count it in `summary`; return the plan and that state."""
    stored = read_stored_state(db, rules)
    scan = scan_folder(folder, stored.known_files, options.rehash)
    summary.seen, summary.hashed = len(scan.files), sum(item.hashed for item in scan.files)
    plan = plan_run(scan, stored, rules)
    if plan.removes_most_papers and not options.allow_mass_removal:
        raise MassRemovalError(
            f"this run would remove {len(plan.removed)} of the {plan.stored_count} papers stored in {db} "
            f"({folder} looks empty or wrong: is it mounted?); nothing was changed. "
            "Pass --allow-mass-removal if that is what you want"
        )
    summary.added, summary.updated, summary.unchanged = plan.added, plan.updated, len(plan.unchanged)
    summary.still_failing = dict(plan.still_failing)
    summary.failed.update(plan.not_checked)
    return plan, stored


def _bring_schema_up_to_date(building: Path, db: Path, options: IngestOptions, summary: RunSummary) -> None:
    """Create, upgrade or rebuild the working copy's schema, as the plan read it would be."""
    connection = open_for_writing(building, shown_as=db, memory_limit=options.memory_limit)
    try:
        change, version = ensure_schema(connection)
    finally:
        connection.close()
    if change is SchemaChange.rebuilt:
        summary.rebuilt_from_schema = version
    elif change is SchemaChange.upgraded:
        summary.upgraded_from_schema = version


def _carry_out(
    plan: RunPlan,
    pool: pebble.ProcessPool,
    connection: duckdb.DuckDBPyConnection,
    rules: Rules,
    options: IngestOptions,
    progress: Progress,
    summary: RunSummary,
) -> None:
    """Run the stages on the planned files and write their rows, the stale rows removed first."""
    scheduler = FileScheduler(
        pool, rules, options.timeout_seconds, IN_FLIGHT_PER_WORKER * options.workers,
        lambda doc_id: read_extraction(connection, doc_id),
    )
    # The first files go to the workers before the stale rows are removed, which they would
    # otherwise wait for. Those rows go in one statement a table (batch by batch, each would
    # scan the postings again); nothing is published until the end, so readers never miss them.
    scheduler.start(list(plan.to_process))
    remove_documents(connection, list(plan.stale_doc_ids), keep_extractions_of=plan.reused_extractions)
    summary.removed = len(plan.removed)
    # One DuckDB thread while the workers run leaves them the other cores; all of them again
    # for ordering the index. Nor does every batch's commit checkpoint, as it would once the
    # write-ahead log passes DuckDB's 16 MB default, writing the grown tables' blocks out again
    # batch after batch: the run checkpoints once, at its end. Its log is never replayed either
    # way: a run that dies leaves a working copy that the next run deletes.
    connection.execute("SET threads = 1")
    connection.execute(f"SET checkpoint_threshold = '{WRITING_CHECKPOINT_THRESHOLD}'")
    with DocumentWriter(connection, postings_in_order=True) as writer:
        for item, result in scheduler.results():
            _write_result(writer, item, result, rules, summary)
            progress.file_done(item.path, result.status, result.pages, result.chunks, result.error)
        # Every file is done and the workers idle: the last batch and the run's postings, sorted
        # into term order, get every core. A batch still being written keeps its one thread.
        connection.execute("RESET threads")
        writer.flush()
    connection.execute("RESET checkpoint_threshold")


def _changes_made(connection: duckdb.DuckDBPyConnection, db: Path, plan: RunPlan) -> RunChanges:
    """What the run changed in the exported records of the papers it wrote or removed, against
    the published database at `db`: the state before the run, which it replaces only when it
    publishes. The bibliographies' entries are linked to the papers of the folder first: a paper
    added or removed changes the records of the papers that cite it."""
    written = [planned.scanned.doc_id for planned in plan.to_process]
    relinked = link_papers(connection, touched={*written, *plan.stale_doc_ids}) - set(written) - set(plan.stale_doc_ids)
    if not plan.stale_doc_ids and not relinked:
        return changes_of_run(connection, None, written, ())  # no stored paper was touched: none to read
    with published_beside(connection, db) as published:
        return changes_of_run(connection, published, written, plan.stale_doc_ids, relinked)


def _write_result(writer: DocumentWriter, item: ScannedFile, result: TaskResult, rules: Rules, summary: RunSummary) -> None:
    if result.rows is None:
        writer.add(failure_rows(item.path, item.doc_id, item.sha256, item.bytes, result, rules))
    else:
        writer.add(result.rows)
    count_result(summary, item, result)


# What a disk or its permissions can do to a run; any other OSError is no writing problem.
_STORAGE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}


@contextmanager
def _writing_errors(db: Path, db_existed: bool) -> Iterator[None]:
    """A disk that cannot take the database's copy or its writes (full, read-only, not
    permitted), as an error that says so, once `Publication` has removed the half-built copy;
    `db_existed` says whether there was a database to keep."""
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
        kept = f"{db} keeps its last complete state" if db_existed else f"no database was created at {db}"
        raise IndexingError(f"could not write {db}: {cause}. {kept}; {advice}") from None


def _run_record(summary: RunSummary, started: datetime, rules: Rules) -> RunRecord:
    return RunRecord(
        started_at=started,
        finished_at=datetime.now(timezone.utc).replace(tzinfo=None),
        # Absolute, so that `show` finds the papers from whatever folder it is run in.
        folder=str(Path(summary.folder).resolve()),
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
