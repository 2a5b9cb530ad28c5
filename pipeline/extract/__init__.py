"""Stage 1, extract: read one source file into a `RawDocument` of blocks with provenance."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path

from pipeline import __version__
from pipeline.errors import ExtractError
from pipeline.extract.markdown.document import extract_markdown_bytes
from pipeline.extract.markdown.parse import PARSER_VERSION
from pipeline.extract.source import read_source
from pipeline.records.base import SourceFormat
from pipeline.records.extract import RawDocument
from pipeline.rules import Rules

MARKDOWN_SUFFIXES = (".md", ".markdown")
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES + PDF_SUFFIXES


def source_format(path: str) -> SourceFormat:
    """The format a file is read as, by its name."""
    return SourceFormat.pdf if path.lower().endswith(PDF_SUFFIXES) else SourceFormat.markdown


def extract(file: Path, path: str, rules: Rules) -> RawDocument:
    """Extract `file`, known to the rest of the pipeline by `path` (relative to the ingested folder)."""
    return extract_source(read_source(file, path), file.suffix.lower(), path, rules)


def extract_source(data: bytes, suffix: str, path: str, rules: Rules) -> RawDocument:
    """Extract a file's bytes, read as its name's `suffix` (lower case) says."""
    if suffix in MARKDOWN_SUFFIXES:
        return extract_markdown_bytes(data, path, rules.page_markers, rules.pdf.tables.caption)
    if suffix in PDF_SUFFIXES:
        # Imported here: `pipeline sql` and `search` load this module too, and need no PyMuPDF.
        from pipeline.extract.pdf.document import extract_pdf_bytes

        return extract_pdf_bytes(data, path, rules)
    raise ExtractError(f"{path}: unsupported file type {suffix!r}; the pipeline reads {', '.join(SUPPORTED_SUFFIXES)}")


def _layout_model_version() -> str:
    try:
        return importlib.metadata.version("pymupdf-layout")
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _ocr_version() -> str:
    try:
        return importlib.metadata.version("rapidocr")
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def extraction_key(rules: Rules) -> str:
    """What an extraction depends on besides the file: this pipeline and the rules extraction
    reads. A stored extraction made under another key is not reused.

    Markdown reads the page markers, and its blocks are what its parser's version reads; PDF extraction reads [pdf], the caption start (`[captions]
    pdf_start`, labels filled in) and the anchors named in `[pdf.front_matter] opening_anchors`.
    """
    read = {
        "page_markers": [marker.model_dump(mode="json") for marker in rules.page_markers],
        "markdown_parser": PARSER_VERSION,
        "pdf": rules.pdf.model_dump(mode="json"),
        "caption_start": rules.captions.pdf_start.pattern,
        # A PDF that the layout model may read depends on the model's weights as well.
        "layout_model": _layout_model_version() if rules.pdf.layout.mode != "rules" else None,
        # And a page OCR may read on rapidocr's models (or, without it, on their absence).
        "ocr_model": _ocr_version() if rules.pdf.ocr.mode != "off" else None,
        # And where the heading model decides headings, on its trees (`[pdf.headings] classifier`).
        "heading_model": rules.pdf.headings.model.sha256 if rules.pdf.headings.model is not None else None,
        # And where the table row model decides table rows, on its trees (`[pdf.tables] rows`).
        **({"table_row_model": rules.pdf.tables.row_model.sha256} if rules.pdf.tables.row_model is not None else {}),
        "opening_anchors": [
            anchor.model_dump(mode="json") for anchor in rules.anchors_named(rules.pdf.front_matter.opening_anchors)
        ],
    }
    digest = hashlib.sha256(json.dumps(read, sort_keys=True).encode()).hexdigest()[:16]
    return f"{__version__}:{digest}"
