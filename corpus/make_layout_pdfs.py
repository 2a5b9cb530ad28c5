"""Render PDFs of the layouts that break naive reading order, each with its truth, with PyMuPDF.

    .venv/bin/python corpus/make_layout_pdfs.py OUT_DIR

`corpus/make_pdfs.py` renders one paper through PyMuPDF's Story writer; these fixtures set every
line themselves, so that a margin note can sit on a body line's baseline, a column can have its
own leading, and a page can be an image under an invisible text layer. Each `Fixture` knows its
truth: the body paragraphs (each must come out whole), the asides (each a block of its own, never
inside a paragraph) and the headings with their levels.

The classes: `margin_notes` (notes beside body lines, on their baselines), `side_box` (keywords,
DOI, correspondence and funding in a box beside the abstract), `font_face_headings` (headings in
another font face at body + 0.5 pt, not bold, and an abstract at the same size), `larger_abstract`,
`column_line_heights` (two columns of one size with different leading), `line_numbers` (a review
copy numbered in the margin), `ocr_layer` (page images under invisible two-column text),
`pull_quote_and_figure` (a pull quote inside a column, a figure across both),
`scanned_two_column` (an OCR layer set word by word, each word stretched to its width on the
scan, both columns on one line grid), `headings_like_body` and `headings_in_bold` (one long paper
whose headings cannot be seen, which the collapse guard must report, and the same with bold
headings), `table_beside_text` (a small-print table with daggers and subscripts beside body
lines), `type3_word_by_word` (Type3 bitmap fonts, every word placed on its own) and
`headings_after_lead_ins` (headings of several words after sentences that lead in to a formula)
`numbering_with_separators` (`2.1 | Plant material`, the bar in the regular face),
`run_in_headings_numbered_in_italic` and `run_in_headings_unnumbered_in_bold` (sub-headings at the
start of their paragraphs, `2.3. Animal Preparation. Male rats…`) and `leads_that_head_no_section`
(bold or italic openings that are no headings: abstract labels, a caption, emphasis, short entries),
`top_headings_sharing_a_line` (`METHODS Search strategy We searched…` on one baseline), and
`contents_with_leaders` and `contents_without_leaders` (a report's table of contents, no headings),
`report_code_and_folios` (lines of code in a monospaced face, front matter's pages numbered in roman).
Each fixture's truth may also say that the paper must be reported unstructured, and which rows
are a table's.
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

PAGE = pymupdf.paper_rect("a4")
TOP, BOTTOM, LEFT, RIGHT = 60.0, PAGE.height - 60.0, 56.0, PAGE.width - 56.0
_NOUNS = "cohort trial dose wave clinic ward sample assay region season visit model outcome".split()
_VERBS = "recorded compared followed checked measured reported adjusted grouped weighed".split()
_THINGS = "blood pressure|heart rate|body weight|serum sodium|sleep time|step count|fever days".split("|")


def sentences(seed: int, count: int) -> str:
    """`count` sentences no other fixture repeats, each naming its seed and number."""
    pick = random.Random(seed)
    return " ".join(
        f"Item {seed}.{n} {pick.choice(_VERBS)} the {pick.choice(_THINGS)} of each {pick.choice(_NOUNS)} "
        f"in the {pick.choice(_NOUNS)} over {pick.randint(2, 90)} weeks and {pick.choice(_VERBS)} it twice."
        for n in range(1, count + 1)
    )


@dataclass(frozen=True)
class Style:
    font: str
    size: float
    leading: float
    render_mode: int = 0


BODY = Style("tiro", 10.0, 12.0)
NOTE = Style("helv", 7.0, 8.5)


@dataclass
class Fixture:
    """One generated PDF and what a reader of it must get back."""

    name: str
    paragraphs: list[str] = field(default_factory=list)
    """Body paragraphs, each of which must be contiguous in the extracted text."""
    asides: list[str] = field(default_factory=list)
    """Text outside the body flow: each must be a block of its own."""
    headings: list[tuple[int, str]] = field(default_factory=list)
    """(level, text) of every heading below the title, in reading order."""
    title: str = ""
    unstructured: bool = False
    """A long paper whose headings no reader of its typography can see: it must be reported."""
    table_rows: list[str] = field(default_factory=list)
    """Rows of a table set in small print beside the body: table text, never an aside."""
    contents: list[str] = field(default_factory=list)
    """Entries of a table of contents: one list block, none of them a heading."""
    code: list[str] = field(default_factory=list)
    """Lines of code set apart in a monospaced face: paragraphs, never headings."""


def wrap(text: str, style: Style, width: float, indent: float = 0.0) -> list[str]:
    """Greedy line breaking at `width` points, the first line indented by `indent`."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        room = width - (indent if not lines else 0.0)
        if line and pymupdf.get_text_length(trial, style.font, style.size) > room:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


class Flow:
    """Lines set down column after column, page after page, from `columns` (x0, x1) pairs."""

    def __init__(self, doc: pymupdf.Document, columns: list[tuple[float, float]], top: float = TOP) -> None:
        self.doc = doc
        self.columns = columns
        self.column = 0
        self.page = doc.new_page(width=PAGE.width, height=PAGE.height) if doc.page_count == 0 else doc[-1]
        self.y = self.top = top
        """The current line's baseline, and where the current page's columns start."""
        self.figure: tuple[str, float] | None = None
        """A caption and height of a figure to set across the next new page's top."""
        self.placed: list[tuple[int, float, float]] = []
        """(page index, x0, baseline) of every line set: margin furniture is hung on them."""

    @property
    def x0(self) -> float:
        return self.columns[self.column][0]

    @property
    def width(self) -> float:
        return self.columns[self.column][1] - self.columns[self.column][0]

    def next_column(self) -> None:
        self.column += 1
        if self.column == len(self.columns):
            self.page = self.doc.new_page(width=PAGE.width, height=PAGE.height)
            self.column = 0
            self.top = TOP
        self.y = self.top
        if self.figure and self.column == 0:
            caption, height = self.figure
            self.page.draw_rect(pymupdf.Rect(LEFT, TOP, RIGHT, TOP + height), color=(0, 0, 0), fill=(0.85, 0.85, 0.85))
            self.page.insert_text((LEFT, TOP + height + 14), caption, fontname="tiro", fontsize=8.0)
            self.y = self.top = TOP + height + 24
            self.figure = None

    def line(self, text: str, style: Style, indent: float = 0.0) -> float:
        """Set one line; returns its baseline."""
        if self.y + style.leading > BOTTOM:
            self.next_column()
        self.y += style.leading
        self.page.insert_text((self.x0 + indent, self.y), text, fontname=style.font, fontsize=style.size, render_mode=style.render_mode)
        self.placed.append((self.page.number, self.x0, self.y))
        return self.y

    def paragraph(self, text: str, style: Style, indent: float = 12.0, space: float = 0.0) -> list[float]:
        self.y += space
        lines = wrap(text, style, self.width, indent)
        return [self.line(line, style, indent if i == 0 else 0.0) for i, line in enumerate(lines)]

    def styled_paragraph(self, runs: list[tuple[str, Style]], indent: float = 12.0, space: float = 0.0) -> None:
        """A paragraph whose runs of words each have their own style (a run-in heading in bold or
        italic, then its text), wrapped greedily; a run's space before it is set in its style."""
        self.y += space
        lines: list[list[tuple[str, Style]]] = [[]]
        x = indent
        for text, style in runs:
            for word in text.split():
                width = pymupdf.get_text_length(word, style.font, style.size)
                gap = pymupdf.get_text_length(" ", style.font, style.size) if lines[-1] else 0.0
                if lines[-1] and x + gap + width > self.width:
                    lines.append([])
                    x, gap = 0.0, 0.0
                lines[-1].append((word, style))
                x += gap + width
        for number, line in enumerate(lines):
            self.styled_line(line, indent if number == 0 else 0.0)

    def styled_line(self, words: list[tuple[str, Style]], indent: float = 0.0) -> None:
        """Set one line of words in their styles, each run of one style as one piece of text."""
        leading = max(style.leading for _, style in words)
        if self.y + leading > BOTTOM:
            self.next_column()
        self.y += leading
        x = self.x0 + indent
        for index, (word, style) in enumerate(words):
            text = word if index == 0 else f" {word}"
            self.page.insert_text((x, self.y), text, fontname=style.font, fontsize=style.size)
            x += pymupdf.get_text_length(text, style.font, style.size)
        self.placed.append((self.page.number, self.x0, self.y))

    def heading(self, text: str, style: Style, space: float = 8.0) -> None:
        if self.y + 3 * style.leading + space > BOTTOM:
            self.next_column()
        self.y += space
        for line in wrap(text, style, self.width):
            self.line(line, style)
        self.y += 2.0


def _title(flow: Flow, fixture: Fixture, title: str) -> None:
    fixture.title = title
    flow.y += 10
    for line in wrap(title, Style("tibo", 17.0, 20.0), RIGHT - LEFT):
        flow.page.insert_text((LEFT, flow.y), line, fontname="tibo", fontsize=17.0)
        flow.y += 20.0
    flow.page.insert_text((LEFT, flow.y + 2), "Ada Example, Bob Sample", fontname="tiro", fontsize=11.0)
    flow.y += 22


def _two_columns_under_title(doc: pymupdf.Document, fixture: Fixture, title: str) -> Flow:
    """A flow that sets the title across the page, then goes on in two columns below it."""
    middle = (LEFT + RIGHT) / 2
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, title)
    flow.top = flow.y
    flow.columns = [(LEFT, middle - 9), (middle + 9, RIGHT)]
    return flow


def _body(flow: Flow, fixture: Fixture, seed: int, sections: list[tuple[int, str, int]], heading: dict[int, Style],
          body: Style = BODY) -> None:
    """Sections of (level, heading, paragraphs): every paragraph of `body` text, recorded as truth."""
    for level, text, count in sections:
        flow.heading(text, heading[level])
        fixture.headings.append((level, text))
        for n in range(count):
            paragraph = sentences(seed * 100 + len(fixture.paragraphs), 4 + (n * 3) % 5)
            flow.paragraph(paragraph, body, indent=0.0 if n == 0 else 12.0)
            fixture.paragraphs.append(paragraph)


_SECTIONS = [
    (2, "Introduction", 3), (2, "Methods", 2), (3, "Participants", 3), (3, "Outcomes", 2),
    (2, "Results", 4), (2, "Discussion", 3), (3, "Limitations", 2),
]
_SANS_BOLD = {2: Style("hebo", 12.0, 14.0), 3: Style("hebo", 10.5, 13.0)}


def margin_notes(doc: pymupdf.Document) -> Fixture:
    """One body column with notes in the right margin, set on the baselines of body lines."""
    fixture = Fixture("margin_notes")
    flow = Flow(doc, [(LEFT, 400.0)])
    _title(flow, fixture, "Margin Notes Beside the Running Text of a Trial Report")
    _body(flow, fixture, 1, _SECTIONS, _SANS_BOLD)
    notes = [
        "Correspondence to: Dr Ada Example, Department of Tests, 1 Road, Town; ada@example.org",
        "See end of article for authors' affiliations",
        "See Online for webappendix",
        "Accepted 3 March 2024",
        "Funded by the Synthetic Research Council",
    ]
    anchors = flow.placed[6 :: max(1, len(flow.placed) // len(notes))][: len(notes)]
    for note, (page, _, baseline) in zip(notes, anchors):
        y = baseline
        for line in wrap(note, NOTE, RIGHT - 420.0):
            doc[page].insert_text((420.0, y), line, fontname=NOTE.font, fontsize=NOTE.size)
            y += NOTE.leading
        fixture.asides.append(note)
    return fixture


def side_box(doc: pymupdf.Document) -> Fixture:
    """An abstract in the left two thirds of page 1 with a box of keywords, DOI and addresses beside it."""
    fixture = Fixture("side_box")
    flow = Flow(doc, [(LEFT, 380.0)])
    _title(flow, fixture, "A Side Box Beside the Abstract of a Malaria Study")
    flow.heading("Abstract", _SANS_BOLD[2])
    fixture.headings.append((2, "Abstract"))
    top = flow.y
    abstract = sentences(990, 9)
    flow.paragraph(abstract, BODY, indent=0.0)
    fixture.paragraphs.append(abstract)
    box = pymupdf.Rect(395.0, top - 4, RIGHT, top + 120)
    y = top + 8
    for note in [
        "Keywords: malaria, bed nets, synthetic cohort",
        "DOI: 10.5555/synthetic.2024.017",
        "Correspondence: bob@example.org, Institute of Examples, Town",
        "Funding: Synthetic Research Council grant 42",
    ]:
        for line in wrap(note, NOTE, box.width - 12):
            doc[0].insert_text((box.x0 + 6, y), line, fontname=NOTE.font, fontsize=NOTE.size)
            y += NOTE.leading
        y += 6
        fixture.asides.append(note)
    box.y1 = y
    doc[0].draw_rect(box, color=(0.3, 0.3, 0.3))
    flow.y = max(flow.y, box.y1) + 6
    flow.columns = [(LEFT, RIGHT)]
    _body(flow, fixture, 2, _SECTIONS[:5], _SANS_BOLD)
    return fixture


def font_face_headings(doc: pymupdf.Document) -> Fixture:
    """Headings only by font face: sans, not bold, at body + 0.5 pt; the abstract at that size too."""
    fixture = Fixture("font_face_headings")
    body = Style("tiro", 9.0, 11.0)
    face = {2: Style("helv", 9.5, 12.0), 3: Style("helv", 9.5, 12.0)}
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Headings Set Only in Another Face: A Meta-analysis of Examples")
    abstract = sentences(980, 8)
    flow.paragraph(abstract, Style("tiro", 9.5, 11.5), indent=0.0)
    fixture.paragraphs.append(abstract)
    flow.y += 10
    flow.top = flow.y
    middle = (LEFT + RIGHT) / 2
    flow.columns = [(LEFT, middle - 9), (middle + 9, RIGHT)]
    sections = [
        (2, "INTRODUCTION", 2), (2, "METHODS", 1), (3, "Search strategy and identification of studies", 2),
        (3, "Data extraction", 2), (2, "RESULTS", 1), (3, "Study selection", 3), (3, "Pooled estimates", 2),
        (2, "DISCUSSION", 2), (3, "Strengths and limitations", 2), (2, "CONCLUSIONS", 1),
    ]
    _body(flow, fixture, 3, sections, face, body)
    return fixture


def larger_abstract(doc: pymupdf.Document) -> Fixture:
    """An abstract set larger than the body, then bold headings at body size."""
    fixture = Fixture("larger_abstract")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "A Lead Abstract Set Larger Than the Body Text")
    for n in range(2):
        abstract = sentences(970 + n, 5)
        flow.paragraph(abstract, Style("tiro", 11.5, 14.0), indent=0.0, space=4)
        fixture.paragraphs.append(abstract)
    bold = {2: Style("tibo", 10.0, 13.0), 3: Style("tibi", 10.0, 13.0)}
    _body(flow, fixture, 4, _SECTIONS, bold)
    return fixture


def column_line_heights(doc: pymupdf.Document) -> Fixture:
    """Two columns of one font size, the left set tight and the right loose."""
    fixture = Fixture("column_line_heights")
    flow = Flow(doc, [(LEFT, 290.0)])
    _title(flow, fixture, "Columns With Their Own Line Heights on One Page")
    top = flow.y
    _body(flow, fixture, 5, [(2, "Introduction", 2), (2, "Methods", 2)], _SANS_BOLD, Style("tiro", 9.0, 10.5))
    right = Flow(doc, [(305.0, RIGHT)], top=top)
    right.page = doc[0]
    loose = Fixture("right")
    _body(right, loose, 6, [(2, "Results", 3)], _SANS_BOLD, Style("tiro", 9.0, 14.0))
    fixture.paragraphs += loose.paragraphs
    fixture.headings += loose.headings
    return fixture


def line_numbers(doc: pymupdf.Document) -> Fixture:
    """A review copy: every body line numbered in the left margin, the count running across pages."""
    fixture = Fixture("line_numbers")
    flow = Flow(doc, [(90.0, RIGHT)])
    _title(flow, fixture, "A Review Copy With Its Lines Numbered in the Margin")
    _body(flow, fixture, 7, _SECTIONS, _SANS_BOLD)
    for number, (page, _, baseline) in enumerate(flow.placed, start=1):
        label = str(number)
        x = 70.0 - pymupdf.get_text_length(label, "helv", 7.0)
        doc[page].insert_text((x, baseline), label, fontname="helv", fontsize=7.0)
    return fixture


def ocr_layer(doc: pymupdf.Document) -> Fixture:
    """Two-column pages as images, with the text as an invisible layer on top (as OCR leaves it)."""
    fixture = Fixture("ocr_layer")
    middle = (LEFT + RIGHT) / 2
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "An Old Paper Scanned and Read by Optical Character Recognition")
    flow.top = flow.y
    flow.columns = [(LEFT, middle - 8), (middle + 8, RIGHT)]
    hidden = Style("helv", 9.0, 11.0, render_mode=3)
    _body(flow, fixture, 8, _SECTIONS[:5], {2: Style("hebo", 10.0, 13.0, 3), 3: Style("hebo", 9.0, 12.0, 3)}, hidden)
    scan = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 60, 85), False)
    scan.clear_with(235)
    for page in doc:
        page.insert_image(page.rect, pixmap=scan, overlay=False)
    return fixture


class OcrFlow(Flow):
    """A flow that sets every line as an OCR engine leaves it over a scan: each word on its own, in
    a stand-in face stretched to the width the word has on the page image, at a size measured
    from its line (off by a few per cent) and on a baseline that wobbles with the paper."""

    def __init__(self, doc: pymupdf.Document, columns: list[tuple[float, float]], seed: int) -> None:
        super().__init__(doc, columns)
        self.pick = random.Random(seed)

    def line(self, text: str, style: Style, indent: float = 0.0) -> float:
        if self.y + style.leading > BOTTOM:
            self.next_column()
        self.y += style.leading
        size = style.size * self.pick.uniform(1 - _OCR_SIZE_ERROR, 1 + _OCR_SIZE_ERROR)
        baseline = self.y + self.pick.uniform(-_OCR_BASELINE_WOBBLE, _OCR_BASELINE_WOBBLE)
        x = self.x0 + indent
        space = pymupdf.get_text_length(" ", style.font, style.size)
        for word in text.split():
            printed = pymupdf.get_text_length(word, style.font, style.size)
            stretch = printed / pymupdf.get_text_length(word, _OCR_FACE, size)
            origin = pymupdf.Point(x, baseline)
            self.page.insert_text(origin, word, fontname=_OCR_FACE, fontsize=size, render_mode=3,
                                  morph=(origin, pymupdf.Matrix(stretch, 1)))
            x += printed + space
        self.placed.append((self.page.number, self.x0, self.y))
        return self.y


_OCR_FACE = "cour"
"""OCR layers draw every glyph in one stand-in face (Tesseract's GlyphLessFont is monospaced)."""
_OCR_SIZE_ERROR = 0.04
_OCR_BASELINE_WOBBLE = 0.5
"""How far an OCR layer's line size (a share) and baseline (points) stray from the printed ones."""


def scanned_two_column(doc: pymupdf.Document) -> Fixture:
    """A scanned two-column paper: page images under an OCR layer set word by word, both columns
    on one line grid across a narrow gutter, so that a line of the left column and the line of the
    right column beside it share a baseline; headings only by their larger size."""
    fixture = Fixture("scanned_two_column")
    middle = (LEFT + RIGHT) / 2
    flow = OcrFlow(doc, [(LEFT, RIGHT)], seed=11)
    fixture.title = "A Trial Report From Before Digital Typesetting, Scanned and Read by OCR"
    for line in wrap(fixture.title, Style("tibo", 16.0, 19.0), RIGHT - LEFT):
        flow.line(line, Style("tibo", 16.0, 19.0))
    flow.line("Ada Example, Bob Sample", Style("tiro", 11.0, 16.0))
    flow.y += 12
    flow.top = flow.y
    flow.columns = [(LEFT, middle - 7), (middle + 7, RIGHT)]
    headings = {2: Style("tiro", 13.0, 16.0), 3: Style("tiro", 11.5, 14.0)}
    _body(flow, fixture, 12, _SECTIONS, headings, Style("tiro", 10.0, 12.0))
    scan = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 60, 85), False)
    scan.clear_with(230)
    for page in doc:
        page.insert_image(page.rect, pixmap=scan, overlay=False)
    return fixture


def pull_quote_and_figure(doc: pymupdf.Document) -> Fixture:
    """Two columns; a larger italic pull quote inside a paragraph's run, a figure across both columns."""
    fixture = Fixture("pull_quote_and_figure")
    flow = _two_columns_under_title(doc, fixture, "Pull Quotes and Wide Figures in a Two-Column Feature")
    body = Style("tiro", 9.5, 11.5)
    bold = {2: Style("hebo", 11.0, 13.0), 3: Style("hebo", 9.5, 12.0)}
    _body(flow, fixture, 9, _SECTIONS[:3], bold, body)
    quote = "Every pull quote repeats a claim the feature makes elsewhere in its text"
    first, *rest = [sentences(9900, 5), sentences(9901, 6)]
    lines = wrap(first, body, flow.width)
    if flow.y + 12 * body.leading > BOTTOM:
        flow.next_column()
    for line in lines[:3]:
        flow.line(line, body)
    flow.y += 8
    for line in wrap(quote, Style("tiit", 13.0, 15.5), flow.width):
        flow.line(line, Style("tiit", 13.0, 15.5))
    flow.y += 8
    for line in lines[3:]:
        flow.line(line, body)
    fixture.paragraphs.append(first)
    fixture.asides.append(quote)
    for paragraph in rest:
        flow.paragraph(paragraph, body)
        fixture.paragraphs.append(paragraph)
    caption = "Figure 1. Weekly counts of the synthetic outcome in both arms."
    flow.figure = (caption, 180.0)
    fixture.asides.append(caption)
    while flow.figure:  # a paragraph long enough to run from page 1 on to below the figure
        paragraph = sentences(9902 + len(fixture.paragraphs), 7)
        flow.paragraph(paragraph, body)
        fixture.paragraphs.append(paragraph)
    _body(flow, fixture, 10, _SECTIONS[4:], bold, body)
    return fixture


def side_panel_in_a_sentence(doc: pymupdf.Document) -> Fixture:
    """Two columns; a shaded panel in small print under a bold title of its own (a journal's
    `Research in context`) set inside a paragraph's run: the panel is asides, its title heads no
    section, and the sentence it breaks comes out whole."""
    fixture = Fixture("side_panel_in_a_sentence")
    flow = _two_columns_under_title(doc, fixture, "Side Panels in the Methods of a Two-Column Trial Report")
    body = Style("tiro", 9.5, 11.5)
    bold = {2: Style("hebo", 11.0, 13.0), 3: Style("hebo", 9.5, 12.0)}
    _body(flow, fixture, 11, _SECTIONS[:3], bold, body)
    first = sentences(9950, 6)
    lines = wrap(first, body, flow.width)
    title, small = Style("hebo", 9.5, 12.0), Style("helv", 8.0, 10.0)
    panel = sentences(9951, 4)
    panel_lines = wrap(panel, small, flow.width - 12)
    height = title.leading + len(panel_lines) * small.leading + 10
    if flow.y + 3 * body.leading + height + len(lines) * body.leading > BOTTOM:
        flow.next_column()
    for line in lines[:3]:
        flow.line(line, body)
    top = flow.y + 8
    flow.page.draw_rect(pymupdf.Rect(flow.x0 - 3, top, flow.x0 + flow.width + 3, top + height), color=None, fill=(0.9, 0.9, 0.95))
    flow.y = top
    flow.line("Research in context", title, indent=6)
    for line in panel_lines:
        flow.line(line, small, indent=6)
    flow.y = top + height + 4
    for line in lines[3:]:
        flow.line(line, body)
    fixture.paragraphs.append(first)
    fixture.asides += ["Research in context", panel]
    for seed in range(9952, 9955):
        paragraph = sentences(seed, 5)
        flow.paragraph(paragraph, body)
        fixture.paragraphs.append(paragraph)
    _body(flow, fixture, 12, _SECTIONS[4:], bold, body)
    return fixture


def table_across_the_gutter(doc: pymupdf.Document) -> Fixture:
    """Two columns on every page; on page 2 a table as wide as the page, whose second column of
    names crosses the gutter, stands between two bands of two-column text: the page shows no
    gutter of its own, the other pages do, and every paragraph comes out whole."""
    fixture = Fixture("table_across_the_gutter")
    flow = _two_columns_under_title(doc, fixture, "Genetic Diversity of Basil Accessions Across Sites")
    columns = flow.columns
    _body(flow, fixture, 13, _SECTIONS[:2], _SANS_BOLD)
    while True:  # fill page 1 with whole paragraphs, so that page 2 is set by hand
        paragraph = sentences(13500 + len(fixture.paragraphs), 5)
        if flow.column == 1 and flow.y + len(wrap(paragraph, BODY, flow.width)) * BODY.leading > BOTTOM:
            break
        flow.paragraph(paragraph, BODY)
        fixture.paragraphs.append(paragraph)
    page = doc.new_page(width=PAGE.width, height=PAGE.height)
    boxes = [(columns[0], TOP), (columns[1], TOP), (columns[0], 680.0), (columns[1], 680.0)]
    texts = [sentences(13600 + n, 3) for n in range(4)]
    for ((x0, x1), top), text in zip(boxes, texts):
        y = top
        for line in wrap(text, BODY, x1 - x0):
            y += BODY.leading
            page.insert_text((x0, y), line, fontname=BODY.font, fontsize=BODY.size)
        fixture.paragraphs.append(text)
    small = Style("tiro", 8.0, 10.0)
    y = 180.0
    page.insert_text((LEFT, y), "Table 1. Accessions, their sites and the bands each primer gave.", fontname="tibo", fontsize=8.0)
    for row in range(24):
        y += 1.9 * small.leading
        cells = [f"Site {row + 1}", ["Ocimum tenuiflorum", "Ocimum basilicum var.", "Ocimum gratissimum"][row % 3],
                 f"{40 + row}", f"{12.5 + row / 4:.2f}", f"{0.30 + row / 100:.2f}"]
        for x, cell in zip([LEFT, 250.0, 370.0, 440.0, 500.0], cells):
            page.insert_text((x, y), cell, fontname=small.font, fontsize=small.size)
    flow = Flow(doc, columns)
    flow.page = doc.new_page(width=PAGE.width, height=PAGE.height)
    flow.y = flow.top = TOP
    _body(flow, fixture, 14, _SECTIONS[4:6], _SANS_BOLD)
    return fixture


def italic_headings_below_bold(doc: pymupdf.Document) -> Fixture:
    """Two columns; sections and sub-sections in a bold sans at about body size, and the level
    below them in the body's italic, a little larger than the bold sub-sections: the italic
    heads the lowest sections, its size notwithstanding."""
    fixture = Fixture("italic_headings_below_bold")
    flow = _two_columns_under_title(doc, fixture, "Cholinergic Markers in Aging Endothelial Cells Treated With an Extract")
    styles = {2: Style("hebo", 10.5, 13.0), 3: Style("hebo", 10.0, 12.5), 4: Style("tiit", 10.5, 12.5)}
    sections = [
        (2, "Introduction", 2), (2, "Materials and Methods", 1), (3, "Preparation of extracts", 1),
        (4, "Crude extract", 1), (4, "Ethanolic extract", 1), (3, "Flow cytometry", 2), (3, "Statistical analysis", 1),
        (2, "Results", 2), (3, "Expression of the enzyme", 2), (2, "Discussion", 2),
    ]
    _body(flow, fixture, 15, sections, styles)
    return fixture


def _long_paper(doc: pymupdf.Document, name: str, heading: Style | None) -> Fixture:
    """Some 2,000 words in sections; with `heading` None the headings are set exactly like the
    body (its face, size and leading, no space above), so only their words say they are headings."""
    fixture = Fixture(name, unstructured=heading is None)
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "A Long Report Whose Section Headings Look Like Its Text")
    for number, (_, text, count) in enumerate(_SECTIONS):
        if heading is None:
            flow.line(text, BODY)
        else:
            flow.heading(text, heading)
            fixture.headings.append((2, text))
        for n in range(count):
            paragraph = sentences(1300 + 10 * number + n, 5 + (n * 3) % 4)
            flow.paragraph(paragraph, BODY, indent=0.0 if n == 0 else 12.0)
            fixture.paragraphs.append(paragraph)
    return fixture


def headings_like_body(doc: pymupdf.Document) -> Fixture:
    """A paper of over 1,500 words whose headings are set as body text: the collapse guard's case."""
    return _long_paper(doc, "headings_like_body", None)


def headings_in_bold(doc: pymupdf.Document) -> Fixture:
    """The same paper with its headings in bold: structured, so the guard stays silent."""
    return _long_paper(doc, "headings_in_bold", Style("hebo", 10.0, 13.0))


def table_beside_text(doc: pymupdf.Document) -> Fixture:
    """Two columns; at the top of the right one a table in small print, beside body lines of the
    left: its rows are a label and a value with a wide gap between them, some labels carry a
    subscript and a dagger set smaller still, one row is a group label alone."""
    fixture = Fixture("table_beside_text")
    middle = (LEFT + RIGHT) / 2
    body = Style("tiro", 9.0, 11.5)
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Crystal Statistics in a Table Beside the Methods")
    top = flow.y
    flow.columns = [(LEFT, middle - 9)]
    _body(flow, fixture, 14, [(2, "Methods", 4)], _SANS_BOLD, body)
    cell = 7.5
    y = top + 14
    page = doc[0]
    page.insert_text((middle + 9, y), "Table 1. Crystallographic statistics of the complex", fontname="hebo", fontsize=cell)
    rows = [("Resolution (A)", "", "2.2"), ("Space group", "", "P1"), ("R", "cryst†", "18.8"), ("R", "free‡", "21.9"),
            ("Rmsd bond (A)", "", "0.008"), ("B-factor analysis", "", ""), ("Protein all atoms", "", "26.0/30.3"),
            ("Number of molecules in the unit", "", "2"), ("PDB code", "", "4BXK")]
    for label, small, value in rows:
        y += 12.0
        page.insert_text((middle + 11, y), label, fontname="helv", fontsize=cell)
        if small:
            x = middle + 11 + pymupdf.get_text_length(label, "helv", cell)
            page.insert_text((x, y + 1.5), small, fontname="helv", fontsize=5.2)
        if value:
            page.insert_text((middle + 130, y), value, fontname="helv", fontsize=cell)
        fixture.table_rows.append(" ".join(part for part in (label + small, value) if part))
    right = Flow(doc, [(middle + 9, RIGHT)], top=y + 16)
    right.page = page
    rest = Fixture("right")
    _body(right, rest, 15, [(2, "Results", 3)], _SANS_BOLD, body)
    fixture.paragraphs += rest.paragraphs
    fixture.headings += rest.headings
    return fixture


def headings_after_lead_ins(doc: pymupdf.Document) -> Fixture:
    """Sections whose last sentence leads in to a display formula the text layer lacks (`… the
    equations that result are`), full to the column's edge, then a larger heading of several
    words (numbered, or followed by a sentence that opens with `The`): the heading is no pull
    quote in a sentence that runs on."""
    fixture = Fixture("headings_after_lead_ins")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Bound States Worked Out Section by Section")
    width = RIGHT - LEFT
    for number, heading in enumerate(["I. THE MODEL OF THE BOUND STATES", "II. SOLUTION OF THE WAVE EQUATIONS",
                                      "III. MASSES AND DECAY WIDTHS", "Conclusion and Outlook of the Model"]):
        flow.heading(heading, Style("hebo", 12.0, 14.0))
        fixture.headings.append((2, heading))
        # The unnumbered last heading is followed by a sentence that opens with a function word.
        paragraph = ("The model was checked once more. " if number == 3 else "") + sentences(1700 + number, 4)
        if number < 3:
            lines = wrap(paragraph, BODY, width)
            filler = iter(("and", "the", "coupled", "radial", "equations", "for", "each", "state") * 6)
            last = lines[-1]
            while True:  # filled to the edge, so that nothing but its words says the sentence goes on
                longer = f"{last} {next(filler)}"
                if pymupdf.get_text_length(f"{longer} and the equations that result are", BODY.font, BODY.size) > width:
                    break
                last = longer
            paragraph = " ".join(lines[:-1] + [f"{last} and the equations that result are"])
        flow.paragraph(paragraph, BODY, indent=0.0)
        fixture.paragraphs.append(paragraph)
    return fixture


def numbering_with_separators(doc: pymupdf.Document) -> Fixture:
    """Bold headings whose number and title a separator in the regular face parts (`2.1 | Plant
    material`), at body size: the separator belongs to the numbering, which gives the level."""
    fixture = Fixture("numbering_with_separators")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Headings Numbered With a Bar Between Number and Title")
    bold, bar = Style("hebo", 10.0, 13.0), Style("helv", 10.0, 13.0)
    sections = [("1", "Introduction", 2), ("2", "Materials and methods", 1), ("2.1", "Plant material", 2),
                ("2.2", "DNA isolation", 2), ("3", "Results", 1), ("3.1", "Performance of the markers", 2),
                ("4", "Discussion", 2)]
    for number, title, count in sections:
        flow.y += 8.0
        flow.styled_line([(number, bold), ("|", bar), *((word, bold) for word in title.split())])
        flow.y += 2.0
        fixture.headings.append((number.count(".") + 2, f"{number} | {title}"))
        for n in range(count):
            paragraph = sentences(1900 + len(fixture.paragraphs), 4 + (n * 3) % 5)
            flow.paragraph(paragraph, BODY, indent=0.0 if n == 0 else 12.0)
            fixture.paragraphs.append(paragraph)
    return fixture


def _run_in_sections(flow: Flow, fixture: Fixture, seed: int, sections: list[tuple[str, list[str]]], heading: Style,
                     lead: Style) -> None:
    """Sections under `heading`, each paragraph opened by its run-in `lead` (a level below), then
    body text: the lead is a heading, the text after it a paragraph."""
    for title, leads in sections:
        flow.heading(title, heading)
        fixture.headings.append((2, title))
        for text in leads:
            paragraph = sentences(seed * 100 + len(fixture.paragraphs), 3)
            flow.styled_paragraph([(text, lead), (paragraph, BODY)], space=4.0)
            fixture.headings.append((3, text))
            fixture.paragraphs.append(paragraph)


def run_in_headings_numbered_in_italic(doc: pymupdf.Document) -> Fixture:
    """Two columns; numbered sub-headings in italic at the start of their paragraphs, closed by a
    full stop, the text after them upright (`2.1. Animal Preparation. Male rats…`), one of them
    long enough to wrap onto a second line."""
    fixture = Fixture("run_in_headings_numbered_in_italic")
    flow = _two_columns_under_title(doc, fixture, "Leaf Extracts Given to Rats: Numbered Run-in Headings")
    bold = Style("tibo", 12.0, 14.0)
    _body(flow, fixture, 21, [(2, "1. Introduction", 2)], {2: bold})
    _run_in_sections(flow, fixture, 22, [("2. Materials and Methods", [
        "2.1. Extraction of the Leaves.", "2.2. Determination of the Total Phenolic Content in the Leaf Extracts of Each Sample.",
        "2.3. Animal Preparation.", "2.4. Statistical Analysis."])], bold, Style("tiit", 10.0, 12.0))
    _body(flow, fixture, 23, [(2, "3. Results", 3)], {2: bold})
    return fixture


def run_in_headings_unnumbered_in_bold(doc: pymupdf.Document) -> Fixture:
    """Unnumbered sub-headings in bold at the start of their paragraphs, closed by a full stop or
    a colon (`Animal preparation. In total…`): recurring, they head sections one level below the
    heading above them."""
    fixture = Fixture("run_in_headings_unnumbered_in_bold")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "A Trial Whose Methods Have Bold Run-in Headings")
    heading = Style("hebo", 12.0, 14.0)
    _body(flow, fixture, 24, [(2, "Introduction", 2)], {2: heading})
    _run_in_sections(flow, fixture, 25, [("Methods", ["Animal preparation.", "Blood sampling:", "Statistical analysis."])],
                     heading, Style("tibo", 10.0, 12.0))
    _body(flow, fixture, 26, [(2, "Discussion", 2)], {2: heading})
    return fixture


def leads_that_head_no_section(doc: pymupdf.Document) -> Fixture:
    """Bold or italic openings that are no headings: the labels of a structured abstract before the
    first heading, a figure caption's label, one italic lead set for emphasis, and names in bold
    italic that label short entries (who did what). Each kind has a style of its own, so that each
    is told apart by its own rule."""
    fixture = Fixture("leads_that_head_no_section")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Bold and Italic Openings That Head No Section")
    bold, italic = Style("tibo", 10.0, 12.0), Style("tiit", 10.0, 12.0)
    for label in ("Background:", "Methods:", "Results:"):
        text = sentences(2700 + len(fixture.paragraphs), 3)
        flow.styled_paragraph([(label, bold), (text, BODY)], indent=0.0, space=2.0)
        fixture.paragraphs.append(f"{label} {text}")
    heading = Style("hebo", 12.0, 14.0)
    _body(flow, fixture, 27, [(2, "Introduction", 2)], {2: heading})
    caption = "Weekly serum sodium of each cohort over the trial, by ward."
    flow.styled_paragraph([("Figure 1.", bold), (caption, BODY)], indent=0.0, space=6.0)
    fixture.paragraphs.append(f"Figure 1. {caption}")
    emphasis = sentences(2750, 4)
    flow.styled_paragraph([("Of note:", italic), (emphasis, BODY)], space=6.0)
    fixture.paragraphs.append(f"Of note: {emphasis}")
    flow.heading("Who did what", heading)
    fixture.headings.append((2, "Who did what"))
    for name, part in (("Ada Example:", "designed the trial and wrote the first draft."),
                       ("Bob Sample:", "weighed the samples and checked every dose."),
                       ("Cleo Third:", "ran the statistics and revised the text.")):
        flow.styled_paragraph([(name, Style("tibi", 10.0, 12.0)), (part, BODY)], indent=0.0, space=2.0)
        fixture.paragraphs.append(f"{name} {part}")
    return fixture


def top_headings_sharing_a_line(doc: pymupdf.Document) -> Fixture:
    """Top-level headings in bold capitals set on the line of what follows them, in the same bold
    face and size: a first sub-heading in bold and its text (`METHODS Search strategy We searched…`),
    a sub-heading alone (`RESULTS Search results`, its text below), or a paragraph
    (`DISCUSSION Our findings…`); other sub-headings stand on lines of their own."""
    fixture = Fixture("top_headings_sharing_a_line")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Pooled Estimates From a Review Whose Sections Run In")
    bold = Style("hebo", 10.0, 12.0)
    flow.heading("ABSTRACT", bold)
    fixture.headings.append((2, "ABSTRACT"))
    abstract = sentences(2800, 5)
    flow.paragraph(abstract, BODY, indent=0.0)
    fixture.paragraphs.append(abstract)

    def section(runs: list[tuple[str, int]], count: int) -> None:
        """Headings (text, level) that share a line with the text after them, then paragraphs."""
        for text, level in runs:
            fixture.headings.append((level, text))
        first = sentences(2800 + len(fixture.paragraphs) * 10, 4)
        if count:
            flow.styled_paragraph([*((text, bold) for text, _ in runs), (first, BODY)], indent=0.0, space=8.0)
            fixture.paragraphs.append(first)
        else:
            flow.y += 8.0
            flow.styled_line([(word, bold) for text, _ in runs for word in text.split()])
        for _ in range(max(count - 1, 1 if not count else 0)):
            paragraph = sentences(2800 + len(fixture.paragraphs) * 10, 5)
            flow.paragraph(paragraph, BODY, indent=12.0 if count else 0.0)
            fixture.paragraphs.append(paragraph)

    section([("INTRODUCTION", 2)], 2)
    section([("METHODS", 2), ("Search strategy", 3)], 2)
    _body(flow, fixture, 28, [(3, "Data extraction", 2)], {3: bold})
    section([("RESULTS", 2), ("Search results", 3)], 0)
    _body(flow, fixture, 29, [(3, "Pooled estimates", 2)], {3: bold})
    section([("DISCUSSION", 2)], 2)
    return fixture


_CONTENTS = [("1", "Introduction", 2), ("2", "Methods", 1), ("2.1", "Participants", 2), ("2.2", "Outcomes", 2),
             ("3", "Results", 3), ("4", "Discussion", 2), ("4.1", "Limitations", 1)]


def _contents_and_report(doc: pymupdf.Document, name: str, leaders: bool) -> Fixture:
    """A report whose first page lists its sections (bold top-level entries, indented sub-entries,
    page numbers set flush right, after dot leaders or not), then its numbered sections from page
    2 on, one top-level section a page; the list makes no headings."""
    fixture = Fixture(name)
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Annual Report of the Synthetic Trials Unit")
    heading = Style("hebo", 12.0, 14.0)
    flow.heading("Contents", heading)
    fixture.headings.append((2, "Contents"))
    page = 1
    for number, title, _ in _CONTENTS:
        top = "." not in number
        page += top
        style = Style("hebo" if top else "helv", 10.0, 14.0)
        indent = 0.0 if top else 18.0
        label = f"{number} {title}"
        folio = str(page)
        width = pymupdf.get_text_length(folio, style.font, style.size)
        if leaders:
            room = RIGHT - width - 4 - (LEFT + indent + pymupdf.get_text_length(label + " ", style.font, style.size))
            label += " " + "." * int(room / pymupdf.get_text_length(".", style.font, style.size))
        fixture.contents.append(f"{label} {folio}")
        baseline = flow.line(label, style, indent)
        flow.page.insert_text((RIGHT - width, baseline), folio, fontname=style.font, fontsize=style.size)
    level = {2: Style("hebo", 12.0, 14.0), 3: Style("hebo", 10.5, 13.0)}
    for number, title, count in _CONTENTS:
        if "." not in number:
            flow.next_column()
        _body(flow, fixture, 30 + int(number[0]), [(number.count(".") + 2, f"{number} {title}", count)], level)
    return fixture


def contents_with_leaders(doc: pymupdf.Document) -> Fixture:
    """A table of contents with dot leaders before its page numbers (`2.1 Participants ..... 3`)."""
    return _contents_and_report(doc, "contents_with_leaders", leaders=True)


def contents_without_leaders(doc: pymupdf.Document) -> Fixture:
    """A table of contents whose page numbers stand flush right with nothing before them (`2 Methods      3`)."""
    return _contents_and_report(doc, "contents_without_leaders", leaders=False)


def report_code_and_folios(doc: pymupdf.Document) -> Fixture:
    """A technical report: front matter numbered in roman (`iii` in bold at the foot of its
    pages), then sections whose text shows statements in a monospaced face, each on a line of its
    own set apart by space (`CREATE PERMISSION <permission name>`, `GRANT SELECT ON VISITS`), and
    pages numbered in arabic, and a back cover of short centred lines in bold (the publisher, an
    address, an ISBN): neither a folio, a line of code nor a line of the back cover is a heading."""
    fixture = Fixture("report_code_and_folios")
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Permissions in the Synthetic Trials Database")
    heading = {2: Style("hebo", 12.0, 14.0), 3: Style("hebo", 10.5, 13.0)}
    code = Style("cour", 10.0, 12.0)
    folio = Style("hebo", 10.0, 12.0)
    front = 0
    for number, (title, count) in enumerate([("Preface", 3), ("Summary", 4), ("Acknowledgements", 3)]):
        if number:
            flow.next_column()
        _body(flow, fixture, 40 + number, [(2, title, count)], heading)
        front = flow.page.number + 1
    statements = iter(["CREATE PERMISSION <permission name>", "GRANT SELECT ON VISITS TO ANALYST",
                       "REVOKE <permission name> FROM <role name>", "DROP PERMISSION <permission name>"])
    for number, title in enumerate(["Introduction", "Permissions", "Roles", "Auditing"], start=1):
        flow.next_column()
        _body(flow, fixture, 44 + number, [(2, f"{number} {title}", 1)], heading)
        flow.y += 6.0
        fixture.code.append(flow_statement := next(statements))
        flow.line(flow_statement, code, indent=12.0)
        flow.y += 6.0
        paragraph = sentences(4400 + number, 4)
        flow.paragraph(paragraph, BODY, indent=0.0)
        fixture.paragraphs.append(paragraph)
    cover = doc.new_page(width=PAGE.width, height=PAGE.height)
    y = PAGE.height - 220
    for line, size in [("Synthetic Trials Institute", 12.0), ("PO Box 4404 Nydalen", 9.0), ("NO-0403 Oslo, Norway", 9.0),
                       ("www.example.org", 9.0), ("ISBN 978-82-8082-000-0", 9.0)]:
        width = pymupdf.get_text_length(line, "hebo", size)
        cover.insert_text(((PAGE.width - width) / 2, y), line, fontname="hebo", fontsize=size)
        y += 1.6 * size
    for page in doc:
        if page.number == cover.number:
            continue  # a back cover prints no folio
        roman = ["i", "ii", "iii", "iv", "v", "vi"]
        label = roman[page.number] if page.number < front else str(page.number + 1 - front)
        width = pymupdf.get_text_length(label, folio.font, folio.size)
        page.insert_text(((PAGE.width - width) / 2, PAGE.height - 30), label, fontname=folio.font, fontsize=folio.size)
    return fixture


_TYPE3_SCALE = 0.24
"""Points per glyph unit, as dvips writes a 300 dpi bitmap font: a unit a pixel, the size 1."""
_TYPE3_WIDTHS = {**{c: 21 for c in "abcdeghknopqsuvxyz"}, **{c: 11 for c in "fijlrt.,;:'"}, "m": 35, "w": 31,
                 **{c: 28 for c in "ABCDEFGHIJKLMNOPQRSTUVXYZ"}, "W": 40, **{c: 21 for c in "0123456789"}, "-": 14}
"""Glyph advances of the 10 pt font in pixels: narrow and wide letters make one word's estimate
of the size swing."""
_TYPE3_NAMES = {**{c: c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                **dict(zip("0123456789", "zero one two three four five six seven eight nine".split())),
                ".": "period", ",": "comma", ";": "semicolon", ":": "colon", "'": "quotesingle", "-": "hyphen"}


def _type3_font(doc: pymupdf.Document, size: float) -> int:
    """A bitmap font of a TeX paper at `size` points, as a Type3 font: every glyph a filled box,
    glyph boxes far taller than the letters, and no size of its own (it is set at 1, its pixels
    scaled to points), so a font of each size is a font of its own."""
    grow = size / 10.0
    procs = []
    for char, name in _TYPE3_NAMES.items():
        width = round(_TYPE3_WIDTHS[char] * grow)
        xref = doc.get_new_xref()
        doc.update_object(xref, "<<>>")
        doc.update_stream(xref, f"{width} 0 0 {-12 * grow:.0f} {width} {40 * grow:.0f} d1 2 0 {width - 4} {30 * grow:.0f} re f".encode())
        procs.append(f"/{name} {xref} 0 R")
    differences = " ".join(f"{ord(char)} /{_TYPE3_NAMES[char]}" for char in sorted(_TYPE3_NAMES, key=ord))
    widths = " ".join(str(round(_TYPE3_WIDTHS.get(chr(code), 0) * grow)) for code in range(32, 127))
    font = doc.get_new_xref()
    doc.update_object(font, (
        f"<< /Type /Font /Subtype /Type3 /FontBBox [0 {-30 * grow:.0f} {60 * grow:.0f} {90 * grow:.0f}] /FontMatrix [1 0 0 1 0 0] "
        f"/CharProcs << {' '.join(procs)} >> /Encoding << /Type /Encoding /Differences [{differences}] >> "
        f"/FirstChar 32 /LastChar 126 /Widths [{widths}] /Resources << >> >>"
    ))
    return font


def _type3_width(text: str, size: float) -> float:
    return sum(_TYPE3_WIDTHS[char] for char in text if char != " ") * _TYPE3_SCALE * size / 10.0 + text.count(" ") * 0.25 * size


def type3_word_by_word(doc: pymupdf.Document) -> Fixture:
    """A paper set in Type3 bitmap fonts, every word placed on its own (as dvips leaves TeX): the
    fonts report no size, so a word's size is estimated from its glyphs, and PyMuPDF gives each
    word as a line of its own."""
    fixture = Fixture("type3_word_by_word")
    sizes = {"T3a": 10.0, "T3b": 12.0, "T3c": 16.0}
    fonts = {name: _type3_font(doc, size) for name, size in sizes.items()}
    lines: list[tuple[int, float, float, str, str]] = []
    """(page index, x, baseline, text, font) of every line."""
    state = {"page": 0, "y": TOP}

    def set_line(text: str, font: str, x: float = LEFT) -> None:
        leading = 1.25 * sizes[font]
        if state["y"] + leading > BOTTOM:
            state["page"] += 1
            state["y"] = TOP
        state["y"] += leading
        lines.append((state["page"], x, state["y"], text, font))

    def set_paragraph(text: str, indent: float) -> None:
        line = ""
        first = True
        for word in text.split():
            trial = f"{line} {word}".strip()
            if line and _type3_width(trial, 10.0) > RIGHT - LEFT - (indent if first else 0.0):
                set_line(line, "T3a", LEFT + (indent if first else 0.0))
                line, first = word, False
            else:
                line = trial
        set_line(line, "T3a", LEFT + (indent if first else 0.0))

    fixture.title = "Bound States of Heavy Mesons in a Relativistic Model"
    set_line(fixture.title, "T3c")
    state["y"] += 10
    for number, (_, heading, count) in enumerate(_SECTIONS[:5]):
        state["y"] += 6
        set_line(heading, "T3b")
        fixture.headings.append((2, heading))
        for n in range(count):
            paragraph = sentences(1500 + 10 * number + n, 4 + (n * 3) % 4)
            set_paragraph(paragraph, 0.0 if n == 0 else 12.0)
            fixture.paragraphs.append(paragraph)
    streams: dict[int, list[str]] = defaultdict(lambda: ["BT"])
    for index, x, baseline, text, font in lines:
        ops = streams[index]
        ops.append(f"/{font} 1 Tf")
        for word in text.split():
            ops.append(f"{_TYPE3_SCALE} 0 0 {_TYPE3_SCALE} {x:.2f} {PAGE.height - baseline:.2f} Tm ({word}) Tj")
            x += _type3_width(word + " ", sizes[font])
    resources = "<< /Font << " + " ".join(f"/{name} {xref} 0 R" for name, xref in fonts.items()) + " >> >>"
    for index in sorted(streams):
        page = doc.new_page(width=PAGE.width, height=PAGE.height)
        content = doc.get_new_xref()
        doc.update_object(content, "<<>>")
        doc.update_stream(content, (" ".join(streams[index]) + " ET").encode())
        doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
        doc.xref_set_key(page.xref, "Resources", resources)
    return fixture


FIXTURES = [margin_notes, side_box, font_face_headings, larger_abstract, column_line_heights, line_numbers, ocr_layer,
            pull_quote_and_figure, scanned_two_column, headings_like_body, headings_in_bold, table_beside_text,
            type3_word_by_word, headings_after_lead_ins, numbering_with_separators, run_in_headings_numbered_in_italic,
            run_in_headings_unnumbered_in_bold, leads_that_head_no_section,
            top_headings_sharing_a_line, contents_with_leaders, contents_without_leaders, report_code_and_folios,
            side_panel_in_a_sentence, table_across_the_gutter, italic_headings_below_bold]


def make_layout_pdfs(out_dir: Path) -> dict[str, tuple[Path, Fixture]]:
    """Write every fixture's PDF into `out_dir`; returns (path, truth) by fixture name."""
    out_dir.mkdir(parents=True, exist_ok=True)
    made = {}
    for build in FIXTURES:
        with pymupdf.open() as doc:
            fixture = build(doc)
            path = out_dir / f"{fixture.name}.pdf"
            doc.save(path)
        made[fixture.name] = (path, fixture)
    return made


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out/layout_pdfs")
    for name, (pdf, _) in make_layout_pdfs(target).items():
        print(f"{name}: {pdf}")
