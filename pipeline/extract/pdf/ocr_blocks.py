"""The lines OCR reads on a page, in blocks as PyMuPDF's text layer has them, at one size a block.

A text layer comes in blocks (a paragraph, a heading with its text) whose lines share a font size;
OCR gives lines alone, each sized off its own box (`ocr._size`). `drop_wordmarks` leaves out logos
read as words; `in_blocks` puts each line in the block of the line above it where the two belong
together, and `even_out_sizes` gives body lines across the document the one body size that a text
layer's share.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import replace

from pipeline.extract.pdf.records import PrintedLine

OCR_FONT = "OCR"
"""The font every OCR'd line is set in: OCR tells no faces apart."""
_SIZE_GRAIN = 0.5
"""OCR'd sizes are rounded to half a point: box heights vary with a line's letters, and the
passes compare sizes as a typesetter sets them."""
_SAME_BODY = 0.06
"""An OCR'd block whose size is within this share of the document's usual one is body size."""
_BLOCK_SIZES = 0.2
"""Two lines one under the other whose measured sizes differ by less than this share may be one
block: a line's measure swings by a tenth, a heading is a fifth larger than its text or more."""
_BLOCK_GAP = 0.8
"""Lines one under the other, at most this many line heights apart, that share most of their
width (`_BLOCK_OVERLAP`) are one block."""
_BLOCK_OVERLAP = 0.5
_WORDMARK_WORDS = 2
_WORDMARK_SIZE = 3.0
"""A line of `_WORDMARK_WORDS` words or fewer set at least this many times the size of two lines or
more beside it is a wordmark, a journal's or publisher's logo: a heading stands over its text, a
drop capital is one letter, and a text layer holds a logo as an image."""


def drop_wordmarks(lines: list[PrintedLine]) -> list[PrintedLine]:
    """The lines but the wordmarks (`_WORDMARK_SIZE`). Read as a line, a logo beside a paragraph of
    small print (the licence at the foot of a first page) would share a row with each of that
    paragraph's lines beside its height, and the reading order would take them out of turn."""
    return [line for line in lines if not _is_wordmark(line, lines)]


def _is_wordmark(line: PrintedLine, lines: list[PrintedLine]) -> bool:
    if len(line.text) < 2 or len(line.text.split()) > _WORDMARK_WORDS:
        return False
    beside = [
        other
        for other in lines
        if (other.x0 >= line.x1 or other.x1 <= line.x0)
        and line.y0 <= (other.y0 + other.y1) / 2 <= line.y1
        and _WORDMARK_SIZE * other.size <= line.size
    ]
    return len(beside) >= 2


def in_blocks(lines: list[PrintedLine]) -> list[PrintedLine]:
    """The lines top to bottom, each in the block of the line above it in its column, where one is
    close above (`_BLOCK_GAP`, `_BLOCK_OVERLAP`) and of about its size (`_BLOCK_SIZES`), and of its
    weight or bold over it (a bold line starts a block, and the text under it joins the bold line's,
    as PyMuPDF's blocks hold a heading and its paragraph: a heading alone in its block, set smaller
    than the body, is taken for a margin note); each line given the median size of its block's lines
    of its weight. A line read as bold under a roman one that goes on with its sentence
    (`_goes_on`) is roman, and joins its block: the ink measure calls a body line bold now and then
    (small print beside the text lowers the page's usual ink), and a heading never starts inside a
    word or a sentence."""
    ordered = sorted(lines, key=lambda line: (line.y0, line.x0))
    blocks: list[int] = []
    for index, line in enumerate(ordered):
        above = [(blocks[earlier], other) for earlier, other in enumerate(ordered[:index]) if _joins(line, other)]
        if above and line.bold and not above[-1][1].bold:
            ordered[index] = line = replace(line, bold=False)  # it goes on with a roman line's sentence
        blocks.append(above[-1][0] if above else max(blocks, default=-1) + 1)
    sizes: dict[tuple[int, bool], list[float]] = {}
    for line, block in zip(ordered, blocks):
        sizes.setdefault((block, line.bold), []).append(line.size)
    # A block's text is set in one size, which its lines' median measures better than any one of them.
    return [replace(line, block=block, size=statistics.median(sizes[block, line.bold])) for line, block in zip(ordered, blocks)]


def even_out_sizes(pages: list[list[PrintedLine]]) -> list[list[PrintedLine]]:
    """The pages, their OCR'd lines' sizes rounded (`_SIZE_GRAIN`) and those near the size most
    OCR'd characters have (`_SAME_BODY`) set to it, so that body lines share one size as a text layer's do."""
    carried: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            if line.font == OCR_FONT:
                carried[round(line.size / _SIZE_GRAIN) * _SIZE_GRAIN] += line.chars
    if not carried:
        return pages
    usual = carried.most_common(1)[0][0]  # the body's, as `body_text.body_size` reads it: the size of the most characters

    def evened(size: float) -> float:
        return usual if abs(size - usual) <= _SAME_BODY * usual else round(size / _SIZE_GRAIN) * _SIZE_GRAIN

    return [[replace(line, size=evened(line.size)) if line.font == OCR_FONT else line for line in lines] for lines in pages]


def _joins(line: PrintedLine, other: PrintedLine) -> bool:
    """Whether `line` joins the block of `other`, a line above it (`in_blocks`)."""
    return (
        -_BLOCK_GAP * (line.y1 - line.y0) <= line.y0 - other.y1 <= _BLOCK_GAP * (line.y1 - line.y0)
        and line.y0 > other.y0
        and abs(line.size - other.size) <= _BLOCK_SIZES * max(line.size, other.size)
        and (line.bold == other.bold or other.bold or _goes_on(other, line))
        and min(line.x1, other.x1) - max(line.x0, other.x0) >= _BLOCK_OVERLAP * min(line.x1 - line.x0, other.x1 - other.x0)
    )


def _goes_on(above: PrintedLine, line: PrintedLine) -> bool:
    """Whether `line` goes on with the words of the line above: that line ends inside a word or a
    sentence (a hyphen, a comma, a small letter), or this one starts with a small letter."""
    ending, start = above.text.rstrip()[-1:], line.text.lstrip()[:1]
    return ending in {"-", ","} or ending.islower() or start.islower()
