"""Page furniture is what recurs around a paper's text: a PDF whose every line looks like a
running head (one line at the top of each page) keeps its lines as its text, never ends with none."""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.ingest.process import process
from pipeline.ingest.task import paper_warning

PAGES = 4


@pytest.fixture()
def one_line_a_page(tmp_path):
    path = tmp_path / "lines.pdf"
    with pymupdf.open() as document:
        for number in range(1, PAGES + 1):
            page = document.new_page()
            page.insert_text((72, 40), f"Trial cohort {number}: IL-6 rose in the treated group", fontsize=10)
        document.save(path)
    return path


def test_a_pdf_of_one_top_line_a_page_keeps_every_line(one_line_a_page, rules):
    raw = extract_pdf(one_line_a_page, "lines.pdf", rules)
    assert (raw.removed_running_lines, raw.blocks != []) == (0, True)
    assert all(f"Trial cohort {number}" in "\n".join(block.text for block in raw.blocks) for number in range(1, PAGES + 1))


def test_a_pdf_of_one_top_line_a_page_is_stored_with_chunks(one_line_a_page, rules):
    paper = process(one_line_a_page, "lines.pdf", "lines.pdf", rules)
    assert paper.chunked.chunks
    assert paper_warning(paper.chunked) is None


def test_running_heads_beside_body_text_are_still_dropped(tmp_path, rules):
    path = tmp_path / "heads.pdf"
    with pymupdf.open() as document:
        for number in range(1, PAGES + 1):
            page = document.new_page()
            page.insert_text((72, 40), "Journal of Trials 2024", fontsize=9)
            page.insert_text((72, 300), f"Body text of page {number} about the treated cohort and IL-6.", fontsize=11)
        document.save(path)
    raw = extract_pdf(path, "heads.pdf", rules)
    assert raw.removed_running_lines == PAGES
    assert "Journal of Trials" not in "\n".join(block.text for block in raw.blocks)
