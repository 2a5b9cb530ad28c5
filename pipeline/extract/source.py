"""Reading a paper's file: its bytes, read once, which are both what is parsed and what the
documents row's hash is of (`pipeline.ingest.task`), so that a file changed since the folder was
listed is stored as read."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import ExtractError

PDF_SNIFF_BYTES = 1024
"""Bytes looked at each end of a file for a PDF's `%PDF-` header and its `%%EOF` end marker: the
standard lets the header start anywhere in the first 1024, and writers put a little junk before
the header or after the end marker."""


def read_source(file: Path, path: str) -> bytes:
    """The bytes of `file`, known to the pipeline by `path`; an error naming it where it cannot be read."""
    try:
        return file.read_bytes()
    except OSError as error:
        raise ExtractError(f"{path}: cannot read the file: {error.strerror}; check that it exists and is readable") from None
