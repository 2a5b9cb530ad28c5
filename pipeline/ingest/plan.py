"""What a run will do, worked out before any file is read: which papers are added, updated,
re-chunked from their stored extraction, left as they are, or removed.

A file is keyed by its path relative to the folder. One whose bytes, rules and pipeline version
match what is stored is left alone; any other is processed: added where nothing is stored under
its path, updated where something is. A stored paper whose file vanished is removed, unless it
sat in a folder the run could not list: then it is kept as stored and reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pipeline import __version__
from pipeline.index.database import StoredDocument
from pipeline.ingest.scan import FolderScan, ScannedFile
from pipeline.records.base import DocumentStatus
from pipeline.rules import Rules


@dataclass(frozen=True)
class StoredState:
    """What the database holds before the run."""

    documents: dict[str, StoredDocument]
    """Stored papers by path."""
    extractions: dict[str, str]
    """doc_id → sha256 of the file, for the stored extractions the current extractor made."""


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
    return (
        stored is not None
        and scanned.read_error is None
        and (stored.sha256, stored.rules_sha256, stored.pipeline_version, stored.doc_id)
        == (scanned.sha256, rules.sha256, __version__, scanned.doc_id)
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
