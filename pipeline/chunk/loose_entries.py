"""The entries that lie beyond the bibliography's sections: a bibliography printed without a
heading (`trailing_entries`), or one carried on at the paper's end after later sections
(`continued_at_end`). Their chunks are the bibliography's (and the link stage reads no citation
in them: an entry cites no other entry)."""

from __future__ import annotations

from dataclasses import replace

from pipeline.bibliography.entries import bibliography_nodes
from pipeline.normalize.block_index import BlockIndex
from pipeline.chunk.plan import ChunkPlan, Decision, piece_of
from pipeline.records.chunks import SectionNode
from pipeline.records.base import ChunkSplit
from pipeline.records.chunked import ChunkedDocument, EntrySpan
from pipeline.rules import Rules


def beyond_sections(entries: list[EntrySpan], nodes: list[SectionNode], rules: Rules) -> list[EntrySpan]:
    """The entries, those that lie after the text of the bibliography's sections marked so: all
    of them where it has none (`trailing_entries`), those that carry it on at the paper's end
    (`continued_at_end`)."""
    ends = [block.char_end for node in bibliography_nodes(nodes, rules) for member in node.subtree() for block in member.body]
    after = max(ends, default=-1)
    return [replace(entry, beyond_sections=True) if entry.char_start >= after else entry for entry in entries]


def mark_unheaded_bibliography(chunked: ChunkedDocument, entries: list[EntrySpan]) -> ChunkedDocument:
    """Where entries lie beyond the bibliography's sections (`beyond_sections`), the chunks that
    lie wholly inside their run are the bibliography's; a chunk that also holds the prose before
    the run is not."""
    beyond = [entry for entry in entries if entry.beyond_sections]
    if not beyond:
        return chunked
    start, end = beyond[0].char_start, beyond[-1].char_end
    inside = [
        chunk.model_copy(update={"in_bibliography": True})
        if start <= chunk.char_start and chunk.char_end <= end and chunk.split is not ChunkSplit.caption
        else chunk
        for chunk in chunked.chunks
    ]
    return chunked.model_copy(update={"chunks": inside})


def apart_from_the_text_before(plan: ChunkPlan, entries: list[EntrySpan], index: BlockIndex) -> ChunkPlan:
    """The plan, the piece that holds the first entry beyond the bibliography's sections (a
    bibliography printed without a heading) cut before it where the entry starts a block: the
    entries are chunks of their own, not the end of the Acknowledgements'."""
    beyond = next((entry for entry in entries if entry.beyond_sections), None)
    if beyond is None:
        return plan
    pieces = list(plan.pieces)
    for position, piece in enumerate(pieces):
        if not piece.char_start < beyond.char_start < piece.char_end:
            continue
        blocks = index.overlapping(piece.char_start, piece.char_end)
        starts = [block.char_start for block in blocks]
        if beyond.char_start not in starts:
            return plan  # the entry starts inside a block: no cut that keeps blocks whole
        cut = starts.index(beyond.char_start)
        before, after = blocks[:cut], blocks[cut:]
        pieces[position : position + 1] = [piece_of(before, piece.node, piece.split), piece_of(after, piece.node, ChunkSplit.bibliography)]
        decision = Decision(piece.node.section_id, "a bibliography without a heading starts a chunk of its own")
        return ChunkPlan(tuple(pieces), plan.decisions + (decision,))
    return plan
