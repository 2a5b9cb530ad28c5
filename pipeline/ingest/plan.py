"""What a run will do, worked out before any file is read: which papers are added, updated,
re-chunked from their stored extraction, left as they are, or removed.

A file is keyed by its path relative to the folder. One whose bytes, rules and pipeline version
match what is stored is left alone; any other is processed: added where nothing is stored under
its path, updated where something is. A stored paper whose file vanished is removed, unless it
sat in a folder the run could not list: then it is kept as stored and reported. A file that
cannot be read, stored as failed for that very cause, is left alone too.

A run that processes and removes nothing, under the rules, pipeline and folder of the last run,
publishes nothing (`publishes`): the database stays byte for byte as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pipeline import __version__
from pipeline.extract import extraction_key
from pipeline.index.database import (
    LastRun,
    SchemaChange,
    StoredDocument,
    last_run,
    last_run_id,
    open_readonly,
    schema_change,
    stored_documents,
    stored_extractions,
    stored_schema_version,
)
from pipeline.index.file_stats import FileStatRow, stored_file_stats
from pipeline.ingest.scan import FileStat, FolderScan, KnownFile, ScannedFile
from pipeline.records.base import DocumentStatus
from pipeline.rules import Rules


@dataclass(frozen=True)
class StoredState:
    """What the database holds before the run."""

    documents: dict[str, StoredDocument]
    """Stored papers by path."""
    extractions: dict[str, str]
    """doc_id → sha256 of the file, for the stored extractions the current extractor made."""
    known_files: dict[str, KnownFile] = field(default_factory=dict)
    """doc_id → the stat its file had when it was last read, and the hash of what was read."""
    schema: SchemaChange = SchemaChange.created
    """What the run does to the database's schema."""
    last_run: LastRun | None = None
    last_run_id: int = 0
    """Of the database whatever its schema, so that a rebuilt one numbers its runs on."""


def read_stored_state(db: Path, rules: Rules) -> StoredState:
    """What the published database at `db` holds, read without writing a byte of it: nothing
    where there is none, and no paper where an older pipeline wrote it (the run rebuilds it)."""
    if not db.exists():
        return StoredState({}, {})
    with open_readonly(db) as connection:
        found = stored_schema_version(connection)
        change, previous = schema_change(found), last_run_id(connection)
        if change in (SchemaChange.created, SchemaChange.rebuilt):
            return StoredState({}, {}, schema=change, last_run_id=previous)
        return StoredState(
            stored_documents(connection), stored_extractions(connection, extraction_key(rules)),
            {doc_id: KnownFile(FileStat(row.size, row.mtime_ns, row.inode), row.sha256) for doc_id, row in stored_file_stats(connection).items()},
            change, last_run(connection), previous,
        )


class Change(StrEnum):
    added = "added"
    updated = "updated"


@dataclass(frozen=True)
class PlannedFile:
    """A file the run hands to a worker."""

    scanned: ScannedFile
    change: Change
    reuse_extraction: bool
    """Its stored extraction (of these very bytes, under this doc_id) is re-chunked instead of
    reading the file again: only the rules changed."""


@dataclass(frozen=True)
class RunPlan:
    to_process: tuple[PlannedFile, ...]
    """Added and updated files, in the folder's order."""
    unchanged: tuple[str, ...]
    """Paths left as they are stored."""
    still_failing: dict[str, str]
    """Unchanged paths whose stored status is a failure → that status."""
    removed: tuple[str, ...]
    """Stored paths whose file is gone."""
    not_checked: dict[str, str]
    """Stored paths under a folder that could not be listed, kept as stored → why, naming them;
    and each such folder that holds no stored paper (`folder/`) → why."""
    stale_doc_ids: tuple[str, ...]
    """Every stored doc_id whose rows go before the new ones are written: the removed papers' and
    those of every paper written again (under its old id, should that have changed)."""
    stored_count: int
    file_stats: tuple[FileStatRow, ...] = ()
    """The stats to store: of every file read and hashed whose stat is not the one stored with
    its hash (`ScannedFile.stat`)."""
    forgotten_stats: tuple[str, ...] = ()
    """doc_ids whose stored stats go: the removed papers'."""

    @property
    def added(self) -> int:
        return sum(1 for planned in self.to_process if planned.change is Change.added)

    @property
    def updated(self) -> int:
        return sum(1 for planned in self.to_process if planned.change is Change.updated)

    @property
    def reused_extractions(self) -> tuple[str, ...]:
        """doc_ids whose stored extraction stays, since they are re-chunked from it."""
        return tuple(planned.scanned.doc_id for planned in self.to_process if planned.reuse_extraction)

    @property
    def removes_most_papers(self) -> bool:
        """Whether the run would remove more than half of the stored papers (an unmounted share?)."""
        return self.stored_count > 0 and len(self.removed) > self.stored_count / 2


def _unchanged(scanned: ScannedFile, stored: StoredDocument | None, rules: Rules) -> bool:
    if stored is None or (stored.rules_sha256, stored.pipeline_version, stored.doc_id) != (rules.sha256, __version__, scanned.doc_id):
        return False
    if scanned.read_error is not None:
        # Unreadable as it was stored: failing it again would write the very same row.
        return (stored.sha256, stored.status, stored.error) == ("", DocumentStatus.failed, scanned.read_error)
    return stored.sha256 == scanned.sha256


def _stats_to_store(scanned: list[ScannedFile], known: dict[str, KnownFile]) -> tuple[FileStatRow, ...]:
    return tuple(
        FileStatRow(item.doc_id, item.sha256, item.stat.size, item.stat.mtime_ns, item.stat.inode)
        for item in scanned
        if item.stat is not None and item.read_error is None and known.get(item.doc_id) != KnownFile(item.stat, item.sha256)
    )


def plan_run(scan: FolderScan, stored: StoredState, rules: Rules) -> RunPlan:
    """Compare the files found with what is stored, under these rules and this pipeline."""
    scanned = scan.files
    to_process: list[PlannedFile] = []
    unchanged: list[str] = []
    still_failing: dict[str, str] = {}
    for item in scanned:
        before = stored.documents.get(item.path)
        if _unchanged(item, before, rules):
            unchanged.append(item.path)
            if before.status != DocumentStatus.ingested:
                still_failing[item.path] = before.status
            continue
        reuse = before is not None and before.doc_id == item.doc_id and stored.extractions.get(item.doc_id) == item.sha256
        to_process.append(PlannedFile(item, Change.added if before is None else Change.updated, reuse))
    current = {item.path for item in scanned}
    not_checked = _not_checked(scan.unlisted_folders, [path for path in stored.documents if path not in current])
    removed = sorted(path for path in stored.documents if path not in current and path not in not_checked)
    rewritten = [stored.documents[planned.scanned.path].doc_id for planned in to_process if planned.change is Change.updated]
    return RunPlan(
        to_process=tuple(to_process),
        unchanged=tuple(unchanged),
        still_failing=still_failing,
        removed=tuple(removed),
        not_checked=not_checked,
        stale_doc_ids=tuple([stored.documents[path].doc_id for path in removed] + rewritten),
        stored_count=len(stored.documents),
        file_stats=_stats_to_store(scanned, stored.known_files),
        forgotten_stats=tuple(stored.documents[path].doc_id for path in removed),
    )


def publishes(plan: RunPlan, stored: StoredState, folder: Path, rules: Rules, rehash: bool) -> bool:
    """Whether the run has anything to write: a paper to process or remove, a schema to create
    or upgrade, another folder, rules or pipeline than the last run's, or, with `rehash`, stats
    that were out of date. Stats out of date alone (files touched, a library restored from a
    backup) publish nothing: those files are hashed by each run until one publishes."""
    last = stored.last_run
    return (
        stored.schema is not SchemaChange.current
        or last is None
        or (last.folder, last.pipeline_version, last.rules_sha256) != (str(folder.resolve()), __version__, rules.sha256)
        or bool(plan.to_process or plan.removed)
        or (rehash and bool(plan.file_stats))
    )


def _not_checked(unlisted: dict[str, str], missing: list[str]) -> dict[str, str]:
    """The stored papers the run could not see because their folder could not be listed, and the
    folders that hold none, each with why."""
    causes: dict[str, str] = {}
    for folder, reason in sorted(unlisted.items()):
        inside = [path for path in missing if folder == "." or path.startswith(folder + "/")]
        for path in inside:
            causes.setdefault(path, f"{path}: kept as stored: its folder {folder} cannot be listed ({reason}); check its permissions")
        if not inside:
            causes[f"{folder}/"] = f"{folder}/: cannot list the folder ({reason}); check its permissions, its papers are not ingested"
    return causes
