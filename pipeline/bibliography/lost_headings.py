"""Headings the PDF reader left as text about a bibliography: a one-line paragraph that one of
the rules' anchors names whole. A `References` printed in body type comes out a paragraph where
the PDF reader saw no entry under it (`extract/pdf/bibliography_heading.py` makes it a heading
where it does), and the bibliography after it belongs to no section of its own; a
`DATA AVAILABILITY` after the entries ends them."""

from __future__ import annotations

from pipeline.records.base import BlockKind
from pipeline.records.document import Block, Document
from pipeline.rules.heading_matcher import HeadingMatcher
from pipeline.text.entry_text import reads_as_entry
from pipeline.text.heading_key import heading_key

ENTRY_KINDS = frozenset({BlockKind.list, BlockKind.paragraph, BlockKind.blockquote, BlockKind.footnote})
"""The blocks a bibliography's entries are read from: a list's items, or the block whole."""


def lost_anchor(block: Block, document: Document, headings: HeadingMatcher) -> str | None:
    """The name of the anchor a one-line paragraph names whole (`References`, `Acknowledgements`),
    as a heading would; None for any other block."""
    written = document.text[block.char_start : block.char_end]
    if block.kind is not BlockKind.paragraph or "\n" in written:
        return None
    anchor = headings.anchor_for(heading_key(written))
    return anchor.name if anchor is not None else None


def before_lost_heading(blocks: list[Block], document: Document, headings: HeadingMatcher) -> list[Block]:
    """The bibliography's blocks up to a paragraph that is a heading the PDF reader left as text:
    one line that another of the rules' anchors names whole (`DATA AVAILABILITY`,
    `Acknowledgements`). What follows is back matter or a supplement, whose numbered table rows
    and list of its own are no entries of the paper's bibliography."""
    for index, block in enumerate(blocks[1:], start=1):
        anchor = lost_anchor(block, document, headings)
        if anchor is not None and anchor not in headings.rules.references.anchors:
            return blocks[:index]
    return blocks


def under_lost_heading(document: Document, headings: HeadingMatcher) -> list[Block]:
    """The blocks of a bibliography whose heading the PDF reader left as text: after the last
    one-line paragraph that a bibliography anchor names whole, the blocks entries are read from,
    from the first that reads as an entry to the last, where most of them read as one. The
    sections the PDF reader set among them (back matter placed beside the list's first column:
    `Acknowledgements` over `Not applicable.`) are read past, their headings and asides left out;
    a heading whose first block reads as no entry (`Publisher's Note`) ends the list. None where
    the paper prints no such paragraph."""
    rules = headings.rules
    starts = [
        index for index, block in enumerate(document.blocks) if lost_anchor(block, document, headings) in rules.references.anchors
    ]
    if not starts:
        return []
    text = document.text
    blocks: list[Block] = []
    after_heading = False
    for block in document.blocks[starts[-1] + 1 :]:
        if block.kind is BlockKind.heading:
            after_heading = True
        elif block.kind in ENTRY_KINDS:
            reads = reads_as_entry(text[block.char_start : block.char_end], rules.references)
            if after_heading and not reads:
                break
            after_heading = False
            blocks.append(block)
    reads = [reads_as_entry(text[block.char_start : block.char_end], rules.references) for block in blocks]
    if not any(reads):
        return []
    first, end = reads.index(True), len(reads) - reads[::-1].index(True)
    return blocks[first:end] if 2 * sum(reads[first:end]) > end - first else []
