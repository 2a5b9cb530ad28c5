"""How the lines OCR reads on a page are put in blocks, as a text layer's are (`ocr_blocks`)."""

from __future__ import annotations

from pipeline.extract.pdf.ocr_blocks import OCR_FONT, drop_wordmarks, in_blocks
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



def _at(x0: float, y0: float, x1: float, text: str, size: float) -> PrintedLine:
    return PrintedLine(1, x0, y0, x1, y0 + size, text, size, OCR_FONT, False, False, len(text))


LICENCE = [
    _at(178, 662, 512, "© The Author(s). 2020 Open Access This article is licensed under a", 6.5),
    _at(178, 670, 493, "which permits use, sharing, adaptation, distribution and reproduction", 6.5),
    _at(178, 678, 511, "appropriate credit to the original author(s) and the source, provide a", 6.5),
    _at(178, 686, 511, "changes were made. The images or other third party material in this", 6.5),
]


def test_a_word_in_print_many_times_the_size_of_the_lines_beside_it_is_a_wordmark_and_left_out():
    # A publisher's logo beside the licence: the text layer has it as an image, and read as a line
    # it shares a row with each of the licence's lines beside it, which reads them out of order.
    kept = drop_wordmarks([_at(61, 654, 169, "BMC", 36.4), *LICENCE])
    assert [line.text for line in kept] == [line.text for line in LICENCE]


def test_a_heading_in_large_print_over_its_text_is_kept():
    lines = [_at(61, 620, 300, "Open Access", 20.0), *LICENCE]
    assert drop_wordmarks(lines) == lines


def test_a_drop_capital_beside_its_paragraph_is_kept():
    lines = [_at(150, 654, 172, "T", 26.0), *LICENCE]
    assert drop_wordmarks(lines) == lines


def test_a_line_read_as_bold_that_goes_on_with_the_sentence_above_stays_in_its_paragraph():
    # The ink measure calls a body line bold now and then on a page of small print; a heading
    # never starts in the middle of a word or a sentence.
    lines = in_blocks([
        _line(100, "will contribute to clinical cancer research and innova-", 10, False),
        _line(112, "tion by leading to better informed and better prepared", 10, True),
        _line(124, "patients. Using the waiting time actively as a part of the", 10, False),
        _line(136, "The digital information tools utilised in the present", 10, True),
    ])
    assert [line.block for line in lines] == [0, 0, 0, 0]


def test_a_line_read_as_bold_that_goes_on_with_a_roman_sentence_is_roman():
    lines = in_blocks([
        _line(100, "process of preparing can make this period more mean-", 10, False),
        _line(112, "ingful for the patient.", 10, True),
    ])
    assert [line.bold for line in lines] == [False, False]
