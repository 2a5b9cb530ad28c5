"""The document's blocks in text order, to find those under a span without a full scan."""

from __future__ import annotations

import bisect
import re
from functools import cached_property
from typing import NamedTuple

from pipeline.records.base import BlockKind
from pipeline.records.document import Block, Document

# Blocks whose text keeps one line of the source a line (normalize joins the lines of the others
# into one, and records where each joined line began in `Document.line_starts`): a span inside
# one of either kind has lines of its own.
_KINDS_KEEPING_LINES = frozenset({BlockKind.list, BlockKind.table, BlockKind.code, BlockKind.front_matter, BlockKind.equation})
_LINE_BREAK = re.compile("\n")

BLOCK_SEPARATOR = "\n\n"
"""What stands between two blocks in `Document.text`."""


class Provenance(NamedTuple):
    """Where a span of the document's text comes from."""

    pages: list[int]
    """Physical pages, in order (empty where the source has no pages)."""
    line_start: int | None
    line_end: int | None
    """Source lines, 1-based and inclusive (None for PDFs)."""
    blocks: list[Block]
    """The blocks that share at least one character with the span, in text order."""


class BlockIndex:
    def __init__(self, document: Document) -> None:
        self.text = document.text
        self.blocks = sorted(document.blocks, key=lambda block: block.char_start)
        self.starts = [block.char_start for block in self.blocks]
        self.line_starts = document.line_starts

    @cached_property
    def newlines(self) -> list[int]:
        """Where the text's line breaks are, so that counting the lines before a span inside a
        long list (a bibliography's) does not scan the list from its start for every entry."""
        return [line_break.start() for line_break in _LINE_BREAK.finditer(self.text)]

    def _breaks(self, start: int, end: int) -> int:
        """`text.count("\\n", start, end)`, for `start <= end`."""
        return bisect.bisect_left(self.newlines, end) - bisect.bisect_left(self.newlines, start)

    def _joined(self, start: int, end: int) -> int:
        """How many joined lines begin in `(start, end]` (`Document.line_starts`)."""
        return bisect.bisect_right(self.line_starts, end) - bisect.bisect_right(self.line_starts, start)

    def overlapping(self, start: int, end: int) -> list[Block]:
        """The blocks that share at least one character with `[start, end)`, in text order."""
        first = max(0, bisect.bisect_right(self.starts, start) - 1)
        # Most spans (an entry of a bibliography, a piece of a paragraph) lie in one block whole:
        # found with that one search.
        if first < len(self.blocks) and start < end <= self.blocks[first].char_end and self.blocks[first].char_start <= start:
            if first + 1 == len(self.blocks) or self.starts[first + 1] >= end:
                return [self.blocks[first]]
        last = bisect.bisect_left(self.starts, end)
        return [block for block in self.blocks[first:last] if block.char_start < end and block.char_end > start]

    def provenance(self, start: int, end: int) -> Provenance:
        """The pages the text of `[start, end)` is on, its first and last source line, and the
        blocks under it."""
        blocks = self.overlapping(start, end)
        line_start, line_end = self._lines(blocks, start, end)
        return Provenance(_pages(blocks, start, end), line_start, line_end, blocks)

    def _lines(self, blocks: list[Block], start: int, end: int) -> tuple[int | None, int | None]:
        """The first and last source line of the text of `[start, end)`: a block's own where the
        span covers it, the span's own lines where it is cut out of a block (entries of a
        bibliography set one a line, a long paragraph's sentences, a list's items)."""
        if len(blocks) == 1:  # most spans lie in one block
            return (None, None) if blocks[0].line_start is None else self._lines_in(blocks[0], start, end)
        spans = [self._lines_in(block, start, end) for block in blocks if block.line_start is not None]
        return min((first for first, _ in spans), default=None), max((last for _, last in spans), default=None)

    def _lines_in(self, block: Block, start: int, end: int) -> tuple[int, int]:
        """The first and last source line of the part of `block` in `[start, end)`."""
        first, last = block.line_start, block.line_end
        if start > block.char_start or end < block.char_end:
            lines_before = self._breaks if block.kind in _KINDS_KEEPING_LINES else self._joined
            if start > block.char_start:
                first = min(block.line_end, block.line_start + lines_before(block.char_start, start))
            if end < block.char_end:
                last = min(block.line_end, block.line_start + lines_before(block.char_start, end - 1))
        return first, last


def _pages(blocks: list[Block], start: int, end: int) -> list[int]:
    """The physical pages the text of `[start, end)` is on, in order, given the blocks under it."""
    return sorted({span.page for block in blocks for span in block.page_spans if span.char_start < end and span.char_end > start})
