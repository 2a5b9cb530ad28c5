"""Render small known papers to PDF with PyMuPDF's Story writer, as ground truth for the PDF extractor.

    .venv/bin/python corpus/make_pdfs.py OUT_DIR

writes four PDFs of one synthetic paper (`PAPER` below, Markdown-like): `single_column.pdf`
(headings by size), `two_column.pdf` (numbered headings, full-width title), `running_heads.pdf`
(a journal head, an author line and page numbers stamped on every page, and page labels from
101), and `bold_headings.pdf` (numbered headings bold at body size). Every PDF has the long
`CROSSING` paragraph cut by a page break; `make_pdfs` pads the text before it until it is.
"""

from __future__ import annotations

import html
import sys
from pathlib import Path

import pymupdf

TITLE = "Synthetic Evidence for Reading Order in Scientific Documents"
AUTHORS = "Ada Example, Bob Sample and Cleo Placeholder"
RUNNING_HEAD = "Journal of Synthetic Results 12 (2024) 101-109"
RUNNING_AUTHORS = "Example et al."

CROSSING = (
    "The crossing paragraph begins with a sentence that nobody else in the paper repeats. "
    + " ".join(
        f"Its clause number {n} records how the cohort was followed for another season and how the "
        f"measurements of wave {n} were checked against the paper forms kept at the clinic."
        for n in range(1, 19)
    )
    + " The crossing paragraph ends here, after the page has turned."
)

# (kind, text, depth): depth numbers the heading in the numbered variants (1 → "1", 2 → "1.1").
PAPER: list[tuple[str, str]] = [
    ("h2", "Abstract"),
    ("p", "We describe a synthetic paper whose only purpose is to test how a PDF extractor orders "
          "its text. The abstract sentence about reading order is unique."),
    ("h2", "Introduction"),
    ("p", "Scientific papers are often set in two columns, and extractors that read straight across "
          "the page mix the lines of both. The first introduction sentence sets the scene."),
    ("p", "A second paragraph of the introduction explains that headings carry the structure of the "
          "paper. Readers rely on that structure when they search for methods or results."),
    ("h2", "Methods"),
    ("h3", "Cohort and setting"),
    ("p", "The cohort sentence says that four hundred volunteers joined the study in a small town. "
          "Each volunteer gave consent and completed a short questionnaire about daily habits."),
    ("FILLER", ""),
    ("p", CROSSING),
    ("h3", "Measurements"),
    ("p", "Blood pressure was measured twice at every visit with a calibrated device. The measurement "
          "sentence mentions the calibrated device exactly once."),
    ("ul", "the first listed outcome was systolic pressure|the second listed outcome was heart rate"),
    ("h2", "Results"),
    ("p", "The results sentence reports that pressure fell in most volunteers over the study period. "
          "Differences between groups were small and consistent across visits."),
    ("caption", "Figure 1. Mean systolic pressure by visit for the synthetic cohort."),
    ("p", "A second results paragraph describes the subgroup of older volunteers, in whom the fall "
          "in pressure was larger than in the rest of the cohort."),
    ("h2", "Discussion"),
    ("p", "The discussion sentence admits that synthetic data prove nothing about real patients. "
          "They do, however, make a good test of page numbers and reading order."),
    ("h2", "References"),
    ("p", "Example A, Sample B. A made-up reference about extraction. Journal of Tests 2020;1:1-2."),
]

FILLER = (
    "Filler paragraph {n} pads the methods so that the crossing paragraph starts low on a page; "
    "it talks about questionnaires, visits and the weather in the small town."
)


def _numbered(paper: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Number the section headings (`1 Introduction`, `2.1 Cohort and setting`); Abstract and References stay bare."""
    result = []
    section = subsection = 0
    for kind, text in paper:
        if kind == "h2" and text not in ("Abstract", "References"):
            section, subsection = section + 1, 0
            text = f"{section} {text}"
        elif kind == "h3":
            subsection += 1
            text = f"{section}.{subsection} {text}"
        result.append((kind, text))
    return result


def _html(paper: list[tuple[str, str]], fillers: int) -> str:
    parts = []
    for kind, text in paper:
        if kind == "FILLER":
            parts.extend(f"<p>{html.escape(FILLER.format(n=n + 1))}</p>" for n in range(fillers))
        elif kind == "ul":
            items = "".join(f"<li>{html.escape(item)}</li>" for item in text.split("|"))
            parts.append(f"<ul>{items}</ul>")
        elif kind == "caption":
            parts.append(f"<p>{html.escape(text)}</p>")
        else:
            parts.append(f"<{kind}>{html.escape(text)}</{kind}>")
    return "".join(parts)


def _render(path: Path, body_html: str, css: str, columns: int) -> None:
    """Lay out the title across the page and the body in `columns` columns, page after page."""
    page_rect = pymupdf.paper_rect("a4")
    margin = 56
    gutter = 18
    frame = page_rect + (margin, margin + 16, -margin, -margin - 16)
    title = pymupdf.Story(
        html=f"<h1>{html.escape(TITLE)}</h1><p class='authors'>{html.escape(AUTHORS)}</p>", user_css=css
    )
    body = pymupdf.Story(html=body_html, user_css=css)
    width = (frame.width - gutter * (columns - 1)) / columns
    writer = pymupdf.DocumentWriter(str(path))
    device = writer.begin_page(page_rect)
    _, filled = title.place(frame)
    title.draw(device)
    top = pymupdf.Rect(filled).y1 + 14
    column = 0
    while True:
        x0 = frame.x0 + column * (width + gutter)
        more, _ = body.place(pymupdf.Rect(x0, top, x0 + width, frame.y1))
        body.draw(device)
        if not more:
            break
        column += 1
        if column == columns:
            writer.end_page()
            device = writer.begin_page(page_rect)
            column, top = 0, frame.y0
    writer.end_page()
    writer.close()


def _stamp_running_lines(path: Path) -> None:
    """Add a journal head, an author line and a page number to every page; label pages from 101."""
    with pymupdf.open(path) as doc:
        for number, page in enumerate(doc, start=1):
            page.insert_text((56, 40), RUNNING_HEAD, fontsize=8, fontname="helv")
            page.insert_text((page.rect.width - 130, 40), RUNNING_AUTHORS, fontsize=8, fontname="helv")
            page.insert_text((page.rect.width / 2 - 6, page.rect.height - 30), str(100 + number), fontsize=8, fontname="helv")
        doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": 101}])
        doc.save(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)


def _crosses_page(path: Path) -> bool:
    start = "The crossing paragraph begins"
    end = "The crossing paragraph ends here"
    with pymupdf.open(path) as doc:
        texts = [" ".join(page.get_text().split()) for page in doc]
    first = next((i for i, text in enumerate(texts) if start in text), None)
    last = next((i for i, text in enumerate(texts) if end in text), None)
    return first is not None and last is not None and last == first + 1


_BASE_CSS = "body {font-family: serif; font-size: 11pt;} p {margin-top: 0; margin-bottom: 6pt;} p.authors {font-size: 12pt;}"
_VARIANTS = {
    "single_column": (1, False, "h1 {font-size: 20pt;} h2 {font-size: 15pt;} h3 {font-size: 12.5pt;}"),
    "two_column": (2, True, "h1 {font-size: 18pt;} h2 {font-size: 13pt;} h3 {font-size: 11.5pt;}"),
    "running_heads": (1, True, "h1 {font-size: 18pt;} h2 {font-size: 14pt;} h3 {font-size: 12pt;}"),
    "bold_headings": (
        1,
        True,
        "h1 {font-size: 18pt;} h2, h3 {font-size: 11pt; font-weight: bold; margin-top: 8pt; margin-bottom: 4pt;}",
    ),
}


def make_pdfs(out_dir: Path) -> dict[str, Path]:
    """Write the four test PDFs into `out_dir`; returns them by variant name."""
    out_dir.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, (columns, numbered, css) in _VARIANTS.items():
        path = out_dir / f"{name}.pdf"
        paper = _numbered(PAPER) if numbered else PAPER
        for fillers in range(0, 60):
            _render(path, _html(paper, fillers), _BASE_CSS + css, columns)
            if _crosses_page(path):
                break
        else:
            raise RuntimeError(f"{path}: the crossing paragraph never straddles a page break")
        if name == "running_heads":
            _stamp_running_lines(path)
        made[name] = path
    return made


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out/test_pdfs")
    for variant, pdf in make_pdfs(target).items():
        print(f"{variant}: {pdf}")
