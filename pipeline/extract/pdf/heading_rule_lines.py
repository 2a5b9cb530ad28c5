"""Rule lines drawn above headings: a line in the body's print that a horizontal rule across its
column sets apart from the text above it is marked `Row.ruled_above`, a quiet sign of a heading
(`heading_styles.quiet_sign`) that the paper's other headings must share.

Drawings are read only on the pages where a rule would make a heading of a block (one that is
short and heading-shaped but has no other sign of a heading), as reading a page's drawings costs
more than reading its text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pymupdf

from pipeline.extract.pdf.heading_styles import HeadingRules, decimal_number, heading_style
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.records.base import BlockKind

RuleLine = tuple[float, float, float]
"""A horizontal rule drawn on a page: where it starts and ends across the page and its height
down it, in the page's own coordinates (PyMuPDF's)."""
RulesOnPage = Callable[[int], list[RuleLine]]
"""The rule lines of a page, by its 1-based number."""

_RULE_MAX_THICKNESS = 2.0
"""Points a rule is thick at most: a thin filled rectangle is drawn as a rule; a thicker one is a
box or a shaded band."""
_RULE_MIN_LENGTH = 10
"""A rule is this many times as long as it is thick, or longer."""
_RULE_REACH = 2.5
"""Body sizes from a rule down to the top of the line it sets apart, at most: a rule further up
belongs to something else (a figure, a table's foot)."""
_COLUMN_SLACK = 1.0
"""Body sizes by which a rule may stop short of its column's edges and still span the column."""


def horizontal_rules(page: pymupdf.Page) -> list[RuleLine]:
    """The horizontal rules drawn on an unrotated page: straight lines, and filled rectangles
    thin enough to be drawn as lines. A rotated page gives none: its drawings and its text are
    not measured in one frame."""
    if page.rotation:
        return []
    found = []
    for path in page.get_drawings():
        for item in path["items"]:
            if item[0] == "l" and abs(item[1].y - item[2].y) <= _RULE_MAX_THICKNESS:
                x0, x1 = sorted((item[1].x, item[2].x))
                found.append((x0, x1, (item[1].y + item[2].y) / 2))
            elif item[0] == "re":
                rect = item[1]
                if rect.height <= _RULE_MAX_THICKNESS and rect.width >= _RULE_MIN_LENGTH * max(rect.height, 0.1):
                    found.append((rect.x0, rect.x1, (rect.y0 + rect.y1) / 2))
    return [rule for rule in found if rule[1] - rule[0] >= _RULE_MIN_LENGTH * _RULE_MAX_THICKNESS]


def mark_ruled_rows(blocks: list[PdfBlock], layout: Layout, rules_on: RulesOnPage | None, rules: HeadingRules) -> list[PdfBlock]:
    """The blocks with the first row of each block that a rule across its column sets apart from
    the text above it marked `ruled_above`, where that would make the block heading-shaped."""
    if rules_on is None:
        return blocks
    drawn: dict[int, list[RuleLine]] = {}
    above: dict[tuple[int, int], Row] = {}
    marked = list(blocks)
    for index, block in enumerate(blocks):
        first = block.rows[0]
        key = (first.page, first.group)
        row_above = above.get(key)
        for row in block.rows:
            above[(row.page, row.group)] = row
        if row_above is None or first.box is None or row_above.box is None or first.rotated or not _would_be_heading(block, layout, rules):
            continue
        if first.page not in drawn:
            drawn[first.page] = rules_on(first.page)
        below = blocks[index + 1].rows[0] if index + 1 < len(blocks) else None
        if _ruled_above(first, row_above, below, drawn[first.page], layout):
            marked[index] = replace(block, rows=(replace(first, ruled_above=True), *block.rows[1:]))
    return marked


def _would_be_heading(block: PdfBlock, layout: Layout, rules: HeadingRules) -> bool:
    """Whether a paragraph with no heading style would have one with a rule above it."""
    if block.kind is not BlockKind.paragraph or len(block.rows) > rules.typography.max_rows:
        return False
    # One reading of the block with the rule, not one without and one with: where the rule is
    # its only sign (`quiet_sign` asks colour and a bold number first), the block without it has
    # a style only through a decimal number.
    ruled = replace(block, rows=(replace(block.rows[0], ruled_above=True), *block.rows[1:]))
    style = heading_style(ruled, layout, rules)
    return style is not None and style[4] == "a rule above" and not decimal_number(block)


def _ruled_above(row: Row, row_above: Row, below: Row | None, drawn: list[RuleLine], layout: Layout) -> bool:  # boxes checked by the caller
    """Whether a rule spanning the row's column lies between the row and the line above it, close
    over the row, and no rule lies under the row before the next line (a table's header is ruled
    above and below)."""
    left, right = layout.edges.get(row.group, (row.x0, row.x1))
    slack = _COLUMN_SLACK * layout.body_size
    top, bottom, upper = row.box[1], row.box[3], row_above.box[3]
    spans = [rule for rule in drawn if rule[0] <= left + slack and rule[1] >= right - slack]
    over = any(upper <= y <= top and top - y <= _RULE_REACH * layout.body_size for _, _, y in spans)
    floor = below.box[1] if below is not None and below.box is not None and below.page == row.page else bottom + _RULE_REACH * layout.body_size
    under = any(bottom <= y <= floor for x0, x1, y in drawn if x0 < row.x1 and x1 > row.x0)
    return over and not under
