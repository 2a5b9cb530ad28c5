"""Which spans of text become chunks: H1/H2 are hard splits; a section over the target with
sub-sections is split at them, and small neighbours of one type are merged back; every caption
is a chunk of its own, and so is each page's run of asides."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.records.chunks import SectionNode
from pipeline.records.base import BlockKind, ChunkSplit
from pipeline.records.document import Block
from pipeline.normalize.block_index import BLOCK_SEPARATOR
from pipeline.rules import Rules


@dataclass(frozen=True, slots=True)
class Piece:
    """A planned chunk: a span of the document text and the section it starts in."""

    char_start: int
    char_end: int
    node: SectionNode
    split: ChunkSplit
    word_count: int
    body_words: int
    """Words outside headings: a piece with none is a bare heading, never a chunk of its own."""


@dataclass(frozen=True, slots=True)
class Decision:
    """Something a planning pass decided for a section, in words."""

    section_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    pieces: tuple[Piece, ...]
    decisions: tuple[Decision, ...] = ()

    def __add__(self, other: ChunkPlan) -> ChunkPlan:
        return ChunkPlan(self.pieces + other.pieces, self.decisions + other.decisions)

    @staticmethod
    def joined(plans: list[ChunkPlan]) -> ChunkPlan:
        """The plans one after another (in one step: adding them up copies the first ones again
        for every plan added, which a paper of thousands of sections feels)."""
        return ChunkPlan(
            tuple(piece for plan in plans for piece in plan.pieces),
            tuple(decision for plan in plans for decision in plan.decisions),
        )


def piece_of(blocks: list[Block], node: SectionNode, split: ChunkSplit) -> Piece:
    return Piece(
        char_start=blocks[0].char_start,
        char_end=blocks[-1].char_end,
        node=node,
        split=split,
        word_count=sum(block.word_count for block in blocks),
        body_words=sum(block.word_count for block in blocks if block.kind != BlockKind.heading),
    )


def plan_chunks(nodes: list[SectionNode], rules: Rules) -> ChunkPlan:
    """Each top-level section planned on its own: H1/H2 are hard splits."""
    return ChunkPlan.joined([_plan(node, ChunkSplit.front if node.level == 1 else ChunkSplit.h2, rules) for node in nodes])


def _plan(node: SectionNode, split: ChunkSplit, rules: Rules) -> ChunkPlan:
    """Pieces for one section: whole when small enough or a leaf, else split at its children."""
    blocks = node.subtree_blocks()
    if not blocks:
        return ChunkPlan(())
    words = sum(block.word_count for block in blocks)
    target = rules.chunk.target_max_words
    if words <= target or not node.children:
        return ChunkPlan((piece_of(blocks, node, split),))
    decision = Decision(node.section_id, f"soft split at {len(node.children)} sub-sections: {words} words > {target}")
    parts: list[ChunkPlan] = [ChunkPlan((piece_of(node.own_blocks, node, split),))] if node.own_blocks else []
    parts.extend(_plan(child, ChunkSplit.h3_soft, rules) for child in node.children)
    parts = [part for part in parts if part.pieces]
    decisions = (decision,) + tuple(decision for part in parts for decision in part.decisions)
    return ChunkPlan(tuple(_merge_fragments([list(part.pieces) for part in parts], target)), decisions)


def _joined(first: Piece, second: Piece) -> Piece:
    """`first` and `second` as one piece, in `first`'s section; but a bare heading joined to a
    piece of another type (an Abstract heading whose sections came out below it) gives it no
    type, so the piece stays in `second`'s section."""
    bare_heading_of_another_type = first.body_words == 0 and first.node.section_type != second.node.section_type
    return Piece(
        char_start=first.char_start,
        char_end=second.char_end,
        node=second.node if bare_heading_of_another_type else first.node,
        split=first.split,
        word_count=first.word_count + second.word_count,
        body_words=first.body_words + second.body_words,
    )


def _merge_fragments(parts: list[list[Piece]], target: int) -> list[Piece]:
    """Merge adjacent whole sub-sections while the merged piece stays within `target` words.

    A sub-section that was itself split keeps its pieces; a bare heading always joins the
    piece after it. Pieces of different types are not merged: the chunk would carry the first
    one's type.
    """
    pieces: list[Piece] = []
    current: Piece | None = None
    for part in parts:
        if current is not None and (
            current.body_words == 0
            or (
                len(part) == 1
                and current.word_count + part[0].word_count <= target
                and current.node.section_type == part[0].node.section_type
            )
        ):
            part = [_joined(current, part[0])] + part[1:]
            current = None
        if current is not None:
            pieces.append(current)
        if len(part) == 1:
            current = part[0]
        else:
            pieces.extend(part[:-1])
            current = part[-1]
    if current is not None:
        pieces.append(current)
    return pieces


def drop_bare_headings(plan: ChunkPlan) -> ChunkPlan:
    """A section with no text of its own and no sub-section that has some (`Supporting
    Information`, a title with nothing under it before the first section) is no chunk: a bare
    heading answers no query and crowds real hits. It stays in the sections, with this said."""
    kept = tuple(piece for piece in plan.pieces if piece.body_words > 0)
    dropped = tuple(
        Decision(piece.node.section_id, "no text of its own: no chunk (the heading stays among the sections)")
        for piece in plan.pieces
        if piece.body_words == 0
    )
    return ChunkPlan(kept, plan.decisions + dropped)


def caption_chunks(nodes: list[SectionNode], rules: Rules) -> ChunkPlan:
    """Every caption is a chunk of its own, and so is every page's run of asides, kept out of the
    body text around them."""
    every = [node for top in nodes for node in top.subtree()]
    target = rules.chunk.target_max_words
    return ChunkPlan(
        tuple(piece_of([block], node, ChunkSplit.caption) for node in every for block in node.captions)
        + tuple(piece_of(run, node, ChunkSplit.aside) for node in every for run in _aside_runs(node.asides, target))
    )


def _aside_runs(asides: list[Block], target: int) -> list[list[Block]]:
    """The asides in runs printed on one page and laid out one after the other, each within
    `target` words: a side column of one-line notes (an editor, a funder, the dates received and
    accepted) is one chunk about the paper, not ten of a word or two that answer nothing alone."""
    runs: list[list[Block]] = []
    for block in asides:
        run = runs[-1] if runs else None
        if (
            run is not None
            and _first_page(run[-1]) == _first_page(block)
            and block.char_start == run[-1].char_end + len(BLOCK_SEPARATOR)
            and sum(aside.word_count for aside in run) + block.word_count <= target
        ):
            run.append(block)
        else:
            runs.append([block])
    return runs


def _first_page(block: Block) -> int | None:
    return block.page_spans[0].page if block.page_spans else None
