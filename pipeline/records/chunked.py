"""One paper as the chunk and link stages leave it, and where its bibliography's entries are.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from pipeline.records.base import Record
from pipeline.records.chunks import Chunk, ChunkBox, Paragraph, Section, SectionBox
from pipeline.records.document import Document
from pipeline.records.extract import Table
from pipeline.records.links import Citation, Link, Reference


@dataclass(frozen=True)
class EntrySpan:
    """Where an entry of the paper's bibliography sits in the document text, and the label the
    paper prints before it. The chunk stage finds them, to keep each entry whole in one chunk;
    the link stage reads them into `Reference` records."""

    char_start: int
    char_end: int
    label: str | None
    beyond_sections: bool = False
    """The entry lies after the text of the bibliography's sections: in a bibliography printed
    without a heading, or one carried on at the paper's end after later sections."""


class ChunkedDocument(Record):
    """The chunk stage's result for one paper: its sections, paragraphs and chunks, where its
    bibliography's entries are, and where a PDF prints them. The link stage fills in the
    bibliography's records and the citations and cross-references the chunks hold."""

    document: Document
    sections: list[Section]
    paragraphs: list[Paragraph]
    chunks: list[Chunk]
    entry_spans: list[EntrySpan] = Field(default_factory=list)
    """Where the bibliography's entries are, in text order (the chunk stage's; see `link`)."""
    references: list[Reference] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    chunk_boxes: list[ChunkBox] = Field(default_factory=list)
    """Where each chunk's text is printed, chunk by chunk in text order (PDF only)."""
    section_boxes: list[SectionBox] = Field(default_factory=list)
    """Where each section's own text is printed, in document order (PDF only)."""
    tables: list[Table] = Field(default_factory=list)
    """The paper's tables, each with the chunk of its caption where it has one."""
    structure_warning: str | None = None
    """Why the paper's structure looks collapsed (a long paper without section headings), or None."""
