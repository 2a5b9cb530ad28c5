"""The benchmark's files: find the shared corpus, lay out 1× or N× copies of it, and grow a
database's chunk rows to a target count for the search measurements.

Imports nothing heavy at module level: `run.py` imports this module, and the pipeline's pool
workers re-import `run.py` (as `__mp_main__`), so whatever it loads would count in their RSS.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

MARKDOWN_FOLDERS = ("markdown", "jats_md")
QUERIES = [
    "IL-6", "p53", "randomized trial", "citation graph", "heart failure", "deep vein thrombosis",
    "FDG-PET/CT", "CO2", "machine learning", "gene expression", "rainfall runoff", "wheat yield",
    "neurofeedback", "sepsis", "Gaussian process", "question answering", "semantic scholar",
    "rehabilitation", "mortality", "confidence interval", "logistic regression", "transformer",
    "survival analysis", "dopamine", "mouse model", "T cells", "inflammation", "systematic review",
    "quark mass", "정확도",
]
"""The queries search is timed with, by `run.py` and `scaling.py` alike."""


class BenchError(Exception):
    """The benchmark cannot run as asked; the message says what to do."""


@dataclass(frozen=True)
class Corpus:
    """The papers a run measures, relative to `root`."""

    root: Path
    pdfs: list[Path]
    markdown: list[Path]
    pages: int
    """Physical pages of all PDFs."""
    pdf_bytes: int
    markdown_bytes: int


def find_corpus(root: Path) -> Corpus:
    """The PDFs (`pdf/*.pdf`) and Markdown (`markdown/**/*.md`, `jats_md/**/*.md`) under `root`."""
    if not root.is_dir():
        raise BenchError(
            f"no corpus at {root}: the benchmark reads the shared papers (pdf/*.pdf, markdown/**/*.md, "
            "jats_md/**/*.md); pass --corpus PATH to the folder that holds them"
        )
    pdfs = sorted(path.relative_to(root) for path in (root / "pdf").glob("*.pdf"))
    markdown = sorted(
        path.relative_to(root) for folder in MARKDOWN_FOLDERS for path in (root / folder).glob("**/*.md")
    )
    if not pdfs or not markdown:
        raise BenchError(
            f"{root} has {len(pdfs)} PDFs under pdf/ and {len(markdown)} Markdown files under "
            f"{' and '.join(MARKDOWN_FOLDERS)}/; the benchmark needs both: pass --corpus PATH to the shared corpus"
        )
    import pymupdf

    pages = 0
    for pdf in pdfs:
        with pymupdf.open(root / pdf) as doc:
            pages += doc.page_count
    return Corpus(
        root=root,
        pdfs=pdfs,
        markdown=markdown,
        pages=pages,
        pdf_bytes=sum((root / pdf).stat().st_size for pdf in pdfs),
        markdown_bytes=sum((root / md).stat().st_size for md in markdown),
    )


def _changed_pdf(source: Path, target: Path, copy: int) -> None:
    """Copy a PDF and append an incremental update that sets a keyword: the original bytes stay
    as they are (so extraction sees the same pages), the file's hash changes."""
    import pymupdf

    shutil.copyfile(source, target)
    with pymupdf.open(target) as doc:
        if not doc.can_save_incrementally():
            raise BenchError(f"{source}: PyMuPDF cannot save it incrementally, so no changed copy can be made")
        metadata = {key: value for key, value in (doc.metadata or {}).items() if key not in ("format", "encryption")}
        metadata["keywords"] = f"{metadata.get('keywords') or ''} bench-copy-{copy}".strip()
        doc.set_metadata(metadata)
        doc.saveIncr()


def lay_out(corpus: Corpus, folder: Path, copies: int) -> Path:
    """Write `copies` copies of the corpus to `folder/copy-NN/{pdf,md}/…` and return `folder`.

    Copy 0 holds the original bytes; every later copy has changed bytes (a keyword added to
    each PDF by an incremental update, a comment line appended to each Markdown file, which
    the extractor drops), so every file's hash differs and each copy ingests as new papers.
    """
    for copy in range(copies):
        base = folder / f"copy-{copy:02d}"
        for pdf in corpus.pdfs:
            target = base / "pdf" / pdf.name
            target.parent.mkdir(parents=True, exist_ok=True)
            if copy == 0:
                shutil.copyfile(corpus.root / pdf, target)
            else:
                _changed_pdf(corpus.root / pdf, target, copy)
        for markdown in corpus.markdown:
            target = base / "md" / markdown
            target.parent.mkdir(parents=True, exist_ok=True)
            data = (corpus.root / markdown).read_bytes()
            if copy:
                data += f"\n\n<!-- bench copy {copy} -->\n".encode()
            target.write_bytes(data)
    return folder


def grow_chunks(connection: duckdb.DuckDBPyConnection, target: int) -> int:
    """Duplicate every chunk (and its postings) under new chunk ids until there are at least
    `target` chunks; return the count. Documents are not copied: a copy keeps its doc_id."""
    existing = connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
    copies = max(1, math.ceil(target / existing))
    if copies > 1:
        connection.execute("BEGIN TRANSACTION")
        connection.execute(
            # Into the catalog's own rows (pipeline.index.layout): the tables read are views over them.
            "INSERT INTO rows.chunk_postings SELECT p.term, p.chunk_id || '~' || r.copy, p.tf FROM chunk_postings p, range(1, ?) r(copy)",
            [copies],
        )
        connection.execute("UPDATE search_index_state SET unsorted_rows = (SELECT count(*) FROM chunk_postings)")
        connection.execute(
            "INSERT INTO rows.chunks SELECT c.chunk_id || '~' || r.copy, c.* EXCLUDE (chunk_id) FROM chunks c, range(1, ?) r(copy)",
            [copies],
        )
        connection.execute("COMMIT")
    return connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
