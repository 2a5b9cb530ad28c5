"""Headings lost or made by how a page is set, and the body size they are measured against: one
class of paper a test or two, each on a tiny PDF (or a few lines) whose truth is written in the test."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.body_text import body_size
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.records import PrintedLine
from pipeline.records.base import BlockKind
from pipeline.records.extract import RawDocument

_SENTENCE = "The trial enrols adults in intensive care and follows them for a month after the last dose. "


def headings(raw: RawDocument) -> list[str]:
    return [" ".join(segment.text for segment in block.segments) for block in raw.blocks if block.kind is BlockKind.heading]


def test_a_heading_beside_a_line_of_the_next_column_in_smaller_print_stays_a_heading(tmp_path: Path, rules) -> None:
    """One-column text, then back matter in two short columns, where no gutter is found: the left
    column's heading and the right column's first line, in smaller print, share a baseline. They
    are two lines, not one line `Supplementary Information Received: …`."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 70), "A randomised trial of a protein in lung injury", fontsize=18, fontname="hebo")
    page.insert_text((57, 110), "Background", fontsize=10.5, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 118, 538, 330), _SENTENCE * 14, fontsize=10)
    page.insert_text((57, 360), "Supplementary Information", fontsize=10.5, fontname="hebo")
    page.insert_text((305, 360), "Received: 31 March 2021 Accepted: 7 April 2021", fontsize=7.5)
    page.insert_textbox(pymupdf.Rect(57, 366, 290, 400), "The online version contains supplementary material. " * 2, fontsize=7.5)
    y = 420.0
    for label in ("Acknowledgements", "Funding", "Competing interests", "Consent for publication"):
        page.insert_text((57, y), label, fontsize=7.5, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(57, y + 4, 290, y + 40), "The authors thank the staff of the units who took part. " * 2, fontsize=7.5)
        y += 50
    doc.save(tmp_path / "letter.pdf")
    assert "Supplementary Information" in headings(extract_pdf(tmp_path / "letter.pdf", "letter.pdf", rules))



def test_a_heading_in_larger_print_right_of_a_reference_line_does_not_cut_the_list(tmp_path: Path, rules) -> None:
    """The mirror case: the left column holds the reference list and the right column's heading
    shares a baseline with one of its entries. Without a gutter the heading cannot be placed after
    the left column, so it stays on that line rather than cut the list in two."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 70), "A randomised trial of a protein in lung injury", fontsize=18, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 90, 538, 300), _SENTENCE * 14, fontsize=10)
    page.insert_text((57, 330), "References", fontsize=10.5, fontname="hebo")
    entries = [f"{n}. Author A, Writer B. A study of lung injury number {n}. J Crit Care. 2020;{n}:1-9." for n in range(1, 9)]
    for n, entry in enumerate(entries):
        page.insert_text((57, 350 + 12 * n), entry, fontsize=7.5)
    page.insert_text((330, 386), "Publisher's Note", fontsize=10.5, fontname="hebo")
    page.insert_text((330, 398), "The publisher remains neutral on claims in maps.", fontsize=7.5)
    doc.save(tmp_path / "letter.pdf")

    blocks = extract_pdf(tmp_path / "letter.pdf", "letter.pdf", rules).blocks
    texts = [" ".join(segment.text for segment in block.segments) for block in blocks]
    first = next(i for i, text in enumerate(texts) if text.startswith("1. Author"))
    last = next(i for i, text in enumerate(texts) if "number 8" in text)
    assert [block.kind for block in blocks[first : last + 1] if block.kind is BlockKind.heading] == []


def _protocol(path: Path, closing: str) -> list[str]:
    """A trial protocol whose third-level headings run in: a few words in bold before the text,
    `closing` between them (nothing, as BioMed Central sets them; or a full stop). Returns them."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 60), "A phase I trial of ablative radiotherapy", fontsize=18, fontname="hebo")
    page.insert_text((57, 90), "Methods", fontsize=10.5, fontname="hebo")
    leads = ["Sample size", "Treatment planning", "Analysis plan"]
    y = 110.0
    for lead in leads:
        head = lead + closing + " "
        page.insert_text((57, y), head, fontsize=10, fontname="tibo")
        page.insert_text((57 + pymupdf.get_text_length(head, "tibo", 10), y), "A minimum of three patients will be", fontsize=10, fontname="tiro")
        page.insert_textbox(pymupdf.Rect(57, y + 3, 538, y + 60), _SENTENCE * 4, fontsize=10, fontname="tiro")
        y += 80
    doc.save(path)
    return leads


@pytest.mark.parametrize("closing", ["", "."])
def test_a_bold_lead_before_a_capitalised_sentence_is_a_run_in_heading_closed_or_not(tmp_path: Path, rules, closing: str) -> None:
    leads = _protocol(tmp_path / "protocol.pdf", closing)

    found = headings(extract_pdf(tmp_path / "protocol.pdf", "protocol.pdf", rules))

    assert [heading.rstrip(".") for heading in found[-len(leads):]] == leads


def test_a_bold_phrase_that_runs_on_in_lowercase_is_no_heading(tmp_path: Path, rules) -> None:
    """`Three patients were enrolled` with its subject in bold: the sentence goes on after it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 60), "A phase I trial of ablative radiotherapy", fontsize=18, fontname="hebo")
    page.insert_text((57, 90), "Results", fontsize=10.5, fontname="hebo")
    y = 110.0
    for lead in ("Three patients", "Two patients"):
        page.insert_text((57, y), lead + " ", fontsize=10, fontname="tibo")
        page.insert_text((57 + pymupdf.get_text_length(lead + " ", "tibo", 10), y), "were enrolled at the first dose level and", fontsize=10, fontname="tiro")
        page.insert_textbox(pymupdf.Rect(57, y + 3, 538, y + 60), _SENTENCE * 4, fontsize=10, fontname="tiro")
        y += 80
    doc.save(tmp_path / "results.pdf")

    assert headings(extract_pdf(tmp_path / "results.pdf", "results.pdf", rules))[-1] == "Results"


def _line(page: int, size: float, chars: int) -> PrintedLine:
    return PrintedLine(page, 57.0, 100.0, 538.0, 100.0 + size, "x" * chars, size, "Times-Roman", False, False, chars)


def test_the_body_size_is_the_running_texts_where_smaller_print_carries_more_characters() -> None:
    """A review: four pages of text at 10 pt, six of references at 7.5 pt (and tables in 8 pt would
    do the same): the references carry the most characters, the text is still the body."""
    pages = [[_line(n, 18.0, 80)] * (n == 1) + [_line(n, 10.0, 90)] * 40 for n in range(1, 5)]
    pages += [[_line(n, 7.5, 110)] * 60 for n in range(5, 11)]

    assert body_size(pages) == 10.0


def test_the_body_size_is_not_a_larger_print_that_carries_a_small_share() -> None:
    """The title, headings and a lead paragraph in larger print stay above the body's size."""
    pages = [[_line(1, 12.0, 90)] * 6 + [_line(1, 9.0, 90)] * 80 + [_line(1, 7.0, 90)] * 20]

    assert body_size(pages) == 9.0


def test_the_body_size_of_text_read_unevenly_is_the_size_of_most_characters() -> None:
    """An OCR layer's words, each stretched to the scan, spread over 8.5 and 9 pt: one size, of
    which the one that carries the most characters is the body's (9 pt is no small print beside it)."""
    pages = [[_line(1, 8.5, 90)] * 46 + [_line(1, 9.0, 90)] * 44 + [_line(1, 13.5, 30)] * 2]

    assert body_size(pages) == 8.5



def _sections(path: Path, titles: list[str]) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 60), "Plastid markers in the genus Ocimum", fontsize=18, fontname="hebo")
    y = 100.0
    for title in titles:
        page.insert_text((57, y), title, fontsize=10.5, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(57, y + 6, 538, y + 70), _SENTENCE * 4, fontsize=10)
        y += 90
    doc.save(path)


def test_a_numbered_heading_may_open_with_a_name_in_lowercase(tmp_path: Path, rules) -> None:
    """`3.3 psbA-trnH sequence data`, `3.4 mRNA levels`: a gene's or molecule's name holds a capital
    or digit after its lowercase first letter; a section number says the line is a heading."""
    titles = ["3 Results", "3.3 psbA-trnH sequence data analysis", "3.4 mRNA levels", "3.5 p53 staining"]
    _sections(tmp_path / "markers.pdf", titles)

    assert headings(extract_pdf(tmp_path / "markers.pdf", "markers.pdf", rules))[1:] == titles


def test_an_unnumbered_bold_line_in_lowercase_is_no_heading(tmp_path: Path, rules) -> None:
    _sections(tmp_path / "markers.pdf", ["Results", "psbA-trnH sequence data analysis", "Discussion"])

    assert headings(extract_pdf(tmp_path / "markers.pdf", "markers.pdf", rules))[1:] == ["Results", "Discussion"]


def test_place_names_drawn_over_a_map_are_no_headings(tmp_path: Path, rules) -> None:
    """A map's labels in bold, where no line of text on the page starts, above the figure's
    caption; the section heading after it starts at the text's margin, and a centred one is kept."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 60), "Village laws and forest commons in Transylvania", fontsize=18, fontname="hebo")
    page.insert_text((57, 100), "Study area", fontsize=10, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 106, 538, 190), _SENTENCE * 4, fontsize=10)
    page.draw_rect(pymupdf.Rect(120, 200, 480, 380))
    page.insert_text((382, 240), "Eastern Carpathians", fontsize=10, fontname="hebo")
    page.insert_text((331, 300), "Székelyföld", fontsize=10, fontname="hebo")
    page.insert_text((57, 400), "Figure 1 Location of the study area in Transylvania, Romania.", fontsize=8)
    page.insert_text((57, 430), "Village laws", fontsize=10, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 436, 538, 520), _SENTENCE * 4, fontsize=10)
    title = "Historical sources"
    page.insert_text(((595 - pymupdf.get_text_length(title, "hebo", 10)) / 2, 550), title, fontsize=10, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 556, 538, 640), _SENTENCE * 4, fontsize=10)
    doc.save(tmp_path / "map.pdf")

    assert headings(extract_pdf(tmp_path / "map.pdf", "map.pdf", rules))[1:] == ["Study area", "Village laws", title]


def test_a_caption_in_bold_is_one_block_past_its_short_first_line(tmp_path: Path, rules) -> None:
    """`Figure 2` alone on its line, the caption's text below it, all in bold at body size: one
    caption, not a label and a heading."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 60), "Plastid markers in the genus Ocimum", fontsize=18, fontname="hebo")
    page.insert_text((57, 100), "Results", fontsize=10.5, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 106, 538, 200), _SENTENCE * 5, fontsize=10)
    page.insert_text((57, 420), "Figure 2", fontsize=10, fontname="tibo")
    page.insert_text((57, 432), "Distribution of the samples across the regions", fontsize=10, fontname="tibo")
    page.insert_textbox(pymupdf.Rect(57, 450, 538, 600), _SENTENCE * 5, fontsize=10)
    doc.save(tmp_path / "caption.pdf")

    assert headings(extract_pdf(tmp_path / "caption.pdf", "caption.pdf", rules))[1:] == ["Results"]


def test_a_heading_set_out_left_of_its_text_is_no_figure_label(tmp_path: Path, rules) -> None:
    """Headings that hang out left of their column's text (as a reference list's heading stands
    over the numbers set apart from its entries): no line of text starts where they do, yet they
    stand at the column's margin, not inside it."""
    _sections(tmp_path / "outdented.pdf", [])
    doc = pymupdf.open(tmp_path / "outdented.pdf")
    page = doc[0]
    y = 100.0
    for title in ("Results", "Discussion"):
        page.insert_text((57, y), title, fontsize=10.5, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, y + 6, 538, y + 90), _SENTENCE * 5, fontsize=10)
        y += 110
    doc.save(tmp_path / "hanging.pdf")

    assert headings(extract_pdf(tmp_path / "hanging.pdf", "hanging.pdf", rules))[1:] == ["Results", "Discussion"]
