"""The entries that lie beyond the bibliography's sections: a bibliography printed without a
heading (`trailing_entries`), or one carried on at the paper's end after later sections
(`continued_at_end`). Their chunks are the bibliography's (and the link stage reads no citation
in them: an entry cites no other entry)."""

from __future__ import annotations

from dataclasses import replace

from pipeline.chunk.bibliography import bibliography_nodes
from pipeline.chunk.sections import SectionNode
from pipeline.models import ChunkedDocument, ChunkSplit, EntrySpan
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
