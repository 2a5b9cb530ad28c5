"""Stage 3, chunk: turn a `Document` into sections, paragraphs and chunks, find where its
bibliography's entries are (each kept whole in one chunk), and where a PDF's chunks and sections
are printed. What the chunks cite and point to is the link stage's (`pipeline.link`).

`chunk` runs the passes in order, one line each, one module each; every pass returns a new
tree, plan or list. Every chunk is a contiguous slice of `Document.text`, and every decision is
written on the section it concerns, so `pipeline inspect` can say why the chunks came out as
they did.
"""

from __future__ import annotations

from pipeline.chunk.absorb import absorb_siblings
from pipeline.bibliography.entries import bibliography_nodes, entry_spans
from pipeline.normalize.block_index import BlockIndex
from pipeline.chunk.boxes import chunk_boxes, section_boxes, usual_line_gap
from pipeline.chunk.classify import classify_sections
from pipeline.chunk.ids import assign_ids
from pipeline.chunk.loose_entries import apart_from_the_text_before, beyond_sections, mark_unheaded_bibliography
from pipeline.chunk.plan import caption_chunks, drop_bare_headings, plan_chunks
from pipeline.chunk.records import build_records
from pipeline.chunk.sections import build_sections
from pipeline.chunk.split import enforce_max
from pipeline.chunk.structure import structure_warning
from pipeline.chunk.tables import attach_tables
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.document import Document
from pipeline.rules import Rules
from pipeline.rules.heading_matcher import HeadingMatcher

__all__ = ["chunk"]


def chunk(
    document: Document, rules: Rules, index: BlockIndex | None = None, headings: HeadingMatcher | None = None
) -> ChunkedDocument:
    """Sections, paragraphs and chunks for one normalized document, where its bibliography's
    entries are, and where a PDF's chunks and sections are printed. `index` is the document's
    `BlockIndex` and `headings` the run's `HeadingMatcher` for `rules`, each made here where
    the caller has none to share (with `link`, with the run's other papers)."""
    index = index if index is not None else BlockIndex(document)
    headings = headings if headings is not None else HeadingMatcher(rules)
    nodes = build_sections(document)
    nodes = classify_sections(nodes, rules, headings)
    nodes = absorb_siblings(nodes, rules)
    nodes = assign_ids(nodes)
    entries = beyond_sections(entry_spans(nodes, document, rules, headings), nodes, rules)
    whole = [(entry.char_start, entry.char_end) for entry in entries]
    planned = apart_from_the_text_before(plan_chunks(nodes, rules), entries, index)
    body = drop_bare_headings(enforce_max(planned, document, index, rules, whole))
    captions = enforce_max(caption_chunks(nodes, rules), document, index, rules)
    bibliography = {member.section_id for node in bibliography_nodes(nodes, rules) for member in node.subtree()}
    chunked = mark_unheaded_bibliography(build_records(document, nodes, body + captions, index, bibliography), entries)
    table_chunks, tables = attach_tables(chunked.chunks, document.tables, rules.pdf.tables.caption)
    line_gap = usual_line_gap(index)
    return chunked.model_copy(
        update={
            "entry_spans": entries,
            "chunks": table_chunks,
            "tables": tables,
            "chunk_boxes": chunk_boxes(chunked.chunks, index, line_gap),
            "section_boxes": section_boxes(chunked.sections, index, line_gap),
            "structure_warning": structure_warning(chunked.sections, rules.chunk),
        }
    )
