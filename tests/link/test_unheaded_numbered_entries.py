"""Bibliographies the reader finds by their entries or by a heading's less common name: a list of
`(1) Smith, J. A.; …` entries set with no heading after the Notes or Acknowledgements, as
chemistry journals print them, and lists under `Notes and references`, `References and Note`,
`Literature Cited` and their kin followed by more back matter. The PDF fixture is written here
with PyMuPDF, so its truth is known."""

from __future__ import annotations

import pymupdf
import pytest

from conftest import chunk_markdown
from pipeline.ingest.process import process

ENTRIES = [
    f"({n}) Smith{n}, J. A.; Jones, B. C. Catalysis of things number {n}. J. Am. Chem. Soc. 20{n:02d}, 1{n}, 12{n}-13{n}."
    for n in range(1, 13)
]
CITING = "Catalysts of this kind were made before (1, 2) and since (3-12), with the yields reported (4). "


def _paper(closing: str, entries: list[str]) -> str:
    return "\n\n".join(["# Catalysis of Things", "## Introduction", CITING * 3, closing, *entries])


@pytest.mark.parametrize(
    "closing",
    ["## Notes\n\nThe authors declare no competing financial interest.", "## ACKNOWLEDGMENTS\n\nWe thank the funders for their support."],
)
def test_entries_numbered_in_parentheses_after_the_back_matter_are_the_bibliography(closing, rules):
    chunked = chunk_markdown(_paper(closing, ENTRIES), rules)
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 13)]
    assert chunked.references[0].first_author == "Smith1, J. A."


def test_their_markers_resolve_to_them(rules):
    chunked = chunk_markdown(_paper("## Notes\n\nThe authors declare no competing financial interest.", ENTRIES), rules)
    assert chunked.citations
    assert [citation.marker for citation in chunked.citations if citation.ref_id is None] == []


@pytest.mark.parametrize(
    "heading",
    ["Notes and references", "References and Note", "References and Notes", "Literature Cited", "Works Cited", "Referências", "Referencias", "Bibliography"],
)
def test_a_bibliography_heading_s_other_names_make_its_section_the_bibliography(heading, rules):
    """The list is followed by a section that holds no entry, so only its heading can say where it is."""
    entries = [entry.replace(f"({n}) ", f"{n}. ", 1) for n, entry in enumerate(ENTRIES, start=1)]
    source = _paper(f"## {heading}", entries) + "\n\n## Author information\n\nThe authors declare no competing interest."
    chunked = chunk_markdown(source, rules)
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 13)]
    assert [chunk.in_bibliography for chunk in chunked.chunks if chunk.text.startswith(f"{heading}\n")] == [True]


@pytest.fixture(scope="module")
def chemistry_letter(tmp_path_factory, rules):
    """A two-page letter: page 2 ends its left column with a `Notes` section, then the entries
    `(1)`-`(12)` in smaller print with no heading, 1-6 on the left, 7-12 on the right, entry 7
    broken across the columns."""
    doc = pymupdf.open()
    first = doc.new_page(width=595, height=842)
    first.insert_text((150, 60), "Catalysis of Things", fontsize=16, fontname="hebo")
    first.insert_text((40, 100), "INTRODUCTION", fontsize=11, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(40, 108, 280, 780), CITING * 8, fontsize=9)
    first.insert_text((310, 100), "RESULTS", fontsize=11, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(310, 108, 555, 780), CITING * 8, fontsize=9)
    second = doc.new_page(width=595, height=842)
    second.insert_text((40, 60), "CONCLUSIONS", fontsize=11, fontname="hebo")
    second.insert_textbox(pymupdf.Rect(40, 68, 280, 250), CITING * 4, fontsize=9)
    second.insert_text((40, 280), "Notes", fontsize=11, fontname="hebo")
    second.insert_textbox(pymupdf.Rect(40, 288, 280, 320), "The authors declare no competing financial interest.", fontsize=9)
    broken = ENTRIES[6].split(" J. Am.")
    second.insert_textbox(pymupdf.Rect(40, 340, 280, 800), "\n".join([*ENTRIES[:6], broken[0]]), fontsize=7)
    second.insert_textbox(pymupdf.Rect(310, 60, 555, 800), "\n".join(["J. Am." + broken[1], *ENTRIES[7:]]), fontsize=7)
    path = tmp_path_factory.mktemp("chemistry") / "letter.pdf"
    doc.save(path)
    return process(path, path.name, "letter", rules).chunked


def test_a_pdf_s_entries_in_parentheses_after_its_notes_are_its_bibliography(chemistry_letter):
    assert [reference.label for reference in chemistry_letter.references] == [str(n) for n in range(1, 13)]
    assert " ".join(chemistry_letter.references[6].text.split()) == ENTRIES[6]


def test_a_pdf_s_notes_keep_none_of_the_entries(chemistry_letter):
    notes = next(chunk for chunk in chemistry_letter.chunks if "no competing financial interest" in chunk.text)
    assert "(1) Smith1" not in notes.text and not notes.in_bibliography
