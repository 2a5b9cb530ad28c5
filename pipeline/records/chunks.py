"""The chunk stage's records: sections, paragraphs, chunks and where a PDF prints them.
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import Field

from pipeline.records.base import BlockKind, Box, ChunkSplit, Record, SectionType, TypeSource
from pipeline.records.document import Block


class SourceSpan(Record):
    """Where a section, paragraph or chunk sits: in `Document.text` and in the source file."""

    char_start: int
    char_end: int
    line_start: int | None
    """First source line, 1-based (Markdown); None for PDFs."""
    line_end: int | None
    """Last source line, inclusive."""
    page_start: int | None
    """First physical page, 1-based; None where the source has no pages."""
    page_end: int | None
    """Last physical page, inclusive."""


class Section(SourceSpan):
    """One heading of the paper (or the untitled front matter) and what chunking decided for it."""

    section_id: str
    """`S1, S2, …` in document order; children of a top-level section `S3.1, S3.2, …`."""
    parent_id: str | None
    level: int
    """Normalized level: 1 title/front matter, 2 top-level, 3 child, …"""
    heading: str | None
    """Heading as written (None for front matter that has no heading)."""
    heading_path: list[str]
    section_type: SectionType
    type_source: TypeSource
    type_rule: str | None = None
    """The anchor or pattern rule that typed it, where `type_source` is `anchor` or `classified`."""
    anchor: str | None
    """Name of the strict anchor rule the heading matched, if any (`references`, `methods`)."""
    absorbed_into: str | None
    """Section id of the anchor that absorbed this flat sibling, if any."""
    word_count: int
    """Words of the section's own body, headings and children excluded; its span covers the
    heading and that body."""
    decisions: list[str] = Field(default_factory=list)
    """What the chunker decided here, in words, for `pipeline inspect`."""


class Paragraph(SourceSpan):
    """A body block with its stable id (`S2-P1` is the first paragraph of S2)."""

    paragraph_id: str
    section_id: str
    kind: BlockKind
    word_count: int


class Chunk(SourceSpan):
    """A retrievable piece of a paper whose text is `Document.text[char_start:char_end]`."""

    chunk_id: str
    """`{doc_id}:{ordinal}`."""
    doc_id: str
    ordinal: int
    """1-based position among the paper's chunks."""
    section_id: str
    section_type: SectionType
    heading: str | None
    heading_path: list[str]
    text: str
    word_count: int
    pages: list[int]
    """Every page the chunk's text is on (empty where the source has no pages)."""
    paragraph_ids: list[str]
    absorbed_into: str | None
    """Anchor section id, where the chunk's section was absorbed into a methods/results anchor."""
    split: ChunkSplit
    in_bibliography: bool = False
    """Part of the paper's own bibliography (its References section): `search` leaves it out
    unless asked."""


class ChunkBox(Box):
    """Where part of a PDF chunk's text is printed: a line, or a run of lines of one column
    merged where they touch."""

    chunk_id: str


class SectionBox(Box):
    """Where part of a PDF section's own text (its heading and body, children excluded) is printed."""

    section_id: str


class SectionNode(NamedTuple):
    """A section while the chunker works on it: its heading, blocks and children, and what the
    passes so far decided for it.

    A named tuple rather than a frozen dataclass: the passes copy every node four or five times,
    and a named tuple's copy costs a sixth of `dataclasses.replace`."""

    heading: Block | None
    """The heading block; None for front matter without a title."""
    heading_text: str | None
    level: int
    """1 for the front matter (title and what precedes the first section), 2 top-level, 3 child, …"""
    items: tuple[Block, ...] = ()
    """Body blocks and captions in reading order."""
    children: tuple[SectionNode, ...] = ()
    anchor: str | None = None
    """The strict anchor rule the heading matched (classify)."""
    broad_type: SectionType | None = None
    """The type the anchor or a broad pattern gives the heading (classify); absorption stops at it."""
    broad_rule: str | None = None
    section_type: SectionType = SectionType.other
    type_source: TypeSource = TypeSource.unmatched
    type_rule: str | None = None
    absorbed: bool = False
    """A flat sibling that the anchor above it absorbed (absorb)."""
    section_id: str = ""
    parent_id: str | None = None
    heading_path: tuple[str, ...] = ()
    absorbed_into: str | None = None
    """The anchor that absorbed this section, where it was absorbed (ids)."""
    within_absorbed: str | None = None
    """The anchor that absorbed this section or a section it sits in (ids)."""
    decisions: tuple[str, ...] = ()
    """What the passes decided here, in words, for `pipeline inspect`."""

    @property
    def body(self) -> list[Block]:
        return [block for block in self.items if block.kind not in (BlockKind.caption, BlockKind.aside)]

    @property
    def captions(self) -> list[Block]:
        return [block for block in self.items if block.kind == BlockKind.caption]

    @property
    def asides(self) -> list[Block]:
        return [block for block in self.items if block.kind == BlockKind.aside]

    @property
    def own_blocks(self) -> list[Block]:
        """Heading and body in text order (a title may follow the front matter's first lines)."""
        return sorted(([self.heading] if self.heading else []) + self.body, key=lambda block: block.char_start)

    def subtree(self) -> list[SectionNode]:
        return [self] + [node for child in self.children for node in child.subtree()]

    def subtree_blocks(self) -> list[Block]:
        return [block for node in self.subtree() for block in node.own_blocks]

    def body_words(self) -> int:
        return sum(block.word_count for block in self.body)

    def subtree_words(self) -> int:
        return sum(block.word_count for block in self.subtree_blocks())
