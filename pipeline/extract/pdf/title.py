"""The paper's title on page 1: the largest text of a few words near the top, a byline under it.

`mark_title` makes it a level-1 heading, joined with the blocks that carry its lines on; a journal's
name set larger in a masthead yields to large print with a byline under it.
"""

from __future__ import annotations

import re

from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.extract.pdf.typography import SAME_SIZE
from pipeline.records.base import BlockKind
from pipeline.rules.pdf import PdfTitleRules

_TITLE_MIN_LETTERS = 8
"""A title has a few words of letters; a large number or a logo's initials is not one."""
_MASTHEAD_MAX_WORDS = 6
"""Words a journal's name set as a masthead runs to (`The Open Dentistry Journal`)."""
_TITLE_BYLINE_REACH = 2
"""Blocks in smaller print than a title's that may stand between it and its byline (a label, a
line of notes): a masthead's address and DOI put the byline under the title, not under it."""
_TITLE_LINE_STEP = 1.6
"""Font sizes from one title line's top to the next's: titles are set with a leading of
1.2 to 1.5 sizes, and a byline below sits further down."""


_NAME = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’.-]*){1,3}"
_NAME_LIST = re.compile(rf"{_NAME}(?:\s*,\s*(?:and\s+)?{_NAME})+(?:\s+and\s+{_NAME})?")
"""Two names or more of two to four capitalised words, parted by commas: `Ada Example, Bob Sample`."""
_BYLINE_MARK = re.compile(r"[∗*†‡§¶@]|\b[A-Z]\.\s?(?:[A-Z]\.\s?)*[A-Z][a-z]")
"""A footnote mark, an e-mail's `@`, or initials before a surname (`J. R. Smith`)."""


def looks_like_byline(text: str) -> bool:
    """Author and affiliation lines: footnote marks, e-mail, initials before a surname, or a list
    of names (a paper whose headings cannot be seen must not get its byline as its one heading)."""
    return bool(_BYLINE_MARK.search(text) or _NAME_LIST.fullmatch(text))


def _title_index(
    blocks: list[PdfBlock], layout: Layout, page_height: float, front: int | None, rules: PdfTitleRules
) -> int | None:
    """The paper title: the largest text of a few words or more in the upper part of page 1,
    above the abstract, and clearly above body size; the largest such text with a byline under
    it, where the largest has none (a journal's name set larger than the title, in a masthead);
    where no text is that large, bold text a little over body size with a byline under it."""
    large = rules.min_size * layout.body_size
    candidates: list[tuple[float, int, int]] = []
    bold: list[tuple[float, int, int]] = []
    for index, block in enumerate(blocks):
        row = block.rows[0]
        if row.page != 1 or (front is not None and index >= front):
            break
        if len(block.text.split()) < rules.min_words:
            continue
        if block.kind is not BlockKind.paragraph or row.rotated or (row.y0 > rules.max_top * page_height and index > 0):
            # Low on the page only as page 1's first text: a cover whose picture fills the top.
            continue
        if sum(ch.isalpha() for ch in block.text) < _TITLE_MIN_LETTERS or len(block.rows) > rules.max_rows:
            continue
        size = max(r.size for r in block.rows)
        if size >= large:
            candidates.append((size, len(block.text), -index))
        elif size >= rules.bylined_min_size * layout.body_size and all(r.bold for r in block.rows):
            bold.append((size, len(block.text), -index))
    if not candidates:
        bylined = sorted((key for key in bold if _byline_follows(blocks, -key[2], large)), reverse=True)
        return -bylined[0][2] if bylined else None
    candidates.sort(reverse=True)
    largest = -candidates[0][2]
    if len(blocks[largest].text.split()) > _MASTHEAD_MAX_WORDS:
        return largest
    if not _byline_follows(blocks, largest, large):
        # A short line in the largest print with no byline under it may be a journal's masthead:
        # the title is then the large print that has one, where some has.
        bylined = [key for key in candidates[1:] if _byline_follows(blocks, -key[2], large)]
        return -bylined[0][2] if bylined else largest
    return _under_masthead(blocks, largest, candidates, large)


def _under_masthead(blocks: list[PdfBlock], largest: int, candidates: list[tuple[float, int, int]], large: float) -> int:
    """The title where the short line in the largest print, `largest`, is a journal's masthead over
    it: the first large print under that line in other print and no byline, set apart from it (by
    a row in other print, or by more than a title's leading), with the byline right under it. A title's own lines
    follow one another within its leading, and so does a subtitle or a translated title, which
    then keeps the largest print's line as the title."""
    masthead = blocks[largest].rows[-1]
    under = sorted(-key[2] for key in candidates if -key[2] > largest and not looks_like_byline(blocks[-key[2]].text))
    if not under:
        return largest
    first = under[0]
    top = blocks[first].rows[0]
    if abs(top.size - masthead.size) < SAME_SIZE * masthead.size or top.size >= masthead.size:
        return largest
    set_apart = first > largest + 1 or not 0 < top.y0 - masthead.y0 <= _TITLE_LINE_STEP * masthead.size
    if set_apart and _byline_follows(blocks, first, large):
        return first
    return largest


def _byline_follows(blocks: list[PdfBlock], title: int, large: float) -> bool:
    """Whether a byline is among the blocks right under the title's: past the blocks in large
    print (its own lines carried on, a translated title), within a label or two in smaller print."""
    smaller = 0
    for block in blocks[title + 1 :]:
        if block.rows[0].page != 1 or smaller == _TITLE_BYLINE_REACH:
            return False
        if looks_like_byline(block.text):
            return True
        if max(r.size for r in block.rows) < large:
            smaller += 1
    return False


def _title_goes_on(rows: list[Row], following: tuple[Row, ...], rules: PdfTitleRules) -> bool:
    """Whether the block after the title's `rows` is more of it: a title's last line can be short
    enough to sit in the left column of a two-column page."""
    last = rows[-1]
    return (
        following[0].page == 1
        and len(rows) + len(following) <= rules.max_rows
        and all(abs(r.size - last.size) < SAME_SIZE * last.size and r.bold == last.bold for r in following)
        and 0 < following[0].y0 - last.y0 <= _TITLE_LINE_STEP * last.size
    )


def mark_title(blocks: list[PdfBlock], layout: Layout, page_height: float, front: int | None, rules: PdfTitleRules) -> list[PdfBlock]:
    """The blocks with the title as a level-1 heading, joined with the blocks that carry its lines
    on; `front` is the first block that opens the paper's body, which the title stands above."""
    title = _title_index(blocks, layout, page_height, front, rules)
    if title is None:
        return blocks
    rows = list(blocks[title].rows)
    end = title + 1
    while end < len(blocks) and _title_goes_on(rows, blocks[end].rows, rules):
        rows.extend(blocks[end].rows)
        end += 1
    title_block = PdfBlock(kind=BlockKind.heading, rows=tuple(rows), level=1, evidence=("the largest text at the top of page 1",))
    return [*blocks[:title], title_block, *blocks[end:]]


def title_position(blocks: list[PdfBlock]) -> int | None:
    return next((index for index, block in enumerate(blocks) if block.level == 1), None)
