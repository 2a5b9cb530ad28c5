"""The extract stage's records: a source file read into blocks with where each was printed.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from pipeline.records.base import RECORD_SCHEMA_VERSION, BlockKind, Box, LineBox, Record, SourceFormat, TextSegment


WARNING_NOTE = "warning: "
"""Opens a reading note that says the text lost something on the way in (bytes that are not
UTF-8 replaced): such a note is the documents row's `warning` too, and the run's summary names
the paper."""


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


OcrLineBox = tuple[float, float, float, float, float]
"""An OCR'd line as the stored extraction keeps it: its box (x0, y0, x1, y1, in page points as a
`Box`) and the recognizer's confidence in its text (0 to 1)."""


class OcrPage(Record):
    """A PDF page whose text was read by OCR instead of its text layer, and why."""

    page: int
    """1-based physical page."""
    reason: str
    """Why its text layer was not read: `no text layer`, `its text layer is not text (…)`,
    `a scan with a thin text layer (…)`, `forced (--ocr force)`."""
    dpi: int
    """Resolution the page was rendered at for OCR."""
    lines: list[OcrLineBox] = Field(default_factory=list)
    """Every line kept from the page, in the recognizer's order, with its confidence."""


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
    (`pipeline inspect` prints them; the stored extraction keeps them); a note that opens with
    `WARNING_NOTE` says the text lost something."""
    layout: str | None = None
    """Which evidence read a PDF's layout: `rules` (typography and geometry) or `model` (PyMuPDF's
    layout model beside them); None for Markdown."""
    layout_reason: str | None = None
    """Why that reading was chosen: the mode asked for, or what made `auto` doubt the rules' reading."""
    ocr_pages: list[OcrPage] = Field(default_factory=list)
    """PDF only: the pages read by OCR, in page order; every other page was read from its text layer."""

    @model_serializer(mode="wrap")
    def _ocr_pages_only_where_read(self, handler: SerializerFunctionWrapHandler) -> dict:
        # Left out where no page was OCR'd, so that every stored extraction of a text PDF or a
        # Markdown file is, byte for byte, what it was before OCR came in (and still loads).
        data = handler(self)
        if not self.ocr_pages:
            data.pop("ocr_pages", None)
        return data


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
    schema_version: int = RECORD_SCHEMA_VERSION
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
    margin_rows: list[str] = Field(default_factory=list)
    """PDF only: the rows in the top and bottom margins of page 2 and of the last page, furniture
    included, top to bottom: where a paper whose page 1 prints no DOI prints it in a running line."""
