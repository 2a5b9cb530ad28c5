"""The normalize stage's records: one paper's text with its blocks, offsets and pages.
"""

from __future__ import annotations

from pydantic import Field

from pipeline.records.base import RECORD_SCHEMA_VERSION, BlockKind, Box, Record, SourceFormat
from pipeline.records.extract import SourceFacts, Table


class TextBox(Box):
    """A printed line's box and the stretch of `Document.text` that holds the line's text."""

    char_start: int
    char_end: int


class PageSpan(Record):
    """A stretch of `Document.text` that sits on one page."""

    char_start: int
    char_end: int
    page: int


class Block(Record):
    """A cleaned block placed in `Document.text`."""

    kind: BlockKind
    char_start: int
    char_end: int
    level: int | None = None
    """Heading level after normalization: 1 is the paper title, 2 top-level sections, 3 their
    children, and so on."""
    heading_key: str | None = None
    """The heading reduced for classification: numbering, markup, trailing punctuation and case
    removed (`2.1 **Patient cohort**:` → `patient cohort`)."""
    heading_evidence: list[str] = Field(default_factory=list)
    """What made the extractor take the block for a heading (PDF only; see `RawBlock`)."""
    line_start: int | None = None
    line_end: int | None = None
    page_spans: list[PageSpan] = Field(default_factory=list)
    line_boxes: list[TextBox] = Field(default_factory=list)
    """PDF only: where each of the block's lines is printed, in order."""
    word_count: int = 0


class Document(SourceFacts):
    """One paper's normalized text and its blocks, each an exact slice of `text`."""

    schema_name: str = "pipeline.Document"
    schema_version: int = RECORD_SCHEMA_VERSION
    doc_id: str
    """Readable slug of the path relative to the ingested folder (`reviews/berek-2021`)."""
    path: str
    format: SourceFormat
    title: str | None
    text: str
    """Normalized text: body blocks in reading order, then the captions, separated by blank
    lines. Captions are gathered after the body so that every body chunk is one contiguous
    slice that no figure interrupts."""
    blocks: list[Block]
    """In reading order (a caption stands where the paper put it, though its text is at the end)."""
    superscripts: list[tuple[int, int]] = Field(default_factory=list)
    """The blocks' superscripts (`RawBlock.superscripts`) as char ranges of `text`, in text order."""
    tables: list[Table] = Field(default_factory=list)
    """The paper's tables as extract found them (`RawDocument.tables`)."""
    line_starts: list[int] = Field(default_factory=list)
    """Where a line of a joined block (a paragraph, heading, …) other than its first began in
    the source, as offsets into `text`, in order: normalize joins the lines, and a bibliography
    set one entry a line is cut again there. Kept on the document, not on each block, since a
    field of every block costs its validation in every block."""
