"""The typed records that flow between the stages: extract → normalize → chunk → link → index.

Every record is frozen: a stage builds a new record instead of changing the one it was given.
Offsets are 0-based, half-open (`char_start` inclusive, `char_end` exclusive) into
`Document.text`; lines and pages are 1-based and inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


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


class SectionType(StrEnum):
    intro = "intro"
    methods = "methods"
    results = "results"
    discussion = "discussion"
    conclusion = "conclusion"
    meta = "meta"
    figure_caption = "figure_caption"
    table = "table"
    """A table's caption chunk: the paper's `tables` row of the same chunk holds its cells."""
    other = "other"


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


# ---------------------------------------------------------------- extract output


class RawBlock(Record):
    """One block as the extractor found it, before any cleanup."""

    kind: BlockKind
    segments: list[TextSegment]
    """The block's text in reading order, cut where the page changes."""
    level: int | None = None
    """Heading level as the source gave it (Markdown `#` count, or the PDF's recovered level)."""
    heading_evidence: list[str] = Field(default_factory=list)
    """What made the PDF extractor take the block for a heading, in words (`larger than body`,
    `bold`, `its own face (…)`, `numbered`, `an entry of the PDF's outline`); empty otherwise."""
    line_start: int | None = None
    """First source line of the block, 1-based; None for PDFs."""
    line_end: int | None = None
    """Last source line of the block, inclusive; None for PDFs."""
    line_boxes: list[LineBox] = Field(default_factory=list)
    """PDF only: where each line of the block's text is printed, one box a line of `text`
    (split at `\\n`), in order; empty for Markdown."""
    superscripts: list[tuple[int, int]] = Field(default_factory=list)
    """PDF only: char ranges of `text` printed as superscripts (raised, smaller than their line,
    and flagged so by MuPDF), where a citation number may be."""

    @property
    def text(self) -> str:
        return "".join(segment.text for segment in self.segments)


class TableCell(Record):
    """One cell of a table's grid, where it starts and how far it spans."""

    row: int
    """0-based row of the grid, header rows first."""
    col: int
    """0-based column of the grid."""
    row_span: int = 1
    """Rows the cell covers, itself included."""
    col_span: int = 1
    """Columns the cell covers, itself included."""
    header: bool
    """A header cell (a row above the body), not a body cell."""
    text: str
    """The cell's text, its lines joined by spaces; empty for an empty cell."""


class TableParse(StrEnum):
    """How a table's cells were read, or why they were not."""

    cells = "cells"
    """Cut into cells: `cells` and `markdown` hold them."""
    text = "text"
    """A caption says a table is there, but no grid of cells was found: its lines stay as the
    text they are in, and `cells` is empty."""


class Table(Record):
    """A table of the paper: its label, caption and footnotes, where it is printed, and its cells."""

    table_id: str
    """`T1`, `T2`, … in the paper's order."""
    label: str | None
    """The label its caption opens with (`Table 2`), as written; None for a table without caption."""
    caption: str | None
    """The caption as printed, label included."""
    footnotes: str | None = None
    """The notes printed under it (`HC: high cholesterol`), lines joined by newlines."""
    parse: TableParse
    pages: list[int] = Field(default_factory=list)
    """Every physical page (1-based) it is printed on; empty for Markdown."""
    boxes: list[Box] = Field(default_factory=list)
    """Where its grid is printed, one box a page (PDF only)."""
    line_start: int | None = None
    """First source line of the table (Markdown); None for PDFs."""
    line_end: int | None = None
    """Last source line, inclusive."""
    header_rows: int = 0
    """Rows of the grid that are header rows."""
    cells: list[TableCell] = Field(default_factory=list)
    """Row by row, left to right; a spanning cell once, where it starts."""
    markdown: str | None = None
    """GitHub-Markdown rendering: one header row (a multi-row header joined column by column) and
    every body row with its cells apart; None where `parse` is `text`."""
    chunk_id: str | None = None
    """The table's own chunk (set by the chunk stage)."""


class SourceFacts(Record):
    """What is known of the file a document came from, carried from extract to the database."""

    page_count: int | None = None
    """Physical pages in the source; None for Markdown."""
    page_labels: dict[int, str] = Field(default_factory=dict)
    """Printed page label by physical page, only where the PDF defines labels."""
    encoding: str | None = None
    """Text encoding the file was decoded with (Markdown only)."""
    removed_running_lines: int = 0
    """Repeated page furniture (running heads and feet, page numbers) dropped from the text."""
    reading_notes: list[str] = Field(default_factory=list)
    """Where the extractor read the file otherwise than its format's usual reading, and why
    (`pipeline inspect` prints them; the stored extraction keeps them)."""
    layout: str | None = None
    """Which evidence read a PDF's layout: `rules` (typography and geometry) or `model` (PyMuPDF's
    layout model beside them); None for Markdown."""
    layout_reason: str | None = None
    """Why that reading was chosen: the mode asked for, or what made `auto` doubt the rules' reading."""


class FrontLine(Record):
    """A line printed on a PDF's first page as PyMuPDF reads it, before any pass drops, joins or
    reorders it: where the paper's metadata (`pipeline.metadata`) finds its byline and DOI."""

    text: str
    size: float
    """Points: the size most of its characters have."""
    bold: bool
    x0: float
    """Points from the page's left edge."""
    y0: float
    """Points from the page's top to the line's top."""
    superscripts: list[tuple[int, int]] = Field(default_factory=list)
    """Char ranges of `text` set as superscripts (an author's affiliation marks)."""


class RawDocument(SourceFacts):
    """What an extractor read from one file: blocks in reading order with their provenance."""

    schema_name: str = "pipeline.RawDocument"
    schema_version: int = SCHEMA_VERSION
    path: str
    """Path relative to the ingested folder, with `/` separators."""
    format: SourceFormat
    blocks: list[RawBlock]
    tables: list[Table] = Field(default_factory=list)
    """The tables found, cells and all, in the paper's order (their text stays in `blocks`)."""
    embedded_metadata: dict[str, str] = Field(default_factory=dict)
    """PDF only: the document information (`info:title`, `info:author`, `info:subject`, …) and the
    XMP fields (`xmp:dc:title`, `xmp:prism:doi`, …) as the file stores them, empty ones left out."""
    first_page: list[FrontLine] = Field(default_factory=list)
    """PDF only: page 1's lines in PyMuPDF's order, furniture included."""


# ---------------------------------------------------------------- normalize output


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
    schema_version: int = SCHEMA_VERSION
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


# ---------------------------------------------------------------- chunk output


class SourceSpan(Record):
    """Where a section, paragraph or chunk sits: in `Document.text` and in the source file."""

    char_start: int
    char_end: int
    line_start: int | None
    """First source line, 1-based (Markdown); None for PDFs."""
    line_end: int | None
    """Last source line, inclusive."""
    page_start: int | None
    """First physical page, 1-based; None where the source has no pages."""
    page_end: int | None
    """Last physical page, inclusive."""


class Section(SourceSpan):
    """One heading of the paper (or the untitled front matter) and what chunking decided for it."""

    section_id: str
    """`S1, S2, …` in document order; children of a top-level section `S3.1, S3.2, …`."""
    parent_id: str | None
    level: int
    """Normalized level: 1 title/front matter, 2 top-level, 3 child, …"""
    heading: str | None
    """Heading as written (None for front matter that has no heading)."""
    heading_path: list[str]
    section_type: SectionType
    type_source: TypeSource
    type_rule: str | None = None
    """The anchor or pattern rule that typed it, where `type_source` is `anchor` or `classified`."""
    anchor: str | None
    """Name of the strict anchor rule the heading matched, if any (`references`, `methods`)."""
    absorbed_into: str | None
    """Section id of the anchor that absorbed this flat sibling, if any."""
    word_count: int
    """Words of the section's own body, headings and children excluded; its span covers the
    heading and that body."""
    decisions: list[str] = Field(default_factory=list)
    """What the chunker decided here, in words, for `pipeline inspect`."""


class Paragraph(SourceSpan):
    """A body block with its stable id (`S2-P1` is the first paragraph of S2)."""

    paragraph_id: str
    section_id: str
    kind: BlockKind
    word_count: int


class Chunk(SourceSpan):
    """A retrievable piece of a paper whose text is `Document.text[char_start:char_end]`."""

    chunk_id: str
    """`{doc_id}:{ordinal}`."""
    doc_id: str
    ordinal: int
    """1-based position among the paper's chunks."""
    section_id: str
    section_type: SectionType
    heading: str | None
    heading_path: list[str]
    text: str
    word_count: int
    pages: list[int]
    """Every page the chunk's text is on (empty where the source has no pages)."""
    paragraph_ids: list[str]
    absorbed_into: str | None
    """Anchor section id, where the chunk's section was absorbed into a methods/results anchor."""
    split: ChunkSplit
    in_bibliography: bool = False
    """Part of the paper's own bibliography (its References section): `search` leaves it out
    unless asked."""


class ChunkBox(Box):
    """Where part of a PDF chunk's text is printed: a line, or a run of lines of one column
    merged where they touch."""

    chunk_id: str


class SectionBox(Box):
    """Where part of a PDF section's own text (its heading and body, children excluded) is printed."""

    section_id: str


# ---------------------------------------------------------------- links output


class Reference(Record):
    """One entry of the paper's own bibliography, as the paper prints it. What the entry shows
    is read off it; nothing is looked up, nothing guessed."""

    ref_id: str
    """`R1`, `R2`, … in the paper's order."""
    ordinal: int
    """1-based position in the bibliography."""
    label: str | None
    """The label the paper prints before the entry (`1`, `[12]`), if any."""
    text: str
    """The entry as written: `Document.text[char_start:char_end]`."""
    char_start: int
    char_end: int
    line_start: int | None
    line_end: int | None
    page_start: int | None
    page_end: int | None
    doi: str | None = None
    year: str | None = None
    """The first year the entry shows, with its letter where it has one (`2020a`)."""
    first_author: str | None = None
    """The surname the entry starts with."""


class CitationResolution(StrEnum):
    """How an in-text citation marker found its entry, or why it did not."""

    number = "number"
    """A numeric marker (`[3]`, a member of `[3-7]`) naming an entry by its label."""
    author_year = "author_year"
    """An author–year marker matching one entry's first author and year."""
    ref_id = "ref_id"
    """A marker that names the entry's id (`[R1]`)."""
    missing = "missing"
    """No entry has this label, or this author and year: a broken citation."""
    ambiguous = "ambiguous"
    """More than one entry matches; none is chosen."""


class Citation(Record):
    """A marker in a chunk's text that cites the paper's bibliography; a range gives one per member."""

    chunk_id: str
    ref_id: str | None
    """The entry cited; None where the marker resolves to none (see `resolution`)."""
    marker: str
    """The marker as written (`[3-7]` for every member of that range)."""
    char_start: int
    """Offsets of the marker inside the chunk's text."""
    char_end: int
    resolution: CitationResolution
    detail: str | None = None
    """Which member of a range, or why it is unresolved, in words."""


class LinkKind(StrEnum):
    table = "table"
    figure = "figure"
    section = "section"
    appendix = "appendix"
    supplementary = "supplementary"
    equation = "equation"
    anchor = "anchor"
    """An explicit id: a paragraph or section id (`S2-P1`), or a label a heading starts with (`@C03`)."""


class Link(Record):
    """A cross-reference in a chunk's text to another part of the paper."""

    chunk_id: str
    kind: LinkKind
    label: str
    """As written: `Table 2`, `Fig. 3B`, `Section 4.2`, `@C03`."""
    char_start: int
    """Offsets of the label inside the chunk's text."""
    char_end: int
    target_chunk_id: str | None
    """The chunk the label points to (a table's or figure's caption chunk, a section's first
    chunk); None where it points outside the paper or nowhere (see `reason`)."""
    reason: str | None = None


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


# ---------------------------------------------------------------- paper metadata


class MetadataSource(StrEnum):
    """Where a field of a paper's metadata was read."""

    pdf_metadata = "pdf_metadata"
    """The PDF's document information dictionary (`/Title`, `/Author`, `/Subject`, `/Keywords`)."""
    xmp = "xmp"
    """The PDF's XMP metadata stream (Dublin Core, PRISM)."""
    first_page = "first_page"
    """Printed on the PDF's first page: its title block, the byline under it, a line of its own."""
    yaml_front_matter = "yaml_front_matter"
    """A Markdown file's YAML front matter (`---` … `---`)."""
    front_matter = "front_matter"
    """Written in a Markdown paper before its first section: the title, the line under it."""
    heading = "heading"
    """A heading of the paper's own (`Abstract`) or a label opening a paragraph (`Keywords:`)."""


class PaperMetadata(Record):
    """Who wrote a paper, when and where, as the paper itself says it: every field is read from
    the file, each with where it was read (`*_source`), and None where the file does not say it."""

    title: str | None = None
    title_source: MetadataSource | None = None
    authors: list[str] = Field(default_factory=list)
    """Authors in the order printed, each name as printed less affiliation marks and degrees."""
    author_keys: list[str] = Field(default_factory=list)
    """Each author's surname in lower case, accents and everything but letters dropped: the key
    `bibliography.first_author` is compared by."""
    authors_source: MetadataSource | None = None
    year: int | None = None
    """The year of publication the paper prints (published, copyright, its citation line)."""
    year_source: MetadataSource | None = None
    journal: str | None = None
    """The journal or venue's name."""
    journal_source: MetadataSource | None = None
    volume: str | None = None
    volume_source: MetadataSource | None = None
    doi: str | None = None
    """Lower case, without `https://doi.org/` or `doi:`."""
    doi_source: MetadataSource | None = None
    keywords: list[str] = Field(default_factory=list)
    keywords_source: MetadataSource | None = None
    abstract_start: int | None = None
    """Offsets of the abstract's text in `Document.text` (its heading left out), half-open."""
    abstract_end: int | None = None
    abstract_source: MetadataSource | None = None
