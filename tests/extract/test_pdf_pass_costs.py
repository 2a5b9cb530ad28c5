"""Work the PDF passes do for every line of a paper, kept to what the answer needs: each test
counts the calls (or characters read) a small page costs, where a pass once paid per line for
what it could pay once per paper, per size or per nearby line. The answers are the other tests'."""

from __future__ import annotations

from types import SimpleNamespace

import pymupdf

from pipeline.extract.pdf import body_text, columns, margins, ocr_triage, tables
from pipeline.extract.pdf.records import PrintedLine
from pipeline.rules import load_rules
from pipeline.rules.pdf import PdfOcrRules


def _line(x0: float, y0: float, x1: float, text: str, size: float = 10.0, block: int = 0) -> PrintedLine:
    return PrintedLine(1, x0, y0, x1, y0 + size, text, size, "Times-Roman", False, False, len(text), block=block)


def test_the_body_size_rounds_each_printed_size_once_not_each_line(monkeypatch) -> None:
    """Three pages of 40 body lines at 9.96 pt and a title at 18 pt: two sizes, two roundings
    (every pass that needs the body size asks for it again, over the paper's thousand lines)."""
    rounded: list[float] = []

    def counted(size: float) -> float:
        rounded.append(size)
        return round(size * 2) / 2

    monkeypatch.setattr(body_text, "half_point", counted)
    pages = [[_line(57, 100 + 12 * i, 538, "x" * 90, size=9.96) for i in range(40)] for _ in range(3)]
    pages[0].insert(0, _line(57, 60, 400, "A title", size=18.0))

    assert body_text.body_size(pages) == 10.0
    assert sorted(rounded) == [9.96, 18.0]


class _CountedText(str):
    """A line's text that counts the characters read from it."""

    read = 0

    def __iter__(self):
        for character in str.__str__(self):
            _CountedText.read += 1
            yield character


def test_the_label_beside_display_print_test_reads_a_blocks_letters_only_until_it_has_three() -> None:
    """A block of small print (a page of references) holds thousands of characters; whether it
    holds three letters is known after its first word."""
    _CountedText.read = 0
    reference = _line(57, 100, 300, _CountedText("Smith J, Jones K. A trial of a protein in lung injury. " * 40), size=7.0)

    assert not margins._label_by_display_print([reference], [], [], 15.0, [], 10.0)
    assert _CountedText.read == 3


def test_a_narrow_line_is_compared_only_with_the_wide_lines_that_start_where_it_starts(monkeypatch) -> None:
    """A page of wide lines at 57 pt and a column of narrow ones at 300 pt: no narrow line can be
    flush with a wide one, so no pair is asked whether it shares a paragraph (it was every pair)."""
    asked: list[tuple[PrintedLine, PrintedLine]] = []
    real = columns._in_paragraph_with

    def counted(piece: PrintedLine, wide: PrintedLine) -> bool:
        asked.append((piece, wide))
        return real(piece, wide)

    monkeypatch.setattr(columns, "_in_paragraph_with", counted)
    wide = [_line(57, 100 + 12 * i, 538, "w" * 100) for i in range(30)]
    narrow = [_line(300, 500 + 12 * i, 538, "n" * 40) for i in range(20)]
    rules = load_rules().pdf.columns

    assert columns._column_lines(narrow, wide + narrow, 481, rules) == narrow
    assert asked == []


def test_a_narrow_line_flush_with_a_wide_line_of_its_paragraph_is_still_left_out() -> None:
    """The last, short line of a paragraph set across the page is no column line."""
    wide = [_line(57, 100 + 12 * i, 538, "w" * 100) for i in range(3)]
    last = _line(57, 136, 200, "n" * 30)
    rules = load_rules().pdf.columns

    assert columns._column_lines([last], wide + [last], 481, rules) == []


def test_a_tables_notes_are_sought_only_among_the_words_below_its_grid(monkeypatch) -> None:
    """The page's words above the grid's last row are no notes under it: the region test (and
    the region's corners, read for every word) is spent on the words below only."""
    held: list[tuple] = []
    real = tables._holds

    def counted(box: tuple, word: tuple) -> bool:
        held.append(word)
        return real(box, word)

    grid = SimpleNamespace(grid=[["a", "b"], ["1", "2"]], box=(100.0, 200.0, 400.0, 300.0), row_tops=[200.0, 250.0], notes=["n"])
    monkeypatch.setattr(tables, "words_grid", lambda *args: grid)
    monkeypatch.setattr(tables, "_holds", counted)
    above = [(100.0 + 30 * i, 210.0 + 20 * j, 120.0 + 30 * i, 220.0 + 20 * j, "v", 0, 0, 0) for i in range(10) for j in range(4)]
    note = (100.0, 305.0, 200.0, 315.0, "Values are means.", 0, 0, 0)
    found = tables._from_words(above + [note], None, pymupdf.Rect(90, 190, 410, 320), [], 10.0, load_rules().pdf.tables, [], True)

    assert found is not None and found.bottom == 315.0
    assert held == [note]


class _CountedPattern:
    """The triage's word pattern, counting the words it is asked to find."""

    def __init__(self, pattern) -> None:
        self.pattern, self.found = pattern, 0

    def _counted(self, matches):
        for match in matches:
            self.found += 1
            yield match

    def finditer(self, text: str):
        return self._counted(self.pattern.finditer(text))

    def findall(self, text: str) -> list:
        found = self.pattern.findall(text)
        self.found += len(found)
        return found

    def fullmatch(self, text: str):
        return self.pattern.fullmatch(text)


def test_the_ocr_triage_reads_a_text_pages_words_only_until_enough_look_like_words(monkeypatch) -> None:
    """A page of 400 words, all words: 35% of them (`min_word_share`) settle that it is text,
    as every page of a text PDF is asked."""
    counted = _CountedPattern(ocr_triage._WORD)
    monkeypatch.setattr(ocr_triage, "_WORD", counted)
    text = "The trial enrols adults in intensive care and follows them for a month after the dose. " * 25
    rules = PdfOcrRules()

    assert len(text.split()) == 400
    assert ocr_triage.text_layer_problem(text, rules) is None
    assert counted.found == 140  # 0.35 × 400


def test_the_ocr_triage_sends_a_page_whose_share_of_words_falls_just_short_as_before() -> None:
    """Where the words that look like words are one short of the share, the page is no text, and
    its note gives the share of the whole page; one more and it is text."""
    words, rules = 40, PdfOcrRules()  # 0.35 × 40 = 14 words needed
    garbled = ["Tbgz"] * words
    short = " ".join(["care"] * 13 + garbled[13:])
    enough = " ".join(["care"] * 14 + garbled[14:])

    assert ocr_triage.text_layer_problem(short, rules) == "its text layer is not text (only 32% of the words look like words)"
    assert ocr_triage.text_layer_problem(enough, rules) is None
