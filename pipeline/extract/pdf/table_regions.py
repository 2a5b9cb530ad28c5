"""Where a PDF table is: its caption lines, the column the caption is set in, and the region
beside the caption (below it, else above it) in which its grid is sought."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import pymupdf

from pipeline.extract.pdf.records import PageBox, PrintedLine
from pipeline.rules.pdf import PdfTableRules

_CAPTION_LINES = 2.5
"""A second caption of the same number that starts within this many of its font sizes under the
first is the same table's (a caption given in two languages)."""
_COLUMN_SIDE = 0.55
"""A caption that stays left (or right) of this share of the page width is in the left (right) column."""
_PROSE_WIDTH = 0.6
"""A line at body size this wide (a share of the column's width) with many words is running
text: the region a caption opens ends there. Table rows come as a line a cell, and in smaller print."""
_PROSE_MIN_WORDS = 8
_BESIDE = 6.0
"""How far from the caption, in body font sizes, running text in the other half of the page
shows that the table keeps to the caption's column."""
_BESIDE_CELLS = 2
"""Lines level with a caption's first line, right of it, that show a table set beside it."""
SMALL_PRINT = 0.95
"""Lines under this share of the body size are small print: a table's notes are set so."""
_BOX_SLACK = 2.0
"""Points a line's box may overhang another's edge (italics, kerning) and still stand beside it."""


@dataclass(frozen=True, slots=True)
class Caption:
    page: int
    label: str
    text: str
    box: PageBox


def overlap(a: PageBox, b: PageBox) -> float:
    """How much of the narrower of two boxes the other covers along x."""
    width = min(a[2] - a[0], b[2] - b[0])
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) / width if width > 0 else 0.0


def has_table_caption(pieces: list[PrintedLine], rules: PdfTableRules) -> bool:
    """Whether a line of the page opens like a table caption: only such pages are read for tables."""
    return any(not piece.rotated and rules.caption.match(piece.text.strip()) for piece in pieces)


def find_captions(pieces: list[PrintedLine], rules: PdfTableRules) -> list[Caption]:
    """The page's table captions: a line that opens like one, with the lines after it in its
    PyMuPDF block."""
    captions = []
    for piece in pieces:
        if piece.rotated or piece.box is None or not (match := rules.caption.match(piece.text.strip())):
            continue
        lines = sorted(
            (other for other in pieces if other.block == piece.block and other.box is not None and other.y0 >= piece.y0 - 0.5),
            key=lambda other: (round(other.y0), other.x0),
        )
        boxes = [other.box for other in lines]
        box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        text = " ".join(" ".join(other.text.split()) for other in lines)
        label = " ".join(match["label"].split())
        previous = captions[-1] if captions else None
        under_previous = previous is not None and overlap(box, previous.box) > 0 and previous.box[1] <= box[1] <= previous.box[3] + _CAPTION_LINES * piece.size
        if under_previous and _number(previous.label) == _number(label):
            # The same table's caption again, right under the first: in a second language
            # (`Tabela 4.` then `Table 4.`), or a line of the first's block read on its own.
            merged = previous.text if text in previous.text else f"{previous.text} {text}"
            outer = (min(box[0], previous.box[0]), previous.box[1], max(box[2], previous.box[2]), max(box[3], previous.box[3]))
            captions[-1] = replace(previous, text=merged, box=outer)
            continue
        captions.append(Caption(page=piece.page, label=label, text=text, box=box))
    return captions


def _number(label: str) -> str:
    """A caption label's number and letters (`S1`, `4`): what a second language's label shares."""
    return re.sub(r"^\D*?(?=[A-Z]?\d)", "", label, flags=re.IGNORECASE).casefold()


def _column(caption: Caption, pieces: list[PrintedLine], page_rect: pymupdf.Rect, body_size: float) -> tuple[float, float]:
    """Left and right of the column the caption is set in: the page's half it stays in where
    the page's running text keeps to halves, else the page."""
    prose = [piece.box for piece in pieces if piece.box is not None and is_prose(piece, page_rect.width / 2, body_size)]
    # The middle of the running text, which a page with a wide outer margin sets off the page's;
    # the page's where the running text keeps to one half (the other holds tables).
    middle = page_rect.x0 + page_rect.width / 2
    if prose and min(box[0] for box in prose) < middle < max(box[2] for box in prose):
        middle = (min(box[0] for box in prose) + max(box[2] for box in prose)) / 2
    if any(box[0] < middle < box[2] for box in prose):
        return page_rect.x0, page_rect.x1
    # A column of running text that ends before the caption starts (or starts after it ends)
    # puts the caption in the other half, however far its box reaches (a caption in a shaded box).
    if caption.box[2] <= page_rect.x0 + page_rect.width * _COLUMN_SIDE or any(
        box[0] >= caption.box[2] - _BOX_SLACK and box[2] > middle for box in prose
    ):
        return page_rect.x0, middle
    if caption.box[0] >= page_rect.x0 + page_rect.width * (1 - _COLUMN_SIDE) or any(
        box[2] <= caption.box[0] + _BOX_SLACK and box[0] < middle for box in prose
    ):
        return middle, page_rect.x1
    return page_rect.x0, page_rect.x1


def is_prose(piece: PrintedLine, width: float, body_size: float) -> bool:
    return (
        piece.size >= SMALL_PRINT * body_size
        and piece.x1 - piece.x0 >= _PROSE_WIDTH * width
        and len(piece.text.split()) >= _PROSE_MIN_WORDS
    )


def _set_beside(caption: Caption, pieces: list[PrintedLine], column: tuple[float, float], half: float, body_size: float) -> bool:
    """Whether the caption is set beside its table, in a margin left of it: lines other than
    running text stand right of the caption in its column, level with its first line (the
    table's header cells)."""
    level = [
        piece for piece in pieces
        if piece.box is not None and not piece.rotated and piece.box[0] >= caption.box[2] + _BOX_SLACK and piece.box[2] <= column[1] + _BOX_SLACK
        and piece.box[1] < caption.box[1] + piece.size and piece.box[3] > caption.box[1] and not is_prose(piece, half, body_size)
    ]
    return len(level) >= _BESIDE_CELLS


def caption_region(
    caption: Caption, pieces: list[PrintedLine], stops: list[PageBox], page_rect: pymupdf.Rect, body_size: float, below: bool
) -> pymupdf.Rect:
    """Where the caption's table may be: in its column, from the caption down (or up) to the next
    caption or the first line of running text. A table may be wider than its caption's column:
    where no running text nor another table's caption stands in the other half of the page beside
    the table's first lines, the region spans the page."""
    half = page_rect.width / 2
    prose = [piece.box for piece in pieces if piece.box is not None and is_prose(piece, half, body_size)]
    left, right = _column(caption, pieces, page_rect, body_size)
    if right - left < page_rect.width:
        other = (page_rect.x0, 0, left, 0) if left > page_rect.x0 else (right, 0, page_rect.x1, 0)
        near = (caption.box[3], caption.box[3] + _BESIDE * body_size) if below else (caption.box[1] - _BESIDE * body_size, caption.box[1])
        # A caption set level with this one heads a table of its own in the other half.
        level = (caption.box[1] - _BESIDE * body_size, caption.box[3] + _BESIDE * body_size)
        if not any(overlap(box, other) > 0.5 and box[1] < near[1] and box[3] > near[0] for box in prose) and not any(
            overlap(box, other) > 0.5 and box[1] < level[1] and box[3] > level[0] for box in stops if box != caption.box
        ):
            left, right = page_rect.x0, page_rect.x1
    side = below and _set_beside(caption, pieces, (left, right), half, body_size)
    ends = [box for box in stops if box != caption.box and overlap(box, (left, 0, right, 0)) > 0]
    ends += [box for box in prose if overlap(box, (left, 0, right, 0)) > 0.5]
    if side:
        # The table starts level with its caption, right of it.
        bottom = min((box[1] for box in ends if box[1] >= caption.box[1] - 0.5 and box[0] > caption.box[2]), default=page_rect.y1)
        return pymupdf.Rect(caption.box[2] + _BOX_SLACK, caption.box[1] - _BOX_SLACK, right, bottom)
    if below:
        bottom = min((box[1] for box in ends if box[1] >= caption.box[3] - 0.5), default=page_rect.y1)
        return pymupdf.Rect(left, caption.box[3], right, bottom)
    top = max((box[3] for box in ends if box[3] <= caption.box[1] + 0.5), default=page_rect.y0)
    return pymupdf.Rect(left, top, right, caption.box[1])
