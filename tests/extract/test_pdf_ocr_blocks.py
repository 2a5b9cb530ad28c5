"""How the lines OCR reads on a page are put in blocks, as a text layer's are (`ocr_blocks`)."""

from __future__ import annotations

from pipeline.extract.pdf.ocr_blocks import OCR_FONT, in_blocks
from pipeline.extract.pdf.records import PrintedLine


def _line(y0: float, text: str, size: float, bold: bool) -> PrintedLine:
    return PrintedLine(1, 72, y0, 300, y0 + size, text, size, OCR_FONT, bold, False, len(text))


def test_the_text_under_a_bold_heading_joins_its_block_and_the_heading_keeps_its_size():
    lines = in_blocks([
        _line(100, "Competing interests", 8.2, True),
        _line(110, "None of the authors has any competing interests", 7.4, False),
        _line(119, "relevant to this trial to disclose.", 7.6, False),
    ])
    assert [line.block for line in lines] == [0, 0, 0] and [line.size for line in lines] == [8.2, 7.5, 7.5]


def test_a_bold_line_under_text_starts_a_block():
    lines = in_blocks([_line(100, "the end of a paragraph.", 10, False), _line(112, "Methods", 10, True)])
    assert [line.block for line in lines] == [0, 1]

