"""The section tree: one node per heading, nested by level, with the body blocks under it.

Nodes are immutable; every later pass (classify, absorb, ids) returns a new tree, each node
changed by copy (`node._replace(...)`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from pipeline.models import Block, BlockKind, Document, SectionType, TypeSource


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


@dataclass
class _Draft:
    """A node being built: blocks are appended as the document is read."""

    heading: Block | None
    heading_text: str | None
    level: int
    items: list[Block] = field(default_factory=list)
    children: list[_Draft] = field(default_factory=list)

    def node(self) -> SectionNode:
        return SectionNode(
            heading=self.heading,
            heading_text=self.heading_text,
            level=self.level,
            items=tuple(self.items),
            children=tuple(child.node() for child in self.children),
        )


def build_sections(document: Document) -> list[SectionNode]:
    """One node per heading, nested by level; text before the first section goes to a front node
    (level 1), which also holds the title."""
    front = _Draft(heading=None, heading_text=None, level=1)
    top: list[_Draft] = []
    stack: list[_Draft] = []
    for block in document.blocks:
        if block.kind != BlockKind.heading:
            (stack[-1] if stack else front).items.append(block)
            continue
        text = document.text[block.char_start : block.char_end]
        if block.level == 1 and front.heading is None and not top:
            front.heading, front.heading_text = block, text
        elif block.level and block.level >= 2:
            draft = _Draft(heading=block, heading_text=text, level=block.level)
            while stack and stack[-1].level >= block.level:
                stack.pop()
            if stack:
                stack[-1].children.append(draft)
            else:
                draft.level = 2  # a sub-heading with no section above it stands at the top
                top.append(draft)
            stack.append(draft)
        else:  # a later H1: a top-level section
            draft = _Draft(heading=block, heading_text=text, level=2)
            top.append(draft)
            stack = [draft]
    has_front = front.heading is not None or front.items
    return [draft.node() for draft in ([front] if has_front else []) + top]
