"""One ingest run: find the papers in a folder, run the four stages on each, write DuckDB.

A file that fails is recorded with its status and cause and costs no other file.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import __version__
from pipeline.chunk import chunk
from pipeline.errors import NoTextLayerError, PipelineError
from pipeline.extract import SUPPORTED_SUFFIXES, extract
from pipeline.index import DocumentRow, connect, rebuild_search_index, write_document
from pipeline.models import ChunkedDocument
from pipeline.normalize import normalize
from pipeline.rules import Rules

_SLUG_UNSAFE = re.compile(r"[^\w]+", re.UNICODE)


def doc_id_for(relative_path: str) -> str:
    """A readable, stable id from a path: `Reviews/Berek 2021.md` → `reviews/berek-2021`."""
    stem = relative_path.rsplit(".", 1)[0] if "." in relative_path.rsplit("/", 1)[-1] else relative_path
    parts = [_SLUG_UNSAFE.sub("-", part.lower()).strip("-") for part in stem.split("/")]
    return "/".join(part or "_" for part in parts)


def find_papers(folder: Path) -> list[Path]:
    """Every Markdown and PDF file below `folder`, in a stable order; links to folders are not
    followed, so a symlink loop cannot trap the run."""
    found = []
    for root, folders, files in os.walk(folder, followlinks=False):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        found.extend(Path(root) / name for name in files if name.lower().endswith(SUPPORTED_SUFFIXES))
    return sorted(found, key=lambda path: path.relative_to(folder).as_posix())


def assign_doc_ids(paths: list[str]) -> dict[str, str]:
    """Doc ids for relative paths; where two files share a slug (`a.md`, `a.pdf`), the later one
    in path order keeps its extension in the id."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for path in sorted(paths):
        doc_id = doc_id_for(path)
        if doc_id in taken:
            doc_id = f"{doc_id}-{path.rsplit('.', 1)[-1].lower()}"
        taken.add(doc_id)
        ids[path] = doc_id
    return ids


def process_file(file: Path, relative_path: str, doc_id: str, rules: Rules) -> ChunkedDocument:
    """extract → normalize → chunk for one file."""
    raw = extract(file, relative_path, rules)
    return chunk(normalize(raw, doc_id, rules), rules)


@dataclass
class IngestSummary:
    """What one run did, for the one-line summary and `--json`."""

    folder: str
    database: str
    files: int = 0
    ingested: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    """Relative path → cause, for every file that was not ingested."""
    chunks: int = 0
    section_types: Counter = field(default_factory=Counter)

    def line(self) -> str:
        types = ", ".join(f"{name} {count}" for name, count in sorted(self.section_types.items()))
        return (
            f"{self.files} files: {self.ingested} ingested, {len(self.failed)} failed; "
            f"{self.chunks} chunks ({types or 'none'}) → {self.database}"
        )


def ingest_folder(
    folder: Path, db: Path, rules: Rules, progress: Callable[[str], None] = lambda message: None
) -> IngestSummary:
    """Ingest every paper below `folder` into the database at `db`, then rebuild the index."""
    if not folder.is_dir():
        raise PipelineError(f"{folder} is not a folder; pass the folder that holds your papers")
    files = find_papers(folder)
    relative = {file: file.relative_to(folder).as_posix() for file in files}
    doc_ids = assign_doc_ids(list(relative.values()))
    summary = IngestSummary(folder=str(folder), database=str(db), files=len(files))
    connection = connect(db)
    try:
        for file in files:
            path = relative[file]
            chunked, status, error = _run_stages(file, path, doc_ids[path], rules)
            try:
                data = file.read_bytes()
            except OSError:
                data = b""
            row = DocumentRow(
                doc_id=doc_ids[path],
                path=path,
                format="pdf" if path.lower().endswith(".pdf") else "markdown",
                sha256=hashlib.sha256(data).hexdigest(),
                bytes=len(data),
                status=status,
                error=error,
                rules_sha256=rules.sha256,
                pipeline_version=__version__,
            )
            write_document(connection, row, chunked)
            if chunked is None:
                summary.failed[path] = error or status
                progress(f"failed  {path}: {error}")
            else:
                summary.ingested += 1
                summary.chunks += len(chunked.chunks)
                summary.section_types.update(c.section_type.value for c in chunked.chunks)
                progress(f"ok      {path}: {len(chunked.chunks)} chunks")
        rebuild_search_index(connection)
    finally:
        connection.close()
    return summary


def _run_stages(file: Path, path: str, doc_id: str, rules: Rules) -> tuple[ChunkedDocument | None, str, str | None]:
    try:
        return process_file(file, path, doc_id, rules), "ingested", None
    except NoTextLayerError as error:
        return None, "no_text", str(error)
    except PipelineError as error:
        return None, "failed", str(error)
    except Exception as error:  # noqa: BLE001 - one file's bug must not cost the others; it is recorded, not hidden
        return None, "failed", f"{path}: internal error {type(error).__name__}: {error}; please report it with this file"
