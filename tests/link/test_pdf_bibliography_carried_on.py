"""A paper whose back matter runs in two columns beside its reference list (as BioMed Central
sets its declarations): the left column ends with `References` and its first entries, the right
column opens with `Consent for publication` and `Not applicable.`, then carries the entries on,
and a `Publisher's Note` ends the paper. Read in column order, the entries after `Consent for
publication` are the bibliography's still, though its section is not the paper's last. The
fixture is written here with PyMuPDF, so its truth is known."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.ingest.process import process
from pipeline.ingest.scan import doc_id_for

SENTENCE = "The treatment lowered the rate of events in every group we followed over the years {}. "


def entry(number: int) -> str:
    return f"{number}. Author{number} A, Writer B. A trial of treatment {number} in adults. J Clin Stud. 20{number:02d};{number}:1{number}-2{number}.\n"


@pytest.fixture
def declarations_beside_references(tmp_path) -> Path:
    doc = pymupdf.open()
    first = doc.new_page(width=595, height=842)
    first.insert_text((150, 60), "A Trial of Things in Adults", fontsize=16, fontname="hebo")
    first.insert_text((40, 100), "Background", fontsize=11, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(40, 108, 280, 780), (SENTENCE.format("[1, 2]") + SENTENCE.format("[3]")) * 10, fontsize=9)
    first.insert_text((310, 100), "Discussion", fontsize=11, fontname="hebo")
    first.insert_textbox(pymupdf.Rect(310, 108, 555, 780), (SENTENCE.format("[4–6]") + SENTENCE.format("[14]")) * 10, fontsize=9)
    last = doc.new_page(width=595, height=842)
    last.insert_text((40, 60), "Competing interests", fontsize=11, fontname="hebo")
    last.insert_textbox(pymupdf.Rect(40, 68, 280, 100), "The authors declare that they have no competing interests.", fontsize=9)
    last.insert_text((40, 130), "References", fontsize=11, fontname="hebo")
    last.insert_textbox(pymupdf.Rect(40, 138, 280, 800), "".join(entry(n) for n in range(1, 7)), fontsize=8)
    last.insert_text((310, 60), "Consent for publication", fontsize=11, fontname="hebo")
    last.insert_textbox(pymupdf.Rect(310, 68, 555, 90), "Not applicable.", fontsize=9)
    last.insert_textbox(pymupdf.Rect(310, 100, 555, 600), "".join(entry(n) for n in range(7, 15)), fontsize=8)
    last.insert_text((310, 640), "Publisher's Note", fontsize=11, fontname="hebo")
    last.insert_textbox(pymupdf.Rect(310, 648, 555, 700), "The publisher remains neutral with regard to claims in maps.", fontsize=9)
    path = tmp_path / "declarations.pdf"
    doc.save(path)
    return path


def test_entries_carried_on_under_a_later_back_matter_section_are_the_bibliography(declarations_beside_references, rules):
    chunked = process(declarations_beside_references, "declarations.pdf", doc_id_for("declarations.pdf"), rules).chunked
    assert [reference.label for reference in chunked.references] == [str(n) for n in range(1, 15)]
