"""The stages on one file, as a pool worker runs them: extract → normalize → chunk → link, then the
paper's rows and index terms, so that the run's single writer only loads them.

This, with the pool's worker loop, is what the fork server preloads for every worker: not
DuckDB, which only the writer uses, and whose import every run's first file would wait for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline import __version__
from pipeline.chunk import chunk
from pipeline.errors import NoTextLayerError, PipelineError
from pipeline.extract import extract, source_format
from pipeline.index.rows import DocumentRow, PaperRows, paper_rows
from pipeline.index.terms import count_paper_terms
from pipeline.ingest.scan import ScannedFile
from pipeline.link import link
from pipeline.metadata import paper_metadata
from pipeline.records.base import DocumentStatus
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.extract import RawDocument
from pipeline.records.metadata import PaperMetadata
from pipeline.normalize.stage import normalize
from pipeline.rules import Rules


def process_file(file: Path, relative_path: str, doc_id: str, rules: Rules) -> ChunkedDocument:
    """extract → normalize → chunk → link for one file."""
    raw = extract(file, relative_path, rules)
    return link(chunk(normalize(raw, doc_id, rules), rules), rules)


def process_paper(file: Path, relative_path: str, doc_id: str, rules: Rules) -> tuple[ChunkedDocument, PaperMetadata]:
    """`process_file`, and the paper's metadata as an ingest stores it in `papers`."""
    raw = extract(file, relative_path, rules)
    document = normalize(raw, doc_id, rules)
    return link(chunk(document, rules), rules), paper_metadata(raw, document, rules.metadata)


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


def failed(error: str) -> TaskResult:
    return TaskResult(DocumentStatus.failed, error)


def over_time_limit(path: str, seconds: float) -> str:
    return f"{path}: stopped after {seconds:g} s (time limit per file); if the file is sound, raise --timeout"


def worker_died(path: str, how: str) -> str:
    return f"{path}: the worker died ({how}) reading this file; it may be corrupt"


def document_row(
    path: str, doc_id: str, sha256: str, size: int, status: DocumentStatus, error: str | None, rules: Rules
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
    )


def failure_rows(path: str, doc_id: str, sha256: str, size: int, result: TaskResult, rules: Rules) -> PaperRows:
    """The rows of a file whose stages failed: its documents row, with the status and cause."""
    return paper_rows(document_row(path, doc_id, sha256, size, result.status, result.error, rules), None)


_worker_rules: Rules | None = None
"""The run's rules in a pool worker, sent once when the worker starts (`workers.prepare_worker`):
sent with every file instead, a worker unpickled the whole rules file, hundreds of patterns, for
each paper, and started afresh what the rules remember between papers (the headings matched)."""


def keep_worker_rules(rules: Rules) -> None:
    global _worker_rules
    _worker_rules = rules


def run_task_with_worker_rules(task: Task) -> TaskResult:
    """`run_task` with the rules this worker was started with (`keep_worker_rules`)."""
    if _worker_rules is None:
        raise RuntimeError("a pool worker was started without the run's rules: pass them to prepare_worker")
    return run_task(task, _worker_rules)


def run_task(task: Task, rules: Rules) -> TaskResult:
    """Run the stages on one file and build its rows; a failure becomes a result, never an exception."""
    try:
        fresh = task.raw_document is None
        raw = extract(Path(task.file), task.path, rules) if fresh else RawDocument.model_validate_json(task.raw_document)
        document = normalize(raw, task.doc_id, rules)
        chunked = link(chunk(document, rules), rules)
        metadata = paper_metadata(raw, document, rules.metadata)
        extraction = (task.extraction_key, raw.model_dump_json()) if fresh else None
        row = document_row(task.path, task.doc_id, task.sha256, task.bytes, DocumentStatus.ingested, None, rules)
        rows = paper_rows(row, chunked, extraction, count_paper_terms(chunked), metadata)
        return TaskResult(
            DocumentStatus.ingested, None, rows, len(chunked.chunks), chunked.document.page_count or 0,
            tuple(c.section_type.value for c in chunked.chunks), chunked.structure_warning,
        )
    except NoTextLayerError as error:
        return TaskResult(DocumentStatus.no_text, str(error))
    except PipelineError as error:
        return failed(str(error))
    except Exception as error:  # noqa: BLE001 - one file's bug must not cost the others; it is recorded, not hidden
        return failed(f"{task.path}: internal error {type(error).__name__}: {error}; please report it with this file")
