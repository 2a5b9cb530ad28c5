"""Where a PDF's text came from, as the views say it: each page's source (its text layer, or OCR
and why) and how sure the recognizer was of a chunk's text (the least confidence of its OCR'd
lines). `inspect` reads them from the records, `show` and `report` from the database's
`ocr_pages` and `chunk_ocr`; a paper none of whose pages was read by OCR has no rows there, and
the views say nothing of it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import duckdb

from pipeline.index.database import has_table
from pipeline.wording import page_ranges


@dataclass(frozen=True, slots=True)
class PageSource:
    """A page read by OCR, and why its text layer was not read."""

    page: int
    """1-based physical page."""
    reason: str


def text_sources(read_by_ocr: list[PageSource], pages: Iterable[int]) -> str:
    """Where the text of `pages` came from, run by run of pages of one source in page order:
    `page 1 text layer; pages 2-3 OCR (a scan without a text layer)`; a page not among
    `read_by_ocr` was read from its text layer."""
    reasons = {source.page: source.reason for source in read_by_ocr}
    runs: list[tuple[str, list[int]]] = []
    for number in sorted(set(pages)):
        source = f"OCR ({reasons[number]})" if number in reasons else "text layer"
        if runs and runs[-1][0] == source and runs[-1][1][-1] == number - 1:
            runs[-1][1].append(number)
        else:
            runs.append((source, [number]))
    return "; ".join(f"{'page' if len(numbers) == 1 else 'pages'} {page_ranges(numbers)} {source}" for source, numbers in runs)


def confidence_note(min_confidence: float) -> str:
    """`least OCR line confidence 0.87`: a chunk whose text OCR read, as the views note it."""
    return f"least OCR line confidence {min_confidence:.2f}"


def stored_page_sources(connection: duckdb.DuckDBPyConnection, doc_id: str) -> list[PageSource]:
    """The paper's pages read by OCR, from `ocr_pages`, in page order (none in a database written
    before the table was, which the next ingest adds)."""
    if not _has_ocr_tables(connection):
        return []
    rows = connection.execute("SELECT page, reason FROM ocr_pages WHERE doc_id = ? ORDER BY page", [doc_id]).fetchall()
    return [PageSource(page, reason) for page, reason in rows]


def stored_confidences(connection: duckdb.DuckDBPyConnection, doc_id: str) -> dict[str, float]:
    """The least OCR line confidence of each of the paper's chunks that OCR read, by chunk id (`chunk_ocr`)."""
    if not _has_ocr_tables(connection):
        return {}
    rows = connection.execute("SELECT chunk_id, min_confidence FROM chunk_ocr WHERE doc_id = ?", [doc_id]).fetchall()
    return dict(rows)


@dataclass(frozen=True, slots=True)
class OcrPaper:
    """A paper some of whose pages were read by OCR, as `report` lists it."""

    path: str
    page_count: int | None
    pages: list[PageSource]
    ocr_chunks: int
    """Chunks whose text OCR read (in part)."""
    chunks: int
    min_confidence: float | None
    """The least line confidence among its chunks; None where no chunk holds an OCR'd line."""


def ocr_papers(connection: duckdb.DuckDBPyConnection) -> list[OcrPaper]:
    """Every paper with a page read by OCR, by path."""
    if not _has_ocr_tables(connection):
        return []
    rows = connection.execute(
        """SELECT d.path, d.page_count, list(o.page ORDER BY o.page), list(o.reason ORDER BY o.page),
                  (SELECT count(*) FROM chunk_ocr c WHERE c.doc_id = d.doc_id),
                  (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id),
                  (SELECT min(min_confidence) FROM chunk_ocr c WHERE c.doc_id = d.doc_id)
           FROM documents d JOIN ocr_pages o USING (doc_id) GROUP BY d.doc_id, d.path, d.page_count ORDER BY d.path"""
    ).fetchall()
    return [
        OcrPaper(path, page_count, [PageSource(page, reason) for page, reason in zip(pages, reasons)], ocr_chunks, chunks, least)
        for path, page_count, pages, reasons, ocr_chunks, chunks, least in rows
    ]


def _has_ocr_tables(connection: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database has `ocr_pages` and `chunk_ocr` (schema 13 on)."""
    return has_table(connection, "ocr_pages") and has_table(connection, "chunk_ocr")