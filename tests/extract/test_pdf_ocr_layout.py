"""OCR'd pages read by PyMuPDF's layout model: the model reads a page's text boxes, which a scan
has none of, so the OCR'd lines are written into a page of its size for it to read."""

from __future__ import annotations

import pymupdf
import pytest

from ocr_helpers import PAGES, RAPIDOCR_MISSING, image_only, rapidocr_missing, text_pdf
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.layout_model import label_pieces, layout_model_installed, shared_model
from pipeline.extract.pdf.ocr import OCR_FONT, page_for_layout_model
from pipeline.extract.pdf.records import PrintedLine

needs_layout_model = pytest.mark.skipif(not layout_model_installed(), reason="pymupdf-layout is not installed")
PARAGRAPH = [
    "None of the authors has any competing interests relevant to this",
    "trial to disclose, and none was paid by the makers of the drugs",
    "that the trial gave its patients, nor by any other company.",
]


def _line(y0: float, text: str, size: float, bold: bool, x0: float = 72) -> PrintedLine:
    """An OCR'd line as `ocr.read_page_by_ocr` gives it: its box as tall as its size."""
    x1 = x0 + 0.48 * size * len(text)
    return PrintedLine(1, x0, y0, x1, y0 + size, text, size, OCR_FONT, bold, False, len(text), box=(x0, y0, x1, y0 + size))


def _back_matter() -> list[PrintedLine]:
    """Two small bold headings, each over a paragraph in the same small print, as a journal sets
    its declarations at the end of a paper."""
    lines = []
    for top, heading in ((100, "Competing interests"), (160, "Funding")):
        lines.append(_line(top, heading, 8, True))
        lines.extend(_line(top + 11 * (row + 1), text, 8, False) for row, text in enumerate(PARAGRAPH))
    return lines


def test_each_ocr_line_is_written_across_its_own_box():
    lines = [_line(100, "Competing interests", 8, True), _line(111, PARAGRAPH[0], 8, False)]
    with pymupdf.open() as scan, page_for_layout_model(scan.new_page(), lines) as written:
        found = [(line["spans"][0]["text"], line["bbox"]) for block in written[0].get_text("dict")["blocks"] for line in block["lines"]]
    assert [text for text, _ in found] == ["Competing interests", PARAGRAPH[0]]
    assert all(abs(box[0] - line.x0) < 0.5 and abs(box[2] - line.x1) < 0.5 for (_, box), line in zip(found, lines))


@needs_layout_model
def test_the_layout_model_reads_a_small_bold_ocr_line_over_its_paragraph_as_a_section_header():
    lines = _back_matter()
    with pymupdf.open() as scan, page_for_layout_model(scan.new_page(), lines) as written:
        labelled = label_pieces(lines, shared_model().regions(written[0]))
    headers = [line.text for line in labelled if line.label == "section-header"]
    assert headers == ["Competing interests", "Funding"]


@needs_layout_model
@pytest.mark.skipif(rapidocr_missing(), reason=RAPIDOCR_MISSING)
@pytest.mark.slow
def test_in_auto_a_scan_is_read_with_the_layout_models_labels(tmp_path, rules):
    scan = image_only(text_pdf(tmp_path / "text.pdf", PAGES), tmp_path / "scan.pdf")
    read = extract_pdf(scan, "scan.pdf", rules)
    assert read.layout == "model" and "read by OCR" in read.layout_reason
