"""Stage 3, chunk: turn a `Document` into sections, paragraphs and chunks.

`chunk` runs the passes in order, one line each, one module each; every pass returns a new
tree or plan. Every chunk is a contiguous slice of `Document.text`, and every decision is
written on the section it concerns, so `pipeline inspect` can say why the chunks came out as
they did.
"""

from __future__ import annotations

from pipeline.chunk.absorb import absorb_siblings
from pipeline.chunk.block_index import BlockIndex
from pipeline.chunk.classify import classify_sections
from pipeline.chunk.ids import assign_ids
from pipeline.chunk.plan import caption_chunks, drop_bare_headings, plan_chunks
from pipeline.chunk.records import build_records
from pipeline.chunk.sections import build_sections
from pipeline.chunk.split import enforce_max
from pipeline.models import ChunkedDocument, Document
from pipeline.rules import Rules

__all__ = ["chunk"]


def chunk(document: Document, rules: Rules) -> ChunkedDocument:
    """Sections, paragraphs and chunks for one normalized document."""
    index = BlockIndex(document)
    nodes = build_sections(document)
    nodes = classify_sections(nodes, rules)
    nodes = absorb_siblings(nodes, rules)
    nodes = assign_ids(nodes)
    body = drop_bare_headings(enforce_max(plan_chunks(nodes, rules), document, index, rules))
    captions = enforce_max(caption_chunks(nodes), document, index, rules)
    return build_records(document, nodes, body + captions, index)
