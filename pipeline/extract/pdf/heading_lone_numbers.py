"""Section numbers set on a line of their own above their heading's title (`2.1` over
`Soil sampling`): joined to the title's block, so that the heading keeps its number and the
depth it gives, and the tree does not collapse to one level."""

from __future__ import annotations

import re
from dataclasses import replace

from pipeline.extract.pdf.heading_styles import HeadingRules, heading_style
from pipeline.extract.pdf.records import Layout, PdfBlock
from pipeline.records.base import BlockKind

_LONE_NUMBER = re.compile(r"\d{1,2}(?:\.\d{1,2}){0,3}\.?")
"""A decimal section number and nothing else (`3`, `2.1.`)."""
_NUMBER_STEP = 1.6
"""Line pitches from the number's line down to the title's, at most: further, the number is no part of it."""
_ALIGNED = 1.0
"""Body sizes within which the number starts at its column's left edge, or left of it, as a heading's does."""


def join_lone_numbers(blocks: list[PdfBlock], layout: Layout, rules: HeadingRules) -> list[PdfBlock]:
    """The blocks with every lone section number joined to the block under it, where that block
    looks like a heading (`heading_style`) and starts within a line's step below the number."""
    joined: list[PdfBlock] = []
    for block in blocks:
        number = joined[-1] if joined else None
        if number is not None and _heads(number, block, layout, rules):
            joined[-1] = replace(block, rows=number.rows + block.rows)
            continue
        joined.append(block)
    return joined


def _heads(number: PdfBlock, block: PdfBlock, layout: Layout, rules: HeadingRules) -> bool:
    """Whether `number` is a lone section number that the title `block` stands right under."""
    if number.kind is not BlockKind.paragraph or block.kind is not BlockKind.paragraph or len(number.rows) != 1:
        return False
    row, first = number.rows[0], block.rows[0]
    if not _LONE_NUMBER.fullmatch(row.text.strip()) or (row.page, row.group) != (first.page, first.group):
        return False
    left = layout.edges.get(row.group, (row.x0, row.x1))[0]
    close = 0 < first.y1 - row.y1 <= _NUMBER_STEP * layout.pitch * max(row.size, first.size)
    return close and row.x0 <= left + _ALIGNED * layout.body_size and heading_style(block, layout, rules) is not None
