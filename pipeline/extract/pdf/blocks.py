"""Rows in reading order cut into paragraph, list and table blocks, and paragraphs joined across breaks.

`group_blocks` cuts where the column changes, at a vertical gap, at a first-line indent after a
finished line, at a change of size or weight, a bullet or a caption, and lets a table take its
header and footer rows; `join_continuations` joins a paragraph cut at the end of a column or page
to the one that carries on at the top of the next, moving captions, tables and footnotes between
them after it; `merge_lists` makes consecutive list items one list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.extract.pdf.typography import HEADING_LINE_FILL, TABLE_ROW_MIN_GAPS, TERMINAL, font_face, font_family
from pipeline.records.base import BlockKind
from pipeline.rules import Rules
from pipeline.rules.pdf import PdfContinuationRules, PdfParagraphRules
from pipeline.text.list_markers import PRINTED_BULLETS, SOLID_BULLETS
from pipeline.text.numbering import pdf_section_number

_CONTINUING_WORDS = frozenset(
    "a an the of and or in on at to for with by from as is are was were be that which than into "
    "their its our this these those between".split()
)
_SHORT_LINE_MIN = 3.0
"""A short line stops at least this many font sizes (two words or so) before its column's edge:
in a narrow column the share alone would be a single word's ragged edge."""
_TITLE_SIZE = 1.3
"""Bold lines this many body sizes large and up are a title, which wraps in bold and stays one block."""
_GAP_SLACK = 0.1
"""Font sizes a baseline step may exceed the line gap by: sub- and superscripts and rounding
move a line's box a little."""
_SAME_INDENT = 0.3
"""Lines that start within this many font sizes of each other start at the same indent."""
_FLUSH = 0.5
"""A line that starts within this many font sizes of its column's left edge is not indented."""
_MOST_INSERTS = 2
_INSERT_MIN_WORDS = 4
"""Blocks that may break a sentence in a column and be inserts (a pull quote and its credit
line), and the words each holds: a larger symbol or a display formula is part of the sentence."""
_TABLE_EDGE_MAX_ROWS = 3
"""A table's header or footer is a row or three with cells; a longer block is text."""


@dataclass(frozen=True, slots=True)
class BlockRules:
    """What cutting rows into blocks and joining continuations read from the rules."""

    paragraphs: PdfParagraphRules
    continuations: PdfContinuationRules
    caption_start: re.Pattern[str]

    @classmethod
    def from_rules(cls, rules: Rules) -> BlockRules:
        return cls(rules.pdf.paragraphs, rules.pdf.continuations, rules.captions.pdf_start)


def _starts_item(text: str) -> bool:
    return bool(text) and text[0] in PRINTED_BULLETS and (len(text) == 1 or text[1] == " " or text[0] in SOLID_BULLETS)


def _ends_short(row: Row, layout: Layout, rules: PdfParagraphRules) -> bool:
    """Whether `row` stops short of its column's right edge, as a paragraph's last line does."""
    left, right = layout.edges[row.group]
    return row.x1 < right - max(rules.short_line * (right - left), _SHORT_LINE_MIN * row.size)


def _breaks_before(rows: list[Row], row: Row, following: Row | None, layout: Layout, rules: BlockRules) -> bool:
    """Whether `row` starts a new block after `rows`, the block so far, within one column group."""
    paragraphs = rules.paragraphs
    prev = rows[-1]
    if (prev.cells >= TABLE_ROW_MIN_GAPS) != (row.cells >= TABLE_ROW_MIN_GAPS):
        return True
    if abs(row.size - prev.size) > paragraphs.size_change * max(row.size, prev.size):
        return True
    if prev.bold != row.bold or (prev.small_caps != row.small_caps and not row.bold):
        return True
    left, right = layout.edges[row.group]
    # A caption set in bold runs on past a short first line (asked only of bold rows: most are not).
    if prev.bold and row.bold and not rules.caption_start.match(rows[0].text) and (
        font_family(prev.font) != font_family(row.font)
        or (prev.x1 - left < HEADING_LINE_FILL * (right - left) and row.size < _TITLE_SIZE * layout.body_size)
    ):
        return True  # a section heading and its first subheading, both bold (titles excepted)
    if font_face(prev.font) != font_face(row.font) and _ends_short(prev, layout, paragraphs) and not _starts_item(rows[0].text):
        return True  # a heading set only in its own face, and the text after it
    if _starts_item(row.text) or (rules.caption_start.match(row.text) and prev.text[-1:] in TERMINAL):
        return True
    step = min(row.y0 - prev.y0, row.y1 - prev.y1)
    if step > paragraphs.line_gap * layout.pitch * prev.size + _GAP_SLACK * prev.size:
        return True
    em = paragraphs.indent * row.size
    finished = prev.text[-1:] in TERMINAL
    short = _ends_short(prev, layout, paragraphs)
    # Hanging indents (reference lists): an entry's later lines are indented, the next entry is not.
    hanging = following is not None and following.group == row.group and abs(following.x0 - row.x0) < _SAME_INDENT * row.size
    in_item = _starts_item(rows[0].text)
    if row.x0 - prev.x0 > em and row.x0 - left > em and (finished or short) and not hanging and not in_item:
        return True
    first = rows[0]
    # A hanging entry (first line out, the rest in) ends where a row comes back out to its first line.
    back_out = prev.x0 - row.x0 > em and abs(first.x0 - row.x0) < _SAME_INDENT * row.size
    if len(rows) >= 2 and back_out and first.x0 < rows[1].x0 - em:
        return True
    return finished and short and (row.text[:1].isupper() or row.text[:1].isdigit())


def group_blocks(rows: list[Row], layout: Layout, rules: BlockRules) -> list[PdfBlock]:
    """Cut the rows of the document, in reading order, into paragraph, list and table blocks."""
    runs: list[list[Row]] = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else None
        run = runs[-1] if runs else None
        if run is None or row.group != run[-1].group or row.rotated or _breaks_before(run, row, following, layout, rules):
            runs.append([row])
        else:
            run.append(row)
    return _absorb_table_edges([_block(run, rules) for run in runs])


def _block(rows: list[Row], rules: BlockRules) -> PdfBlock:
    """A run of rows as an aside, a table (two rows or more, all of cells), a list (a bullet first) or
    a paragraph; a caption set beside the text is a paragraph, for normalize to take as a caption."""
    if rows[0].aside and not rules.caption_start.match(rows[0].text):
        kind = BlockKind.aside
    elif len(rows) >= 2 and all(row.cells >= TABLE_ROW_MIN_GAPS for row in rows):
        kind = BlockKind.table
    else:
        kind = BlockKind.list if _starts_item(rows[0].text) else BlockKind.paragraph
    return PdfBlock(kind=kind, rows=tuple(rows))


def _absorb_table_edges(blocks: list[PdfBlock]) -> list[PdfBlock]:
    """Header and footer rows of a table with fewer cells (`Approach  CS  Bio`) join the table."""
    def is_edge(block: PdfBlock, table: PdfBlock) -> bool:
        return (
            block.kind is BlockKind.paragraph
            and len(block.rows) <= _TABLE_EDGE_MAX_ROWS
            and all(row.cells > 0 for row in block.rows)
            and block.rows[0].group == table.rows[0].group
        )

    result: list[PdfBlock] = []
    for block in blocks:
        if block.kind is BlockKind.table:
            while result and is_edge(result[-1], block):
                block = replace(block, rows=result.pop().rows + block.rows)
        elif result and result[-1].kind is BlockKind.table and is_edge(block, result[-1]):
            result[-1] = replace(result[-1], rows=result[-1].rows + block.rows)
            continue
        result.append(block)
    return result


# ---------------------------------------------------------------- continuations


def _is_float(block: PdfBlock, layout: Layout, rules: BlockRules) -> bool:
    """Blocks that may sit between the two halves of a paragraph: captions, tables, footnotes, labels."""
    if block.kind in (BlockKind.table, BlockKind.aside) or block.rows[0].rotated:
        return True
    if block.kind is BlockKind.heading:
        return False
    small_print = rules.continuations.small_print * layout.body_size
    return bool(rules.caption_start.match(block.text)) or max(r.size for r in block.rows) < small_print


def _continues(first: PdfBlock, second: PdfBlock, layout: Layout, rules: BlockRules) -> bool:
    """Whether `second` carries on the sentence `first` breaks off at a column or page end.

    `first` must fill its last line and lack terminal punctuation; then a lowercase or numeric
    start, a dangling hyphen, comma or function word, or a first line that is not indented (a
    new paragraph would be) says the sentence goes on.
    """
    if first.kind not in (BlockKind.paragraph, BlockKind.list) or second.kind is not BlockKind.paragraph:
        return False
    if first.rows[0].rotated or second.rows[0].rotated or rules.caption_start.match(second.text):
        return False
    if rules.caption_start.match(first.text) or _is_float(first, layout, rules) != _is_float(second, layout, rules):
        return False  # small print (references, footnotes) only continues in small print
    if abs(first.rows[-1].size - second.rows[0].size) > rules.continuations.max_size_difference * layout.body_size:
        return False
    last = first.rows[-1]
    if _ends_short(last, layout, rules.paragraphs):
        return False
    end = last.text
    start = second.rows[0].text
    if end[-1:] in TERMINAL or _starts_item(start):
        return False
    last_word = end.rsplit(" ", 1)[-1].casefold()
    head = second.rows[0]
    flush = head.x0 - layout.edges[head.group][0] < _FLUSH * head.size
    return (
        start[:1].islower()
        or start[:1].isdigit()
        or start[:1] in "([{"
        or end[-1:] in "-,;–("
        or last_word in _CONTINUING_WORDS
        or (flush and end[-1:].isalnum())
    )


def _runs_on_past(first: PdfBlock, inserts: list[PdfBlock], second: PdfBlock, layout: Layout, rules: BlockRules) -> bool:
    """Whether the sentence `first` breaks off runs on in `second`, past `inserts` of a few words
    set larger (a pull quote): the break is then no paragraph's end but the insert's."""
    if first.kind is not BlockKind.paragraph or second.kind is not BlockKind.paragraph or _is_float(first, layout, rules):
        return False
    last, head = first.rows[-1], second.rows[0]
    same = abs(last.size - head.size) <= rules.continuations.max_size_difference * layout.body_size and font_face(last.font) == font_face(head.font)
    if not same or _ends_short(last, layout, rules.paragraphs) or last.text[-1:] in TERMINAL:
        return False
    larger = last.size + rules.continuations.max_size_difference * layout.body_size
    if not all(
        len(block.text.split()) >= _INSERT_MIN_WORDS and not rules.caption_start.match(block.text) and not pdf_section_number(block.text)
        and all(row.size > larger for row in block.rows)
        for block in inserts
    ):
        return False  # a numbered insert (`II. SOLUTION OF THE WAVE EQUATIONS`) is a heading after a lead-in
    last_word = last.text.rsplit(" ", 1)[-1].casefold()
    first_word = head.text.split(" ", 1)[0]
    if first_word[:1].isupper() and first_word.casefold() in _CONTINUING_WORDS:
        return False  # `… that result are` and then `The Dirac equation …`: a new sentence begins
    return head.text[:1].islower() or last.text[-1:] in "-,;–(" or last_word in _CONTINUING_WORDS


def _inserts_to_asides(blocks: list[PdfBlock], index: int, layout: Layout, rules: BlockRules) -> bool:
    """Make the blocks between `blocks[index]` and the part of its sentence that runs on past them
    asides, where there are such; says whether it did."""
    if blocks[index].kind is not BlockKind.paragraph:
        return False  # only a paragraph's sentence runs on past an insert (`_runs_on_past`)
    for count in range(1, _MOST_INSERTS + 1):
        if index + count + 1 >= len(blocks):
            return False
        inserts = blocks[index + 1 : index + 1 + count]
        if any(block.kind not in (BlockKind.paragraph, BlockKind.heading) for block in inserts):
            return False
        if _runs_on_past(blocks[index], inserts, blocks[index + 1 + count], layout, rules):
            blocks[index + 1 : index + 1 + count] = [replace(block, kind=BlockKind.aside, level=None, evidence=()) for block in inserts]
            return True
    return False


def join_continuations(blocks: list[PdfBlock], layout: Layout, rules: BlockRules) -> list[PdfBlock]:
    """Join paragraphs cut by a column or page end, or by an insert that breaks a sentence; floats
    between the halves end up after the paragraph."""
    blocks = list(blocks)
    index = 0
    while index < len(blocks):
        _inserts_to_asides(blocks, index, layout, rules)
        block = blocks[index]
        look = index + 1
        while (
            look < len(blocks)
            and look - index <= rules.continuations.max_floats_between
            and (_is_float(blocks[look], layout, rules) or _titles_small_print(blocks, look, block, layout, rules))
            and not _is_float(block, layout, rules)
        ):
            look += 1
        if look < len(blocks):
            nxt = blocks[look]
            moved_on = nxt.rows[0].group != block.rows[-1].group or look > index + 1
            # A panel sits inside one column: the sentence it breaks goes on below it.
            in_panel = any(blocks[between].kind is BlockKind.heading for between in range(index + 1, look))
            if moved_on and (not in_panel or nxt.rows[0].group == block.rows[-1].group) and _continues(block, nxt, layout, rules):
                blocks[index] = replace(block, rows=block.rows + nxt.rows)
                del blocks[look]
                if in_panel:
                    _panel_to_asides(blocks, index + 1, look)
                continue
        index += 1
    return blocks


def _titles_small_print(blocks: list[PdfBlock], index: int, before: PdfBlock, layout: Layout, rules: BlockRules) -> bool:
    """Whether `blocks[index]` is a heading over small print in the column of `before` (a side
    panel's title, `Research in context`, over its paragraphs): between the two halves of a
    sentence in that column it is the panel's, no section of the paper."""
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return (
        blocks[index].kind is BlockKind.heading
        and blocks[index].rows[0].group == before.rows[-1].group
        and following is not None
        and following.kind is not BlockKind.heading
        and _is_float(following, layout, rules)
        and not rules.caption_start.match(following.text)
    )


def _panel_to_asides(blocks: list[PdfBlock], start: int, end: int) -> None:
    """Make the heading (a side panel's title) and the paragraphs of the panel that a sentence ran
    on past (`blocks[start:end]`) asides."""
    blocks[start:end] = [
        replace(block, kind=BlockKind.aside, level=None, evidence=()) if block.kind in (BlockKind.heading, BlockKind.paragraph) else block
        for block in blocks[start:end]
    ]


def merge_lists(blocks: list[PdfBlock]) -> list[PdfBlock]:
    """Make consecutive list blocks one list."""
    merged: list[PdfBlock] = []
    for block in blocks:
        if merged and block.kind is BlockKind.list and merged[-1].kind is BlockKind.list:
            merged[-1] = replace(merged[-1], rows=merged[-1].rows + block.rows)
        else:
            merged.append(block)
    return merged
