"""One file's task, as a pool worker or a Ray task runs it: the stages (`process`), then the
paper's rows and index terms, so that the run's single writer only loads them.

This, with the pool's worker loop, is what the fork server preloads for every worker: not
DuckDB, which only the writer uses, and whose import every run's first file would wait for.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pipeline import __version__
from pipeline.errors import NoTextLayerError, PipelineError
from pipeline.extract import read_source, source_format
from pipeline.index.rows import DocumentRow, PaperRows, paper_rows
from pipeline.index.terms import TermCounter, count_paper_terms
from pipeline.ingest.process import process
from pipeline.ingest.scan import ScannedFile
from pipeline.records.base import DocumentStatus
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.extract import WARNING_NOTE, RawDocument
from pipeline.rules import Rules
from pipeline.rules.heading_matcher import HeadingMatcher


@dataclass(frozen=True)
class Task:
    """One file to run the stages on; `raw_document` is a stored extraction to reuse, whose row
    stays as it is stored."""

    file: str
    path: str
    doc_id: str
    sha256: str
    bytes: int
    raw_document: str | None
    extraction_key: str
    """`extraction_key(rules)`, which a fresh extraction is stored under: made once a run, not
    once a file, since it reads the installed packages' metadata."""


def task_for(item: ScannedFile, raw_document: str | None, extraction_key: str) -> Task:
    """The task of a scanned file, for the local pool and for Ray alike."""
    return Task(str(item.file), item.path, item.doc_id, item.sha256, item.bytes, raw_document, extraction_key)


@dataclass(frozen=True)
class TaskResult:
    status: DocumentStatus
    error: str | None
    rows: PaperRows | None = None
    """The paper's rows, built in the worker so that the single writer only loads them; None
    where the stages failed."""
    chunks: int = 0
    pages: int = 0
    section_types: tuple[str, ...] = ()
    """Each chunk's section type, for the run's summary."""
    structure_warning: str | None = None
    """Why the paper's structure looks collapsed, for the run's summary (`ChunkedDocument`)."""
    warning: str | None = None
    """What the reading of the paper lost (`paper_warning`), for its row and the run's summary."""
    read: tuple[str, int] | None = None
    """The sha256 and size of the bytes the worker read and parsed, where it read the file: what
    its documents row records, even where the file changed since the folder was listed."""


def failed(error: str) -> TaskResult:
    return TaskResult(DocumentStatus.failed, error)


def over_time_limit(path: str, seconds: float) -> str:
    return f"{path}: stopped after {seconds:g} s (time limit per file); if the file is sound, raise --timeout"


def worker_died(path: str, how: str) -> str:
    return f"{path}: the worker died ({how}) reading this file; it may be corrupt"


def document_row(
    path: str, doc_id: str, sha256: str, size: int, status: DocumentStatus, error: str | None, rules: Rules,
    warning: str | None = None,
) -> DocumentRow:
    return DocumentRow(
        doc_id=doc_id,
        path=path,
        format=source_format(path),
        sha256=sha256,
        bytes=size,
        status=status,
        error=error,
        rules_sha256=rules.sha256,
        pipeline_version=__version__,
        warning=warning,
    )


def paper_warning(chunked: ChunkedDocument) -> str | None:
    """What reading the paper lost, in words: the extraction's warning notes (`WARNING_NOTE`),
    and a paper stored with no chunks, which no search can find."""
    said = [note.removeprefix(WARNING_NOTE) for note in chunked.document.reading_notes if note.startswith(WARNING_NOTE)]
    if not chunked.chunks:
        said.append("stored with no chunks: no text was left to chunk (`pipeline inspect` shows what was read)")
    return "; ".join(said) or None


def failure_rows(path: str, doc_id: str, sha256: str, size: int, result: TaskResult, rules: Rules) -> PaperRows:
    """The rows of a file whose stages failed: its documents row, with the status and cause, and
    the hash of the bytes that failed where the worker read them (else the scan's `sha256`)."""
    sha256, size = result.read if result.read is not None else (sha256, size)
    return paper_rows(document_row(path, doc_id, sha256, size, result.status, result.error, rules), None)


@dataclass(frozen=True)
class WorkerContext:
    """What a worker keeps for every file it runs: the run's rules, one term counter, which
    remembers the stems of the words it has met (papers share most of their words), and one
    heading matcher, which remembers what each section name matched (papers repeat them)."""

    rules: Rules
    counter: TermCounter
    headings: HeadingMatcher


def worker_context(rules: Rules) -> WorkerContext:
    return WorkerContext(rules, TermCounter(), HeadingMatcher(rules))


# The worker process's context: the one slot a pool worker keeps between files. pebble's pool
# runs an initializer in each worker but hands nothing it makes to the tasks, and a task function
# bound to the context (`functools.partial`) is pickled with every task, the rules with it, which
# a worker would then unpickle for each paper. So the initializer (`workers.prepare_worker`) fills
# this once, as the worker starts, and `run_task_in_worker` reads it; no other process sets it.
_worker_context: WorkerContext | None = None


def start_worker(rules: Rules) -> None:
    """Make this worker process's context from the run's rules, sent once a worker."""
    global _worker_context
    _worker_context = worker_context(rules)


def run_task_in_worker(task: Task) -> TaskResult:
    """`run_task` with the context this worker was started with (`start_worker`)."""
    if _worker_context is None:
        raise RuntimeError("a pool worker was started without the run's rules: pass them to prepare_worker")
    return run_task(task, _worker_context)


def run_task(task: Task, context: WorkerContext) -> TaskResult:
    """Run the stages on one file and build its rows; a failure becomes a result, never an exception."""
    rules = context.rules
    read = None
    try:
        stored = None if task.raw_document is None else RawDocument.model_validate_json(task.raw_document)
        # A fresh extraction hashes the bytes it parses: the folder was listed (and hashed) before,
        # and the file may have changed since. A stored one was made of the bytes the scan hashed.
        source = read_source(Path(task.file), task.path) if stored is None else None
        read = (hashlib.sha256(source).hexdigest(), len(source)) if source is not None else None
        paper = process(Path(task.file), task.path, task.doc_id, rules, stored, context.headings, source)
        chunked = paper.chunked
        extraction = (task.extraction_key, paper.raw.model_dump_json()) if stored is None else None
        sha256, size = read or (task.sha256, task.bytes)
        warning = paper_warning(chunked)
        row = document_row(task.path, task.doc_id, sha256, size, DocumentStatus.ingested, None, rules, warning)
        rows = paper_rows(row, chunked, extraction, count_paper_terms(chunked, context.counter), paper.metadata)
        return TaskResult(
            DocumentStatus.ingested, None, rows, len(chunked.chunks), chunked.document.page_count or 0,
            tuple(c.section_type.value for c in chunked.chunks), chunked.structure_warning, warning, read,
        )
    except NoTextLayerError as error:
        return TaskResult(DocumentStatus.no_text, str(error), read=read)
    except PipelineError as error:
        return TaskResult(DocumentStatus.failed, str(error), read=read)
    except Exception as error:  # noqa: BLE001 - one file's bug must not cost the others; it is recorded, not hidden
        cause = f"{task.path}: internal error {type(error).__name__}: {error}; please report it with this file"
        return TaskResult(DocumentStatus.failed, cause, read=read)
