"""A bibliography's heading known by its words and by what follows it, not by its print.

Typography finds a heading by its size, weight or capitals. Some journals set `References` in
the small print of their back matter, in a face whose name does not say it is bold: no
typographic test can tell that line from text. Its words can: a line alone that one of the
rules' bibliography anchors names whole (`References`, `Literature cited`, `Bibliography`),
followed by a line that reads as a bibliography entry (a label `[1]`, a number `1.` or an
author's name, and a year), heads the bibliography whatever its print. The same line over a
paragraph of text (a table's row `References` over its values) heads nothing.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.extract.pdf.heading_styles import HeadingRules, numbering_depth
from pipeline.extract.pdf.headings import DEEPEST_LEVEL, TOP_LEVEL
from pipeline.extract.pdf.records import PdfBlock
from pipeline.records.base import BlockKind
from pipeline.rules.sources import ReferenceRules
from pipeline.text.entry_text import reads_as_entry
from pipeline.text.heading_key import heading_key

_ENTRY_KINDS = (BlockKind.paragraph, BlockKind.list)
EVIDENCE = "names the bibliography over a line that reads as an entry"
"""What `pipeline inspect` says made such a line a heading."""


def mark_bibliography_headings(blocks: list[PdfBlock], rules: HeadingRules) -> list[PdfBlock]:
    """The blocks with every line that names the bibliography and is followed by an entry made a
    heading: a paragraph of that one line, or the first line of a block whose next line reads as
    an entry (the heading set tight over its list), cut off the rest."""
    marked: list[PdfBlock] = []
    for index, block in enumerate(blocks):
        if block.kind is not BlockKind.paragraph or not _names_bibliography(block.rows[0].text, rules):
            marked.append(block)
        elif len(block.rows) > 1 and reads_as_entry(block.rows[1].text, rules.references):
            marked += [_heading(replace(block, rows=block.rows[:1])), replace(block, rows=block.rows[1:])]
        elif len(block.rows) == 1 and _entry_follows(blocks, index, rules.references):
            marked.append(_heading(block))
        else:
            marked.append(block)
    return marked


def _names_bibliography(line: str, rules: HeadingRules) -> bool:
    key = heading_key(line)
    return bool(key) and any(pattern.fullmatch(key) for pattern in rules.bibliography_anchors)


def _entry_follows(blocks: list[PdfBlock], index: int, references: ReferenceRules) -> bool:
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return following is not None and following.kind in _ENTRY_KINDS and reads_as_entry(following.text, references)


def _heading(block: PdfBlock) -> PdfBlock:
    depth = numbering_depth(block.text, False)
    level = depth + 1 if depth is not None else TOP_LEVEL
    return replace(
        block,
        kind=BlockKind.heading,
        level=min(DEEPEST_LEVEL, max(TOP_LEVEL, level)),
        evidence=(EVIDENCE,),
    )


def named_by_its_words(block: PdfBlock) -> bool:
    """Whether `block` is a heading this pass made: known by its words, not by its print."""
    return block.kind is BlockKind.heading and block.evidence[:1] == (EVIDENCE,)
