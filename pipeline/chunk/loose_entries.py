"""The chunks and citations of entries that lie beyond the bibliography's sections: a
bibliography printed without a heading (`trailing_entries`), or one carried on at the paper's
end after later sections (`continued_at_end`). Their chunks are the bibliography's, and an entry
cites no other entry."""

from __future__ import annotations

from pipeline.chunk.references import EntrySpan, bibliography_nodes
from pipeline.chunk.sections import SectionNode
from pipeline.models import ChunkedDocument, ChunkSplit, Citation
from pipeline.rules import Rules


def beyond_sections(entries: list[EntrySpan], nodes: list[SectionNode], rules: Rules) -> list[tuple[int, int]]:
    """The entries that lie after the text of the bibliography's sections: all of them where it
    has none (`trailing_entries`), those that carry it on at the paper's end (`continued_at_end`)."""
    ends = [block.char_end for node in bibliography_nodes(nodes, rules) for member in node.subtree() for block in member.body]
    after = max(ends, default=-1)
    return [(entry.char_start, entry.char_end) for entry in entries if entry.char_start >= after]


def mark_unheaded_bibliography(chunked: ChunkedDocument, entries: list[tuple[int, int]]) -> ChunkedDocument:
    """Where entries lie beyond the bibliography's sections (`beyond_sections`), the chunks that
    lie wholly inside their run are the bibliography's; a chunk that also holds the prose before
    the run is not."""
    if not entries:
        return chunked
    start, end = entries[0][0], entries[-1][1]
    inside = [
        chunk.model_copy(update={"in_bibliography": True})
        if start <= chunk.char_start and chunk.char_end <= end and chunk.split is not ChunkSplit.caption
        else chunk
        for chunk in chunked.chunks
    ]
    return chunked.model_copy(update={"chunks": inside})


def outside(citations: list[Citation], entries: list[tuple[int, int]], chunked: ChunkedDocument) -> list[Citation]:
    """The citations that are not inside the run of entries beyond the bibliography's sections
    (`beyond_sections`): a chunk that ends in one holds entries whose years and names read like
    markers (`Smith J (2020)`), and an entry cites no other entry. A bibliography's sections are
    skipped whole, chunk by chunk, and the text between two of them (an appendix) keeps its
    citations."""
    if not entries:
        return citations
    start_of: dict[str, int] = {chunk.chunk_id: chunk.char_start for chunk in chunked.chunks}
    first, last = entries[0][0], entries[-1][1]
    return [
        citation for citation in citations if not first <= start_of[citation.chunk_id] + citation.char_start < last
    ]
