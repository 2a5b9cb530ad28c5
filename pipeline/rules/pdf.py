"""`[pdf]`: the thresholds PDF extraction reads, named, for layouts the defaults do not fit."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, PrivateAttr, field_validator, model_validator

from pipeline.records.kinds import LayoutMode, OcrMode
from pipeline.rules.heading_model import load_heading_model
from pipeline.rules.table_row_model import load_table_row_model
from pipeline.rules.base import Pattern, RulesModel


class PdfRunningLineRules(RulesModel):
    """Running heads and feet: margin lines that recur at the same height on other pages."""

    margin: Annotated[float, Field(gt=0, lt=0.5)] = 0.15
    """Height of the band at the top and at the bottom of a page where running lines are sought,
    as a share of the page height."""
    min_pages: Annotated[int, Field(ge=2)] = 3
    """Pages a margin line must be found on (the same text, digits aside, at the same height)."""
    short_document_min_pages: Annotated[int, Field(ge=2)] = 2
    """Pages it must be found on in a document of at most `min_pages` pages."""
    height_tolerance: Annotated[float, Field(ge=0, le=0.1)] = 0.015
    """How far two pages may set the same line apart and it still counts as the same height, as
    a share of the page height."""
    min_height_tolerance: Annotated[float, Field(ge=0, le=50)] = 4.0
    """The least that tolerance is, in points."""

    @model_validator(mode="after")
    def _short_documents_ask_no_more(self) -> PdfRunningLineRules:
        if self.short_document_min_pages > self.min_pages:
            raise ValueError("short_document_min_pages must not exceed min_pages")
        return self


class PdfColumnRules(RulesModel):
    """Column gutters: vertical strips that the lines of a column leave empty."""

    min_text_width: Annotated[float, Field(gt=0, le=200)] = 20.0
    """A page whose text is narrower than this shows no gutter of its own, in body font sizes."""
    gutter_min_width: Annotated[float, Field(gt=0, le=20)] = 0.5
    """Narrowest gutter, in body font sizes."""
    gutter_crossing_share: Annotated[float, Field(ge=0, lt=1)] = 0.12
    """Characters of narrow lines that may cross a gutter (centred captions, figure text), as a
    share of the characters of all narrow lines."""
    narrow_line_max_width: Annotated[float, Field(gt=0, le=1)] = 0.55
    """A line narrower than this share of the text width may be a line of a column; wider ones
    (the title, a full-width abstract, wide figures) may cross a gutter."""
    narrow_line_min_chars: Annotated[int, Field(ge=1)] = 10
    """Fewest characters of a line that must keep out of a gutter, in characters: shorter ones
    (table cells, figure labels, superscripts) may sit anywhere."""
    band_gap: Annotated[float, Field(gt=0)] = 4.0
    """A gap this many body sizes high across every column of a page, with text in two columns
    above and below it, parts the page into bands read one after the other."""
    weak_page_narrow_share: Annotated[float, Field(ge=0, le=1)] = 0.3
    """On a page without gutters of its own, a gutter seen on other pages is sought among its
    narrow lines where they hold at least this share of its characters; otherwise only a strip
    that nothing crosses (a margin column) counts."""


class PdfParagraphRules(RulesModel):
    """Where the rows of one column are cut into blocks."""

    line_gap: Annotated[float, Field(ge=1, le=5)] = 1.3
    """A step from one baseline to the next of more than this many line pitches (the body's
    line spacing at the line's size) starts a block."""
    indent: Annotated[float, Field(gt=0, le=10)] = 0.7
    """A first line indented by more than this, after a finished or short line, starts a
    paragraph, in font sizes."""
    size_change: Annotated[float, Field(gt=0, lt=1)] = 0.06
    """Rows whose font sizes differ by more than this share of the larger are different blocks."""
    short_line: Annotated[float, Field(ge=0, lt=1)] = 0.15
    """A line that stops more than this share of its column's width (and three font sizes) short
    of the column's right edge ends a paragraph."""


class PdfContinuationRules(RulesModel):
    """Paragraphs cut by the end of a column or page, joined to the part that carries on."""

    max_floats_between: Annotated[int, Field(ge=0, le=50)] = 6
    """Most blocks (captions, tables, footnotes, labels) that may stand between the two parts."""
    max_size_difference: Annotated[float, Field(ge=0, le=1)] = 0.1
    """Most the parts' font sizes may differ by, in body font sizes."""
    small_print: Annotated[float, Field(gt=0, le=1)] = 0.9
    """Text under this share of the body size is small print (footnotes, figure text): it may
    stand between the parts, and small print only continues in small print."""


class PdfAsideRules(RulesModel):
    """Asides: small print set beside the body text (margin notes, side boxes), kept apart from it."""

    max_size: Annotated[float, Field(gt=0, le=1)] = 0.9
    """An aside is set smaller than this share of the body size; lines this large are body lines."""
    min_chars: Annotated[int, Field(ge=1)] = 10
    """Fewest characters of an aside's line, and of a body line it is measured against: shorter
    pieces (table cells, figure labels) are left where they are."""
    max_width: Annotated[float, Field(gt=0, le=1)] = 0.6
    """An aside's line is at most this share of the width of the body lines beside it: small print
    as wide as the body is a column of its own (the references)."""


class HeadingClassifier(StrEnum):
    """What decides whether a short block is a heading (`[pdf.headings] classifier`)."""

    rules = "rules"
    model = "model"


class PdfHeadingRules(RulesModel):
    """What a heading looks like, beside the outline: larger than body, or bold or capitals."""

    min_size: Annotated[float, Field(gt=0, le=5)] = 0.95
    """Smallest heading, as a share of the body size."""
    larger_size: Annotated[float, Field(gt=0, le=5)] = 1.07
    """From this share of the body size up, size alone makes a heading; below it, bold or capitals must."""
    max_words: Annotated[int, Field(ge=1)] = 16
    """Most words in a heading."""
    max_chars: Annotated[int, Field(ge=1)] = 160
    """Most characters in a heading."""
    max_rows: Annotated[int, Field(ge=1)] = 3
    """Most lines a heading wraps onto."""
    classifier: HeadingClassifier = HeadingClassifier.rules
    """Who has the last word on whether a short block is a heading: the rules' thresholds alone,
    or the learned model (`rules/heading_model.py`, decided in `extract/pdf/heading_model.py`) that reads their evidence."""
    _model: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _sizes_are_ordered(self) -> PdfHeadingRules:
        if self.min_size > self.larger_size:
            raise ValueError("min_size must not exceed larger_size")
        return self

    @model_validator(mode="after")
    def _load_the_model(self) -> PdfHeadingRules:
        # Loaded here, once with the rules, so that every pool worker that receives them has it.
        if self.classifier is HeadingClassifier.model:
            self._model = load_heading_model()
        return self

    @property
    def model(self) -> Any:
        """The heading model (`trained_model.TrainedModel`) where `classifier` is "model", else None."""
        return self._model


class PdfTitleRules(RulesModel):
    """The paper title: the largest text in the upper part of page 1, above the abstract."""

    min_size: Annotated[float, Field(gt=0, le=10)] = 1.15
    """Smallest title, as a share of the body size: page 1 has no title without text this large,
    unless it has bold text `bylined_min_size` large with a byline under it."""
    bylined_min_size: Annotated[float, Field(gt=0, le=10)] = 1.05
    """Smallest title in bold with a byline under it, where no text is `min_size` large: a title
    set a point over the body in bold over its authors' names."""
    max_top: Annotated[float, Field(gt=0, le=1)] = 0.6
    """Lowest a title may start, as a share of the page height from its top, unless it is page 1's
    first text (a cover whose picture fills the top)."""
    min_words: Annotated[int, Field(ge=1)] = 3
    """Fewest words in a title."""
    max_rows: Annotated[int, Field(ge=1)] = 6
    """Most lines a title wraps onto."""


class PdfFrontMatterRules(RulesModel):
    """Page 1's front matter (title, authors, affiliations) ends where the paper's body opens."""

    opening_anchors: list[str] = Field(default_factory=lambda: ["abstract", "introduction"])
    """Names of the anchor rules ([[anchors]]) whose headings open the body."""
    opening_words: list[str] = Field(default_factory=lambda: ["summary", "motivation", "overview"])
    """Headings that open the body though no anchor holds them."""

    @field_validator("opening_words")
    @classmethod
    def _lowercase(cls, words: list[str]) -> list[str]:
        return [word.casefold() for word in words]


class PdfLayoutRules(RulesModel):
    """When PyMuPDF's layout model reads a paper, and what makes a typographic reading doubtful."""

    mode: LayoutMode = LayoutMode.auto
    min_pages: Annotated[int, Field(ge=1)] = 3
    """Pages from which a paper is long enough to be judged: a short note may have no headings."""
    min_body_headings: Annotated[int, Field(ge=0)] = 3
    """Fewest headings below the title a long paper should show; fewer is doubtful."""
    max_section_share: Annotated[float, Field(gt=0, le=1)] = 0.7
    """Largest share of a long paper's words that one heading's section may hold (one heading
    over everything is a heading tree that collapsed)."""
    max_empty_sections: Annotated[int, Field(ge=1)] = 3
    """Headings in a row with no text between them from which a paper is doubtful (a table of
    contents read as headings)."""
    max_pages: Annotated[int, Field(ge=1)] = 150
    """Longest document `auto` sends to the model: the model reads about 6 pages a second on one
    core, so 150 pages take under half a minute, well within `ingest --timeout`'s default; a
    longer doubtful document (a thesis, a book) keeps its typographic reading and says so."""




class PdfOcrRules(RulesModel):
    """Which PDF pages are read by OCR (rapidocr, the `[ocr]` extra), and how."""

    mode: OcrMode = OcrMode.auto
    dpi: Annotated[int, Field(ge=72, le=600)] = 200
    """Resolution a page is rendered at for OCR, in dots per inch."""
    min_confidence: Annotated[float, Field(ge=0, le=1)] = 0.5
    """Lines the recognizer is less sure of than this (0 to 1) are left out."""
    threads: Annotated[int, Field(ge=1, le=64)] = 1
    """Threads one OCR run may use: ingest runs a worker a core already, and more threads than
    cores make each page many times slower."""
    max_unreadable_share: Annotated[float, Field(gt=0, le=1)] = 0.5
    """A text layer where more than this share of the characters is unmapped (U+FFFD, private-use
    or control characters) is not text."""
    min_word_share: Annotated[float, Field(ge=0, le=1)] = 0.35
    """A text layer where fewer than this share of the words look like words (letters, with a
    vowel where they are Latin; or numbers) is not text; 0 turns the sign off."""
    min_words: Annotated[int, Field(ge=1)] = 30
    """Fewest words a text layer must have to be judged by the word share."""
    image_cover: Annotated[float, Field(gt=0, le=1)] = 0.9
    """Share of a page one image must cover for the page to be a scan."""
    thin_layer_chars: Annotated[int, Field(ge=0)] = 100
    """A scanned page (`image_cover`) with fewer characters of text than this is read by OCR: its
    layer is a stamp or a fragment, not the page's text."""


class TableStrategy(StrEnum):
    """How a table's grid is read beside its caption (`docs/tables.md` has the figures)."""

    lines = "lines"
    """PyMuPDF's finder on ruling lines only: a table whose rows and columns are drawn."""
    text = "text"
    """PyMuPDF's finder on the words' alignment, inside the region the caption opens."""
    words = "words"
    """Rows from lines and columns from the gaps no line crosses, inside the region the caption opens."""
    lines_then_words = "lines_then_words"
    """A ruled grid where the page draws one beside the caption, `words` elsewhere."""


class TableRowReader(StrEnum):
    """What decides whether a table's line carries on the row above (`[pdf.tables] rows`)."""

    rules = "rules"
    model = "model"


class PdfTableRules(RulesModel):
    """Tables as cells: where PyMuPDF's table finder runs, and what a found grid must be to count."""

    caption: Pattern = Field(
        default=r"^(?P<label>(?:supplement(?:al|ary)\s+)?(?:tab(?:le(?:au)?|ell[ae]|ela|el|la)?|cuadro|quadro)[.-]?\s*(?:[A-Z]?\d+[a-z]?|(?-i:[IVXL]{1,6})\b))(?=\s*$|\s*[.:|—–-]|\s+(?-i:[A-Z(]))",
        validate_default=True,
    )
    """A line that opens a table's caption, matched case-insensitively; group `label` is the
    label. The finder runs only on pages with such a line (or, in the model's reading, a block
    the model calls a table), which keeps its cost off the other pages."""
    strategy: TableStrategy = TableStrategy.words
    max_gap: Annotated[float, Field(gt=0, le=50)] = 4.0
    """Most space between a caption and its table's grid, in body font sizes."""
    min_rows: Annotated[int, Field(ge=1)] = 2
    """Fewest rows of a grid taken for a table; fewer leaves the table as text."""
    min_columns: Annotated[int, Field(ge=2)] = 2
    """Fewest columns of a grid taken for a table."""
    footnote_gap: Annotated[float, Field(gt=0, le=10)] = 1.5
    """Most space between a table (or its previous note line) and a line of small print under it
    for the line to be the table's note, in the line's font sizes."""
    rows: TableRowReader = TableRowReader.rules
    """Who decides which of an unruled table's lines carry on the row above (a cell wrapped onto
    two lines): the rules, or the learned model (`rules/table_row_model.py`, decided in
    `extract/pdf/table_rows.py`) that reads their evidence."""
    _row_model: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _load_the_row_model(self) -> PdfTableRules:
        # Loaded here, once with the rules, so that every pool worker that receives them has it.
        if self.rows is TableRowReader.model:
            self._row_model = load_table_row_model()
        return self

    @property
    def row_model(self) -> Any:
        """The table row model (`trained_model.TrainedModel`) where `rows` is "model", else None."""
        return self._row_model

    @field_validator("caption", mode="before")
    @classmethod
    def _ignoring_case(cls, pattern: object) -> object:
        return f"(?i:{pattern})" if isinstance(pattern, str) else pattern


class PdfRules(RulesModel):
    """How PDF extraction reads layout and typography. Everything has a default, so a rules file
    without [pdf] reads PDFs as the default rules do."""

    running_lines: PdfRunningLineRules = Field(default_factory=PdfRunningLineRules)
    columns: PdfColumnRules = Field(default_factory=PdfColumnRules)
    paragraphs: PdfParagraphRules = Field(default_factory=PdfParagraphRules)
    continuations: PdfContinuationRules = Field(default_factory=PdfContinuationRules)
    asides: PdfAsideRules = Field(default_factory=PdfAsideRules)
    headings: PdfHeadingRules = Field(default_factory=PdfHeadingRules)
    title: PdfTitleRules = Field(default_factory=PdfTitleRules)
    front_matter: PdfFrontMatterRules = Field(default_factory=PdfFrontMatterRules)
    layout: PdfLayoutRules = Field(default_factory=PdfLayoutRules)
    tables: PdfTableRules = Field(default_factory=PdfTableRules)
    ocr: PdfOcrRules = Field(default_factory=PdfOcrRules)


