"""The section tree: one node per heading, nested by level, with the body blocks under it.

Nodes are immutable; every later pass (classify, absorb, ids) returns a new tree, each node
changed by copy (`node._replace(...)`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.records.chunks import SectionNode
from pipeline.records.document import Block, Document
from pipeline.records.base import BlockKind




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
