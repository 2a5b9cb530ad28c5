"""Whether a PDF's typographic reading is doubtful, so that `--layout auto` reads it again with
PyMuPDF's layout model beside typography.

Each signal is a sign that headings were lost or invented, measured on the blocks the rules
made, and each threshold is a rule (`[pdf.layout]`): a long paper with hardly a heading below
its title, one heading whose section holds most of the paper, or several headings in a row with
no text between them (a table of contents). A bibliography's heading known by its words alone
(`bibliography_heading`) says nothing of how well typography read the paper: it counts as text.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.extract.pdf.bibliography_heading import named_by_its_words
from pipeline.extract.pdf.records import PdfBlock
from pipeline.records.base import BlockKind
from pipeline.rules.pdf import PdfLayoutRules


def doubtful_reading(blocks: list[PdfBlock], page_count: int, rules: PdfLayoutRules) -> str | None:
    """What makes the reading doubtful, in words, or None where nothing does."""
    if page_count < rules.min_pages:
        return None
    blocks = [replace(block, kind=BlockKind.paragraph) if named_by_its_words(block) else block for block in blocks]
    headings = [index for index, block in enumerate(blocks) if block.kind is BlockKind.heading and (block.level or 0) >= 2]
    if len(headings) < rules.min_body_headings:
        return f"{len(headings)} heading(s) below the title in {page_count} pages"
    words = [len(block.text.split()) if block.kind is not BlockKind.heading else 0 for block in blocks]
    total = sum(words)
    bounds = [*headings, len(blocks)]
    largest = max(sum(words[start:end]) for start, end in zip(bounds, bounds[1:]))
    if total and largest > rules.max_section_share * total:
        return f"one heading's section holds {largest / total:.0%} of the words"
    run = longest = 0
    for block in blocks:
        run = run + 1 if block.kind is BlockKind.heading else 0
        longest = max(longest, run)
    if longest >= rules.max_empty_sections:
        return f"{longest} headings in a row with no text between them"
    return None
