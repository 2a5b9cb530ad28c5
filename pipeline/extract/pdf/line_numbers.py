"""Line numbers: the numbers a review copy or a preprint prints before every line, dropped as page
furniture before blocks and headings are read.

A page's line numbers are a column of small integers at one edge, rising from top to bottom, one
on every line, down most of the page's text, each outside the text on its line. PyMuPDF reads one
either as a piece of its own (a bare number, also where `page_reading` sets it apart from the line
it stands before) or as the opening of its line's text (`32 Methods`, where the number and the
line are one run of text): a bare number is dropped, an opening number is cut off its line, so
that `32 Methods` is the heading `Methods` and the stored text keeps no numbers either.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, replace

from pipeline.extract.pdf.records import PrintedLine
from pipeline.extract.pdf.typography import SAME_LINE_OVERLAP

_BARE_NUMBER = re.compile(r"\d{1,5}")
_OPENING_NUMBER = re.compile(r"(\d{1,5})\s+(?=\S)")
_LINE_NUMBERS_MIN = 5
"""Numbers a page's column must hold to be line numbering: a few numbers in a margin may be page
or footnote marks."""
_SAME_EDGE = 3.0
"""Points the aligned edges of a column of line numbers may differ by (left or right aligned)."""
_LINE_NUMBER_STEP = 1.8
"""Line numbers stand on every line, a line's height or so apart (boxes are about 1.2 sizes tall,
lines 1.2 to 1.5 apart); a numbered list's numbers stand further apart, as its entries wrap."""
_RISING_SHARE = 0.9
"""Share of a column's numbers that must rise down the page in one run: a stray number at the
same edge (a page number, a table's cell) is left out of the run, not a reason to keep them all."""
_PAGE_SHARE = 0.5
"""Share of the page's text height the column must run down: line numbers stand beside all of a
page's text, while a table's index column (`S. no. 1, 2, 3…`) stands beside its rows only."""
_DIGIT_WIDTH = 0.5
_SPACE_WIDTH = 0.25
"""Widths of a digit (figures are set on a half-em in nearly every text face) and of a word space,
in font sizes: where a number opens its line's text, they place the number's right edge and the
text's start."""


@dataclass(frozen=True, slots=True)
class _Number:
    """A number that may be a line's: the piece it is in, its value and its box along the line."""

    piece: PrintedLine
    value: int
    x0: float
    x1: float
    """Its right edge: the piece's own, or estimated where the number opens the piece's text."""
    prefix: int
    """Characters of the piece's text the number and its space take; 0 where the piece is the number."""


def drop_line_numbers(pages: list[list[PrintedLine]]) -> tuple[list[list[PrintedLine]], list[PrintedLine]]:
    """Every page without its line numbers, and the numbers dropped (pieces of their own).

    A bare number of a page's line-number column is dropped; a line that opens with one keeps its
    text after it, starting where the column's numbers end.
    """
    kept_pages: list[list[PrintedLine]] = []
    removed: list[PrintedLine] = []
    for pieces in pages:
        chosen = _line_numbers(pieces)
        if not chosen:
            kept_pages.append(pieces)
            continue
        # Text after an opening number starts where the column's widest number ends, a space on.
        text_start = max((n.x1 + _SPACE_WIDTH * n.piece.size for n in chosen.values() if n.prefix), default=0.0)
        kept: list[PrintedLine] = []
        for piece in pieces:
            number = chosen.get(id(piece))
            if number is None:
                kept.append(piece)
            elif number.prefix:
                kept.append(_cut(piece, number.prefix, text_start))
                removed.append(replace(piece, x1=number.x1, text=str(number.value), chars=len(str(number.value)), lead=None, superscripts=()))
            else:
                removed.append(piece)
        kept_pages.append(kept)
    return kept_pages, removed


def _numbers(pieces: list[PrintedLine]) -> list[_Number]:
    """The page's bare numbers and the numbers that open a horizontal line's text."""
    numbers = []
    for piece in pieces:
        if piece.rotated:
            continue
        if _BARE_NUMBER.fullmatch(piece.text):
            numbers.append(_Number(piece, int(piece.text), piece.x0, piece.x1, 0))
        elif piece.frame == (1, 0) and (opening := _OPENING_NUMBER.match(piece.text)):
            digits = len(opening[1])
            numbers.append(_Number(piece, int(opening[1]), piece.x0, piece.x0 + _DIGIT_WIDTH * digits * piece.size, opening.end()))
    return numbers


def _line_numbers(pieces: list[PrintedLine]) -> dict[int, _Number]:
    """The page's line numbers by the id of the piece each is in (empty where it has none)."""
    numbers = _numbers(pieces)
    if len(numbers) < _LINE_NUMBERS_MIN:
        return {}
    flat = [p for p in pieces if not p.rotated]
    extent = max(p.y1 for p in flat) - min(p.y0 for p in flat)
    chosen: dict[int, _Number] = {}
    for edge in (lambda n: n.x0, lambda n: n.x1):
        for column in _aligned(numbers, edge):
            run = _rising_run(sorted(column, key=lambda n: n.piece.y0))
            if len(run) < _LINE_NUMBERS_MIN or len(run) < _RISING_SHARE * len(column):
                continue
            steps = [b.piece.y0 - a.piece.y0 for a, b in zip(run, run[1:])]
            every_line = statistics.median(steps) <= _LINE_NUMBER_STEP * statistics.median(n.piece.y1 - n.piece.y0 for n in run)
            tall = run[-1].piece.y1 - run[0].piece.y0 >= _PAGE_SHARE * extent
            if every_line and tall and (all(_left_of(n, flat) for n in run) or all(_right_of(n, flat) for n in run)):
                chosen.update((id(n.piece), n) for n in run)
    return chosen


def _aligned(numbers: list[_Number], edge) -> list[list[_Number]]:
    """The numbers in groups whose `edge` lies within `_SAME_EDGE` of the next one's, left to right."""
    ordered = sorted(numbers, key=edge)
    groups: list[list[_Number]] = []
    for number in ordered:
        if groups and edge(number) - edge(groups[-1][-1]) <= _SAME_EDGE:
            groups[-1].append(number)
        else:
            groups.append([number])
    return [group for group in groups if len(group) >= _LINE_NUMBERS_MIN]


def _rising_run(column: list[_Number]) -> list[_Number]:
    """The longest run of the column's numbers (top to bottom) whose values rise."""
    best: list[list[_Number]] = []
    for index, number in enumerate(column):
        before = [best[j] for j in range(index) if column[j].value < number.value]
        best.append(max(before, key=len, default=[]) + [number])
    return max(best, key=len, default=[])


def _on_its_line(number: _Number, flat: list[PrintedLine]) -> list[PrintedLine]:
    line = number.piece
    return [
        p for p in flat
        if p is not line and min(p.y1, line.y1) - max(p.y0, line.y0) >= SAME_LINE_OVERLAP * min(p.y1 - p.y0, line.y1 - line.y0)
    ]


def _left_of(number: _Number, flat: list[PrintedLine]) -> bool:
    return all(number.x1 <= p.x0 for p in _on_its_line(number, flat) if not _BARE_NUMBER.fullmatch(p.text))


def _right_of(number: _Number, flat: list[PrintedLine]) -> bool:
    return not number.prefix and all(number.x0 >= p.x1 for p in _on_its_line(number, flat) if not _BARE_NUMBER.fullmatch(p.text))


def _cut(piece: PrintedLine, prefix: int, x0: float) -> PrintedLine:
    """`piece` without the first `prefix` characters of its text (a line number and its space),
    starting at `x0`."""
    number_chars = sum(not ch.isspace() for ch in piece.text[:prefix])
    lead = piece.lead
    if lead is not None:
        lead = replace(lead, end=lead.end - prefix) if lead.end > prefix else None
    return replace(
        piece, x0=min(x0, piece.x1), text=piece.text[prefix:], chars=piece.chars - number_chars,
        box=(min(x0, piece.x1), *piece.box[1:]) if piece.box is not None else None,
        superscripts=tuple((a - prefix, b - prefix) for a, b in piece.superscripts if a >= prefix), lead=lead,
    )
