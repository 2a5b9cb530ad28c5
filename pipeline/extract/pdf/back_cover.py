"""A report's back cover: a last page that holds only a few short lines (the publisher's name, an
address, a web address, an ISBN), set large or bold enough to pass for headings. They head no
section, and stay as paragraphs: an empty section per line would follow the paper's last one.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.extract.pdf.records import PdfBlock
from pipeline.records.base import BlockKind

_MOST_LINES = 12
"""Lines a back cover holds at most: a name, an address, contacts and a number or two."""
_MOST_WORDS = 8
"""Words a back cover's line holds at most: none of them is running text."""


def back_cover_heads_nothing(blocks: list[PdfBlock]) -> list[PdfBlock]:
    """The blocks, those of a back cover (a last page, after pages of text, whose every block
    starts on it and whose lines are few and short) that were read as headings made paragraphs."""
    if not blocks:
        return blocks
    last_page = blocks[-1].rows[-1].page
    first_on_last = next((index for index, block in enumerate(blocks) if block.rows[-1].page == last_page), len(blocks))
    cover = blocks[first_on_last:]
    rows = [row for block in cover for row in block.rows]
    if (
        last_page == blocks[0].rows[0].page
        or any(block.rows[0].page != last_page for block in cover)
        or len(rows) > _MOST_LINES
        or any(len(row.text.split()) > _MOST_WORDS for row in rows)
        or not any(block.kind is BlockKind.heading for block in cover)
    ):
        return blocks
    return blocks[:first_on_last] + [
        replace(block, kind=BlockKind.paragraph, level=None, evidence=()) if block.kind is BlockKind.heading else block
        for block in cover
    ]
