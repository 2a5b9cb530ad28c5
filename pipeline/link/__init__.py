"""Stage 4, link: what in the paper points where. The paper's own bibliography as records, the
citations its chunks hold, each resolved to its entry or kept with why not, and the
cross-references (`Table 2`, `Section 4.2`) each followed to the chunk it names.

`link` takes the chunk stage's `ChunkedDocument` and runs the passes in order, one line each, one
module each; it changes no section, paragraph or chunk.
"""

from __future__ import annotations

from pipeline.normalize.block_index import BlockIndex
from pipeline.link.citations import cite, outside_entries
from pipeline.link.citations_flattened import flattened_citations
from pipeline.link.citations_superscript import merged, superscript_citations
from pipeline.link.cited_bibliography import Bibliography
from pipeline.link.crossrefs import link_labels
from pipeline.link.references import references
from pipeline.records.base import TypeSource
from pipeline.records.chunked import ChunkedDocument
from pipeline.rules import Rules

__all__ = ["link"]


def link(chunked: ChunkedDocument, rules: Rules, index: BlockIndex | None = None) -> ChunkedDocument:
    """The paper's bibliography, the citations its chunks hold and their cross-references.
    `index` is the document's `BlockIndex` as `chunk` used it, built here where none is given."""
    document, chunks = chunked.document, chunked.chunks
    index = index if index is not None else BlockIndex(document)
    listed = references(chunked.entry_spans, document, index, rules)
    skip = {c.chunk_id for c in chunks if c.in_bibliography}
    # The front matter's superscripts are the authors' affiliation marks.
    front = {s.section_id for s in chunked.sections if s.type_source is TypeSource.front_matter}
    unread = skip | {c.chunk_id for c in chunks if c.section_id in front}
    bibliography = Bibliography(listed, chunks, frozenset(rules.metadata.name_particles))
    # Numbers in brackets are markers to read, and what tells a paper that cites so from one that
    # cites in superscripts: each pass asks for them, found once.
    bracketed = {c.chunk_id: list(rules.citations.brackets.finditer(c.text)) for c in chunks if c.chunk_id not in skip}
    raised = superscript_citations(chunks, document, bibliography, bracketed, unread, rules.citations)
    raised += flattened_citations(chunks, document, bibliography, bracketed, unread, rules.citations)
    cited = cite(chunks, bibliography, bracketed, document.text, rules.citations, superscripted=bool(raised))
    return chunked.model_copy(
        update={
            "references": listed,
            "citations": outside_entries(merged(cited, raised, chunks), chunked.entry_spans, chunks),
            "links": link_labels(chunks, chunked.sections, skip, document.text, rules.links),
        }
    )
