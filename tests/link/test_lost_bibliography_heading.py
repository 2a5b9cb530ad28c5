"""A bibliography whose `References` heading is set in body type, as BioMed Central prints it,
among back matter under headings of its own (`Consent for publication`, `Publisher's Note`). The
PDF reader's typography leaves such a line as text; the bibliography heading pass
(pipeline/extract/pdf/bibliography_heading.py) makes it a heading by its words where an entry
follows it, and `bibliography/lost_headings.py` reads the entries after a `References` line left
as text (the Markdown example below). Either way the entries are the bibliography, up to the back
matter. The PDF fixture is written here with PyMuPDF, so its truth is known."""

from __future__ import annotations


import pymupdf
import pytest

from pipeline.ingest.process import process
from conftest import chunk_markdown

SENTENCE = "Screening lowered the incidence of the cancer in every cohort we followed up {}. "
ENTRIES = [
    f"{n}. Author{n} A, Writer B, Third C. A study of screening in cohort {n}. J Exampl Med. 20{n:02d};{n}:{n}0-{n}9."
    for n in range(1, 9)
]
BACK_MATTER = "Springer Nature remains neutral with regard to jurisdictional claims in published maps and institutional affiliations."


def _write(page: pymupdf.Page, x: float, y: float, text: str, bold: bool = False, size: float = 9.0) -> None:
    page.insert_text((x, y), text, fontsize=size, fontname="hebo" if bold else "helv")


@pytest.fixture(scope="module")
def paper(tmp_path_factory, rules):
    """Page 1: a title and a Background that cites entries 1 to 8. Page 2: a Conclusions section,
    a `Consent for publication` heading over `Not applicable.`, then `References` in body type
    and the entries, one line each, and a `Publisher's Note` heading over its notice."""
    doc = pymupdf.open()
    first = doc.new_page(width=595, height=842)
    _write(first, 60, 60, "Screening for a Cancer in Eight Cohorts", bold=True, size=16)
    _write(first, 60, 100, "Background", bold=True, size=11)
    cites = [SENTENCE.format(f"[{n}]") for n in range(1, 9)]
    first.insert_textbox(pymupdf.Rect(60, 110, 535, 780), "".join(cites) * 4, fontsize=9)
    second = doc.new_page(width=595, height=842)
    _write(second, 60, 60, "Conclusions", bold=True, size=11)
    second.insert_textbox(pymupdf.Rect(60, 70, 535, 200), SENTENCE.format("[1, 2]") * 6, fontsize=9)
    _write(second, 60, 230, "Consent for publication", bold=True, size=11)
    _write(second, 60, 245, "Not applicable.")
    _write(second, 60, 275, "References")
    y = 295.0
    for entry in ENTRIES:
        _write(second, 60, y, entry)
        y += 14
    _write(second, 60, y + 20, "Publisher's Note", bold=True, size=11)
    _write(second, 60, y + 35, BACK_MATTER)
    path = tmp_path_factory.mktemp("lost_heading") / "lost.pdf"
    doc.save(path)
    return process(path, path.name, "lost", rules).chunked


def test_the_references_line_in_body_type_heads_the_bibliography_by_its_words(paper):
    assert [section.heading for section in paper.sections][-2:] == ["References", "Publisher's Note"]


def test_the_entries_after_a_references_line_left_as_text_are_the_bibliography(paper):
    assert [reference.label for reference in paper.references] == [str(n) for n in range(1, 9)]
    assert [" ".join(reference.text.split()) for reference in paper.references] == ENTRIES


def test_the_back_matter_after_them_is_no_entry_s(paper):
    assert BACK_MATTER not in paper.references[-1].text


def test_the_markers_resolve_to_the_entries(paper):
    assert paper.citations
    assert [citation.marker for citation in paper.citations if citation.ref_id is None] == []


def test_a_markdown_references_line_that_is_no_heading_opens_the_bibliography(rules):
    text = "\n\n".join(
        [
            "# Screening for a Cancer",
            "## Background",
            "".join(SENTENCE.format(f"[{n}]") for n in range(1, 9)),
            "## Consent for publication",
            "Not applicable.",
            "References",
            "\n".join(ENTRIES),
            "## Publisher's Note",
            BACK_MATTER,
        ]
    )
    chunked = chunk_markdown(text, rules)
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 9)]
    assert BACK_MATTER not in chunked.references[-1].text
