"""The document's blocks in text order, to find those under a span without a full scan."""

from __future__ import annotations

import bisect

from pipeline.models import Block, Document


class BlockIndex:
    def __init__(self, document: Document) -> None:
        self.blocks = sorted(document.blocks, key=lambda block: block.char_start)
        self.starts = [block.char_start for block in self.blocks]

    def overlapping(self, start: int, end: int) -> list[Block]:
        """The blocks that share at least one character with `[start, end)`, in text order."""
        first = max(0, bisect.bisect_right(self.starts, start) - 1)
        last = bisect.bisect_left(self.starts, end)
        return [block for block in self.blocks[first:last] if block.char_start < end and block.char_end > start]
