"""A paper's rows of `ocr_pages` and `chunk_ocr`: which pages were read by OCR, and how sure the
recognizer was of each chunk's text.

A chunk holds an OCR'd line where the line's middle lies in one of the chunk's boxes on that page
(`chunk_boxes`, which are the chunk's lines' boxes merged where they touch): the stages keep line
boxes, not which OCR'd line each character came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.records.chunked import ChunkedDocument
from pipeline.records.chunks import ChunkBox
from pipeline.records.extract import OcrLineBox


@dataclass(frozen=True, slots=True)
class ChunkOcr:
    """How much of a chunk's text OCR read, and how sure it was."""

    ocr_lines: int
    """OCR'd lines the chunk's text is on."""
    min_confidence: float
    """The recognizer's least confidence among them, 0 to 1."""


def chunk_confidences(chunked: ChunkedDocument) -> dict[str, ChunkOcr]:
    """Each chunk that holds OCR'd lines, by id, with their count and least confidence; the
    others (every chunk of a paper read from its text layer) are left out."""
    lines = {read.page: read.lines for read in chunked.document.ocr_pages}
    if not lines:
        return {}
    boxes: dict[str, list[ChunkBox]] = {}
    for box in chunked.chunk_boxes:
        if box.page in lines:
            boxes.setdefault(box.chunk_id, []).append(box)
    held = {
        chunk.chunk_id: [line[4] for box in boxes.get(chunk.chunk_id, []) for line in lines[box.page] if _holds(box, line)]
        for chunk in chunked.chunks
    }
    return {chunk_id: ChunkOcr(len(found), min(found)) for chunk_id, found in held.items() if found}


def ocr_rows(chunked: ChunkedDocument) -> dict[str, list[dict]]:
    """The paper's `ocr_pages` and `chunk_ocr` rows by table; none (no table at all) where no page
    was read by OCR."""
    document = chunked.document
    if not document.ocr_pages:
        return {}
    doc_id = document.doc_id
    chunk_rows = [
        {"chunk_id": chunk_id, "doc_id": doc_id, "ocr_lines": read.ocr_lines, "min_confidence": read.min_confidence}
        for chunk_id, read in chunk_confidences(chunked).items()
    ]
    page_rows = [
        {
            "doc_id": doc_id, "page": read.page, "reason": read.reason, "dpi": read.dpi, "line_count": len(read.lines),
            "min_confidence": min((line[4] for line in read.lines), default=None),
        }
        for read in document.ocr_pages
    ]
    return {"ocr_pages": page_rows, "chunk_ocr": chunk_rows}


def _holds(box: ChunkBox, line: OcrLineBox) -> bool:
    """Whether the line's middle lies in the box."""
    x, y = (line[0] + line[2]) / 2, (line[1] + line[3]) / 2
    return box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1
