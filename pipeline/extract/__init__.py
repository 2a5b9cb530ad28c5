"""Stage 1, extract: read one source file into a `RawDocument` of blocks with provenance."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import ExtractError
from pipeline.extract.markdown import extract_markdown
from pipeline.models import RawDocument
from pipeline.rules import Rules

MARKDOWN_SUFFIXES = (".md", ".markdown")
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES + PDF_SUFFIXES


def extract(file: Path, path: str, rules: Rules) -> RawDocument:
    """Extract `file`, known to the rest of the pipeline by `path` (relative to the ingested folder)."""
    suffix = file.suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return extract_markdown(file, path, rules.page_markers)
    if suffix in PDF_SUFFIXES:
        # Imported here: `pipeline sql` and `search` load this module too, and need no PyMuPDF.
        from pipeline.extract.pdf import extract_pdf

        return extract_pdf(file, path)
    raise ExtractError(f"{path}: unsupported file type {suffix!r}; the pipeline reads {', '.join(SUPPORTED_SUFFIXES)}")
