"""Which lines of a PDF bibliography start at their column's margin, where the bibliography is
set with a hanging indent: each entry's first line at the margin, the lines that carry it on
indented. The PDF reader cuts paragraphs by the gaps between lines, and a bibliography set
tight runs two entries into one paragraph, or breaks one where a line ends short; its indents
show where each entry starts. A bibliography set flush, without one, shows it where a line
ends short of its column's right edge: there an entry ended.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from itertools import pairwise

from pipeline.records.document import Block, TextBox
from pipeline.rules.sources import HangingIndentRules


def lines_at_margin(blocks: list[Block], rules: HangingIndentRules) -> list[tuple[TextBox, bool]] | None:
    """The blocks' printed lines in order, each with whether it starts at its column's margin;
    None where a block has no printed lines (Markdown) or the lines show no hanging indent."""
    lines = [line for block in blocks for line in block.line_boxes]
    if len(lines) < rules.min_lines or any(not block.line_boxes for block in blocks):
        return None
    unit = statistics.median(line.y1 - line.y0 for line in lines)
    indents = _indents(lines, rules.column_gap * unit)
    threshold = _margin_threshold(indents, rules.min_step * unit, rules.max_indent * unit)
    if threshold is None:
        return None
    at_margin = [indent < threshold for indent in indents]
    at_margin_count = sum(at_margin)
    # Most entries run over two lines or more: a bibliography whose lines start at the margin all
    # but a few (a stray line, a wrapped URL) is not set with a hanging indent.
    if at_margin_count < 2 or 2 * (len(lines) - at_margin_count) < at_margin_count:
        return None
    return list(zip(lines, at_margin))


def lines_ending_short(lines: list[TextBox], rules: HangingIndentRules) -> list[bool]:
    """For each line, whether it ends short of its column's right edge (the furthest any of the
    lines of that column on its page reaches) by more than `rules.short_end` line heights."""
    if not lines:
        return []
    unit = statistics.median(line.y1 - line.y0 for line in lines)
    indents = _indents(lines, rules.column_gap * unit)
    columns = [(line.page, round(line.x0 - indent, 1)) for line, indent in zip(lines, indents)]
    edges: dict[tuple[int, float], float] = defaultdict(float)
    for line, column in zip(lines, columns):
        edges[column] = max(edges[column], line.x1)
    return [line.x1 < edges[column] - rules.short_end * unit for line, column in zip(lines, columns)]


def _indents(lines: list[TextBox], column_gap: float) -> list[float]:
    """How far each line starts right of its column's margin: the leftmost start among the
    page's lines that start within `column_gap` of one another (one column's)."""
    starts_by_page: dict[int, set[float]] = defaultdict(set)
    for line in lines:
        starts_by_page[line.page].add(line.x0)
    margins: dict[tuple[int, float], float] = {}
    for page, starts_on_page in starts_by_page.items():
        starts = sorted(starts_on_page)
        margin = previous = starts[0]
        for start in starts:
            if start - previous > column_gap:  # the next column
                margin = start
            margins[(page, start)] = margin
            previous = start
    return [line.x0 - margins[(line.page, line.x0)] for line in lines]


def _margin_threshold(indents: list[float], min_step: float, max_indent: float) -> float | None:
    """Where the lines at the margin end and the indented ones begin: the middle of the widest
    step between the indents up to `max_indent`, if it is at least `min_step`. Lines at the
    margin are not all at its very edge: numbers set flush right (`9.` before `10.`) start a
    little further in."""
    steps = sorted({round(indent * 2) / 2 for indent in indents if indent <= max_indent})
    if len(steps) < 2:
        return None
    low, high = max(pairwise(steps), key=lambda step: step[1] - step[0])
    return (low + high) / 2 if high - low >= min_step else None
