"""The chunk stage's records: sections, paragraphs and chunks with their provenance, read off
the blocks they cover (offsets, source lines, physical pages) and never guessed."""

from __future__ import annotations

from collections import defaultdict

from pipeline.normalize.block_index import BlockIndex
from pipeline.chunk.plan import ChunkPlan, Decision, Piece
from pipeline.records.chunks import SectionNode
from pipeline.records.base import ChunkSplit, SectionType
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.chunks import Chunk, Paragraph, Section
from pipeline.records.document import Document

_SPLIT_TYPES = {ChunkSplit.caption: SectionType.figure_caption, ChunkSplit.aside: SectionType.meta}
"""The type of a chunk kept out of the body, whatever its section's: a caption describes a figure,
and an aside (an address, a DOI, a margin note) is about the paper, not part of its argument."""


def build_records(
    document: Document, nodes: list[SectionNode], plan: ChunkPlan, index: BlockIndex, bibliography: set[str] = frozenset()
) -> ChunkedDocument:
    """Sections (with every decision taken for them), paragraphs and chunks, in document order;
    `bibliography` are the ids of the sections that hold the paper's own."""
    paragraphs = _paragraphs(nodes)
    id_by_start = {paragraph.char_start: paragraph.paragraph_id for paragraph in paragraphs}
    return ChunkedDocument(
        document=document,
        sections=_sections(nodes, plan.decisions, index),
        paragraphs=paragraphs,
        chunks=_chunks(plan.pieces, document, index, id_by_start, bibliography),
    )


def _paragraphs(nodes: list[SectionNode]) -> list[Paragraph]:
    paragraphs = []
    for top in nodes:
        for node in top.subtree():
            for ordinal, block in enumerate(node.items, start=1):
                pages = sorted({span.page for span in block.page_spans})
                paragraphs.append(
                    Paragraph(
                        paragraph_id=f"{node.section_id}-P{ordinal}",
                        section_id=node.section_id,
                        kind=block.kind,
                        char_start=block.char_start,
                        char_end=block.char_end,
                        line_start=block.line_start,
                        line_end=block.line_end,
                        page_start=pages[0] if pages else None,
                        page_end=pages[-1] if pages else None,
                        word_count=block.word_count,
                    )
                )
    return paragraphs


def _sections(nodes: list[SectionNode], planned: tuple[Decision, ...], index: BlockIndex) -> list[Section]:
    decisions: dict[str, list[str]] = defaultdict(list)
    for decision in planned:
        decisions[decision.section_id].append(decision.text)
    sections = []
    for top in nodes:
        for node in top.subtree():
            own = node.own_blocks or node.items
            start, end = own[0].char_start, own[-1].char_end
            pages, line_start, line_end, _ = index.provenance(start, end)
            sections.append(
                Section(
                    section_id=node.section_id,
                    parent_id=node.parent_id,
                    level=node.level,
                    heading=node.heading_text,
                    heading_path=list(node.heading_path),
                    section_type=node.section_type,
                    type_source=node.type_source,
                    type_rule=node.type_rule,
                    anchor=node.anchor,
                    absorbed_into=node.absorbed_into,
                    word_count=node.body_words(),
                    char_start=start,
                    char_end=end,
                    line_start=line_start,
                    line_end=line_end,
                    page_start=pages[0] if pages else None,
                    page_end=pages[-1] if pages else None,
                    decisions=[*node.decisions, *decisions[node.section_id]],
                )
            )
    return sections


def _chunks(
    pieces: tuple[Piece, ...], document: Document, index: BlockIndex, id_by_start: dict[int, str], bibliography: set[str]
) -> list[Chunk]:
    """Chunks in text order, `{doc_id}:{ordinal}`."""
    chunks = []
    for ordinal, piece in enumerate(sorted(pieces, key=lambda piece: piece.char_start), start=1):
        pages, line_start, line_end, blocks = index.provenance(piece.char_start, piece.char_end)
        node = piece.node
        chunks.append(
            Chunk(
                chunk_id=f"{document.doc_id}:{ordinal}",
                doc_id=document.doc_id,
                ordinal=ordinal,
                section_id=node.section_id,
                section_type=_SPLIT_TYPES.get(piece.split, node.section_type),
                heading=node.heading_text,
                heading_path=list(node.heading_path),
                text=document.text[piece.char_start : piece.char_end],
                word_count=piece.word_count,  # its blocks' (or units') counts, which sum exactly
                char_start=piece.char_start,
                char_end=piece.char_end,
                line_start=line_start,
                line_end=line_end,
                page_start=pages[0] if pages else None,
                page_end=pages[-1] if pages else None,
                pages=pages,
                paragraph_ids=[id_by_start[block.char_start] for block in blocks if block.char_start in id_by_start],
                absorbed_into=node.within_absorbed,
                split=piece.split,
                in_bibliography=node.section_id in bibliography and piece.split not in _SPLIT_TYPES,
            )
        )
    return chunks
