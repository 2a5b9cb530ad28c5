"""Where each chunk and section is printed: the boxes of the PDF lines its text holds, a run of
lines of one column merged into one box where they touch.

A line belongs to a span when the span holds any of the line's text (`Block.line_boxes` says which
characters each line holds); a line that a size split cuts belongs to both chunks. Markdown has no
boxes, so its chunks get none.
"""

from __future__ import annotations

import statistics

from pipeline.normalize.block_index import BlockIndex
from pipeline.records.base import Box
from pipeline.records.chunks import Chunk, ChunkBox, Section, SectionBox
from pipeline.records.document import TextBox

MERGE_GAP = 0.5
"""Two lines, one under the next, are one run while the space between them is at most this many
of their heights more than the paper's usual space between the lines of a paragraph (none, or a
line's height where it is double-spaced): a caption, a figure or another chunk's line between
them adds a line's height or more."""
MERGE_OVERLAP = 0.5
"""and while they share this share of the narrower line's width: the lines of another column,
or of a side box, share none."""
MERGE_WIDEN = 2.0
"""and while a line widens the run by at most this many line heights to either side (a first
line's indent): a run widened further would cover what is printed beside its earlier lines
(a heading's line beside nothing, but an affiliation beside an author line)."""


def chunk_boxes(chunks: list[Chunk], index: BlockIndex, usual_gap: float) -> list[ChunkBox]:
    """The boxes of every chunk, chunk by chunk, each chunk's in text order; `usual_gap` is the
    paper's (`usual_line_gap`)."""
    return [
        ChunkBox(chunk_id=chunk.chunk_id, page=page, x0=x0, y0=y0, x1=x1, y1=y1)
        for chunk in chunks
        for page, x0, y0, x1, y1 in _runs(_lines_under(index, chunk.char_start, chunk.char_end), usual_gap)
    ]


def section_boxes(sections: list[Section], index: BlockIndex, usual_gap: float) -> list[SectionBox]:
    """The boxes of every section's own text (its span: heading and body, children excluded)."""
    return [
        SectionBox(section_id=section.section_id, page=page, x0=x0, y0=y0, x1=x1, y1=y1)
        for section in sections
        for page, x0, y0, x1, y1 in _runs(_lines_under(index, section.char_start, section.char_end), usual_gap)
    ]


def usual_line_gap(index: BlockIndex) -> float:
    """The median space between a line and the next of the same block below it in its column, in
    points; none where lines touch or overlap."""
    gaps = [
        line.y0 - above.y1
        for block in index.blocks
        for above, line in zip(block.line_boxes, block.line_boxes[1:])
        if line.page == above.page and line.y0 >= above.y0 and min(above.x1, line.x1) > max(above.x0, line.x0)
    ]
    return max(0.0, statistics.median(gaps)) if gaps else 0.0


def _lines_under(index: BlockIndex, start: int, end: int) -> list[TextBox]:
    return [
        line
        for block in index.overlapping(start, end)
        for line in block.line_boxes
        if line.char_start < end and line.char_end > start
    ]


def merge_runs(lines: list[Box], usual_gap: float = 0.0) -> list[Box]:
    """Consecutive lines merged into one box while each is on the page of the one before, below
    it, close under it (`usual_gap` points, the paper's space between lines, and `MERGE_GAP`) and
    in its column, and widens the run little (`MERGE_OVERLAP`, `MERGE_WIDEN`)."""
    return [Box(page=page, x0=x0, y0=y0, x1=x1, y1=y1) for page, x0, y0, x1, y1 in _runs(lines, usual_gap)]


def _runs(lines: list[Box], usual_gap: float) -> list[list]:
    """`merge_runs`' runs, each as [page, x0, y0, x1, y1]."""
    # A run grows as a plain [page, x0, y0, x1, y1] and becomes a `Box` once it ends: a validated
    # record for every line merged is most of this function's cost on a long paper.
    runs: list[list] = []
    last: Box | None = None
    for line in lines:
        if runs and last is not None and _continues_run(runs[-1], last, line, usual_gap):
            run = runs[-1]
            run[1], run[2], run[3], run[4] = min(run[1], line.x0), min(run[2], line.y0), max(run[3], line.x1), max(run[4], line.y1)
        else:
            runs.append([line.page, line.x0, line.y0, line.x1, line.y1])
        last = line
    return runs


def _continues_run(run: list, above: Box, line: Box, usual_gap: float) -> bool:
    """Whether `line`, after `above` in the text, carries on the run of lines that ends with it
    (`run`: its page and extent, [page, x0, y0, x1, y1])."""
    if line.page != above.page or line.y0 < above.y0:
        return False
    height = min(above.y1 - above.y0, line.y1 - line.y0)
    shared = min(above.x1, line.x1) - max(above.x0, line.x0)
    narrower = min(above.x1 - above.x0, line.x1 - line.x0)
    widens = max(run[1] - line.x0, line.x1 - run[3])
    return line.y0 - above.y1 <= usual_gap + MERGE_GAP * height and shared >= MERGE_OVERLAP * narrower and widens <= MERGE_WIDEN * height
