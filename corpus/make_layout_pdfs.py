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
copy numbered in the margin), `ocr_layer` (page images under invisible two-column text) and
`pull_quote_and_figure` (a pull quote inside a column, a figure across both).
"""

from __future__ import annotations

import random
import sys
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


def pull_quote_and_figure(doc: pymupdf.Document) -> Fixture:
    """Two columns; a larger italic pull quote inside a paragraph's run, a figure across both columns."""
    fixture = Fixture("pull_quote_and_figure")
    middle = (LEFT + RIGHT) / 2
    flow = Flow(doc, [(LEFT, RIGHT)])
    _title(flow, fixture, "Pull Quotes and Wide Figures in a Two-Column Feature")
    flow.top = flow.y
    flow.columns = [(LEFT, middle - 9), (middle + 9, RIGHT)]
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


FIXTURES = [margin_notes, side_box, font_face_headings, larger_abstract, column_line_heights, line_numbers, ocr_layer,
            pull_quote_and_figure]


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
