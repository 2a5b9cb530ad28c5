"""Text beside the body: running heads that name the paper, dropped, and asides, kept apart from
the body (line numbers are `line_numbers`' own pass).

`drop_heads_naming_the_paper` removes the margin lines of later pages that spell page 1's title or
byline: a short paper's running heads, alternating too often to recur on enough pages.
`mark_asides` marks (in copies) the lines set beside the body text and smaller than it (a margin
note, a side box of keywords, DOI and addresses): they become blocks of their own, read after the
page's body, and never run into a body line that shares their baseline.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import defaultdict
from dataclasses import replace
from itertools import chain, islice

from pipeline.extract.pdf.records import PrintedLine, gathered_lines
from pipeline.extract.pdf.running_lines import line_middle, margin_lines
from pipeline.extract.pdf.typography import SAME_LINE_OVERLAP
from pipeline.rules.pdf import PdfAsideRules, PdfRunningLineRules

_SAME_EDGE = 3.0
"""Points the left edges of an aside's lines and a note's may differ by and still be one edge."""
_ASIDE_LINE_CHARS = 16
"""Characters an aside's lines hold on average: a note is written in phrases, while the cells of
a table or the labels of a figure beside the text are a word or a number each."""
_CELL_GAP = 2.0
"""Font sizes of empty space between two pieces on one line beyond which they are table cells:
word spaces, even in justified text, stay well under it."""
_NEAR_LINES = 1.5
"""A piece is beside a body line when the two lie within this many body sizes of each other in height."""
_LABEL_MIN_LETTERS = 3
"""Letters a label beside larger print holds: fewer is a mark or a number, not a word."""
_LABEL_SIZE_RATIO = 2.0
"""Times a label's size the print beside it is, at least, for the label to be set apart from it:
a title beside a badge; a heading's or a body line's marks and neighbours are nearer its size."""
_DISPLAY_SIZE = 1.5
"""Body sizes from which print is display print, a title's: a label beside body text is a
figure's or a formula's."""


def mark_asides(pages: list[list[PrintedLine]], body_size: float, rules: PdfAsideRules) -> list[list[PrintedLine]]:
    """Every page with the PyMuPDF blocks set beside the body text in smaller print marked as asides (copies).

    A block is an aside when all its lines are smaller than `rules.max_size` body sizes, it holds
    a line's worth of characters and its lines phrases, lies beside body lines at its height without overlapping any
    of them across the page, is much narrower than they are (small print as wide as a column is
    a column, such as the references), shares its lines' heights with no other small print (a
    table's cells do), and is no table row nor stands right above or below one (its cells on one
    line, apart).
    """
    marked_pages = []
    for pieces in pages:
        asides = _asides(pieces, body_size, rules)
        marked_pages.append([replace(p, aside=True) if id(p) in asides else p for p in pieces] if asides else pieces)
    return marked_pages


def _asides(pieces: list[PrintedLine], body_size: float, rules: PdfAsideRules) -> set[int]:
    """The ids of a page's lines that `mark_asides` marks."""
    flat = [p for p in pieces if not p.rotated]
    body = sorted((p for p in flat if p.size >= rules.max_size * body_size and p.chars >= rules.min_chars), key=lambda p: p.y0)
    if not body:
        return set()
    tops = [p.y0 for p in body]
    reach = _NEAR_LINES * body_size
    small = [p for p in flat if p.size < rules.max_size * body_size]
    blocks: dict[int, list[PrintedLine]] = defaultdict(list)
    for piece in small:
        blocks[piece.block].append(piece)
    large = {p.block for p in flat if p.size >= rules.max_size * body_size}
    table_rows = [_box(members) for members in blocks.values() if _has_cells(members)]
    candidates = [
        members for block, members in blocks.items()
        if block not in large and sum(p.chars for p in members) >= rules.min_chars and _beside(body, tops, _box(members), reach, rules)
        and not any(other.block != block and _same_line(other, piece) for piece in members for other in small)
        and not _in_table(_box(members), table_rows, reach)
    ]
    phrases = [members for members in candidates if sum(p.chars for p in members) >= _ASIDE_LINE_CHARS * len(members)]
    edges = [min(p.x0 for p in members) for members in phrases]
    asides: set[int] = set()
    for members in candidates:
        # Short lines (`Academic editor`) count where a note of phrases shares their left edge.
        if members in phrases or any(abs(min(p.x0 for p in members) - edge) <= _SAME_EDGE for edge in edges):
            asides.update(id(p) for p in members)
    for block, members in blocks.items():
        if block not in large and _label_by_display_print(members, body, tops, reach, table_rows, body_size):
            asides.update(id(p) for p in members)
    return asides


def _label_by_display_print(
    members: list[PrintedLine], body: list[PrintedLine], tops: list[float], reach: float, table_rows: list[PrintedLine], body_size: float
) -> bool:
    """Whether a block of small print too short for a note is a label set apart on the line of
    display print (a title's size): a badge such as `ORIGINAL` or `Review` beside the title, which
    shares the title's line and would be read into it. A short piece beside body text (a figure's
    label, a formula's subscript, a table cell) stays in place, and so does a bare number."""
    if not _holds_letters(members, _LABEL_MIN_LETTERS) or _in_table(_box(members), table_rows, reach):
        return False
    for piece in members:
        for line in _near(body, tops, piece, reach):
            apart = max(line.x0, piece.x0) - min(line.x1, piece.x1)
            if (
                _same_line(line, piece) and apart > _CELL_GAP * piece.size
                and line.size >= max(_LABEL_SIZE_RATIO * piece.size, _DISPLAY_SIZE * body_size)
            ):
                return True
    return False


def _holds_letters(members: list[PrintedLine], count: int) -> bool:
    """Whether the pieces' text holds `count` letters, read only until it does: every block of
    small print is asked, a page of references too."""
    letters = filter(str.isalpha, chain.from_iterable(p.text for p in members))
    return len(list(islice(letters, count))) == count


def _has_cells(members: list[PrintedLine]) -> bool:
    """Whether two of a block's pieces share a line with a gap between them wider than any word
    space: the cells of a table row (`Rcryst†   18.8`), which PyMuPDF may give as one block."""
    ordered = sorted(members, key=lambda p: p.y0)
    for index, a in enumerate(ordered):
        for b in ordered[index + 1 :]:
            if b.y0 >= a.y1:
                break  # every later piece starts below `a`: none shares its line
            if _same_line(a, b) and max(a.x0, b.x0) - min(a.x1, b.x1) > _CELL_GAP * min(a.size, b.size):
                return True
    return False


def _in_table(box: PrintedLine, table_rows: list[PrintedLine], reach: float) -> bool:
    """Whether `box` is a table row, or stands right above or below one across the same width (a
    row whose cells PyMuPDF gave one line, a group label): table text stays in the table."""
    return any(
        row.x0 < box.x1 and box.x0 < row.x1 and row.y0 - reach <= box.y1 and box.y0 <= row.y1 + reach
        for row in table_rows
    )


def _box(members: list[PrintedLine]) -> PrintedLine:
    """A piece spanning `members`, for the geometry tests."""
    first = members[0]
    x0, y0 = min(p.x0 for p in members), min(p.y0 for p in members)
    x1, y1 = max(p.x1 for p in members), max(p.y1 for p in members)
    return PrintedLine(first.page, x0, y0, x1, y1, "", first.size, first.font, False, False, 0)


def _same_line(a: PrintedLine, b: PrintedLine) -> bool:
    return min(a.y1, b.y1) - max(a.y0, b.y0) >= SAME_LINE_OVERLAP * min(a.y1 - a.y0, b.y1 - b.y0)


def _beside(body: list[PrintedLine], tops: list[float], box: PrintedLine, reach: float, rules: PdfAsideRules) -> bool:
    """Whether `box` has body lines at its height, overlaps none of them across the page, and is
    much narrower than they are."""
    near = _near(body, tops, box, reach)
    if not near or any(b.x0 < box.x1 and box.x0 < b.x1 for b in near):
        return False
    return box.x1 - box.x0 <= rules.max_width * statistics.median(b.x1 - b.x0 for b in near)


def _near(body: list[PrintedLine], tops: list[float], piece: PrintedLine, reach: float) -> list[PrintedLine]:
    """Body lines (sorted by top) whose height comes within `reach` of the piece's; a body line
    is never taller than two reaches, so none starting further up can come near."""
    near = []
    for line in body[bisect.bisect_left(tops, piece.y0 - 3 * reach) :]:
        if line.y0 > piece.y1 + reach:
            break
        if line.y1 >= piece.y0 - reach:
            near.append(line)
    return near


_FRONT_TOP = 0.4
"""Share of page 1's height from its top where the title and the byline are set."""
_NAMING_MIN_LETTERS = 10
"""Letters a page-1 line must hold for a later margin line spelling it to be a running head: a
title or a byline; a shorter one (`Methods`) may be a heading that starts a page."""


_NAMING_MIN_WORDS = 2
"""Words of a running head that names the paper: a title or a byline; one word is a heading's."""
_CONTENTS_ENTRY = re.compile(r"(?:\.\s*){3}|\d\s*$")
"""A page-1 line with a dot leader or a page number at its end: a contents entry, no title."""


_NO_LETTER = re.compile(r"[^\w]|[\d_]")


def _letters(text: str) -> str:
    return _NO_LETTER.sub("", text.casefold())


def drop_heads_naming_the_paper(
    pages: list[list[PrintedLine]], heights: list[float], rules: PdfRunningLineRules
) -> tuple[list[list[PrintedLine]], list[PrintedLine]]:
    """Every page after the first without the margin lines that spell, case and punctuation
    aside, a line (or two lines together) of page 1's top set elsewhere on its page: the title or
    the byline printed as a running head, which a short paper alternates page by page (authors on
    one, title on the next) too seldom for its recurrence to show; and the pieces dropped. A line
    at the same height as on page 1 is a running line whose recurrence `drop_running_lines`
    judges by the rules."""
    if len(pages) < 2:
        return pages, []
    top = (p for p in pages[0] if not p.rotated and p.y1 <= _FRONT_TOP * heights[0])
    texts = [(_text_of(line), line_middle(line)) for line in gathered_lines(top)]
    # A contents entry (`Methods ..... 3`) names a heading that may start a later page.
    lines = [(_letters(text), middle) for text, middle in texts if not _CONTENTS_ENTRY.search(text)]
    names: dict[str, list[float]] = defaultdict(list)
    for key, middle in lines + [(a + b, (y + z) / 2) for (a, y), (b, z) in zip(lines, lines[1:])]:
        if len(key) >= _NAMING_MIN_LETTERS:
            names[key].append(middle)
    dropped: set[int] = set()
    for pieces, height in zip(pages[1:], heights[1:]):
        tolerance = max(rules.min_height_tolerance, rules.height_tolerance * height)
        for line in margin_lines(pieces, height, rules.margin):
            text = _text_of(line)
            # A numbered line is a heading that starts the page, never a running head.
            if len(text.split()) < _NAMING_MIN_WORDS or text[:1].isdigit():
                continue
            places = names.get(_letters(text), [])
            if places and all(abs(line_middle(line) - place) > tolerance for place in places):
                dropped.update(id(p) for p in line)
    removed = [p for pieces in pages for p in pieces if id(p) in dropped]
    return [[p for p in pieces if id(p) not in dropped] for pieces in pages], removed


def _text_of(line: list[PrintedLine]) -> str:
    return " ".join(p.text for p in sorted(line, key=lambda p: p.x0))
