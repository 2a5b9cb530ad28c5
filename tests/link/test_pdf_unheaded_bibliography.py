"""A two-column proceedings paper whose reference list has no heading: the entries that end it
are its bibliography, counted by entries (the PDF reader gives them as a paragraph a column),
and its markers resolve to them. The fixture is written here with PyMuPDF, so its truth is known."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.ingest.scan import doc_id_for
from pipeline.ingest.process import process

SENTENCE = "The method improves recall on every benchmark we tried and keeps precision high across the settings {}. "


def entry(number: int) -> str:
    return f'[{number}] A. Author{number} and B. Writer, "A study of topic {number}," in Proc. Conf. Examples, 20{number:02d}, pp. {number}-{number + 9}.\n'


def first_page(title: str, left: str, right: str) -> pymupdf.Document:
    """A new document whose page 1 has `title` over two columns of prose headed `left` and
    `right`, citing entries 1 to 6."""
    doc = pymupdf.open()
    first = doc.new_page(width=595, height=842)
    first.insert_text((150, 60), title, fontsize=16, fontname="hebo")
    first.insert_text((40, 100), left, fontsize=11, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(40, 108, 280, 780), (SENTENCE.format("[1], [2]") + SENTENCE.format("[3]")) * 10, fontsize=9)
    first.insert_text((310, 100), right, fontsize=11, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(310, 108, 555, 780), (SENTENCE.format("[4]-[6]") + SENTENCE.format("[3]")) * 10, fontsize=9)
    return doc


@pytest.fixture
def proceedings_paper(tmp_path) -> Path:
    """Two pages in two columns; page 2 ends its left column with Conclusions, Acknowledgements
    and entries 1-12 set with no heading, and its right column holds entries 13-19."""
    doc = first_page("Fast Extraction of Things from Papers", "1 Introduction", "2 Method")
    second = doc.new_page(width=595, height=842)
    second.insert_text((40, 60), "3 Conclusions", fontsize=11, fontname="hebo")
    second.insert_textbox(pymupdf.Rect(40, 68, 280, 300), SENTENCE.format("[7]-[19]") * 5, fontsize=9)
    second.insert_text((40, 320), "Acknowledgements", fontsize=11, fontname="hebo")
    second.insert_textbox(pymupdf.Rect(40, 328, 280, 400), "We thank the reviewers for their comments and the funders for their support.", fontsize=9)
    second.insert_textbox(pymupdf.Rect(40, 420, 280, 800), "".join(entry(n) for n in range(1, 13)), fontsize=8)
    second.insert_textbox(pymupdf.Rect(310, 60, 555, 800), "".join(entry(n) for n in range(13, 20)), fontsize=8)
    path = tmp_path / "proceedings.pdf"
    doc.save(path)
    return path


@pytest.fixture
def chunked(proceedings_paper, rules):
    return process(proceedings_paper, "proceedings.pdf", doc_id_for("proceedings.pdf"), rules).chunked


def test_each_entry_of_a_bibliography_without_a_heading_is_one_entry(chunked):
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 20)]
    assert chunked.references[12].text.startswith("[13] A. Author13 and B. Writer")


def test_every_marker_of_the_paper_resolves_to_an_entry(chunked):
    assert chunked.citations
    assert [citation.marker for citation in chunked.citations if citation.ref_id is None] == []


def test_the_entries_own_labels_are_not_read_as_citations(chunked):
    """The prose cites 3 entries in each of 10 sentence pairs of the introduction, 4 in each of 10
    of the method (`[4]-[6]` is three) and 13 in each of 5 of the conclusions: 135 in all."""
    assert len(chunked.citations) == 3 * 10 + 4 * 10 + 13 * 5


@pytest.fixture
def bibliography_under_two_columns(tmp_path) -> Path:
    """A letter's last page, as physics journals set it: the Conclusion's two columns (its end and
    the Acknowledgments on the right), then, after a gap across both, the bibliography in two
    columns of its own, without a heading: entries 1-6 on the left, 7-13 on the right, entry 7
    broken across the columns."""
    doc = first_page("Sigma Models on a Finite Interval", "I. INTRODUCTION", "II. METHOD")
    last = doc.new_page(width=595, height=842)
    last.insert_text((40, 60), "III. CONCLUSION", fontsize=11, fontname="hebo")
    last.insert_textbox(pymupdf.Rect(40, 68, 280, 200), SENTENCE.format("[7]-[13]") * 4, fontsize=9)
    last.insert_textbox(pymupdf.Rect(310, 60, 555, 110), SENTENCE.format("[8]") * 1, fontsize=9)
    last.insert_text((310, 130), "ACKNOWLEDGMENTS", fontsize=11, fontname="hebo")
    last.insert_textbox(pymupdf.Rect(310, 138, 555, 200), "We thank the reviewers for their comments and the funders for their support.", fontsize=9)
    # An entry a paragraph, as the PDF reader gives them; entry 7's year is in the right column.
    broken = entry(7).split(" in Proc.")
    for index, text in enumerate([*(entry(n) for n in range(1, 7)), broken[0]]):
        last.insert_textbox(pymupdf.Rect(40, 300 + 40 * index, 280, 336 + 40 * index), text, fontsize=8)
    last.insert_textbox(pymupdf.Rect(310, 300, 555, 800), "in Proc." + broken[1] + "".join(entry(n) for n in range(8, 14)), fontsize=8)
    path = tmp_path / "letter.pdf"
    doc.save(path)
    return path


def test_a_bibliography_set_under_the_last_sections_two_columns_is_read_after_them_entry_by_entry(bibliography_under_two_columns, rules):
    chunked = process(bibliography_under_two_columns, "letter.pdf", doc_id_for("letter.pdf"), rules).chunked
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 14)]
    assert chunked.references[6].text.replace("\n", " ").endswith('in Proc. Conf. Examples, 2007, pp. 7-16.')
    assert [citation.marker for citation in chunked.citations if citation.ref_id is None] == []


def test_a_bibliography_without_a_heading_starts_a_chunk_of_its_own(chunked):
    """The entries after the Acknowledgements are the bibliography's chunks, and the chunk of the
    Acknowledgements holds none of them."""
    acknowledgements = next(chunk for chunk in chunked.chunks if "We thank the reviewers" in chunk.text)
    assert "[1] A. Author1" not in acknowledgements.text and not acknowledgements.in_bibliography
    first = next(chunk for chunk in chunked.chunks if chunk.text.startswith("[1] A. Author1"))
    assert first.in_bibliography and first.split.value == "bibliography"


def test_a_note_printed_in_the_margin_after_the_entries_does_not_hide_them(proceedings_paper, tmp_path, rules):
    """The journal line a publisher prints in each page's margin comes after the last entry in
    reading order; the entries before it are the bibliography all the same."""
    doc = pymupdf.open(proceedings_paper)
    for page in doc:
        page.insert_textbox(pymupdf.Rect(558, 380, 594, 440), "Proc. Conf. Examples 2020", fontsize=5)
    path = tmp_path / "margin_note.pdf"
    doc.save(path)
    chunked = process(path, path.name, doc_id_for(path.name), rules).chunked
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 20)]
    assert "Proc. Conf. Examples 2020" not in chunked.references[-1].text
