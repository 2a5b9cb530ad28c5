"""The vocabulary every stage's records share: the frozen record base, the kinds of block and
section (`SectionType` is `pipeline.records.kinds`', offered by the command line), and a box on
a page.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from pipeline.records.kinds import SectionType  # noqa: F401  (defined apart, without pydantic: the command line offers it)

RECORD_SCHEMA_VERSION = 1
"""The version of these records as stored (`extractions.raw_document`); the database's own is
`pipeline.index.schema.SCHEMA_VERSION`."""


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceFormat(StrEnum):
    markdown = "markdown"
    pdf = "pdf"


class BlockKind(StrEnum):
    heading = "heading"
    paragraph = "paragraph"
    list = "list"
    table = "table"
    code = "code"
    blockquote = "blockquote"
    front_matter = "front_matter"
    equation = "equation"
    """Display maths (`$$ … $$`, `\\[ … \\]`), its lines kept as written."""
    footnote = "footnote"
    """A footnote's text (`[^1]: …`), where the file writes it."""
    caption = "caption"
    """Set by normalize for paragraphs that are figure or table captions."""
    aside = "aside"
    """Set by the PDF extractor for text beside the body flow: a margin note, a side box, an
    address or DOI line, a pull quote. Like a caption it stands where the paper put it, and its
    text comes after the body's."""


class TypeSource(StrEnum):
    """Why a section got its type."""

    anchor = "anchor"
    """Its heading is a strict anchor (`type_rule` names the anchor rule)."""
    classified = "classified"
    """A broad pattern matched its heading (`type_rule` names the pattern rule)."""
    inherited = "inherited"
    """It sits inside a section that passed its type on."""
    absorbed = "absorbed"
    """A flat sibling that a methods or results anchor absorbed."""
    front_matter = "front_matter"
    """The title and whatever precedes the first section."""
    unmatched = "unmatched"
    """No rule matched its heading: `other`."""


class ChunkSplit(StrEnum):
    """Why a chunk starts where it does."""

    front = "front"
    """The front matter: title and what comes before the first section."""
    h2 = "h2"
    """A top-level section starts here (H1/H2 are hard splits)."""
    h3_soft = "h3_soft"
    """A sub-section of a section too long for one chunk."""
    size = "size"
    """The piece before ran over the hard maximum and was cut here."""
    caption = "caption"
    """A figure or table caption, a chunk of its own."""
    aside = "aside"
    """Text beside the body flow (a margin note, a side box), a chunk of its own."""
    bibliography = "bibliography"
    """A bibliography printed without a heading starts here, after the last section's text."""


class DocumentStatus(StrEnum):
    """What became of a file in the run that last read it."""

    ingested = "ingested"
    failed = "failed"
    no_text = "no_text"
    """A PDF without a text layer: it needs OCR."""


class Box(Record):
    """Where text is printed on a PDF page: PyMuPDF's page coordinates, in points, with the
    origin at the page's top left and y growing down, as `page.get_text` gives them (of the page
    as stored: on a page with a /Rotate, before the turn, `page.rect * page.derotation_matrix`)."""

    page: int
    """1-based physical page."""
    x0: float
    y0: float
    x1: float
    y1: float


LineBox = tuple[int, float, float, float, float]
"""A `Box` as the stored extraction keeps it, one a line of every PDF block: (page, x0, y0, x1, y1).
Unnamed, since a paper has a thousand lines and names would nearly double what is stored."""


class TextSegment(Record):
    """A run of a block's text that sits on one page (or on no known page)."""

    text: str
    page: int | None = None
    """1-based physical page the text is on; None where the source has no pages."""
