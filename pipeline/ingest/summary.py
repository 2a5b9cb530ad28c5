"""What a run reports: its progress file by file as it goes, and its summary at the end."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from pipeline import __version__
from pipeline.index.checks import Check
from pipeline.index.database import checks_file
from pipeline.ingest.scan import ScannedFile
from pipeline.ingest.task import TaskResult
from pipeline.records.base import DocumentStatus
from pipeline.wording import counted


class Progress(Protocol):
    """Where a run reports what it is doing (the CLI draws a bar or prints lines)."""

    def start(self, files: int, to_process: int) -> None: ...

    def file_done(self, path: str, status: DocumentStatus, pages: int, chunks: int, error: str | None) -> None: ...


class SilentProgress:
    def start(self, files: int, to_process: int) -> None:
        pass

    def file_done(self, path: str, status: DocumentStatus, pages: int, chunks: int, error: str | None) -> None:
        pass


@dataclass
class RunSummary:
    """What one run did: printed as one line, stored in `runs`, and given as `--json`."""

    folder: str
    database: str
    seen: int = 0
    hashed: int = 0
    """Files whose bytes the scan read: new ones, those whose size, mtime or inode is not the one
    stored (`file_stats`), or every one with `--rehash`. The others were taken as stored unread."""
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
    unstructured: dict[str, str] = field(default_factory=dict)
    """Relative path → why its structure looks collapsed, for every paper written in this run
    that is long and has no section headings."""
    warnings: dict[str, str] = field(default_factory=dict)
    """Relative path → what its reading lost (bytes that are not UTF-8 replaced, no chunks), for
    every paper written in this run with a `documents.warning`."""
    duration_seconds: float = 0.0
    run_id: int = 0
    """What `pipeline export --since` takes to export what later runs change: this run's, or where
    it published nothing, the last run's, whose state it found current."""
    nothing_changed: bool = False
    """True where the run found every paper as stored and published nothing: the database is
    byte for byte as it was, and the run is logged beside it (`pipeline.index.checks`)."""
    chunk_changes: dict[str, int] = field(default_factory=dict)
    """Chunks added, changed and removed by this run, as `run_changes` records them."""
    leftovers_removed: int = 0
    rebuilt_from_schema: int | None = None
    """The schema version of a database an older pipeline wrote, which this run rebuilt."""
    upgraded_from_schema: int | None = None
    """The schema version of a database an older pipeline wrote, which this run brought up to
    date without reading its papers again."""
    created_folder: str | None = None
    """The database's folder, where this run had to create it."""
    vectors_embedded: int | None = None
    """Units (chunks and paragraphs) the encoder read in this run; None where the database keeps
    no vectors (`ingest --vectors`)."""
    vectors_reused: int | None = None
    """Units of the papers written whose text had a vector already; None as above."""

    def line(self) -> str:
        types = ", ".join(f"{name} {count}" for name, count in sorted(self.section_types.items()))
        failing = f", {len(self.still_failing)} still failing" if self.still_failing else ""
        rebuilt = (
            f" (rebuilt: the database had schema version {self.rebuilt_from_schema}, from an older pipeline)"
            if self.rebuilt_from_schema is not None
            else ""
        )
        rebuilt += (
            f" (schema version {self.upgraded_from_schema} brought up to date: no paper read again)"
            if self.upgraded_from_schema is not None
            else ""
        )
        rebuilt += f" (created the folder {self.created_folder})" if self.created_folder else ""
        warning = (
            f"; warning: {len(self.unstructured)} paper(s) without section headings, stored unstructured "
            f"(`pipeline report` lists them): {', '.join(sorted(self.unstructured))}"
            if self.unstructured
            else ""
        )
        warning += (
            f"; warning: {len(self.warnings)} paper(s) stored with a warning (`pipeline report` lists them): "
            + ", ".join(f"{path} ({said})" for path, said in sorted(self.warnings.items()))
            if self.warnings
            else ""
        )
        counts = (
            f"{counted(self.seen, 'file')}: {self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.removed} removed, {len(self.failed)} failed{failing}; "
        )
        if self.nothing_changed:
            return (
                counts + f"nothing changed since run {self.run_id}, {self.duration_seconds:.1f} s: {self.database} is left as it was, "
                f"this check logged in {checks_file(Path(self.database)).name}"
            )
        if self.vectors_embedded is not None:
            warning = f"; vectors: {self.vectors_embedded} embedded, {self.vectors_reused} reused{warning}"
        return (
            counts + f"{counted(self.chunks, 'chunk')} written"
            f"{' (' + types + ')' if types else ''}; run {self.run_id}, {self.duration_seconds:.1f} s → {self.database}{rebuilt}{warning}"
        )

    def as_json(self) -> dict:
        shown = {**self.__dict__, "section_types": dict(self.section_types)}
        if self.vectors_embedded is None:
            del shown["vectors_embedded"], shown["vectors_reused"]
        return shown


def check_of(summary: RunSummary, started: datetime, rules_sha256: str) -> Check:
    """The log line of a run that found nothing to change (`pipeline.index.checks`)."""
    return Check(
        checked_at=started, folder=str(Path(summary.folder).resolve()), seen=summary.seen, hashed=summary.hashed,
        still_failing=len(summary.still_failing), duration_seconds=summary.duration_seconds, run_id=summary.run_id,
        pipeline_version=__version__, rules_sha256=rules_sha256,
    )


def count_result(summary: RunSummary, item: ScannedFile, result: TaskResult) -> None:
    """Count one file's result in the run's summary (its rows written by the caller)."""
    if result.status is not DocumentStatus.ingested:
        summary.failed[item.path] = result.error or result.status
        return
    summary.chunks += result.chunks
    summary.pages += result.pages
    summary.section_types.update(result.section_types)
    if result.structure_warning:
        summary.unstructured[item.path] = result.structure_warning
    if result.warning:
        summary.warnings[item.path] = result.warning
